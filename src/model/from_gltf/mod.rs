//! glTF 2.0 to the runtime model's parts: the only code that sees both
//! the glTF document and runtime types (as `convert` is for md5).
//!
//! What it chooses, where glTF leaves a choice (docs/content.md says it
//! for users):
//! - The model is every mesh node of the scene. The skins those nodes use
//!   are merged into one skeleton: the union of their joints, a node two
//!   skins share being one joint. Meshes without a skin hanging under one
//!   of its joints move rigidly with that joint. A file without skins
//!   makes every node that holds a mesh, or has one below it, a joint.
//! - Skinned meshes are placed by their skin's inverse bind matrices (the
//!   skinned mesh node's own transform is ignored, as the specification
//!   says), so that skinning equals glTF's exactly; everything above the
//!   joints (an armature's rotation and scale) is kept.
//! - One runtime mesh per primitive, with its material.
//! - Morph weights are one set per drawn node whose mesh has targets
//!   ([`morph_targets`]): two nodes drawing one mesh keep their own, as
//!   `node.weights` and animation channels address nodes.
//! - Animations are sampled into frames ([`clips`]); a file without any
//!   whose rest pose is not its bind pose gets one clip, `rest`, of the
//!   nodes' own transforms, as glTF draws it.

mod clips;
mod materials;
mod meshes;
mod morph_targets;
mod morph_weights;
mod rig;
mod scene;
mod warnings;

use glam::Mat4;

pub use clips::{DEFAULT_SAMPLE_RATE, MAX_CLIP_POSES, MAX_SAMPLE_RATE, MIN_KEY_RATE};
pub use scene::gltf_to_md5;

use crate::anim::{Clip, Morphs, Skeleton};
use crate::gltf::{GltfError, GltfFile};
use crate::material::MaterialMaps;
use crate::skin::{InfluenceLimit, SkinnedMesh};
use meshes::{read_primitives, skinned_mesh, Primitive, WeightReport};
use morph_targets::MorphSlots;
use rig::Rig;
use scene::{decompose, Nodes};
use warnings::Warnings;

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
    /// The weights its meshes' morph targets read.
    pub morphs: Morphs,
    /// What was changed or left out (structure, not images), for the log:
    /// one line per kind of joint warning (the full list at debug level).
    pub warnings: Vec<String>,
    /// Warnings about images, which the loader reports with the materials'.
    pub image_warnings: Vec<String>,
}

/// How a primitive moves: with the joints of a skin (its index in
/// `Rig::skins`), or rigidly with one joint.
#[derive(Clone, Copy)]
enum Placement {
    Skinned(usize),
    Rigid(u16),
}

/// The character in `file`, with `limit` joints per vertex.
pub fn read_character(file: &GltfFile, limit: InfluenceLimit) -> Result<GltfCharacter, GltfError> {
    let mut warnings = Warnings::default();
    let nodes = Nodes::read(file)?;
    let drawn = drawn_nodes(file, &nodes)?;
    let mut skins: Vec<gltf::Skin> = Vec::new();
    for node in drawn
        .iter()
        .filter_map(|&n| file.document.nodes().nth(n)?.skin())
    {
        if !skins.iter().any(|s| s.index() == node.index()) {
            skins.push(node);
        }
    }
    let rig = Rig::read(file, &nodes, &skins, &drawn)?;
    let (primitives, slots) = placed_primitives(file, &nodes, &rig, &drawn, &mut warnings.lines)?;
    let references = reference_slots(&rig, &primitives);
    let rest = nodes.world(&nodes.rest);
    let (skeleton, mesh_to_bind) = rig.skeleton(&nodes, &rest, &references, &mut warnings);
    let mut report = WeightReport::default();
    let mut meshes = Vec::with_capacity(primitives.len());
    for (primitive, placement) in &primitives {
        let (to_bind, joint, skin) = match *placement {
            Placement::Skinned(s) => {
                let slots = &rig.skins[s];
                (
                    mesh_to_bind[s],
                    slots.joint_of_slot[references[s]],
                    Some(slots),
                )
            }
            Placement::Rigid(joint) => {
                let bind = skeleton.bind_pose[joint as usize];
                let at_rest = decompose(rest[rig.nodes[joint as usize]]);
                let rest_rigid =
                    Mat4::from_rotation_translation(at_rest.rotation, at_rest.translation);
                let bind = Mat4::from_rotation_translation(bind.rotation, bind.translation);
                (
                    bind * rest_rigid.inverse() * rest[primitive.node],
                    joint,
                    None,
                )
            }
        };
        let mesh = skinned_mesh(file, primitive, skin, to_bind, joint, limit, &mut report)?;
        meshes.push(mesh);
    }
    report.warn(file, &skeleton, &mut warnings.lines);
    let (materials, mesh_materials, image_warnings) =
        materials::of_primitives(file, primitives.iter().map(|(p, _)| p.material));
    let mut clips = clips::read_clips(file, &nodes, &rig, &rest, &slots, &mut warnings)?;
    if clips.is_empty() {
        clips.extend(clips::rest_clip(&rig, &rest, &skeleton));
    }
    Ok(GltfCharacter {
        skeleton,
        meshes,
        materials,
        mesh_materials,
        clips,
        morphs: slots.morphs,
        warnings: warnings.finish(&file.name),
        image_warnings,
    })
}

