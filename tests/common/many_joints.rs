//! A synthetic md5 character with many joints and up to 8 influences per
//! vertex: the test subject for skeletons far larger than the crowdling's.
//!
//! The skeleton is a root with six chains of tubes ("tentacles"): a spine
//! going up, two legs and a tail from the root, two arms from high on the
//! spine. With the default 110 joints the spine is 32 joints long and the
//! arms hang off its 24th joint, so the deepest joint has 41 ancestors.
//! Every bone is a tube of two 8-vertex rings; each ring's vertices take 1
//! to 8 weights (half of them 5-8) from the ring's joint, the bone's other
//! end and the joint's ancestors, with linear falloff, summing to 1. The
//! material names no texture file (the renderer warns once and uses grey).
//!
//! Two clips bend every chain: `sway` (a travelling wave about each joint's
//! local Y, the root bobbing and turning; the tail holds still, so its
//! joints have no animated components) and `curl` (tips curling about local
//! Z and rolling, the spine stretching: translations animated too). Bounds
//! are the skinned mesh's box at each frame.
//!
//! Used by the tests (`common::many_joints`) and by
//! `cargo run --release --example make_many_joints -- OUT_DIR [JOINTS]`.
//! Deterministic: the same joint count gives the same files.

use std::f32::consts::TAU;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use glam::{Quat, Vec2, Vec3};
use md5crowd::anim::{local_to_model, JointPose, Skeleton};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{
    write_anim, write_mesh, BaseJoint, HierarchyJoint, Md5Anim, Md5Mesh, Mesh, MeshJoint, Vert,
    Weight,
};
use md5crowd::model::clip_from_md5;

/// The joint count the tests use.
pub const DEFAULT_JOINTS: usize = 110;
/// Most weights a vertex gets.
pub const MAX_INFLUENCES: usize = 8;
pub const MESH_FILE: &str = "many_joints.md5mesh";
/// The material: no file of that name exists, so the renderer uses grey.
pub const SHADER: &str = "textures/none/many_joints_untextured";
/// Vertices per ring.
const RING: usize = 8;
/// Frame 0 repeated as the last frame, Doom 3's looping convention.
const SWAY_FRAMES: usize = 9;
const CURL_FRAMES: usize = 7;

/// The character in memory: the mesh and its clips, by name.
pub struct ManyJoints {
    pub mesh: Md5Mesh,
    pub clips: Vec<(String, Md5Anim)>,
}

/// The files [`write_many_joints`] wrote.
pub struct WrittenSubject {
    pub mesh: PathBuf,
    /// One per clip, in [`ManyJoints::clips`] order.
    pub anims: Vec<PathBuf>,
}

/// Writes `many_joints.md5mesh`, `sway.md5anim` and `curl.md5anim` for a
/// character of `joints` joints (at least 1) into `dir`, creating it.
pub fn write_many_joints(dir: &Path, joints: usize) -> io::Result<WrittenSubject> {
    let subject = many_joints(joints);
    write_subject(dir, &subject, MESH_FILE)
}

/// [`write_many_joints`] with the tubes cut into `meshes` md5 meshes of
/// about as many triangles each, each with a material of its own (the
/// names a renderer draws apart), and every length times `scale` (20: as
/// tall as the shipped character): a character as exporters write one with
/// many parts. The mesh file is `many_parts_JOINTS.md5mesh`.
pub fn write_many_parts(
    dir: &Path,
    joints: usize,
    meshes: usize,
    scale: f32,
) -> io::Result<WrittenSubject> {
    let mut subject = many_joints(joints);
    let whole = subject.mesh.meshes.remove(0);
    subject.mesh.meshes = split_mesh(&whole, meshes.max(1));
    scale_subject(&mut subject, scale);
    write_subject(dir, &subject, &format!("many_parts_{joints}.md5mesh"))
}

