//! glTF 2.0 to the runtime model's parts: the only code that sees both
//! the glTF document and runtime types (as `convert` is for md5).
//!
//! What it chooses, where glTF leaves a choice (docs/content.md says it
//! for users):
//! - The model is the skin of the first skinned mesh node of the scene,
//!   with every mesh node drawn with that skin; mesh nodes with another
//!   skin are skipped with a warning. Meshes without a skin hanging under
//!   one of its joints move rigidly with that joint. A file without skins
//!   makes every node that holds a mesh, or has one below it, a joint.
//! - Skinned meshes are placed by the inverse bind matrices (the skinned
//!   mesh node's own transform is ignored, as the specification says), so
//!   that skinning equals glTF's exactly; everything above the joints
//!   (an armature's rotation and scale) is kept.
//! - One runtime mesh per primitive, with its material.
//! - Animations are sampled into frames ([`clips`]).

mod clips;
mod materials;
mod meshes;
mod rig;
mod scene;

use glam::Mat4;

pub use clips::{DEFAULT_SAMPLE_RATE, MAX_CLIP_POSES, MAX_SAMPLE_RATE, MIN_KEY_RATE};
pub use scene::gltf_to_md5;

use crate::anim::{Clip, Skeleton};
use crate::gltf::{GltfError, GltfFile};
use crate::material::MaterialMaps;
use crate::skin::{InfluenceLimit, SkinnedMesh};
use meshes::{read_primitives, skinned_mesh, Primitive, WeightReport};
use rig::Rig;
use scene::{decompose, Nodes};

/// A glTF file's character, before `Model::load_gltf` welds it, builds
/// its levels of detail and measures its clips.
pub struct GltfCharacter {
    pub skeleton: Skeleton,
    /// One per triangle primitive, in the file's order.
    pub meshes: Vec<SkinnedMesh>,
    /// The maps of each material the meshes use, in the order first met.
    pub materials: Vec<MaterialMaps>,
    /// Per mesh, its index into `materials`.
    pub mesh_materials: Vec<usize>,
    pub clips: Vec<Clip>,
    /// What was changed or left out (structure, not images), for the log.
    pub warnings: Vec<String>,
    /// Warnings about images, which the loader reports with the materials'.
    pub image_warnings: Vec<String>,
}

