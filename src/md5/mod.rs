//! The md5 file format (MD5Version 10) and nothing else: text in, plain structs
//! out, and back. These structs mirror the files; the runtime model that the
//! animation and skinning jobs use is built from them in `crate::model`.

mod anim;
mod compat;
mod error;
mod io;
mod lexer;
mod mesh;
mod parser;
mod writer;

pub use anim::parse_anim;
pub use compat::check_anim_fits_mesh;
pub use error::{Location, Md5Error};
pub use io::{read_anim, read_anim_file, read_mesh, read_mesh_file};
pub use mesh::parse_mesh;
pub use writer::{write_anim, write_mesh};

use glam::{Quat, Vec2, Vec3};

use crate::bounds::Bounds;

/// An `.md5mesh` file: a bind-pose skeleton and the meshes skinned to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Md5Mesh {
    pub commandline: String,
    pub joints: Vec<MeshJoint>,
    pub meshes: Vec<Mesh>,
}

/// A joint of the bind pose, in model space (md5 stores bind poses absolute).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshJoint {
    pub name: String,
    /// Index of the parent joint; always smaller than this joint's own index.
    pub parent: Option<u32>,
    pub position: Vec3,
    /// Unit quaternion; `w` is reconstructed as `-sqrt(1 - x² - y² - z²)`.
    pub orientation: Quat,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Material name; the renderer resolves it to a texture file.
    pub shader: String,
    pub verts: Vec<Vert>,
    pub tris: Vec<[u32; 3]>,
    pub weights: Vec<Weight>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vert {
    pub uv: Vec2,
    pub start_weight: u32,
    pub weight_count: u32,
}

/// A vertex position relative to one joint; a vertex is the bias-weighted sum
/// of its weights placed by their joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weight {
    pub joint: u32,
    pub bias: f32,
    pub position: Vec3,
}

/// An `.md5anim` file: a base frame plus, per frame, the components that the
/// hierarchy flags say are animated.
#[derive(Clone, Debug, PartialEq)]
pub struct Md5Anim {
    pub commandline: String,
    pub frame_rate: f32,
    pub num_animated_components: u32,
    pub hierarchy: Vec<HierarchyJoint>,
    /// One model-space bounding box per frame.
    pub bounds: Vec<Bounds>,
    /// Local (parent-relative) pose of every joint before the frame's overrides.
    pub baseframe: Vec<BaseJoint>,
    /// `frames[f]` holds exactly `num_animated_components` floats.
    pub frames: Vec<Vec<f32>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyJoint {
    pub name: String,
    pub parent: Option<u32>,
    /// Which components a frame overrides, in order Tx Ty Tz Qx Qy Qz (bits 0..5).
    pub flags: u8,
    /// Index of this joint's first animated component within a frame.
    pub start_index: u32,
}

impl HierarchyJoint {
    /// How many floats this joint reads from each frame.
    pub fn animated_component_count(&self) -> u32 {
        (self.flags & 0x3f).count_ones()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseJoint {
    pub position: Vec3,
    /// Unit quaternion, `w` reconstructed as for [`MeshJoint::orientation`].
    pub orientation: Quat,
}

/// The md5 convention: files store x, y, z and w is the non-positive root.
pub fn quat_from_xyz(x: f32, y: f32, z: f32) -> Quat {
    let t = 1.0 - x * x - y * y - z * z;
    let w = if t <= 0.0 { 0.0 } else { -t.sqrt() };
    Quat::from_xyzw(x, y, z, w)
}