/// Writes `subject` into `dir` (creating it): its mesh as `mesh_file`,
/// each clip as `NAME.md5anim`.
pub fn write_subject(
    dir: &Path,
    subject: &ManyJoints,
    mesh_file: &str,
) -> io::Result<WrittenSubject> {
    fs::create_dir_all(dir)?;
    let mesh = dir.join(mesh_file);
    fs::write(&mesh, write_mesh(&subject.mesh))?;
    let mut anims = Vec::new();
    for (name, anim) in &subject.clips {
        let path = dir.join(format!("{name}.md5anim"));
        fs::write(&path, write_anim(anim))?;
        anims.push(path);
    }
    Ok(WrittenSubject { mesh, anims })
}

/// Every length of `subject` times `scale`: joint and weight positions,
/// clip translations (base frame and animated components) and bounds.
pub fn scale_subject(subject: &mut ManyJoints, scale: f32) {
    for joint in &mut subject.mesh.joints {
        joint.position *= scale;
    }
    for weight in subject.mesh.meshes.iter_mut().flat_map(|m| &mut m.weights) {
        weight.position *= scale;
    }
    for (_, anim) in &mut subject.clips {
        for base in &mut anim.baseframe {
            base.position *= scale;
        }
        for bounds in &mut anim.bounds {
            *bounds = Bounds {
                min: bounds.min * scale,
                max: bounds.max * scale,
            };
        }
        for joint in &anim.hierarchy {
            // Translations come first among a joint's animated components.
            let translations = (joint.flags & 0b111).count_ones() as usize;
            for frame in &mut anim.frames {
                let first = joint.start_index as usize;
                for component in &mut frame[first..first + translations] {
                    *component *= scale;
                }
            }
        }
    }
}

/// `mesh`'s triangles in `parts` runs, each a mesh holding the vertices
/// (and their weights) its triangles use.
fn split_mesh(mesh: &Mesh, parts: usize) -> Vec<Mesh> {
    let per_part = mesh.tris.len().div_ceil(parts).max(1);
    mesh.tris
        .chunks(per_part)
        .enumerate()
        .map(|(part, tris)| {
            let mut remap = vec![u32::MAX; mesh.verts.len()];
            let mut out = Mesh {
                shader: format!("{SHADER}_{part}"),
                verts: Vec::new(),
                tris: Vec::with_capacity(tris.len()),
                weights: Vec::new(),
            };
            for tri in tris {
                out.tris.push(tri.map(|v| {
                    let v = v as usize;
                    if remap[v] == u32::MAX {
                        remap[v] = out.verts.len() as u32;
                        let vert = mesh.verts[v];
                        let first = vert.start_weight as usize;
                        let weights = &mesh.weights[first..first + vert.weight_count as usize];
                        out.verts.push(Vert {
                            start_weight: out.weights.len() as u32,
                            ..vert
                        });
                        out.weights.extend_from_slice(weights);
                    }
                    remap[v]
                }));
            }
            out
        })
        .collect()
}

/// How many joints the longest root-to-tip path holds.
pub fn depth(mesh: &Md5Mesh) -> usize {
    let mut depths: Vec<usize> = Vec::with_capacity(mesh.joints.len());
    for joint in &mesh.joints {
        let depth = joint.parent.map_or(1, |p| depths[p as usize] + 1);
        depths.push(depth);
    }
    depths.into_iter().max().unwrap_or(0)
}

/// One chain of the skeleton.
struct ChainSpec {
    name: &'static str,
    /// Share of the non-root joints.
    share: f32,
    /// Where it hangs: `None` the root, `Some(f)` the spine joint at fraction `f`.
    on_spine: Option<f32>,
    /// Model-space direction of its first bone.
    direction: Vec3,
    /// Length of the whole chain.
    length: f32,
    /// Bind-pose bend per joint about local Z (radians).
    curl: f32,
    radius: f32,
}

