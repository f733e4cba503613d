//! The many-joint character's skeleton, six chains of tubes about a root,
//! and its skinned mesh.

use std::f32::consts::TAU;

use glam::{Quat, Vec2, Vec3};

use super::clips::{anim, curl, sway};
use super::{ManyJoints, CURL_FRAMES, MAX_INFLUENCES, RING, SHADER, SWAY_FRAMES};
use crate::anim::{local_to_model, JointPose, Skeleton};
use crate::md5::{Md5Mesh, Mesh, MeshJoint, Vert, Weight};

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
pub(super) fn md5_quat(q: Quat) -> Quat {
    let q = q.normalize();
    if q.w > 0.0 {
        -q
    } else {
        q
    }
}

/// A joint as the generator knows it.
pub(super) struct Joint {
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    /// Which chain (index into [`CHAINS`]); `None` for the root.
    pub(super) chain: Option<usize>,
    /// Position along its chain, 0 for the first joint.
    pub(super) index: usize,
    /// Joints in its chain.
    pub(super) chain_len: usize,
    pub(super) bind_local: JointPose,
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
        commandline: format!("md5crowd synthetic::many_joints: {} joints", skeleton.len()),
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
