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
//! Used by the tests, by `bench --suite`'s mixed crowd and by
//! `cargo run --release --example make_many_joints -- OUT_DIR [JOINTS]`.
//! Deterministic: the same joint count gives the same files.
//!
//! `skeleton.rs` builds the joints and the tubes, `clips.rs` the two clips;
//! this file writes them out.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::bounds::Bounds;
use crate::md5::{write_anim, write_mesh, Md5Anim, Md5Mesh, Mesh, Vert};

mod clips;
mod skeleton;

pub use skeleton::many_joints;

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