const CHAINS: [ChainSpec; 6] = [
    ChainSpec {
        name: "spine",
        share: 0.3,
        on_spine: None,
        direction: Vec3::Z,
        length: 1.3,
        curl: 0.01,
        radius: 0.13,
    },
    ChainSpec {
        name: "leg_l",
        share: 0.14,
        on_spine: None,
        direction: Vec3::new(0.25, 0.05, -1.0),
        length: 1.1,
        curl: -0.015,
        radius: 0.1,
    },
    ChainSpec {
        name: "leg_r",
        share: 0.14,
        on_spine: None,
        direction: Vec3::new(-0.25, 0.05, -1.0),
        length: 1.1,
        curl: 0.015,
        radius: 0.1,
    },
    ChainSpec {
        name: "tail",
        share: 0.14,
        on_spine: None,
        direction: Vec3::new(0.0, -1.0, -0.2),
        length: 1.0,
        curl: 0.04,
        radius: 0.075,
    },
    ChainSpec {
        name: "arm_l",
        share: 0.14,
        on_spine: Some(0.75),
        direction: Vec3::new(1.0, 0.1, 0.1),
        length: 0.9,
        curl: -0.03,
        radius: 0.075,
    },
    ChainSpec {
        name: "arm_r",
        share: 0.14,
        on_spine: Some(0.75),
        direction: Vec3::new(-1.0, 0.1, 0.1),
        length: 0.9,
        curl: 0.03,
        radius: 0.075,
    },
];

/// Normalized and in the hemisphere the format reconstructs (`w <= 0`).
/// The library has the reader's side only (`md5::quat_from_xyz`), and the
/// writer flips just the orientations it prints as quaternions (mesh joints,
/// baseframe). A frame's components are plain floats it prints as they are,
/// so their x, y, z must come from the `w <= 0` quaternion already, or a
/// reader rebuilds a different rotation. Applied to the mesh joints and the
/// baseframe too, so that what is kept in memory is what a reader gets back
/// (and the bounds, decoded from memory, are those of the files).
fn md5_quat(q: Quat) -> Quat {
    let q = q.normalize();
    if q.w > 0.0 {
        -q
    } else {
        q
    }
}

/// A joint as the generator knows it.
struct Joint {
    name: String,
    parent: Option<usize>,
    /// Which chain (index into [`CHAINS`]); `None` for the root.
    chain: Option<usize>,
    /// Position along its chain, 0 for the first joint.
    index: usize,
    /// Joints in its chain.
    chain_len: usize,
    bind_local: JointPose,
}

/// Builds the character of `joints` joints (clamped to at least 1; at most
/// [`Skeleton::MAX_JOINTS`], as joint indices are 16-bit in the runtime).
pub fn many_joints(joints: usize) -> ManyJoints {
    assert!(
        joints <= Skeleton::MAX_JOINTS,
        "{joints} joints: at most {} (16-bit joint indices)",
        Skeleton::MAX_JOINTS
    );
    let skeleton = skeleton(joints.max(1));
    let parents: Vec<Option<u16>> = skeleton
        .iter()
        .map(|j| j.parent.map(|p| p as u16))
        .collect();
    let locals: Vec<JointPose> = skeleton.iter().map(|j| j.bind_local).collect();
    let mut bind = vec![JointPose::IDENTITY; locals.len()];
    local_to_model(&parents, &locals, &mut bind);

    let mesh = Md5Mesh {
        commandline: format!(
            "md5crowd tests/common/many_joints.rs: {} joints",
            skeleton.len()
        ),
        joints: skeleton
            .iter()
            .zip(&bind)
            .map(|(joint, pose)| MeshJoint {
                name: joint.name.clone(),
                parent: joint.parent.map(|p| p as u32),
                position: pose.translation,
                orientation: md5_quat(pose.rotation),
            })
            .collect(),
        meshes: vec![if skeleton.len() > 1 {
            tubes(&skeleton, &bind)
        } else {
            root_marker(&bind[0])
        }],
    };
    let clips = vec![
        (
            "sway".to_owned(),
            anim(&skeleton, &parents, &mesh, "sway", 8.0, SWAY_FRAMES, sway),
        ),
        (
            "curl".to_owned(),
            anim(&skeleton, &parents, &mesh, "curl", 6.0, CURL_FRAMES, curl),
        ),
    ];
    ManyJoints { mesh, clips }
}

