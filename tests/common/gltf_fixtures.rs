//! glTF files for the loader's tests, each with the values a loader should
//! find in it, worked out here from the numbers put in (glam math), never
//! by reading the file back. Points a loader reports are in md5 model space
//! (Z up, facing +X, units of 0.0254 m): see `md5_to_gltf`.

use std::f32::consts::{FRAC_PI_2, PI};
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use image::{Rgba, RgbaImage};
use serde_json::json;

use super::gltf_write::{
    glb, png_bytes, Channel, GltfBuilder, Interpolation, Layout, Material, Node, Primitive,
    Property, Type, NEAREST, REPEAT,
};
use super::md5_to_gltf::{gltf_to_md5_point, gltf_to_md5_rotation};

/// A small PNG-able image, different for each `seed`.
pub fn test_image(width: u32, height: u32, seed: u8) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, y| {
        Rgba([
            (x * 37) as u8 ^ seed,
            (y * 53) as u8,
            seed.wrapping_mul(7),
            255,
        ])
    })
}

/// Triangles of `quads` (corner lists a, b, c, d going round) wound
/// counter-clockwise seen from the side `normal` points to.
fn triangles_facing(positions: &[Vec3], quads: &[[u16; 4]], normal: Vec3) -> Vec<u16> {
    let mut indices = Vec::new();
    for q in quads {
        for [a, b, c] in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            let [pa, pb, pc] = [a, b, c].map(|i| positions[i as usize]);
            if (pb - pa).cross(pc - pa).dot(normal) >= 0.0 {
                indices.extend([a, b, c]);
            } else {
                indices.extend([a, c, b]);
            }
        }
    }
    indices
}

// ---------------------------------------------------------------------------
// a. Blender-style arm

/// A 3-joint arm as Blender exports one: authored Z up in centimetres under
/// an "Armature" node that turns it Y up (-90 degrees about X) and scales it
/// by 0.01; inverse bind matrices of the joints in the armature's space
/// (the armature left out); the skinned mesh node beside the armature, at
/// the scene's root.
pub struct BlenderStyle {
    pub glb: Vec<u8>,
    /// "upper_arm", "forearm", "hand", parent before child.
    pub joint_names: [&'static str; 3],
    /// Each joint's origin in the bind pose, md5 units.
    pub joint_origins_md5: Vec<Vec3>,
    /// Each vertex in the bind pose, md5 units.
    pub bind_positions_md5: Vec<Vec3>,
    /// "wave": 3 LINEAR rotation keys on the forearm at 0, 1 and 2 s.
    pub wave_duration: f32,
    /// The time `wave_positions_md5` is at (0.5 s).
    pub wave_time: f32,
    /// Each vertex skinned at `wave_time` (glTF skinning, then md5 units).
    pub wave_positions_md5: Vec<Vec3>,
}

pub fn blender_style() -> BlenderStyle {
    let root = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.01),
        Quat::from_rotation_x(-FRAC_PI_2),
        Vec3::ZERO,
    );
    // Bones along their local +Y, as Blender's are; centimetres.
    let upper_arm = (
        Vec3::new(20.0, 0.0, 140.0),
        Quat::from_rotation_z(-FRAC_PI_2),
    );
    let forearm_at = |extra: f32| {
        (
            Vec3::new(0.0, 20.0, 0.0),
            Quat::from_rotation_z(15f32.to_radians() + extra),
        )
    };
    let hand = (Vec3::new(0.0, 20.0, 0.0), Quat::IDENTITY);
    let matrix = |(t, r): (Vec3, Quat)| Mat4::from_rotation_translation(r, t);
    // Joint matrices in the armature's space with the forearm turned by
    // `extra` radians beyond its bind pose.
    let worlds = |extra: f32| {
        let w0 = matrix(upper_arm);
        let w1 = w0 * matrix(forearm_at(extra));
        let w2 = w1 * matrix(hand);
        [w0, w1, w2]
    };
    let bind = worlds(0.0);
    let ibms = bind.map(|w| w.inverse());

    // Rows across the arm: mid upper arm, elbow (50/50), mid forearm,
    // wrist (50/50), mid hand; two vertices per row, 2 cm either side.
    // (joint, distance along it, influences as (joint, weight))
    type Row = (usize, f32, Vec<(u16, f32)>);
    let rows: [Row; 5] = [
        (0, 10.0, vec![(0, 1.0)]),
        (1, 0.0, vec![(0, 0.5), (1, 0.5)]),
        (1, 10.0, vec![(1, 1.0)]),
        (2, 0.0, vec![(1, 0.5), (2, 0.5)]),
        (2, 10.0, vec![(2, 1.0)]),
    ];
    let mut positions = Vec::new();
    let mut influences = Vec::new();
    let mut uvs = Vec::new();
    for (r, (joint, along, weights)) in rows.iter().enumerate() {
        for side in [-2.0f32, 2.0] {
            positions.push(bind[*joint].transform_point3(Vec3::new(side, *along, 0.0)));
            influences.push(weights.clone());
            uvs.push(Vec2::new(
                if side < 0.0 { 0.0 } else { 1.0 },
                r as f32 / 4.0,
            ));
        }
    }
    let quads: Vec<[u16; 4]> = (0..4u16)
        .map(|r| [2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2])
        .collect();
    let indices = triangles_facing(&positions, &quads, Vec3::Z);

    let mut b = GltfBuilder::new();
    let hand_node = b.node(Node {
        name: Some("hand".into()),
        translation: Some(hand.0),
        rotation: Some(hand.1),
        ..Node::default()
    });
    let forearm_node = b.node(Node {
        name: Some("forearm".into()),
        translation: Some(forearm_at(0.0).0),
        rotation: Some(forearm_at(0.0).1),
        children: vec![hand_node],
        ..Node::default()
    });
    let upper_node = b.node(Node {
        name: Some("upper_arm".into()),
        translation: Some(upper_arm.0),
        rotation: Some(upper_arm.1),
        children: vec![forearm_node],
        ..Node::default()
    });
    let armature = b.node(Node {
        name: Some("Armature".into()),
        rotation: Some(Quat::from_rotation_x(-FRAC_PI_2)),
        scale: Some(Vec3::splat(0.01)),
        children: vec![upper_node],
        ..Node::default()
    });
    let ibm = b.matrices(&ibms);
    let skin = b.skin(
        "Armature",
        &[upper_node, forearm_node, hand_node],
        Some(ibm),
        None,
    );
    let joints: Vec<u8> = influences
        .iter()
        .flat_map(|list| {
            let mut slots = [0u8; 4];
            for (s, &(j, _)) in list.iter().enumerate() {
                slots[s] = j as u8;
            }
            slots
        })
        .collect();
    let weights: Vec<f32> = influences
        .iter()
        .flat_map(|list| {
            let mut slots = [0f32; 4];
            for (s, &(_, w)) in list.iter().enumerate() {
                slots[s] = w;
            }
            slots
        })
        .collect();
    let primitive = Primitive {
        indices: Some(b.indices_u16(&indices)),
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(&positions))
    .attribute("NORMAL", b.vec3s(&vec![Vec3::Z; positions.len()]))
    .attribute("TEXCOORD_0", b.vec2s(&uvs))
    .attribute("JOINTS_0", b.accessor(&joints, Type::Vec4, Layout::VERTEX))
    .attribute(
        "WEIGHTS_0",
        b.accessor(&weights, Type::Vec4, Layout::VERTEX),
    );
    let mesh = b.mesh("ArmMesh", &[primitive], None);
    let mesh_node = b.node(Node {
        name: Some("ArmMesh".into()),
        mesh: Some(mesh),
        skin: Some(skin),
        ..Node::default()
    });
    let wave_angles = [0.0f32, 60f32.to_radians(), 0.0];
    let input = b.times(&[0.0, 1.0, 2.0]);
    let output = b.quat_output(&wave_angles.map(|a| forearm_at(a).1));
    b.animation(
        "wave",
        &[Channel {
            node: forearm_node,
            property: Property::Rotation,
            input,
            output,
            interpolation: Interpolation::Linear,
        }],
    );
    b.scene("Scene", &[armature, mesh_node]);

    // Skinning: sum of weight * root * jointWorld(t) * IBM * v. At 0.5 s
    // the forearm is halfway from 0 to 60 degrees beyond its bind pose
    // (slerp between rotations about one axis is linear in the angle).
    let skin_at = |extra: f32| -> Vec<Vec3> {
        let posed = worlds(extra);
        positions
            .iter()
            .zip(&influences)
            .map(|(&v, list)| {
                let gltf: Vec3 = list
                    .iter()
                    .map(|&(j, w)| {
                        w * (root * posed[j as usize] * ibms[j as usize]).transform_point3(v)
                    })
                    .sum();
                gltf_to_md5_point(gltf)
            })
            .collect()
    };
    BlenderStyle {
        glb: b.to_glb(),
        joint_names: ["upper_arm", "forearm", "hand"],
        joint_origins_md5: bind
            .iter()
            .map(|w| gltf_to_md5_point((root * *w).transform_point3(Vec3::ZERO)))
            .collect(),
        bind_positions_md5: positions
            .iter()
            .map(|&v| gltf_to_md5_point(root.transform_point3(v)))
            .collect(),
        wave_duration: 2.0,
        wave_time: 0.5,
        wave_positions_md5: skin_at(30f32.to_radians()),
    }
}

