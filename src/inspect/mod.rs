//! `md5crowd inspect`: what is in a set of md5 files, as text or JSON.
//!
//! The reports are plain data: [`inspect_files`] and [`inspect_declarations`]
//! gather them (`gather`), [`to_text`] and [`to_json`] write them out
//! (`render`), so each side reads without the other.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::anim::GroundMotionSource;
use crate::crowd::ImpostorLayout;
use crate::gltf::GltfError;
use crate::material::Shading;
use crate::md5::Md5Error;

mod gather;
mod render;

pub use gather::{inspect_declarations, inspect_files, summed_lods};
pub use render::{to_json, to_text};

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FileReport {
    Mesh(MeshReport),
    Anim(AnimReport),
    /// A game folder's model or entityDef declaration that draws an md5
    /// character (`inspect --game`).
    Declaration(DeclarationReport),
}

/// What a declaration draws, as `md5crowd --game DIR NAME` would load it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeclarationReport {
    pub name: String,
    /// "model" or "entityDef".
    pub declared_as: &'static str,
    /// The mesh's path in the game.
    pub mesh: String,
    /// Clip name to the file it plays (the first the declaration names).
    pub anims: BTreeMap<String, String>,
    pub skin: Option<String>,
    pub offset: [f32; 3],
    /// Its `channel` lines after inheritance, in the form `--channel`
    /// takes (`torso=*Waist`).
    pub channels: Vec<String>,
    /// Where it is declared: the archive (or folder) and the path in it.
    pub source: String,
    pub line: u32,
    /// The impostor atlas of its clips the game holds, with one skin.
    pub impostor: ImpostorReport,
}

#[derive(Clone, Debug, Serialize)]
pub struct MeshReport {
    pub file: String,
    /// "md5" or "gltf".
    pub format: &'static str,
    pub joints: usize,
    pub meshes: Vec<SubmeshReport>,
    pub verts: usize,
    pub tris: usize,
    pub weights: usize,
    /// Most distinct joints moving one vertex.
    pub max_influences: usize,
    /// Vertices that 4 (the default) or 8 influences truncate.
    pub over4: usize,
    pub over8: usize,
    /// Largest weight that 4 influences drop.
    pub max_dropped_weight: f32,
    /// The levels of detail `Model::load` builds, LOD 0 first, over all
    /// meshes (see [`summed_lods`]).
    pub lods: Vec<LodReport>,
    /// Per level, the most joints per vertex any mesh's level skins with
    /// (`skin::lod_influences`), chosen over the poses of the anims named
    /// in the same call (none: the bind pose, where one is exact).
    pub lod_influences: Vec<usize>,
    /// How many anims those poses came from (the first mesh named gets
    /// the anims that fit it; any other, none).
    pub lod_anims: usize,
    /// The body parts occlusion culling boxes apart (`skin::BodyParts`),
    /// the trunk first.
    pub body_parts: Vec<BodyPartReport>,
    /// The impostor atlas `Model::load` makes of the mesh with the anims
    /// of `lod_anims`, drawn with its own materials (one skin).
    pub impostor: ImpostorReport,
}

/// What an impostor atlas holds (`crowd::ImpostorLayout`), the model drawn
/// alone (its atlas takes the whole `crowd::IMPOSTOR_MEMORY_BUDGET`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ImpostorReport {
    /// View directions: a column of cells each.
    pub views: u32,
    /// Rows of cells: the frames of every slot.
    pub frames: u32,
    /// Frames of each clip baked, whatever the number of clips.
    pub frames_per_clip: u32,
    /// Clips the atlas holds at once, each baked when the crowd first
    /// wants it: at most the model's clips.
    pub slots: u32,
    /// Device memory, every mip level, slot and skin counted.
    pub bytes: u64,
}

impl From<ImpostorLayout> for ImpostorReport {
    fn from(layout: ImpostorLayout) -> ImpostorReport {
        ImpostorReport {
            views: layout.views(),
            frames: layout.frames(),
            frames_per_clip: layout.frames_per_clip,
            slots: layout.slots,
            bytes: layout.bytes(),
        }
    }
}

/// One body part: the joints whose vertices it boxes, parents first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BodyPartReport {
    pub joints: Vec<String>,
}

/// One level of detail of a whole model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LodReport {
    /// Triangles of every mesh at this level.
    pub tris: usize,
    /// The largest of the meshes' errors at this level, in model units.
    pub error: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct SubmeshReport {
    pub shader: String,
    pub verts: usize,
    pub tris: usize,
    pub weights: usize,
    /// Why this mesh's LOD chain stops short of its coarsest target
    /// (`skin::ShortChain`); null when it does not.
    pub lod_note: Option<String>,
    /// Its morph targets (none for md5).
    pub morph_targets: Vec<MorphTargetReport>,
    /// How it is shaded: Doom 3's model for every md5 mesh.
    pub material: Shading,
}

/// One morph target of a mesh.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MorphTargetReport {
    pub name: String,
    /// The vertices it moves (`skin::MorphTarget::moved_vertices`).
    pub vertices: usize,
    /// The clips that animate its weight, for the text.
    #[serde(skip)]
    pub clips: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnimReport {
    pub file: String,
    /// The clip's name: an md5anim's file stem, a glTF animation's own.
    pub name: String,
    /// "md5" or "gltf".
    pub format: &'static str,
    pub joints: usize,
    pub frames: usize,
    pub frame_rate: f32,
    /// Seconds as played: a loop written without its closing frame plays
    /// one frame longer than `frames` says (`anim::close_loop`).
    pub duration: f32,
    pub animated_components: u32,
    /// The animation's channels that animate morph weights (0 for md5).
    pub morph_channels: usize,
    /// Whether the clip loops or plays once, by `anim::loops_by_rule` (the
    /// renderer's `--loop` / `--once` can say otherwise).
    pub loops: bool,
    /// Against the first mesh named in the same call: joint names that differ
    /// (bound by index, as the loader does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_mismatches: Option<Vec<String>>,
    /// Model units per second that the clip carries the character over the
    /// ground, by its root motion or its feet (`anim::ground_motion`).
    pub ground_speed: f32,
    /// Direction of travel times `ground_speed`, in the md5's model space.
    pub ground_velocity: [f32; 3],
    #[serde(skip)]
    pub ground_source: GroundMotionSource,
}

/// Why `inspect` could not read a file.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error(transparent)]
    Md5(#[from] Md5Error),
    #[error(transparent)]
    Gltf(#[from] GltfError),
}