fn skeleton(joints: usize) -> Vec<Joint> {
    let mut out = vec![Joint {
        name: "root".to_owned(),
        parent: None,
        chain: None,
        index: 0,
        chain_len: 0,
        bind_local: JointPose::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, 1.2)),
    }];
    // Shares of the non-root joints; the remainder goes to the first chains.
    let rest = joints - 1;
    let mut counts: Vec<usize> = CHAINS
        .iter()
        .map(|c| (c.share * rest as f32).floor() as usize)
        .collect();
    let left = rest - counts.iter().sum::<usize>();
    for i in 0..left {
        counts[i % CHAINS.len()] += 1;
    }

    // Model-space bind rotations so far, to aim each chain's first bone.
    let mut model_rotation = vec![Quat::IDENTITY];
    let mut spine: Vec<usize> = Vec::new();
    for (chain, (spec, &count)) in CHAINS.iter().zip(&counts).enumerate() {
        if count == 0 {
            continue;
        }
        let attach = match spec.on_spine {
            Some(fraction) if !spine.is_empty() => {
                spine[((spine.len() - 1) as f32 * fraction).round() as usize]
            }
            _ => 0,
        };
        let segment = spec.length / count as f32;
        for index in 0..count {
            let parent = if index == 0 { attach } else { out.len() - 1 };
            let parent_rotation = model_rotation[parent];
            let bind_local = if index == 0 {
                // Turn the parent's frame so that local +X runs along `direction`.
                let aim = Quat::from_rotation_arc(Vec3::X, spec.direction.normalize());
                let rotation = (parent_rotation.inverse() * aim).normalize();
                let offset = parent_rotation.inverse() * (spec.direction.normalize() * segment);
                JointPose::new(rotation, offset)
            } else {
                JointPose::new(
                    Quat::from_rotation_z(spec.curl),
                    Vec3::new(segment, 0.0, 0.0),
                )
            };
            model_rotation.push((parent_rotation * bind_local.rotation).normalize());
            if chain == 0 {
                spine.push(out.len());
            }
            out.push(Joint {
                name: format!("{}_{index:02}", spec.name),
                parent: Some(parent),
                chain: Some(chain),
                index,
                chain_len: count,
                bind_local,
            });
        }
    }
    out
}

/// One tube per bone: a ring of [`RING`] vertices at each end, skinned to
/// up to [`MAX_INFLUENCES`] joints around it.
fn tubes(skeleton: &[Joint], bind: &[JointPose]) -> Mesh {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    let mut weights = Vec::new();
    let bones = skeleton.len() - 1;
    for (bone, (joint_index, joint)) in skeleton.iter().enumerate().skip(1).enumerate() {
        let parent = joint.parent.expect("only the root has no parent");
        let spec = &CHAINS[joint.chain.expect("a chain joint")];
        let (start, end) = (bind[parent].translation, bind[joint_index].translation);
        let axis = (end - start).normalize();
        // u x w = axis, so the rings run counter-clockwise about the bone.
        let u = axis.any_orthonormal_vector();
        let w = axis.cross(u);
        let taper = |i: usize| spec.radius * (1.0 - 0.6 * i as f32 / joint.chain_len as f32);
        let first = verts.len() as u32;
        for (ring, (center, at, other, radius)) in [
            (start, parent, joint_index, taper(joint.index)),
            (end, joint_index, parent, taper(joint.index + 1)),
        ]
        .into_iter()
        .enumerate()
        {
            let influences = influence_joints(skeleton, at, other);
            for k in 0..RING {
                let angle = TAU * k as f32 / RING as f32;
                let position = center + radius * (angle.cos() * u + angle.sin() * w);
                // Every count from 1 to 8 on each ring (5 is odd, so k * 5
                // runs through all residues mod 8).
                let wanted = 1 + (bone * 7 + ring * 3 + k * 5) % MAX_INFLUENCES;
                let count = wanted.min(influences.len());
                verts.push(Vert {
                    uv: Vec2::new(
                        k as f32 / RING as f32,
                        (bone + ring) as f32 / (bones + 1) as f32,
                    ),
                    start_weight: weights.len() as u32,
                    weight_count: count as u32,
                });
                // Linear falloff: biases count, count-1, ..., 1 over their sum.
                let total = (count * (count + 1) / 2) as f32;
                let mut sum = 0.0f32;
                for (i, &influence) in influences[..count].iter().enumerate() {
                    let bias = if i + 1 == count {
                        1.0 - sum
                    } else {
                        (count - i) as f32 / total
                    };
                    sum += bias;
                    weights.push(Weight {
                        joint: influence as u32,
                        bias,
                        position: bind[influence].inverse().transform_point(position),
                    });
                }
            }
        }
        // Clockwise seen from outside, as Doom 3 winds them.
        for k in 0..RING as u32 {
            let next = (k + 1) % RING as u32;
            let (a, a_next) = (first + k, first + next);
            let (b, b_next) = (first + RING as u32 + k, first + RING as u32 + next);
            tris.push([a, b, a_next]);
            tris.push([a_next, b, b_next]);
        }
    }
    Mesh {
        shader: SHADER.to_owned(),
        verts,
        tris,
        weights,
    }
}