// ---------------------------------------------------------------------------
// The small character the other fixtures share: an "Armature" node
// (identity) holding a two-joint skeleton, "root" at the origin and a
// second joint above it, and skinned quads facing +Z.

struct Tiny {
    armature: usize,
    joints: [usize; 2],
    skin: usize,
    /// The second joint's translation from the root, metres.
    top: Vec3,
}

/// The skeleton; `nan` puts a NaN in the second inverse bind matrix.
fn tiny_skeleton(b: &mut GltfBuilder, top_name: &str, top: Vec3, nan: bool) -> Tiny {
    let top_node = b.node(Node {
        name: Some(top_name.into()),
        translation: Some(top),
        ..Node::default()
    });
    let root = b.node(Node {
        name: Some("root".into()),
        children: vec![top_node],
        ..Node::default()
    });
    let armature = b.node(Node {
        name: Some("Armature".into()),
        children: vec![root],
        ..Node::default()
    });
    let mut top_ibm = Mat4::from_translation(-top);
    if nan {
        top_ibm.w_axis.y = f32::NAN;
    }
    let ibm = b.matrices(&[Mat4::IDENTITY, top_ibm]);
    let skin = b.skin("Armature", &[root, top_node], Some(ibm), Some(root));
    Tiny {
        armature,
        joints: [root, top_node],
        skin,
        top,
    }
}

/// A 0.5 m by 1.2 m quad facing +Z centred on x = `x`: the bottom two
/// vertices bound to joint 0, the top two to `top_joint`. Returns the node
/// (a child of the armature) and the positions.
fn tiny_quad(
    b: &mut GltfBuilder,
    tiny: &Tiny,
    name: &str,
    material: Option<usize>,
    x: f32,
    top_joint: u8,
) -> (usize, Vec<Vec3>) {
    let positions = vec![
        Vec3::new(x - 0.25, 0.0, 0.0),
        Vec3::new(x + 0.25, 0.0, 0.0),
        Vec3::new(x - 0.25, 1.2, 0.0),
        Vec3::new(x + 0.25, 1.2, 0.0),
    ];
    let uvs = [
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
    ];
    let indices = triangles_facing(&positions, &[[0, 1, 3, 2]], Vec3::Z);
    let joints = [
        0, 0, 0, 0, 0, 0, 0, 0, top_joint, 0, 0, 0, top_joint, 0, 0, 0,
    ];
    let weights = [1.0f32, 0.0, 0.0, 0.0].repeat(4);
    let primitive = Primitive {
        indices: Some(b.indices_u16(&indices)),
        material,
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(&positions))
    .attribute("NORMAL", b.vec3s(&[Vec3::Z; 4]))
    .attribute("TEXCOORD_0", b.vec2s(&uvs))
    .attribute("JOINTS_0", b.accessor(&joints, Type::Vec4, Layout::VERTEX))
    .attribute(
        "WEIGHTS_0",
        b.accessor(&weights, Type::Vec4, Layout::VERTEX),
    );
    let mesh = b.mesh(name, &[primitive], None);
    let node = b.node(Node {
        name: Some(name.into()),
        mesh: Some(mesh),
        skin: Some(tiny.skin),
        ..Node::default()
    });
    b.add_child(tiny.armature, node);
    (node, positions)
}

/// A textured material over `image`.
fn textured(b: &mut GltfBuilder, name: &str, image: usize) -> usize {
    let sampler = b.sampler(Some(NEAREST), Some(NEAREST), REPEAT, REPEAT);
    let texture = b.texture(image, Some(sampler));
    b.material(Material {
        name: Some(name.into()),
        base_color_texture: Some(texture),
        metallic_factor: Some(0.0),
        roughness_factor: Some(0.8),
        ..Material::default()
    })
}

fn md5_points(points: &[Vec3]) -> Vec<Vec3> {
    points.iter().map(|&p| gltf_to_md5_point(p)).collect()
}

// ---------------------------------------------------------------------------
// b. External files

pub struct ExternalFiles {
    /// dir/quad.gltf, naming quad.bin and "quad skin.png" (as
    /// `quad%20skin.png`) by relative URIs.
    pub gltf: PathBuf,
    pub bin: PathBuf,
    pub png: PathBuf,
    /// What the PNG holds (4x2).
    pub image: RgbaImage,
    /// The quad's vertices in the bind pose, md5 units.
    pub positions_md5: Vec<Vec3>,
}

/// Writes the files into `dir` (which must exist).
pub fn external_files(dir: &Path) -> ExternalFiles {
    let image = test_image(4, 2, 11);
    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), false);
    let png = b.image_file("quad skin.png", png_bytes(&image));
    let material = textured(&mut b, "skin", png);
    let (_, positions) = tiny_quad(&mut b, &tiny, "quad", Some(material), 0.0, 1);
    b.scene("Scene", &[tiny.armature]);
    let gltf = b.write_gltf(dir, "quad");
    ExternalFiles {
        gltf,
        bin: dir.join("quad.bin"),
        png: dir.join("quad skin.png"),
        image,
        positions_md5: md5_points(&positions),
    }
}

// ---------------------------------------------------------------------------
// c. Embedded images

pub struct EmbeddedImages {
    /// Two quads, "left" (material 0: a PNG in a buffer view) and "right"
    /// (material 1: a PNG in a data: URI).
    pub glb: Vec<u8>,
    /// Each mesh's image, in mesh order: [4x4, 2x3].
    pub images: [RgbaImage; 2],
}

pub fn embedded_images() -> EmbeddedImages {
    let images = [test_image(4, 4, 3), test_image(2, 3, 200)];
    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), false);
    let in_buffer = b.image_in_buffer("in_buffer", &png_bytes(&images[0]), "image/png");
    let in_uri = b.image_data_uri("in_uri", &png_bytes(&images[1]), "image/png");
    let left_material = textured(&mut b, "buffer_view_png", in_buffer);
    let right_material = textured(&mut b, "data_uri_png", in_uri);
    tiny_quad(&mut b, &tiny, "left", Some(left_material), 0.5, 1);
    tiny_quad(&mut b, &tiny, "right", Some(right_material), -0.5, 1);
    b.scene("Scene", &[tiny.armature]);
    EmbeddedImages {
        glb: b.to_glb(),
        images,
    }
}

// ---------------------------------------------------------------------------
// d. CUBICSPLINE rotation

pub struct CubicRotation {
    pub glb: Vec<u8>,
    /// The animated joint ("spinner", child of "root") and its animation
    /// ("spin").
    pub joint: &'static str,
    pub animation: &'static str,
    /// Its translation from the root, md5 units (not animated).
    pub translation_md5: Vec3,
    /// Key times, seconds: the first at 0.25, irregular gaps.
    pub times: Vec<f32>,
    /// Per key, as written (x, y, z, w): in-tangent, value, out-tangent.
    pub in_tangents: Vec<Vec4>,
    pub values: Vec<Vec4>,
    pub out_tangents: Vec<Vec4>,
}

impl CubicRotation {
    /// The joint's local rotation at `t` seconds in glTF space, as the
    /// spec says: before the first key the first value, after the last the
    /// last, between keys k and k+1 (td apart, s = (t - t_k) / td) the
    /// Hermite spline (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k +
    /// (-2s^3 + 3s^2) v_k+1 + td (s^3 - s^2) a_k+1, with b the out- and a
    /// the in-tangents; normalized.
    pub fn gltf_rotation(&self, t: f32) -> Quat {
        let n = self.times.len();
        let value = if t <= self.times[0] {
            self.values[0]
        } else if t >= self.times[n - 1] {
            self.values[n - 1]
        } else {
            let k = self.times.windows(2).position(|w| t < w[1]).unwrap();
            let (t0, t1) = (self.times[k] as f64, self.times[k + 1] as f64);
            let td = t1 - t0;
            let s = (t as f64 - t0) / td;
            let (s2, s3) = (s * s, s * s * s);
            let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
            let h10 = td * (s3 - 2.0 * s2 + s);
            let h01 = -2.0 * s3 + 3.0 * s2;
            let h11 = td * (s3 - s2);
            let v0 = self.values[k].as_dvec4();
            let b0 = self.out_tangents[k].as_dvec4();
            let v1 = self.values[k + 1].as_dvec4();
            let a1 = self.in_tangents[k + 1].as_dvec4();
            (h00 * v0 + h10 * b0 + h01 * v1 + h11 * a1).as_vec4()
        };
        Quat::from_vec4(value).normalize()
    }

    /// [`CubicRotation::gltf_rotation`] as md5 space sees it: the joint's
    /// local rotation (its parent is the root joint, no scale anywhere).
    pub fn md5_rotation(&self, t: f32) -> Quat {
        gltf_to_md5_rotation(self.gltf_rotation(t))
    }
}

