//! md5crowd's runtime [`Model`] written as glTF, the way Blender's exporter
//! writes a rigged character: everything converted to glTF's space (Y up,
//! facing +Z, metres, counter-clockwise triangles), an "Armature" node
//! (identity) holding the joint hierarchy and the skinned mesh nodes, joint
//! nodes with the bind pose as their local translation and rotation, inverse
//! bind matrices that invert each joint's world matrix in the scene, and one
//! animation per clip with LINEAR translation and rotation keys per joint.
//!
//! The spaces: md5 is Z up, facing +X, left +Y, in inches (0.0254 m); glTF
//! is Y up, facing +Z, left +X, in metres. md5 (x, y, z) is glTF
//! (y, z, x) * 0.0254, a proper rotation and a scale, so rotations map by
//! permuting the quaternion's vector part and cross products keep their
//! sense: a triangle wound clockwise seen from outside in md5 becomes
//! counter-clockwise by swapping two of its corners.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3, Vec4};
use md5crowd::anim::JointPose;
use md5crowd::model::Model;

use super::gltf_write::{
    Channel, GltfBuilder, Interpolation, Layout, Material, Node, Primitive, Property, Type, LINEAR,
    LINEAR_MIPMAP_LINEAR, REPEAT,
};

/// Metres per md5 unit (an inch).
pub const METRES_PER_UNIT: f32 = 0.0254;

/// An md5 model-space point in glTF space (metres).
pub fn md5_to_gltf_point(p: Vec3) -> Vec3 {
    Vec3::new(p.y, p.z, p.x) * METRES_PER_UNIT
}

/// A glTF point (metres) in md5 model space (units).
pub fn gltf_to_md5_point(p: Vec3) -> Vec3 {
    Vec3::new(p.z, p.x, p.y) / METRES_PER_UNIT
}

/// A direction (normal, tangent): the axes permuted, not scaled.
pub fn md5_to_gltf_direction(v: Vec3) -> Vec3 {
    Vec3::new(v.y, v.z, v.x)
}

/// A rotation in md5 space as the same rotation in glTF space.
pub fn md5_to_gltf_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.y, q.z, q.x, q.w)
}

pub fn gltf_to_md5_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.z, q.x, q.y, q.w)
}

/// A rigid md5 pose (rotation, translation in units) as glTF translation
/// (metres) and rotation.
pub fn md5_to_gltf_pose(pose: JointPose) -> (Vec3, Quat) {
    (
        md5_to_gltf_point(pose.translation),
        md5_to_gltf_rotation(pose.rotation),
    )
}

/// What [`model_to_gltf`] writes besides the model itself.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// Per mesh, the PNG its material's baseColorTexture shows (stored in
    /// the buffer); `None` or missing: a material without a texture.
    pub textures: Vec<Option<Vec<u8>>>,
    /// Write TANGENT (md5crowd's tangents, w negated: md5crowd's bitangent
    /// runs along +v, down the image, and glTF's up it, the normal map's
    /// green).
    pub tangents: bool,
}

/// A model as glTF, and where its parts went.
#[derive(Clone, Debug)]
pub struct ConvertedModel {
    pub gltf: GltfBuilder,
}

/// Each mesh's diffuse PNG as the shipped character names it: the mesh's
/// `shader` + ".png" under assets/ (`textures/crowdling_body` for mesh 0),
/// when that file exists.
pub fn shipped_textures(model: &Model) -> Vec<Option<Vec<u8>>> {
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    model
        .meshes
        .iter()
        .map(|mesh| std::fs::read(assets.join(format!("{}.png", mesh.shader))).ok())
        .collect()
}