/// A skeleton of the root alone has no bone for a tube: a cone about the
/// root instead, every vertex on the root, so that one joint still draws.
fn root_marker(root: &JointPose) -> Mesh {
    let apex = root.translation + Vec3::new(0.0, 0.0, 0.5);
    let ring = (0..RING).map(|k| {
        let angle = TAU * k as f32 / RING as f32;
        root.translation + 0.3 * Vec3::new(angle.cos(), angle.sin(), 0.0)
    });
    let positions: Vec<Vec3> = ring.chain([apex]).collect();
    let verts = (0..positions.len())
        .map(|i| Vert {
            uv: Vec2::new(i as f32 / positions.len() as f32, 0.0),
            start_weight: i as u32,
            weight_count: 1,
        })
        .collect();
    let weights = positions
        .iter()
        .map(|&position| Weight {
            joint: 0,
            bias: 1.0,
            position: root.inverse().transform_point(position),
        })
        .collect();
    // Clockwise seen from outside (the ring runs counter-clockwise seen from the apex).
    let apex_index = RING as u32;
    let tris = (0..RING as u32)
        .map(|k| [k, (k + 1) % RING as u32, apex_index])
        .collect();
    Mesh {
        shader: SHADER.to_owned(),
        verts,
        tris,
        weights,
    }
}

/// Up to [`MAX_INFLUENCES`] distinct joints for a vertex at joint `at` on
/// the bone to `other`: `at`, `other`, then `at`'s ancestors, then the
/// joints that follow `at` down its chain.
fn influence_joints(skeleton: &[Joint], at: usize, other: usize) -> Vec<usize> {
    let mut out = vec![at];
    let push = |joint: usize, out: &mut Vec<usize>| {
        if out.len() < MAX_INFLUENCES && !out.contains(&joint) {
            out.push(joint);
        }
    };
    push(other, &mut out);
    let mut ancestor = skeleton[at].parent;
    while let Some(joint) = ancestor {
        push(joint, &mut out);
        ancestor = skeleton[joint].parent;
    }
    let mut child = at;
    while let Some(next) = skeleton
        .iter()
        .position(|j| j.parent == Some(child) && j.chain == skeleton[child].chain)
    {
        push(next, &mut out);
        child = next;
    }
    out
}

/// A clip's local pose of one joint at `phase` in [0, 1): `None` keeps the
/// bind pose (the joint is not animated).
type PoseFn = fn(&Joint, f32) -> Option<JointPose>;

fn sway(joint: &Joint, phase: f32) -> Option<JointPose> {
    let bind = joint.bind_local;
    let wave = TAU * phase;
    match joint.chain {
        None => Some(JointPose::new(
            Quat::from_rotation_z(0.25 * wave.sin()) * bind.rotation,
            bind.translation + Vec3::new(0.0, 0.0, 0.06 * wave.sin()),
        )),
        Some(3) => None,
        Some(chain) => {
            let angle = 0.12 * (wave + chain as f32 + 0.35 * joint.index as f32).sin();
            Some(JointPose::new(
                bind.rotation * Quat::from_rotation_y(angle),
                bind.translation,
            ))
        }
    }
}