pub fn cubic_rotation() -> CubicRotation {
    let times = vec![0.25f32, 0.6, 1.3, 1.45, 2.2];
    let values: Vec<Vec4> = [
        Quat::IDENTITY,
        Quat::from_rotation_y(40f32.to_radians()),
        Quat::from_rotation_y(100f32.to_radians()) * Quat::from_rotation_x(20f32.to_radians()),
        Quat::from_rotation_y(120f32.to_radians()),
        Quat::from_rotation_y(170f32.to_radians()) * Quat::from_rotation_z(-0.3),
    ]
    .iter()
    .map(|q| Vec4::from(*q))
    .collect();
    // The first in-tangent and the last out-tangent are not used: zeros,
    // as the spec asks.
    let in_tangents = vec![
        Vec4::ZERO,
        Vec4::new(0.0, 0.9, 0.0, -0.2),
        Vec4::new(0.3, 0.4, -0.1, -0.6),
        Vec4::new(-0.2, 0.5, 0.1, -0.5),
        Vec4::new(0.0, 0.3, -0.2, -0.1),
    ];
    let out_tangents = vec![
        Vec4::new(0.0, 1.1, 0.0, -0.1),
        Vec4::new(0.1, 0.7, 0.2, -0.4),
        Vec4::new(-0.4, 0.2, 0.0, -0.3),
        Vec4::new(0.0, 0.6, -0.3, -0.2),
        Vec4::ZERO,
    ];
    let mut b = GltfBuilder::new();
    let top = Vec3::new(0.0, 0.5, 0.0);
    let tiny = tiny_skeleton(&mut b, "spinner", top, false);
    tiny_quad(&mut b, &tiny, "quad", None, 0.0, 1);
    let input = b.times(&times);
    let triplets: Vec<f32> = (0..times.len())
        .flat_map(|k| [in_tangents[k], values[k], out_tangents[k]])
        .flat_map(|v| v.to_array())
        .collect();
    let output = b.accessor(&triplets, Type::Vec4, Layout::PLAIN);
    b.animation(
        "spin",
        &[Channel {
            node: tiny.joints[1],
            property: Property::Rotation,
            input,
            output,
            interpolation: Interpolation::CubicSpline,
        }],
    );
    b.scene("Scene", &[tiny.armature]);
    CubicRotation {
        glb: b.to_glb(),
        joint: "spinner",
        animation: "spin",
        translation_md5: gltf_to_md5_point(tiny.top),
        times,
        in_tangents,
        values,
        out_tangents,
    }
}

// ---------------------------------------------------------------------------
// Rigid parts, node-animated models and scale

/// A triangle's mesh without a skin: three positions, indexed.
fn rigid_triangle(b: &mut GltfBuilder, name: &str, positions: &[Vec3; 3]) -> usize {
    let primitive = Primitive {
        indices: Some(b.indices_u16(&[0, 1, 2])),
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(positions));
    b.mesh(name, &[primitive], None)
}

/// One LINEAR rotation channel from the identity at 0 s to `to` at 1 s.
fn turn(b: &mut GltfBuilder, name: &str, node: usize, to: Quat) {
    let input = b.times(&[0.0, 1.0]);
    let output = b.quat_output(&[Quat::IDENTITY, to]);
    b.animation(
        name,
        &[Channel {
            node,
            property: Property::Rotation,
            input,
            output,
            interpolation: Interpolation::Linear,
        }],
    );
}

/// A part that moves rigidly with a joint: the tiny skinned quad, and a
/// "shield" triangle with no skin, offset and turned by its own node,
/// hanging under the top joint; "swing" turns the top joint 90 degrees
/// about glTF's Z over 1 s.
pub struct RigidPart {
    pub glb: Vec<u8>,
    /// The shield's vertices in the bind pose and at `time` into "swing",
    /// md5 units (the node chain applied, then the glTF to md5 mapping).
    pub bind_md5: Vec<Vec3>,
    pub swung_md5: Vec<Vec3>,
    pub time: f32,
}

pub fn rigid_part() -> RigidPart {
    let mut b = GltfBuilder::new();
    let top = Vec3::new(0.0, 1.2, 0.0);
    let tiny = tiny_skeleton(&mut b, "top", top, false);
    tiny_quad(&mut b, &tiny, "body", None, 0.0, 1);
    let corners = [
        Vec3::ZERO,
        Vec3::new(0.3, 0.0, 0.0),
        Vec3::new(0.0, 0.3, 0.0),
    ];
    let mesh = rigid_triangle(&mut b, "shield", &corners);
    let (offset, turned) = (Vec3::new(0.2, 0.1, 0.05), Quat::from_rotation_y(0.5));
    let shield = b.node(Node {
        name: Some("shield".into()),
        mesh: Some(mesh),
        translation: Some(offset),
        rotation: Some(turned),
        ..Node::default()
    });
    b.add_child(tiny.joints[1], shield);
    let swing = Quat::from_rotation_z(FRAC_PI_2);
    turn(&mut b, "swing", tiny.joints[1], swing);
    b.scene("Scene", &[tiny.armature]);
    let time = 0.5;
    let place = |joint_turn: Quat| -> Vec<Vec3> {
        let world = Mat4::from_rotation_translation(joint_turn, top)
            * Mat4::from_rotation_translation(turned, offset);
        corners
            .iter()
            .map(|&c| gltf_to_md5_point(world.transform_point3(c)))
            .collect()
    };
    RigidPart {
        glb: b.to_glb(),
        bind_md5: place(Quat::IDENTITY),
        swung_md5: place(Quat::IDENTITY.slerp(swing, time)),
        time,
    }
}

/// A model with no skin, as rigid robots and props are exported: a "base"
/// triangle node with an "arm" triangle node under it, 1 m up; "lift"
/// turns the arm 90 degrees about glTF's X over 1 s.
pub struct NodeAnimated {
    pub glb: Vec<u8>,
    /// The arm's vertices at rest and at `time` into "lift", md5 units.
    pub arm_rest_md5: Vec<Vec3>,
    pub arm_lifted_md5: Vec<Vec3>,
    pub time: f32,
}

pub fn node_animated() -> NodeAnimated {
    let mut b = GltfBuilder::new();
    let corners = [
        Vec3::ZERO,
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.5),
    ];
    let arm_mesh = rigid_triangle(&mut b, "arm", &corners);
    let base_mesh = rigid_triangle(&mut b, "base", &corners);
    let up = Vec3::new(0.0, 1.0, 0.0);
    let arm = b.node(Node {
        name: Some("arm".into()),
        mesh: Some(arm_mesh),
        translation: Some(up),
        ..Node::default()
    });
    let base = b.node(Node {
        name: Some("base".into()),
        mesh: Some(base_mesh),
        children: vec![arm],
        ..Node::default()
    });
    let lift = Quat::from_rotation_x(FRAC_PI_2);
    turn(&mut b, "lift", arm, lift);
    b.scene("Scene", &[base]);
    let time = 0.25;
    let place = |q: Quat| -> Vec<Vec3> {
        corners
            .iter()
            .map(|&c| gltf_to_md5_point(up + q * c))
            .collect()
    };
    NodeAnimated {
        glb: b.to_glb(),
        arm_rest_md5: place(Quat::IDENTITY),
        arm_lifted_md5: place(Quat::IDENTITY.slerp(lift, time)),
        time,
    }
}

/// The tiny character under an armature stretched (1, 1, 1.5) at rest
/// (not uniform), with two scale animations: "grow" scales the top joint
/// uniformly from 1 to 2 (its vertices cannot follow: rigid joints),
/// "stretch" scales the root by (1, 2, 1) (not uniform).
pub fn scaled_joints() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), false);
    b.nodes[tiny.armature]["scale"] = json!([1.0, 1.0, 1.5]);
    tiny_quad(&mut b, &tiny, "body", None, 0.0, 1);
    for (name, node, to) in [
        ("grow", tiny.joints[1], Vec3::splat(2.0)),
        ("stretch", tiny.joints[0], Vec3::new(1.0, 2.0, 1.0)),
    ] {
        let input = b.times(&[0.0, 1.0]);
        let output = b.vec3_output(&[Vec3::ONE, to]);
        b.animation(
            name,
            &[Channel {
                node,
                property: Property::Scale,
                input,
                output,
                interpolation: Interpolation::Linear,
            }],
        );
    }
    b.scene("Scene", &[tiny.armature]);
    b.to_glb()
}

// ---------------------------------------------------------------------------
// Materials of every kind, and a primitive without indices

/// Three quads of the tiny character, each with one kind of material, and
/// the third drawn without indices (six vertices, two triangles):
/// - "factors": baseColorFactor (0.5, 0.25, 1, 1), metallic 1, roughness
///   0, no texture at all;
/// - "textured": a JPEG base colour, a PNG normal map, and a PNG
///   metallicRoughness texture whose blue (metallic) is 255 and green
///   (roughness) 0, factors left at 1;
/// - "plain": no material (glTF's default: white, metallic, rough).
pub struct MaterialKinds {
    pub glb: Vec<u8>,
    /// The JPEG's pixels before compression.
    pub jpeg_source: RgbaImage,
    /// The normal map as written.
    pub normal_png: Vec<u8>,
}