/// The character in `file`, with `limit` joints per vertex.
pub fn read_character(file: &GltfFile, limit: InfluenceLimit) -> Result<GltfCharacter, GltfError> {
    let mut warnings = Vec::new();
    let nodes = Nodes::read(file)?;
    let all: Vec<gltf::Node> = file.document.nodes().collect();
    let scene = file
        .document
        .default_scene()
        .or_else(|| file.document.scenes().next());
    let scene_nodes: Vec<usize> = match scene {
        Some(scene) => {
            let mut order = Vec::new();
            let mut stack: Vec<usize> = scene.nodes().map(|n| n.index()).collect();
            stack.reverse();
            while let Some(node) = stack.pop() {
                order.push(node);
                stack.extend(
                    all[node]
                        .children()
                        .map(|c| c.index())
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev(),
                );
            }
            order
        }
        None => nodes.order.clone(),
    };
    let skin = scene_nodes
        .iter()
        .find_map(|&n| all[n].mesh().and(all[n].skin()));
    let mut drawn = Vec::new();
    for &n in &scene_nodes {
        let node = &all[n];
        if node.mesh().is_none() {
            continue;
        }
        match (node.skin(), &skin) {
            (Some(own), Some(chosen)) if own.index() != chosen.index() => warnings.push(format!(
                "{}: nodes[{n}] (\"{}\") is skinned by skins[{}], the model by skins[{}]; not drawn",
                file.name,
                nodes.names[n],
                own.index(),
                chosen.index()
            )),
            _ => drawn.push(n),
        }
    }
    if drawn.is_empty() {
        return Err(GltfError::new(
            &file.name,
            "",
            "no node of the scene draws a mesh",
        ));
    }
    let rig = Rig::read(file, &nodes, skin.clone(), &drawn)?;
    let mut primitives: Vec<(Primitive, Option<u16>)> = Vec::new();
    let mut morphs = false;
    for &n in &drawn {
        let node = &all[n];
        let skinned = node.skin().is_some();
        let rigid_joint = if skinned {
            None
        } else {
            let joint = std::iter::successors(Some(n), |&p| nodes.parents[p])
                .find_map(|p| rig.joint_of_node[p]);
            if joint.is_none() {
                warnings.push(format!(
                    "{}: nodes[{n}] (\"{}\") has no skin and hangs under no joint; not drawn",
                    file.name, nodes.names[n]
                ));
                continue;
            }
            joint
        };
        morphs |= node
            .mesh()
            .is_some_and(|m| m.primitives().any(|p| p.morph_targets().len() > 0));
        for primitive in read_primitives(file, node, skinned, &mut warnings)? {
            primitives.push((primitive, rigid_joint));
        }
    }
    if morphs {
        warnings.push(format!("{}: morph targets are ignored", file.name));
    }
    // The skin joint that moves the most weight places the skinned meshes.
    let mut slot_weights = vec![0f32; rig.joint_of_slot.len()];
    for (primitive, _) in &primitives {
        for vertex in &primitive.influences {
            for &(slot, weight) in vertex {
                if let Some(total) = slot_weights.get_mut(slot as usize) {
                    *total += weight.max(0.0);
                }
            }
        }
    }
    let reference = (0..slot_weights.len())
        .max_by(|&a, &b| slot_weights[a].total_cmp(&slot_weights[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    let rest = nodes.world(&nodes.rest);
    let (skeleton, mesh_to_bind) = rig.skeleton(&nodes, &rest, reference, &mut warnings);
    let mut report = WeightReport::default();
    let mut meshes = Vec::with_capacity(primitives.len());
    let mut materials = Vec::new();
    let mut mesh_materials = Vec::with_capacity(primitives.len());
    let mut image_warnings = Vec::new();
    // The file's material index (`None`: the default material) of each
    // entry of `materials`.
    let mut material_of: Vec<Option<usize>> = Vec::new();
    for (primitive, rigid_joint) in &primitives {
        let (to_bind, joint) = match rigid_joint {
            None => (
                mesh_to_bind,
                rig.joint_of_slot.get(reference).copied().unwrap_or(0),
            ),
            Some(joint) => {
                let bind = skeleton.bind_pose[*joint as usize];
                let at_rest = decompose(rest[rig.nodes[*joint as usize]]);
                let rest_rigid =
                    Mat4::from_rotation_translation(at_rest.rotation, at_rest.translation);
                (
                    Mat4::from_rotation_translation(bind.rotation, bind.translation)
                        * rest_rigid.inverse()
                        * rest[primitive.node],
                    *joint,
                )
            }
        };
        meshes.push(skinned_mesh(
            file,
            primitive,
            &rig,
            to_bind,
            joint,
            limit,
            &mut report,
        )?);
        let index = match material_of.iter().position(|&m| m == primitive.material) {
            Some(index) => index,
            None => {
                materials.push(materials::material_maps(
                    file,
                    primitive.material,
                    &mut image_warnings,
                ));
                material_of.push(primitive.material);
                materials.len() - 1
            }
        };
        mesh_materials.push(index);
    }
    if report.renormalized > 0 {
        warnings.push(format!(
            "{}: {} vertices' weights summed to between {:.3} and {:.3}, not 1; renormalized",
            file.name, report.renormalized, report.lowest_sum, report.highest_sum
        ));
    }
    if report.weightless > 0 {
        let joint = rig.joint_of_slot.get(reference).map_or(0, |&j| j as usize);
        warnings.push(format!(
            "{}: {} vertices have no weight; bound to joint {}",
            file.name, report.weightless, skeleton.names[joint]
        ));
    }
    let clips = clips::read_clips(file, &nodes, &rig, &rest, &mut warnings)?;
    Ok(GltfCharacter {
        skeleton,
        meshes,
        materials,
        mesh_materials,
        clips,
        warnings,
        image_warnings,
    })
}