fn curl(joint: &Joint, phase: f32) -> Option<JointPose> {
    let bind = joint.bind_local;
    let amount = 0.5 - 0.5 * (TAU * phase).cos();
    let chain = joint.chain?;
    let along = (joint.index + 1) as f32 / joint.chain_len as f32;
    let rotation = bind.rotation
        * Quat::from_rotation_z(0.25 * amount * along)
        * Quat::from_rotation_x(0.3 * amount);
    let translation = if chain == 0 && joint.index > 0 {
        bind.translation * (1.0 + 0.1 * amount)
    } else {
        bind.translation
    };
    Some(JointPose::new(rotation, translation))
}

fn anim(
    skeleton: &[Joint],
    parents: &[Option<u16>],
    mesh: &Md5Mesh,
    name: &str,
    frame_rate: f32,
    frame_count: usize,
    pose: PoseFn,
) -> Md5Anim {
    // Poses of the distinct frames; the last frame repeats the first.
    let cycle = frame_count - 1;
    let poses: Vec<Vec<Option<JointPose>>> = (0..frame_count)
        .map(|f| {
            let phase = (f % cycle) as f32 / cycle as f32;
            skeleton.iter().map(|j| pose(j, phase)).collect()
        })
        .collect();
    let mut hierarchy = Vec::with_capacity(skeleton.len());
    let mut start_index = 0;
    for (index, joint) in skeleton.iter().enumerate() {
        let flags = match poses[0][index] {
            None => 0,
            Some(_) if joint.chain.is_none() || (name == "curl" && joint.chain == Some(0)) => 0x3f,
            Some(_) => 0x38,
        };
        hierarchy.push(HierarchyJoint {
            name: joint.name.clone(),
            parent: joint.parent.map(|p| p as u32),
            flags,
            start_index,
        });
        start_index += u32::from(flags).count_ones();
    }
    let frames = poses
        .iter()
        .map(|frame| {
            let mut values = Vec::with_capacity(start_index as usize);
            for (joint, pose) in hierarchy.iter().zip(frame) {
                let Some(pose) = pose else { continue };
                let q = md5_quat(pose.rotation);
                let components = [
                    pose.translation.x,
                    pose.translation.y,
                    pose.translation.z,
                    q.x,
                    q.y,
                    q.z,
                ];
                for (bit, value) in components.into_iter().enumerate() {
                    if joint.flags & (1 << bit) != 0 {
                        values.push(value);
                    }
                }
            }
            values
        })
        .collect();
    let mut anim = Md5Anim {
        commandline: format!("md5crowd tests/common/many_joints.rs: {name}"),
        frame_rate,
        num_animated_components: start_index,
        hierarchy,
        bounds: Vec::new(),
        baseframe: skeleton
            .iter()
            .map(|j| BaseJoint {
                position: j.bind_local.translation,
                orientation: md5_quat(j.bind_local.rotation),
            })
            .collect(),
        frames,
    };
    // Bounds from the frames as a reader decodes them, skinned on the CPU.
    let clip = clip_from_md5(name, &anim);
    let mut model = vec![JointPose::IDENTITY; skeleton.len()];
    anim.bounds = clip
        .frames
        .iter()
        .map(|locals| {
            local_to_model(parents, locals, &mut model);
            // The joints too, so that a mesh without vertices (1 joint)
            // still has a box.
            let mut bounds = model.iter().fold(Bounds::EMPTY, |b, pose| {
                b.union(Bounds::point(pose.translation))
            });
            for m in &mesh.meshes {
                for vert in &m.verts {
                    let first = vert.start_weight as usize;
                    let position: Vec3 = m.weights[first..first + vert.weight_count as usize]
                        .iter()
                        .map(|w| w.bias * model[w.joint as usize].transform_point(w.position))
                        .sum();
                    bounds = bounds.union(Bounds::point(position));
                }
            }
            // A little slack for rounding on the way through the files.
            Bounds {
                min: bounds.min - Vec3::splat(1e-3),
                max: bounds.max + Vec3::splat(1e-3),
            }
        })
        .collect();
    anim
}