pub fn material_kinds() -> MaterialKinds {
    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), false);
    let factors = b.material(Material {
        name: Some("factors".into()),
        base_color_factor: Some([0.5, 0.25, 1.0, 1.0]),
        metallic_factor: Some(1.0),
        roughness_factor: Some(0.0),
        ..Material::default()
    });
    let jpeg_source = test_image(8, 8, 40);
    let mut jpeg = Vec::new();
    image::DynamicImage::ImageRgba8(jpeg_source.clone())
        .to_rgb8()
        .write_to(
            &mut std::io::Cursor::new(&mut jpeg),
            image::ImageFormat::Jpeg,
        )
        .unwrap();
    let normal_png = png_bytes(&RgbaImage::from_pixel(2, 2, Rgba([128, 128, 255, 255])));
    let metal = png_bytes(&RgbaImage::from_pixel(2, 2, Rgba([0, 0, 255, 255])));
    let sampler = b.sampler(Some(NEAREST), Some(NEAREST), REPEAT, REPEAT);
    let textures: Vec<usize> = [
        b.image_in_buffer("jpeg", &jpeg, "image/jpeg"),
        b.image_in_buffer("normal", &normal_png, "image/png"),
        b.image_in_buffer("metal", &metal, "image/png"),
    ]
    .into_iter()
    .map(|image| b.texture(image, Some(sampler)))
    .collect();
    let textured = b.material(Material {
        name: Some("textured".into()),
        base_color_texture: Some(textures[0]),
        normal_texture: Some(textures[1]),
        metallic_roughness_texture: Some(textures[2]),
        ..Material::default()
    });
    tiny_quad(&mut b, &tiny, "factors", Some(factors), 0.0, 1);
    tiny_quad(&mut b, &tiny, "textured", Some(textured), 1.0, 1);
    // Two triangles' corners in order, no index buffer.
    let corners = [
        Vec3::new(-1.25, 0.0, 0.0),
        Vec3::new(-0.75, 0.0, 0.0),
        Vec3::new(-0.75, 1.2, 0.0),
        Vec3::new(-1.25, 0.0, 0.0),
        Vec3::new(-0.75, 1.2, 0.0),
        Vec3::new(-1.25, 1.2, 0.0),
    ];
    let joints = [0u8, 0, 0, 0].repeat(6);
    let weights = [1.0f32, 0.0, 0.0, 0.0].repeat(6);
    let primitive = Primitive::default()
        .attribute("POSITION", b.positions(&corners))
        .attribute("JOINTS_0", b.accessor(&joints, Type::Vec4, Layout::VERTEX))
        .attribute(
            "WEIGHTS_0",
            b.accessor(&weights, Type::Vec4, Layout::VERTEX),
        );
    let mesh = b.mesh("plain", &[primitive], None);
    let node = b.node(Node {
        name: Some("plain".into()),
        mesh: Some(mesh),
        skin: Some(tiny.skin),
        ..Node::default()
    });
    b.add_child(tiny.armature, node);
    b.scene("Scene", &[tiny.armature]);
    MaterialKinds {
        glb: b.to_glb(),
        jpeg_source,
        normal_png,
    }
}

// ---------------------------------------------------------------------------
// e. Sparse accessors

pub struct SparsePositions {
    /// A 3x2 grid of vertices facing +Z. POSITION is sparse over a base
    /// buffer view (vertices 1 and 4 replaced, u8 indices); JOINTS_0 is
    /// sparse with no buffer view (zeros, vertices 3, 4, 5 bound to joint 1,
    /// u16 indices); the one morph target's POSITION is sparse with no
    /// buffer view (vertices 0 and 5 moved, u32 indices), default weight 0.
    pub glb: Vec<u8>,
    /// The positions as replaced, glTF space (the mesh's own).
    pub positions: Vec<Vec3>,
    /// The same in md5 units (the bind pose).
    pub positions_md5: Vec<Vec3>,
    /// JOINTS_0 as replaced.
    pub joints: Vec<[u16; 4]>,
    /// The morph target's displacement per vertex, glTF space (metres).
    pub morph_target: Vec<Vec3>,
}

pub fn sparse_positions() -> SparsePositions {
    let base: Vec<Vec3> = (0..2)
        .flat_map(|row| (0..3).map(move |col| Vec3::new(col as f32 * 0.5 - 0.5, row as f32, 0.0)))
        .collect();
    let replaced = [
        (1u8, Vec3::new(0.0, -0.2, 0.1)),
        (4, Vec3::new(0.05, 1.3, 0.05)),
    ];
    let mut positions = base.clone();
    for &(i, p) in &replaced {
        positions[i as usize] = p;
    }
    let bound_to_top = [3u16, 4, 5];
    let joints: Vec<[u16; 4]> = (0..6u16)
        .map(|v| [u16::from(bound_to_top.contains(&v)), 0, 0, 0])
        .collect();
    let moved = [
        (0u32, Vec3::new(0.0, 0.0, 0.2)),
        (5, Vec3::new(0.1, 0.0, 0.0)),
    ];
    let mut morph_target = vec![Vec3::ZERO; 6];
    for &(i, d) in &moved {
        morph_target[i as usize] = d;
    }

    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.0, 0.0), false);
    let flat = |points: &[Vec3]| -> Vec<f32> { points.iter().flat_map(|p| p.to_array()).collect() };
    let position = b.sparse_accessor(
        Some(&flat(&base)),
        6,
        Type::Vec3,
        false,
        &replaced.map(|r| r.0),
        &flat(&replaced.map(|r| r.1)),
        true,
    );
    let joints_accessor = b.sparse_accessor::<u8, u16>(
        None,
        6,
        Type::Vec4,
        false,
        &bound_to_top,
        &[1, 0, 0, 0].repeat(bound_to_top.len()),
        false,
    );
    let target = b.sparse_accessor(
        None,
        6,
        Type::Vec3,
        false,
        &moved.map(|m| m.0),
        &flat(&moved.map(|m| m.1)),
        true,
    );
    let uvs: Vec<Vec2> = base
        .iter()
        .map(|p| Vec2::new(p.x + 0.5, 1.0 - p.y))
        .collect();
    let indices = triangles_facing(&positions, &[[0, 1, 4, 3], [1, 2, 5, 4]], Vec3::Z);
    let primitive = Primitive {
        indices: Some(b.indices_u16(&indices)),
        targets: vec![vec![("POSITION".into(), target)]],
        ..Primitive::default()
    }
    .attribute("POSITION", position)
    .attribute("NORMAL", b.vec3s(&[Vec3::Z; 6]))
    .attribute("TEXCOORD_0", b.vec2s(&uvs))
    .attribute("JOINTS_0", joints_accessor)
    .attribute(
        "WEIGHTS_0",
        b.accessor(
            &[1.0f32, 0.0, 0.0, 0.0].repeat(6),
            Type::Vec4,
            Layout::VERTEX,
        ),
    );
    let mesh = b.mesh("grid", &[primitive], Some(&[0.0]));
    let node = b.node(Node {
        name: Some("grid".into()),
        mesh: Some(mesh),
        skin: Some(tiny.skin),
        ..Node::default()
    });
    b.add_child(tiny.armature, node);
    b.scene("Scene", &[tiny.armature]);
    SparsePositions {
        glb: b.to_glb(),
        positions_md5: md5_points(&positions),
        positions,
        joints,
        morph_target,
    }
}

// ---------------------------------------------------------------------------
// f. Eight influences

pub struct EightInfluences {
    /// A quad skinned to 8 of 9 joints ("root" and its children "j1" to
    /// "j8") per vertex: JOINTS_0 u16 and WEIGHTS_0 u16 normalized,
    /// JOINTS_1 u8 and WEIGHTS_1 u8 normalized. Vertex 1's weights sum to
    /// about 0.6, vertex 2's to about 1.4.
    pub glb: Vec<u8>,
    /// Per vertex, the skin's joint indices in file order (sets 0 then 1).
    pub joints: Vec<[u16; 8]>,
    /// The weights as the file stores them (quantized), summed per vertex.
    pub file_sums: Vec<f32>,
    /// Per vertex, in the order of `joints`, the stored weights divided by
    /// their sum.
    pub weights: Vec<[f32; 8]>,
    pub positions_md5: Vec<Vec3>,
}