/// The scene's nodes that hold a mesh, in scene order (every node's, in
/// the file's order of roots, where the file has no scene).
fn drawn_nodes(file: &GltfFile, nodes: &Nodes) -> Result<Vec<usize>, GltfError> {
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
    let drawn: Vec<usize> = scene_nodes
        .into_iter()
        .filter(|&n| all[n].mesh().is_some())
        .collect();
    if drawn.is_empty() {
        return Err(GltfError::new(
            &file.name,
            "",
            "no node of the scene draws a mesh",
        ));
    }
    Ok(drawn)
}

/// The primitives of every drawn node, each with how it moves, and the
/// morph weights of the nodes. A mesh without a skin that hangs under no
/// joint is left out with a warning.
fn placed_primitives(
    file: &GltfFile,
    nodes: &Nodes,
    rig: &Rig,
    drawn: &[usize],
    warnings: &mut Vec<String>,
) -> Result<(Vec<(Primitive, Placement)>, MorphSlots), GltfError> {
    let mut primitives = Vec::new();
    let mut slots = MorphSlots::default();
    for node in drawn.iter().filter_map(|&n| file.document.nodes().nth(n)) {
        let n = node.index();
        let placement = match node.skin() {
            Some(skin) => Placement::Skinned(
                rig.skins
                    .iter()
                    .position(|s| s.skin == skin.index())
                    .expect("every drawn node's skin is in the rig"),
            ),
            None => {
                let joint = std::iter::successors(Some(n), |&p| nodes.parents[p])
                    .find_map(|p| rig.joint_of_node[p]);
                let Some(joint) = joint else {
                    warnings.push(format!(
                        "{}: nodes[{n}] (\"{}\") has no skin and hangs under no joint; not drawn",
                        file.name, nodes.names[n]
                    ));
                    continue;
                };
                Placement::Rigid(joint)
            }
        };
        let first_weight = slots.add_node(file, &node)?;
        let skinned = matches!(placement, Placement::Skinned(_));
        let weights = (first_weight, slots.morphs.names.as_slice());
        for primitive in read_primitives(file, &node, skinned, weights, warnings)? {
            primitives.push((primitive, placement));
        }
    }
    Ok((primitives, slots))
}

/// Per skin of the rig, the joint number that moves the most weight of
/// its primitives: its inverse bind matrix places them.
fn reference_slots(rig: &Rig, primitives: &[(Primitive, Placement)]) -> Vec<usize> {
    rig.skins
        .iter()
        .enumerate()
        .map(|(s, skin)| {
            let mut slot_weights = vec![0f32; skin.joint_of_slot.len()];
            let influences = primitives
                .iter()
                .filter(|(_, placement)| matches!(placement, Placement::Skinned(k) if *k == s))
                .flat_map(|(primitive, _)| primitive.influences.iter().flatten());
            for &(slot, weight) in influences {
                if let Some(total) = slot_weights.get_mut(slot as usize) {
                    *total += weight.max(0.0);
                }
            }
            (0..slot_weights.len())
                .max_by(|&a, &b| slot_weights[a].total_cmp(&slot_weights[b]).then(b.cmp(&a)))
                .unwrap_or(0)
        })
        .collect()
}