/// `model` as a glTF document: see the module's comment.
pub fn model_to_gltf(model: &Model, options: &ConvertOptions) -> ConvertedModel {
    let mut gltf = GltfBuilder::new();
    let skeleton = &model.skeleton;
    let joint_count = skeleton.joint_count();

    // Joint nodes: local pose = parent's bind pose inverted, then the
    // joint's (both model space), converted.
    let mut locals = Vec::with_capacity(joint_count);
    let mut joint_nodes = Vec::with_capacity(joint_count);
    for j in 0..joint_count {
        let bind = skeleton.bind_pose[j];
        let local = match skeleton.parents[j] {
            Some(p) => skeleton.bind_pose[p as usize].inverse().then(bind),
            None => bind,
        };
        let (translation, rotation) = md5_to_gltf_pose(local);
        locals.push(Mat4::from_rotation_translation(rotation, translation));
        joint_nodes.push(gltf.node(Node {
            name: Some(skeleton.names[j].clone()),
            translation: Some(translation),
            rotation: Some(rotation),
            ..Node::default()
        }));
        if let Some(p) = skeleton.parents[j] {
            gltf.add_child(joint_nodes[p as usize], joint_nodes[j]);
        }
    }
    let armature = gltf.node(Node::named("Armature"));
    for (parent, &node) in skeleton.parents.iter().zip(&joint_nodes) {
        if parent.is_none() {
            gltf.add_child(armature, node);
        }
    }

    // Each joint's world matrix as a viewer computes it from the nodes
    // (the armature is the identity), inverted.
    let mut worlds: Vec<Mat4> = Vec::with_capacity(joint_count);
    for (parent, &local) in skeleton.parents.iter().zip(&locals) {
        let world = match parent {
            Some(p) => worlds[*p as usize] * local,
            None => local,
        };
        worlds.push(world);
    }
    let ibms: Vec<Mat4> = worlds.iter().map(|w| w.inverse()).collect();
    let ibm_accessor = gltf.matrices(&ibms);
    let skin = gltf.skin("Armature", &joint_nodes, Some(ibm_accessor), Some(armature));

    let sampler = gltf.sampler(Some(LINEAR), Some(LINEAR_MIPMAP_LINEAR), REPEAT, REPEAT);
    for (m, mesh) in model.meshes.iter().enumerate() {
        if mesh.positions.is_empty() || mesh.indices.is_empty() {
            // glTF has no empty accessors: an empty mesh is left out.
            continue;
        }
        let texture = options.textures.get(m).and_then(Option::as_ref).map(|png| {
            let image = gltf.image_in_buffer(&mesh.shader, png, "image/png");
            gltf.texture(image, Some(sampler))
        });
        let material = gltf.material(Material {
            name: Some(mesh.shader.clone()),
            base_color_texture: texture,
            metallic_factor: Some(0.0),
            roughness_factor: Some(1.0),
            ..Material::default()
        });

        let positions: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&p| md5_to_gltf_point(p))
            .collect();
        let normals: Vec<Vec3> = mesh
            .normals
            .iter()
            .map(|&n| md5_to_gltf_direction(n).normalize())
            .collect();
        let mut primitive = Primitive {
            material: Some(material),
            ..Primitive::default()
        };
        primitive = primitive
            .attribute("POSITION", gltf.positions(&positions))
            .attribute("NORMAL", gltf.vec3s(&normals));
        if options.tangents && mesh.tangents.len() == mesh.positions.len() {
            let tangents: Vec<Vec4> = mesh
                .tangents
                .iter()
                .map(|t| {
                    md5_to_gltf_direction(t.truncate())
                        .normalize()
                        .extend(if t.w < 0.0 { 1.0 } else { -1.0 })
                })
                .collect();
            primitive = primitive.attribute("TANGENT", gltf.vec4s(&tangents));
        }
        primitive = primitive.attribute("TEXCOORD_0", gltf.vec2s(&mesh.uvs));
        let sets = if mesh.weights.iter().any(|w| w[4..].iter().any(|&x| x > 0.0)) {
            2
        } else {
            1
        };
        for set in 0..sets {
            let slots = set * 4..set * 4 + 4;
            let joints = if joint_count <= 256 {
                let flat: Vec<u8> = mesh
                    .joints
                    .iter()
                    .flat_map(|j| j[slots.clone()].iter().map(|&x| x as u8))
                    .collect();
                gltf.accessor(&flat, Type::Vec4, Layout::VERTEX)
            } else {
                let flat: Vec<u16> = mesh
                    .joints
                    .iter()
                    .flat_map(|j| j[slots.clone()].to_vec())
                    .collect();
                gltf.accessor(&flat, Type::Vec4, Layout::VERTEX)
            };
            let weights: Vec<f32> = mesh
                .weights
                .iter()
                .flat_map(|w| w[slots.clone()].to_vec())
                .collect();
            let weights = gltf.accessor(&weights, Type::Vec4, Layout::VERTEX);
            primitive = primitive
                .attribute(&format!("JOINTS_{set}"), joints)
                .attribute(&format!("WEIGHTS_{set}"), weights);
        }
        // Clockwise (a, b, c) in md5 is counter-clockwise (a, c, b).
        let flipped: Vec<u32> = mesh
            .indices
            .chunks_exact(3)
            .flat_map(|t| [t[0], t[2], t[1]])
            .collect();
        primitive.indices = Some(if mesh.positions.len() <= u16::MAX as usize {
            let short: Vec<u16> = flipped.iter().map(|&i| i as u16).collect();
            gltf.indices_u16(&short)
        } else {
            gltf.indices_u32(&flipped)
        });
        let name = format!("mesh_{m}");
        let gltf_mesh = gltf.mesh(&name, &[primitive], None);
        let node = gltf.node(Node {
            name: Some(name),
            mesh: Some(gltf_mesh),
            skin: Some(skin),
            ..Node::default()
        });
        gltf.add_child(armature, node);
    }

    for clip in &model.clips {
        let times: Vec<f32> = (0..clip.frames.len())
            .map(|f| f as f32 / clip.frame_rate)
            .collect();
        let input = gltf.times(&times);
        let mut channels = Vec::with_capacity(2 * joint_count);
        for (j, &node) in joint_nodes.iter().enumerate() {
            let mut translations = Vec::with_capacity(clip.frames.len());
            let mut rotations: Vec<Quat> = Vec::with_capacity(clip.frames.len());
            for frame in &clip.frames {
                let (t, mut r) = md5_to_gltf_pose(frame[j]);
                // Each key on the side of the last one, so that slerp
                // takes the short way whatever the reader does.
                if rotations.last().is_some_and(|last| last.dot(r) < 0.0) {
                    r = -r;
                }
                translations.push(t);
                rotations.push(r);
            }
            channels.push(Channel {
                node,
                property: Property::Translation,
                input,
                output: gltf.vec3_output(&translations),
                interpolation: Interpolation::Linear,
            });
            channels.push(Channel {
                node,
                property: Property::Rotation,
                input,
                output: gltf.quat_output(&rotations),
                interpolation: Interpolation::Linear,
            });
        }
        gltf.animation(&clip.name, &channels);
    }

    gltf.scene("Scene", &[armature]);
    ConvertedModel { gltf }
}

/// `model` (the shipped character) written as `dir/crowdling.glb` by
/// [`model_to_gltf`], with its diffuse images ([`shipped_textures`]).
pub fn write_shipped_glb(model: &Model, dir: &Path) -> PathBuf {
    let options = ConvertOptions {
        textures: shipped_textures(model),
        tangents: false,
    };
    model_to_gltf(model, &options)
        .gltf
        .write_glb(dir, "crowdling")
}