pub fn eight_influences() -> EightInfluences {
    let shares = [0.3f32, 0.2, 0.15, 0.1, 0.1, 0.07, 0.05, 0.03];
    let scales = [1.0f32, 0.6, 1.4, 1.0];
    let mut joints = Vec::new();
    let mut set0_weights: Vec<u16> = Vec::new();
    let mut set1_weights: Vec<u8> = Vec::new();
    let mut file_sums = Vec::new();
    let mut weights = Vec::new();
    for (v, scale) in scales.iter().enumerate() {
        let mut order: [u16; 8] = std::array::from_fn(|i| ((i + 3 * v) % 8 + 1) as u16);
        let mut these = shares.map(|s| s * scale);
        if v == 3 {
            these.reverse();
            order.reverse();
        }
        let low: [u16; 4] = std::array::from_fn(|i| (these[i] * 65535.0).round() as u16);
        let high: [u8; 4] = std::array::from_fn(|i| (these[4 + i] * 255.0).round() as u8);
        let stored: [f32; 8] = std::array::from_fn(|i| {
            if i < 4 {
                f32::from(low[i]) / 65535.0
            } else {
                f32::from(high[i - 4]) / 255.0
            }
        });
        let sum: f32 = stored.iter().sum();
        joints.push(order);
        set0_weights.extend(low);
        set1_weights.extend(high);
        file_sums.push(sum);
        weights.push(stored.map(|w| w / sum));
    }

    let mut b = GltfBuilder::new();
    let children: Vec<(usize, Mat4)> = (0..8)
        .map(|i| {
            let angle = i as f32 * PI / 4.0;
            let at = Vec3::new(angle.cos() * 0.3, 1.0, angle.sin() * 0.3);
            let node = b.node(Node {
                name: Some(format!("j{}", i + 1)),
                translation: Some(at),
                ..Node::default()
            });
            (node, Mat4::from_translation(-at))
        })
        .collect();
    let root = b.node(Node {
        name: Some("root".into()),
        children: children.iter().map(|c| c.0).collect(),
        ..Node::default()
    });
    let armature = b.node(Node {
        name: Some("Armature".into()),
        children: vec![root],
        ..Node::default()
    });
    let mut skin_joints = vec![root];
    skin_joints.extend(children.iter().map(|c| c.0));
    let mut ibms = vec![Mat4::IDENTITY];
    ibms.extend(children.iter().map(|c| c.1));
    let ibm = b.matrices(&ibms);
    let skin = b.skin("Armature", &skin_joints, Some(ibm), Some(root));
    let positions = vec![
        Vec3::new(-0.3, 0.5, 0.0),
        Vec3::new(0.3, 0.5, 0.0),
        Vec3::new(0.3, 1.5, 0.0),
        Vec3::new(-0.3, 1.5, 0.0),
    ];
    let indices = triangles_facing(&positions, &[[0, 1, 2, 3]], Vec3::Z);
    let joints0: Vec<u16> = joints.iter().flat_map(|j| j[..4].to_vec()).collect();
    let joints1: Vec<u8> = joints
        .iter()
        .flat_map(|j| j[4..].iter().map(|&x| x as u8))
        .collect();
    let primitive = Primitive {
        indices: Some(b.indices_u16(&indices)),
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(&positions))
    .attribute("NORMAL", b.vec3s(&[Vec3::Z; 4]))
    .attribute("JOINTS_0", b.accessor(&joints0, Type::Vec4, Layout::VERTEX))
    .attribute(
        "WEIGHTS_0",
        b.accessor(&set0_weights, Type::Vec4, Layout::NORMALIZED),
    )
    .attribute("JOINTS_1", b.accessor(&joints1, Type::Vec4, Layout::VERTEX))
    .attribute(
        "WEIGHTS_1",
        b.accessor(&set1_weights, Type::Vec4, Layout::NORMALIZED),
    );
    let mesh = b.mesh("quad", &[primitive], None);
    let node = b.node(Node {
        name: Some("quad".into()),
        mesh: Some(mesh),
        skin: Some(skin),
        ..Node::default()
    });
    b.add_child(armature, node);
    b.scene("Scene", &[armature]);
    EightInfluences {
        glb: b.to_glb(),
        joints,
        file_sums,
        weights,
        positions_md5: md5_points(&positions),
    }
}

// ---------------------------------------------------------------------------
// f1. Specular-glossiness, WebP

/// The tiny character drawn with a KHR_materials_pbrSpecularGlossiness
/// material whose diffuse texture is a WebP image (EXT_texture_webp,
/// required, with a green PNG as the fallback source), specular factor 1
/// and glossiness 0.5.
pub struct SpecularGlossinessWebp {
    pub glb: Vec<u8>,
    /// The WebP image's one colour.
    pub webp_colour: [u8; 4],
}

pub fn specular_glossiness_webp() -> SpecularGlossinessWebp {
    let mut b = GltfBuilder::new();
    let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), false);
    let webp_colour = [200, 40, 90, 255];
    let mut webp = Vec::new();
    let image = RgbaImage::from_pixel(4, 4, Rgba(webp_colour));
    image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
        .encode(image.as_raw(), 4, 4, image::ExtendedColorType::Rgba8)
        .unwrap();
    let green = png_bytes(&RgbaImage::from_pixel(4, 4, Rgba([0, 255, 0, 255])));
    let fallback = b.image_in_buffer("fallback", &green, "image/png");
    let webp_image = b.image_in_buffer("webp", &webp, "image/webp");
    let texture = b.texture(fallback, None);
    b.textures[texture]["extensions"] = json!({"EXT_texture_webp": {"source": webp_image}});
    b.materials.push(json!({
        "name": "glossy",
        "extensions": {"KHR_materials_pbrSpecularGlossiness": {
            "diffuseTexture": {"index": texture},
            "specularFactor": [1.0, 1.0, 1.0],
            "glossinessFactor": 0.5
        }}
    }));
    let material = b.materials.len() - 1;
    tiny_quad(&mut b, &tiny, "quad", Some(material), 0.0, 1);
    b.scene("Scene", &[tiny.armature]);
    let mut document = b.document(None);
    document["extensionsUsed"] = json!(["KHR_materials_pbrSpecularGlossiness", "EXT_texture_webp"]);
    document["extensionsRequired"] = json!(["EXT_texture_webp"]);
    SpecularGlossinessWebp {
        glb: glb(&document, Some(&b.buffer)),
        webp_colour,
    }
}

// ---------------------------------------------------------------------------
// f2. Several skins, no animation

/// The Asset-Generator's Animation_Skin_07 and Instancing_08 layouts, in
/// small: a "root" joint with "left" and "right" arms 1 m up, each turned
/// 30 degrees in the rest pose (the inverse bind matrices bind them
/// unturned); one quad mesh drawn twice, by "left_quad" under skin
/// "left" (joints [left, root]) and by "right_quad" under skin "right"
/// (joints [right, root]): the skins share "root". No animation.
pub struct TwoSkins {
    pub glb: Vec<u8>,
    /// The eight vertices as glTF draws them (the rest pose), md5 units.
    pub rest_md5: Vec<Vec3>,
}

pub fn two_skins() -> TwoSkins {
    let mut b = GltfBuilder::new();
    let turn = 30f32.to_radians();
    let arms = [
        (
            "left",
            Vec3::new(-0.5, 1.0, 0.0),
            Quat::from_rotation_z(turn),
        ),
        (
            "right",
            Vec3::new(0.5, 1.0, 0.0),
            Quat::from_rotation_z(-turn),
        ),
    ];
    let arm_nodes: Vec<usize> = arms
        .iter()
        .map(|&(name, at, rotation)| {
            b.node(Node {
                name: Some(name.into()),
                translation: Some(at),
                rotation: Some(rotation),
                ..Node::default()
            })
        })
        .collect();
    let root = b.node(Node {
        name: Some("root".into()),
        children: arm_nodes.clone(),
        ..Node::default()
    });
    let positions = [
        Vec3::new(-0.25, 0.0, 0.0),
        Vec3::new(0.25, 0.0, 0.0),
        Vec3::new(-0.25, 1.2, 0.0),
        Vec3::new(0.25, 1.2, 0.0),
    ];
    let indices = triangles_facing(&positions, &[[0, 1, 3, 2]], Vec3::Z);
    // The top two vertices go with joint number 0 (the arm), the bottom
    // two with joint number 1 (the root).
    let joints: [u8; 16] = [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let weights = [1.0f32, 0.0, 0.0, 0.0].repeat(4);
    let primitive = Primitive {
        indices: Some(b.indices_u16(&indices)),
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(&positions))
    .attribute("JOINTS_0", b.accessor(&joints, Type::Vec4, Layout::VERTEX))
    .attribute(
        "WEIGHTS_0",
        b.accessor(&weights, Type::Vec4, Layout::VERTEX),
    );
    let mesh = b.mesh("quad", &[primitive], None);
    let mut rest = Vec::new();
    let mut quads = Vec::new();
    for (&(name, at, rotation), &arm) in arms.iter().zip(&arm_nodes) {
        let ibm = b.matrices(&[Mat4::from_translation(-at), Mat4::IDENTITY]);
        let skin = b.skin(name, &[arm, root], Some(ibm), Some(root));
        quads.push(b.node(Node {
            name: Some(format!("{name}_quad")),
            mesh: Some(mesh),
            skin: Some(skin),
            ..Node::default()
        }));
        let arm_at_rest = Mat4::from_rotation_translation(rotation, at);
        for (v, &p) in positions.iter().enumerate() {
            let posed = if v >= 2 {
                arm_at_rest * Mat4::from_translation(-at)
            } else {
                Mat4::IDENTITY
            };
            rest.push(gltf_to_md5_point(posed.transform_point3(p)));
        }
    }
    let mut roots = vec![root];
    roots.extend(quads);
    b.scene("Scene", &roots);
    TwoSkins {
        glb: b.to_glb(),
        rest_md5: rest,
    }
}

// ---------------------------------------------------------------------------
// g. Bad input

/// Broken files, each wrong in one way (the rest as the tiny character).
pub mod bad {
    use super::*;

    /// The tiny character, textureless, before writing.
    fn tiny(top_joint: u8, nan: bool) -> GltfBuilder {
        let mut b = GltfBuilder::new();
        let tiny = tiny_skeleton(&mut b, "top", Vec3::new(0.0, 1.2, 0.0), nan);
        tiny_quad(&mut b, &tiny, "quad", None, 0.0, top_joint);
        b.scene("Scene", &[tiny.armature]);
        b
    }

    /// Where the BIN chunk's data starts in a GLB (after the JSON chunk).
    pub fn bin_data_start(glb: &[u8]) -> usize {
        let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        20 + json_length + 8
    }

    /// A GLB cut halfway through its BIN chunk: its header's length and
    /// the BIN chunk's say more than there is.
    pub fn truncated_glb() -> Vec<u8> {
        let mut glb = tiny(1, false).to_glb();
        let start = bin_data_start(&glb);
        let bin_length = u32::from_le_bytes(glb[start - 8..start - 4].try_into().unwrap());
        glb.truncate(start + bin_length as usize / 2);
        glb
    }

    /// A whole GLB whose header's length field says 8, less than the
    /// header itself. Check the length before handing bytes to
    /// `gltf::Gltf::from_slice` / `gltf::binary::Glb::from_slice`: 1.4.1
    /// computes `length - 12` unchecked, a panic (subtract with overflow)
    /// in debug builds.
    pub fn glb_length_under_header() -> Vec<u8> {
        let mut glb = tiny(1, false).to_glb();
        glb[8..12].copy_from_slice(&8u32.to_le_bytes());
        glb
    }

    /// POSITION (accessor 1) reads 12 bytes past the end of its buffer
    /// view: byteOffset 12 where its 4 VEC3 fill the view exactly.
    pub fn accessor_past_view() -> (Vec<u8>, usize) {
        let mut b = tiny(1, false);
        let position = b
            .accessors
            .iter()
            .position(|a| a.get("min").is_some())
            .unwrap();
        b.accessors[position]["byteOffset"] = json!(12);
        (b.to_glb(), position)
    }

    /// The skin's second joint is node 99, which does not exist.
    pub fn dangling_skin_joint() -> Vec<u8> {
        let mut b = tiny(1, false);
        b.skins[0]["joints"][1] = json!(99);
        b.to_glb()
    }

    /// JOINTS_0 of the top vertices is 5; the skin has 2 joints.
    pub fn joint_index_past_skin() -> Vec<u8> {
        tiny(5, false).to_glb()
    }

    /// The second inverse bind matrix holds a NaN (its translation's y).
    pub fn nan_inverse_bind_matrix() -> Vec<u8> {
        tiny(1, true).to_glb()
    }

    /// dir/no_bin.gltf, naming no_bin.bin, which is not there.
    pub fn missing_bin(dir: &Path) -> PathBuf {
        let path = tiny(1, false).write_gltf(dir, "no_bin");
        std::fs::remove_file(dir.join("no_bin.bin")).unwrap();
        path
    }

    /// A GLB from a document and BIN data given as they are.
    pub fn glb_of(json: &serde_json::Value, bin: Option<&[u8]>) -> Vec<u8> {
        glb(json, bin)
    }
}

// ---------------------------------------------------------------------------
// h. Morph targets

/// A glTF direction (an offset, a normal) in md5 model space's axes.
pub fn gltf_to_md5_direction(v: Vec3) -> Vec3 {
    Vec3::new(v.z, v.x, v.y)
}

/// Khronos' SimpleMorph, laid out as its author wrote it: a .gltf whose
/// two buffers (geometry, animation) are separate (here data URIs); the
/// indices (u16, padded to 4 bytes) then one ARRAY_BUFFER view with a
/// byteStride of 12 holding POSITION and both targets' POSITION one
/// after the other (accessors at byte offsets 0, 36 and 72); mesh weights
/// [0.5, 0.5]; one unnamed animation, one LINEAR weights channel on node 0
/// with 5 keys a second apart. No names, no skin, no normals.
pub struct SimpleMorph {
    pub gltf: Vec<u8>,
    /// The triangle, glTF space.
    pub positions: [Vec3; 3],
    /// Per target, per vertex, its offset.
    pub targets: [[Vec3; 3]; 2],
    pub defaults: [f32; 2],
    pub key_times: [f32; 5],
    pub key_weights: [[f32; 2]; 5],
}

pub fn simple_morph() -> SimpleMorph {
    let positions = [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 0.5, 0.0)];
    let targets = [
        [Vec3::ZERO, Vec3::ZERO, Vec3::new(-1.0, 0.5, 0.0)],
        [
            Vec3::ZERO,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.5, 0.0),
        ],
    ];
    let key_times = [0.0, 1.0, 2.0, 3.0, 4.0];
    let key_weights = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
    let floats = |values: &mut Vec<u8>, v: &[f32]| {
        v.iter()
            .for_each(|f| values.extend_from_slice(&f.to_le_bytes()))
    };
    let mut geometry: Vec<u8> = [0u16, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    geometry.extend([0, 0]);
    for points in [&positions, &targets[0], &targets[1]] {
        floats(
            &mut geometry,
            &points.iter().flat_map(|p| p.to_array()).collect::<Vec<_>>(),
        );
    }
    let mut animation = Vec::new();
    floats(&mut animation, &key_times);
    floats(&mut animation, key_weights.as_flattened());
    let min_max = |points: &[Vec3; 3]| {
        let (min, max) = points.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        (min.to_array(), max.to_array())
    };
    let vec3_accessor = |offset: usize, points: &[Vec3; 3]| {
        let (min, max) = min_max(points);
        json!({"bufferView": 1, "byteOffset": offset, "componentType": 5126, "count": 3,
               "type": "VEC3", "max": max, "min": min})
    };
    let document = json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{
            "primitives": [{
                "attributes": {"POSITION": 1},
                "targets": [{"POSITION": 2}, {"POSITION": 3}],
                "indices": 0
            }],
            "weights": [0.5, 0.5]
        }],
        "animations": [{
            "samplers": [{"input": 4, "interpolation": "LINEAR", "output": 5}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]
        }],
        "buffers": [
            {"uri": super::gltf_write::data_uri("application/octet-stream", &geometry),
             "byteLength": geometry.len()},
            {"uri": super::gltf_write::data_uri("application/octet-stream", &animation),
             "byteLength": animation.len()}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 6, "target": 34963},
            {"buffer": 0, "byteOffset": 8, "byteLength": 108, "byteStride": 12, "target": 34962},
            {"buffer": 1, "byteOffset": 0, "byteLength": 20},
            {"buffer": 1, "byteOffset": 20, "byteLength": 40}
        ],
        "accessors": [
            {"bufferView": 0, "byteOffset": 0, "componentType": 5123, "count": 3,
             "type": "SCALAR", "max": [2], "min": [0]},
            vec3_accessor(0, &positions),
            vec3_accessor(36, &targets[0]),
            vec3_accessor(72, &targets[1]),
            {"bufferView": 2, "byteOffset": 0, "componentType": 5126, "count": 5,
             "type": "SCALAR", "max": [4.0], "min": [0.0]},
            {"bufferView": 3, "byteOffset": 0, "componentType": 5126, "count": 10,
             "type": "SCALAR", "max": [1.0], "min": [0.0]}
        ],
        "asset": {"version": "2.0"}
    });
    SimpleMorph {
        gltf: serde_json::to_vec_pretty(&document).unwrap(),
        positions,
        targets,
        defaults: [0.5, 0.5],
        key_times,
        key_weights,
    }
}

/// One morph target's offsets per vertex: position, normal, tangent.
#[derive(Clone, Debug, Default)]
pub struct TargetOffsets {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub tangents: Vec<Vec3>,
}

/// Khronos' AnimatedMorphCube, laid out as glTF Tools for Unity wrote it:
/// one buffer, one buffer view per accessor (no targets, no strides),
/// NORMAL, TANGENT then POSITION (only POSITION with min and max), two
/// targets each with NORMAL, POSITION and TANGENT (VEC3) accessors named
/// after the target ("thin", "angle") and no `extras.targetNames`; mesh
/// "Cube" with weights [0, 0]; the node turned (quaternion (0, 0.7071067,
/// -0.7071068, 0)) and scaled by 100; one animation "Square" of 127 LINEAR
/// keys 1/30 s apart.
///
/// The cube is 2 cm wide (2 m drawn). "thin" lifts the bottom face to
/// 2 mm under the top; "angle" lifts the top face's +X edge by 2 cm into a
/// ramp, turning the top face's normal and tangent by 45 degrees.
pub struct MorphCube {
    pub glb: Vec<u8>,
    /// The cube's 24 vertices (4 per face), mesh space.
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// xyz; w is 1 throughout.
    pub tangents: Vec<Vec3>,
    pub thin: TargetOffsets,
    pub angle: TargetOffsets,
    /// The node's matrix (mesh space to glTF's world).
    pub node: Mat4,
    pub key_interval: f32,
    /// Per key, the weights of "thin" and "angle".
    pub keys: Vec<[f32; 2]>,
}

impl MorphCube {
    /// Vertex `v` morphed by `weights` (glTF's sum of weighted offsets)
    /// and placed by the node, in md5 model space: its position (units),
    /// its normal's and its tangent's directions.
    pub fn morphed_md5(&self, v: usize, weights: [f32; 2]) -> [Vec3; 3] {
        let morph = |base: &[Vec3], thin: &[Vec3], angle: &[Vec3]| {
            base[v] + thin[v] * weights[0] + angle[v] * weights[1]
        };
        let (thin, angle) = (&self.thin, &self.angle);
        let p = morph(&self.positions, &thin.positions, &angle.positions);
        let n = morph(&self.normals, &thin.normals, &angle.normals);
        let t = morph(&self.tangents, &thin.tangents, &angle.tangents);
        let linear = glam::Mat3::from_mat4(self.node);
        [
            gltf_to_md5_point(self.node.transform_point3(p)),
            gltf_to_md5_direction((linear.inverse().transpose() * n).normalize()),
            gltf_to_md5_direction((linear * t).normalize()),
        ]
    }
}

pub fn animated_morph_cube() -> MorphCube {
    let h = 0.01;
    // Per face: its normal and tangent (the top face's tangent runs +X).
    let faces = [
        (Vec3::Y, Vec3::X),
        (Vec3::NEG_Y, Vec3::X),
        (Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_X, Vec3::Z),
        (Vec3::Z, Vec3::X),
        (Vec3::NEG_Z, Vec3::NEG_X),
    ];
    let (mut positions, mut normals, mut tangents, mut quads) = (vec![], vec![], vec![], vec![]);
    for (f, &(n, t)) in faces.iter().enumerate() {
        let b = n.cross(t);
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            positions.push((n + t * su + b * sv) * h);
            normals.push(n);
            tangents.push(t);
        }
        let first = 4 * f as u16;
        quads.push([first, first + 1, first + 2, first + 3]);
    }
    let mut indices = Vec::new();
    for (f, quad) in quads.iter().enumerate() {
        indices.extend(triangles_facing(&positions, &[*quad], faces[f].0));
    }
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let mut thin = TargetOffsets::default();
    let mut angle = TargetOffsets::default();
    for (v, p) in positions.iter().enumerate() {
        let top = normals[v] == Vec3::Y;
        thin.positions.push(if p.y < 0.0 {
            Vec3::new(0.0, 0.018, 0.0)
        } else {
            Vec3::ZERO
        });
        thin.normals.push(Vec3::ZERO);
        thin.tangents.push(Vec3::ZERO);
        let lifted = p.y > 0.0 && p.x > 0.0;
        angle.positions.push(if lifted {
            Vec3::new(0.0, 0.02, 0.0)
        } else {
            Vec3::ZERO
        });
        angle.normals.push(if top {
            Vec3::new(-s, s - 1.0, 0.0)
        } else {
            Vec3::ZERO
        });
        angle.tangents.push(if top {
            Vec3::new(s - 1.0, s, 0.0)
        } else {
            Vec3::ZERO
        });
    }
    let keys: Vec<[f32; 2]> = (0..127)
        .map(|k| {
            let k = k as f32;
            [
                (1.0 - (k - 32.0).abs() / 32.0).max(0.0),
                (1.0 - (k - 95.0).abs() / 31.0).max(0.0),
            ]
        })
        .collect();
    let key_interval = 1.0 / 30.0;
    // The file's (0, 0.7071067, -0.7071068, 0), to f32's precision.
    let rotation = Quat::from_xyzw(0.0, s, -s, 0.0);
    let node = Mat4::from_scale_rotation_translation(Vec3::splat(100.0), rotation, Vec3::ZERO);

    let mut b = GltfBuilder::new();
    let flat = |v: &[Vec3]| -> Vec<f32> { v.iter().flat_map(|p| p.to_array()).collect() };
    let plain3 = |b: &mut GltfBuilder, v: &[Vec3]| b.accessor(&flat(v), Type::Vec3, Layout::PLAIN);
    let normal = plain3(&mut b, &normals);
    let tangent4: Vec<f32> = tangents
        .iter()
        .flat_map(|t| t.extend(1.0).to_array())
        .collect();
    let tangent = b.accessor(&tangent4, Type::Vec4, Layout::PLAIN);
    let position = b.accessor(
        &flat(&positions),
        Type::Vec3,
        Layout {
            min_max: true,
            ..Layout::PLAIN
        },
    );
    let mut targets = Vec::new();
    for (name, offsets) in [("thin", &thin), ("angle", &angle)] {
        let n = plain3(&mut b, &offsets.normals);
        let p = b.accessor(
            &flat(&offsets.positions),
            Type::Vec3,
            Layout {
                min_max: true,
                ..Layout::PLAIN
            },
        );
        let t = plain3(&mut b, &offsets.tangents);
        for accessor in [n, p, t] {
            b.accessors[accessor]["name"] = json!(name);
        }
        targets.push(vec![
            ("NORMAL".into(), n),
            ("POSITION".into(), p),
            ("TANGENT".into(), t),
        ]);
    }
    let index_accessor = b.accessor(&indices, Type::Scalar, Layout::PLAIN);
    let times: Vec<f32> = (0..keys.len()).map(|k| k as f32 * key_interval).collect();
    let input = b.times(&times);
    let output = b.weights_output(keys.as_flattened());
    let material = b.material(Material {
        name: Some("Material".into()),
        base_color_factor: Some([0.6038274, 0.6038274, 0.6038274, 1.0]),
        metallic_factor: Some(0.0),
        roughness_factor: Some(0.5),
        ..Material::default()
    });
    let primitive = Primitive {
        indices: Some(index_accessor),
        material: Some(material),
        targets,
        ..Primitive::default()
    }
    .attribute("NORMAL", normal)
    .attribute("TANGENT", tangent)
    .attribute("POSITION", position);
    let mesh = b.mesh("Cube", &[primitive], Some(&[0.0, 0.0]));
    let cube = b.node(Node {
        name: Some("AnimatedMorphCube".into()),
        rotation: Some(rotation),
        scale: Some(Vec3::splat(100.0)),
        mesh: Some(mesh),
        ..Node::default()
    });
    b.animation(
        "Square",
        &[Channel {
            node: cube,
            property: Property::Weights,
            input,
            output,
            interpolation: Interpolation::Linear,
        }],
    );
    b.scene("Scene", &[cube]);
    MorphCube {
        glb: b.to_glb(),
        positions,
        normals,
        tangents,
        thin,
        angle,
        node,
        key_interval,
        keys,
    }
}

/// A rigid quad (no skin) whose one target, "Raise" (`extras.targetNames`),
/// is quantized as KHR_mesh_quantization allows: POSITION normalized
/// SHORT (byteStride 8) and NORMAL normalized BYTE (byteStride 4). The
/// mesh's weights say 0.25, the node's 0.75 (the node's win).
pub struct QuantizedTarget {
    pub glb: Vec<u8>,
    /// glTF space (the node is the identity).
    pub positions: Vec<Vec3>,
    /// The offsets as a reader must decode them (value / 32767, / 127).
    pub offsets: Vec<Vec3>,
    pub normal_offsets: Vec<Vec3>,
    pub default_weight: f32,
}

pub fn quantized_target() -> QuantizedTarget {
    let positions = vec![
        Vec3::new(-0.5, 0.0, 0.0),
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(0.5, 1.0, 0.0),
        Vec3::new(-0.5, 1.0, 0.0),
    ];
    let shorts: [[i16; 3]; 4] = [[0, 0, 0], [0, 0, 0], [0, 16384, -3000], [-8192, 32767, 0]];
    let bytes: [[i8; 3]; 4] = [[0, 0, 0], [0, 0, 0], [0, 64, -127], [-32, 0, 100]];
    let offsets = shorts
        .iter()
        .map(|s| Vec3::from_array(s.map(|c| c as f32 / 32767.0)))
        .collect();
    let normal_offsets = bytes
        .iter()
        .map(|s| Vec3::from_array(s.map(|c| c as f32 / 127.0)))
        .collect();
    let mut b = GltfBuilder::new();
    let quantized = |stride| Layout {
        normalized: true,
        stride: Some(stride),
        ..Layout::VERTEX
    };
    let position_offsets = b.accessor(shorts.as_flattened(), Type::Vec3, quantized(8));
    let normal_offset_accessor = b.accessor(bytes.as_flattened(), Type::Vec3, quantized(4));
    let primitive = Primitive {
        indices: Some(b.indices_u16(&triangles_facing(&positions, &[[0, 1, 2, 3]], Vec3::Z))),
        targets: vec![vec![
            ("POSITION".into(), position_offsets),
            ("NORMAL".into(), normal_offset_accessor),
        ]],
        ..Primitive::default()
    }
    .attribute("POSITION", b.positions(&positions))
    .attribute("NORMAL", b.vec3s(&[Vec3::Z; 4]));
    let mesh = b.mesh("quad", &[primitive], Some(&[0.25]));
    b.target_names(mesh, &["Raise"]);
    let node = b.node(Node {
        name: Some("quad".into()),
        mesh: Some(mesh),
        weights: Some(vec![0.75]),
        ..Node::default()
    });
    b.scene("Scene", &[node]);
    QuantizedTarget {
        glb: b.to_glb(),
        positions,
        offsets,
        normal_offsets,
        default_weight: 0.75,
    }
}

/// A morph target added to a mesh of the shipped character: per vertex
/// of the mesh (as `shipped_model` has it), offsets in md5 units.
pub struct AddedTarget {
    pub name: String,
    pub positions: Vec<Vec3>,
    /// Normal offsets; empty: the target has no NORMAL.
    pub normals: Vec<Vec3>,
}

/// The shipped character written by `model_to_gltf`, with `targets[m]`
/// added to its mesh `m` (`mesh_m`, named by `extras.targetNames`), and
/// in every clip one LINEAR weights channel per mesh with targets, on the
/// clip's own key times: at key `k` of `n`, target `t` weighs
/// `weight(k, n, t)`.
fn shipped_with_targets(
    model: &md5crowd::model::Model,
    targets: &[Vec<AddedTarget>],
    weight: impl Fn(usize, usize, usize) -> f32,
) -> GltfBuilder {
    use super::md5_to_gltf::{
        md5_to_gltf_direction, md5_to_gltf_point, model_to_gltf, ConvertOptions,
    };
    let mut b = model_to_gltf(model, &ConvertOptions::default()).gltf;
    let named = |list: &[serde_json::Value], name: &str| {
        list.iter().position(|v| v["name"] == name).unwrap()
    };
    for (m, added) in targets.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
        let mesh = named(&b.meshes, &format!("mesh_{m}"));
        for target in added {
            let positions: Vec<Vec3> = target
                .positions
                .iter()
                .map(|&p| md5_to_gltf_point(p))
                .collect();
            let mut semantics = vec![(
                "POSITION",
                b.accessor(
                    &flat3(&positions),
                    Type::Vec3,
                    Layout {
                        min_max: true,
                        ..Layout::VERTEX
                    },
                ),
            )];
            if !target.normals.is_empty() {
                let normals: Vec<Vec3> = target
                    .normals
                    .iter()
                    .map(|&n| md5_to_gltf_direction(n))
                    .collect();
                semantics.push(("NORMAL", b.vec3s(&normals)));
            }
            b.add_target(mesh, 0, &semantics);
        }
        let names: Vec<&str> = added.iter().map(|t| t.name.as_str()).collect();
        b.target_names(mesh, &names);
        let node = named(&b.nodes, &format!("mesh_{m}"));
        for animation in 0..b.animations.len() {
            let input = b.animations[animation]["samplers"][0]["input"]
                .as_u64()
                .unwrap() as usize;
            let n = b.accessors[input]["count"].as_u64().unwrap() as usize;
            let keys: Vec<f32> = (0..n)
                .flat_map(|k| (0..added.len()).map(move |t| (k, t)))
                .map(|(k, t)| weight(k, n, t))
                .collect();
            let output = b.weights_output(&keys);
            b.add_channel(
                animation,
                &Channel {
                    node,
                    property: Property::Weights,
                    input,
                    output,
                    interpolation: Interpolation::Linear,
                },
            );
        }
    }
    b
}

fn flat3(values: &[Vec3]) -> Vec<f32> {
    values.iter().flat_map(|v| v.to_array()).collect()
}

/// The shipped character (`super::shipped_model`, idle, run, walk, wave)
/// with a face: its head mesh (`meshes[1]`, "textures/crowdling_head",
/// every vertex on joint "head") gets two targets, the body none.
/// - "Smile": the face, every head vertex more than 1 unit in front of
///   the head joint (md5 x > 1.2), moves by (0.2, 0.3·clamp(y/3, -1, 1),
///   0.5) units, its normal by (0, 0, 0.1);
/// - "Blink": the face's vertices above z = 66 move down 0.6 units (no
///   NORMAL).
///
/// Every clip animates both, on the clip's own key times, next to the
/// joints: at key k of n, Smile weighs 0.5 − 0.5·cos(2πk/(n−1)) (0 at
/// both ends, 1 half way) and Blink 1 in keys n/3 to 2n/3, else 0.
pub struct MorphFace {
    pub glb: Vec<u8>,
    /// The head mesh's vertices in the bind pose (md5 units), as
    /// `shipped_model().meshes[1]` orders them.
    pub head_positions: Vec<Vec3>,
    /// Per head vertex, Smile's and Blink's offsets (zero off the face).
    pub smile: Vec<Vec3>,
    pub blink: Vec<Vec3>,
    pub smile_normals: Vec<Vec3>,
}

impl MorphFace {
    /// Smile's and Blink's weights at key `k` of a clip of `n` keys.
    pub fn weights(k: usize, n: usize) -> [f32; 2] {
        let smile = 0.5 - 0.5 * (2.0 * PI * k as f32 / (n - 1).max(1) as f32).cos();
        let blink = if 3 * k >= n && 3 * k < 2 * n {
            1.0
        } else {
            0.0
        };
        [smile, blink]
    }
}

pub fn morph_face() -> MorphFace {
    let model = super::shipped_model();
    let head = &model.meshes[1];
    let face = |p: Vec3| p.x > 1.2;
    let smile: Vec<Vec3> = head
        .positions
        .iter()
        .map(|&p| {
            if face(p) {
                Vec3::new(0.2, 0.3 * (p.y / 3.0).clamp(-1.0, 1.0), 0.5)
            } else {
                Vec3::ZERO
            }
        })
        .collect();
    let smile_normals: Vec<Vec3> = head
        .positions
        .iter()
        .map(|&p| {
            if face(p) {
                Vec3::new(0.0, 0.0, 0.1)
            } else {
                Vec3::ZERO
            }
        })
        .collect();
    let blink: Vec<Vec3> = head
        .positions
        .iter()
        .map(|&p| {
            if face(p) && p.z > 66.0 {
                Vec3::new(0.0, 0.0, -0.6)
            } else {
                Vec3::ZERO
            }
        })
        .collect();
    let targets = vec![
        Vec::new(),
        vec![
            AddedTarget {
                name: "Smile".into(),
                positions: smile.clone(),
                normals: smile_normals.clone(),
            },
            AddedTarget {
                name: "Blink".into(),
                positions: blink.clone(),
                normals: Vec::new(),
            },
        ],
    ];
    let b = shipped_with_targets(&model, &targets, |k, n, t| MorphFace::weights(k, n)[t]);
    MorphFace {
        glb: b.to_glb(),
        head_positions: head.positions.clone(),
        smile,
        blink,
        smile_normals,
    }
}

/// [`morph_face`]'s GLB: a skinned character whose clips animate its
/// joints and a face's "Smile" and "Blink" targets (see [`MorphFace`]).
pub fn morph_face_character() -> Vec<u8> {
    morph_face().glb
}

/// The shipped character with `targets` targets on each of its two
/// meshes ("Bench0", "Bench1", ...: one weight set per mesh, so
/// 2 × `targets` weights, each name on both), target t moving the mesh's
/// vertices from t/targets of the way through its vertex list, `share` of
/// them (wrapping round), by (0.1·(t+1), 0.2, 0.3) units. Every clip
/// animates them all: at key k of n, target t weighs
/// 0.5 − 0.5·cos(2π(k/(n−1) + t/targets)). For the cost of morphs:
/// `bench --morphs on,off` with `morph_bench_character(8, 0.3)`.
pub fn morph_bench_character(targets: usize, share: f32) -> Vec<u8> {
    let model = super::shipped_model();
    let per_mesh: Vec<Vec<AddedTarget>> = model
        .meshes
        .iter()
        .map(|mesh| {
            let count = mesh.positions.len();
            let moved = ((count as f32 * share).round() as usize).min(count);
            (0..targets)
                .map(|t| {
                    let start = t * count / targets;
                    let mut positions = vec![Vec3::ZERO; count];
                    for i in 0..moved {
                        positions[(start + i) % count] = Vec3::new(0.1 * (t + 1) as f32, 0.2, 0.3);
                    }
                    AddedTarget {
                        name: format!("Bench{t}"),
                        positions,
                        normals: Vec::new(),
                    }
                })
                .collect()
        })
        .collect();
    shipped_with_targets(&model, &per_mesh, |k, n, t| {
        let phase = k as f32 / (n - 1).max(1) as f32 + t as f32 / targets as f32;
        0.5 - 0.5 * (2.0 * PI * phase).cos()
    })
    .to_glb()
}
