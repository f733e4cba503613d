//! The tests' glTF writer (tests/common/gltf_write.rs), the md5 -> glTF
//! converter and the loader fixtures, read back with the `gltf` crate as
//! the independent reader: every document validates, GLB chunks are laid
//! out as the spec says, accessors hold what was written, and each
//! fixture's expected values agree with the file.

use crate::common;

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::animation::util::ReadOutputs;
use gltf::Gltf;

use common::gltf_fixtures::{self as fixtures, bad};
use common::gltf_write::{
    Channel, GltfBuilder, Interpolation, Layout, Material, Node, Primitive, Property, Type,
    CHUNK_BIN, CHUNK_JSON, GLB_MAGIC, LINEAR, REPEAT,
};
use common::md5_to_gltf::{
    gltf_to_md5_point, md5_to_gltf_pose, model_to_gltf, shipped_textures, ConvertOptions,
};

fn parse(bytes: &[u8]) -> Gltf {
    Gltf::from_slice(bytes).unwrap_or_else(|e| panic!("invalid glTF: {e:?}"))
}

fn blob(gltf: &Gltf) -> &[u8] {
    gltf.blob.as_deref().expect("a BIN chunk")
}

/// Every node's parent.
fn parents(doc: &gltf::Document) -> Vec<Option<usize>> {
    let mut parents = vec![None; doc.nodes().count()];
    for node in doc.nodes() {
        for child in node.children() {
            assert!(parents[child.index()].is_none(), "node with two parents");
            parents[child.index()] = Some(node.index());
        }
    }
    parents
}

/// Every node's local matrix, with `overrides` (node -> translation,
/// rotation) replacing the node's own.
fn local_matrices(
    doc: &gltf::Document,
    overrides: &HashMap<usize, (Option<Vec3>, Option<Quat>)>,
) -> Vec<Mat4> {
    doc.nodes()
        .map(|node| {
            let (t, r, s) = node.transform().decomposed();
            let (mut t, mut r) = (Vec3::from(t), Quat::from_array(r));
            if let Some(&(ot, or)) = overrides.get(&node.index()) {
                t = ot.unwrap_or(t);
                r = or.unwrap_or(r);
            }
            Mat4::from_scale_rotation_translation(Vec3::from(s), r, t)
        })
        .collect()
}

fn world(locals: &[Mat4], parents: &[Option<usize>], node: usize) -> Mat4 {
    match parents[node] {
        Some(p) => world(locals, parents, p) * locals[node],
        None => locals[node],
    }
}

/// The animation's LINEAR translation and rotation channels at `t`.
fn sample_linear(
    animation: &gltf::Animation,
    bin: &[u8],
    t: f32,
) -> HashMap<usize, (Option<Vec3>, Option<Quat>)> {
    let mut overrides: HashMap<usize, (Option<Vec3>, Option<Quat>)> = HashMap::new();
    for channel in animation.channels() {
        assert_eq!(
            channel.sampler().interpolation(),
            gltf::animation::Interpolation::Linear
        );
        let reader = channel.reader(|_| Some(bin));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let k = times
            .windows(2)
            .position(|w| t < w[1])
            .unwrap_or(times.len() - 2);
        let s = ((t - times[k]) / (times[k + 1] - times[k])).clamp(0.0, 1.0);
        let entry = overrides
            .entry(channel.target().node().index())
            .or_default();
        match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(it) => {
                let keys: Vec<Vec3> = it.map(Vec3::from).collect();
                entry.0 = Some(keys[k].lerp(keys[k + 1], s));
            }
            ReadOutputs::Rotations(it) => {
                let keys: Vec<Quat> = it.into_f32().map(Quat::from_array).collect();
                entry.1 = Some(keys[k].slerp(keys[k + 1], s));
            }
            _ => panic!("only translations and rotations"),
        }
    }
    overrides
}

/// Every skinned primitive's vertices, skinned with the joints' world
/// matrices under `overrides` (JOINTS_0/WEIGHTS_0 and, when there,
/// JOINTS_1/WEIGHTS_1).
fn skinned_positions(
    doc: &gltf::Document,
    bin: &[u8],
    overrides: &HashMap<usize, (Option<Vec3>, Option<Quat>)>,
) -> Vec<Vec3> {
    let parents = parents(doc);
    let locals = local_matrices(doc, overrides);
    let mut out = Vec::new();
    for node in doc.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let ibms: Vec<Mat4> = skin
            .reader(|_| Some(bin))
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| Mat4::from_cols_array_2d(&m))
            .collect();
        let joints: Vec<Mat4> = skin
            .joints()
            .zip(&ibms)
            .map(|(j, ibm)| world(&locals, &parents, j.index()) * *ibm)
            .collect();
        for primitive in mesh.primitives() {
            let reader = primitive.reader(|_| Some(bin));
            let positions: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
            let mut sums = vec![Vec3::ZERO; positions.len()];
            for set in 0..2 {
                let (Some(js), Some(ws)) = (reader.read_joints(set), reader.read_weights(set))
                else {
                    continue;
                };
                for (v, (j, w)) in js.into_u16().zip(ws.into_f32()).enumerate() {
                    for slot in 0..4 {
                        sums[v] +=
                            w[slot] * joints[j[slot] as usize].transform_point3(positions[v]);
                    }
                }
            }
            out.extend(sums);
        }
    }
    out
}

fn assert_points(actual: &[Vec3], expected: &[Vec3], tolerance: f32, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: count");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(a.abs_diff_eq(*e, tolerance), "{what} {i}: {a} != {e}");
    }
}

/// Every GLB fixture, named.
fn glb_fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("blender_style", fixtures::blender_style().glb),
        ("embedded_images", fixtures::embedded_images().glb),
        ("cubic_rotation", fixtures::cubic_rotation().glb),
        ("sparse_positions", fixtures::sparse_positions().glb),
        ("eight_influences", fixtures::eight_influences().glb),
        ("joint_index_past_skin", bad::joint_index_past_skin()),
        ("nan_inverse_bind_matrix", bad::nan_inverse_bind_matrix()),
    ]
}

#[test]
fn every_fixture_parses_and_validates() {
    for (name, glb) in glb_fixtures() {
        let gltf = Gltf::from_slice(&glb).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(gltf.blob.is_some(), "{name}: no BIN chunk");
        assert_eq!(gltf.scenes().count(), 1, "{name}");
        assert!(gltf.default_scene().is_some(), "{name}");
        assert_eq!(gltf.skins().count(), 1, "{name}");
    }
    let dir = common::scratch_dir("gltf_fixtures_parse");
    let external = fixtures::external_files(&dir);
    parse(&std::fs::read(&external.gltf).unwrap());
    let missing = bad::missing_bin(&dir);
    parse(&std::fs::read(missing).unwrap());
}

#[test]
fn glb_chunks_are_laid_out_as_the_spec_says() {
    let word = |bytes: &[u8], at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    for (name, glb) in glb_fixtures() {
        assert_eq!(word(&glb, 0), GLB_MAGIC, "{name}");
        assert_eq!(&glb[..4], b"glTF", "{name}");
        assert_eq!(word(&glb, 4), 2, "{name}: version");
        assert_eq!(word(&glb, 8) as usize, glb.len(), "{name}: length");
        assert_eq!(glb.len() % 4, 0, "{name}");

        let json_length = word(&glb, 12) as usize;
        assert_eq!(word(&glb, 16), CHUNK_JSON, "{name}");
        assert_eq!(&glb[16..20], b"JSON", "{name}");
        assert_eq!(json_length % 4, 0, "{name}: JSON chunk length");
        let json = &glb[20..20 + json_length];
        let text_end = json.iter().rposition(|&b| b == b'}').unwrap() + 1;
        assert!(json_length - text_end < 4, "{name}: JSON padding");
        assert!(
            json[text_end..].iter().all(|&b| b == b' '),
            "{name}: JSON padding"
        );
        let document: serde_json::Value = serde_json::from_slice(json).unwrap();

        let bin_at = 20 + json_length;
        let bin_length = word(&glb, bin_at) as usize;
        assert_eq!(word(&glb, bin_at + 4), CHUNK_BIN, "{name}");
        assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0", "{name}");
        assert_eq!(bin_length % 4, 0, "{name}: BIN chunk length");
        assert_eq!(
            bin_at + 8 + bin_length,
            glb.len(),
            "{name}: BIN is the last chunk"
        );
        let buffers = document["buffers"].as_array().unwrap();
        assert_eq!(buffers.len(), 1, "{name}");
        assert!(
            buffers[0].get("uri").is_none(),
            "{name}: the GLB buffer has no uri"
        );
        let byte_length = buffers[0]["byteLength"].as_u64().unwrap() as usize;
        assert!(
            byte_length <= bin_length && bin_length < byte_length + 4,
            "{name}: byteLength {byte_length}, chunk {bin_length}"
        );
        let bin = &glb[bin_at + 8..];
        assert!(
            bin[byte_length..].iter().all(|&b| b == 0),
            "{name}: BIN padding"
        );

        // Every buffer view inside the buffer, 4-byte aligned.
        for view in document["bufferViews"].as_array().unwrap() {
            let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let length = view["byteLength"].as_u64().unwrap() as usize;
            assert_eq!(offset % 4, 0, "{name}: view offset");
            assert!(
                offset + length <= byte_length,
                "{name}: view past the buffer"
            );
        }

        // The gltf crate finds the same two chunks.
        let parsed = gltf::binary::Glb::from_slice(&glb).unwrap();
        assert_eq!(&*parsed.json, json, "{name}");
        assert_eq!(
            parsed.bin.as_deref().map(<[u8]>::len),
            Some(bin_length),
            "{name}"
        );
    }
}

#[test]
fn position_min_and_max_are_those_of_the_positions() {
    let mut checked = 0;
    for (name, glb) in glb_fixtures() {
        let gltf = parse(&glb);
        let bin = blob(&gltf);
        for mesh in gltf.meshes() {
            for primitive in mesh.primitives() {
                let positions: Vec<Vec3> = primitive
                    .reader(|_| Some(bin))
                    .read_positions()
                    .unwrap()
                    .map(Vec3::from)
                    .collect();
                let min = positions.iter().fold(Vec3::INFINITY, |a, &b| a.min(b));
                let max = positions.iter().fold(Vec3::NEG_INFINITY, |a, &b| a.max(b));
                let accessor = primitive.get(&gltf::Semantic::Positions).unwrap();
                let json_vec = |v: serde_json::Value| {
                    Vec3::from(serde_json::from_value::<[f32; 3]>(v).unwrap())
                };
                assert_eq!(json_vec(accessor.min().unwrap()), min, "{name}");
                assert_eq!(json_vec(accessor.max().unwrap()), max, "{name}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 8);
}

#[test]
fn the_writer_writes_every_kind_of_accessor_and_element() {
    let mut b = GltfBuilder::new();
    // Strided u8 VEC3 (4-byte stride, zero gap), u16 normalized VEC2,
    // u32 indices, MAT4.
    let colours = b.accessor(
        &[255u8, 0, 0, 0, 255, 0, 0, 0, 255],
        Type::Vec3,
        Layout {
            normalized: true,
            stride: Some(4),
            ..Layout::VERTEX
        },
    );
    let uvs = b.accessor(
        &[0u16, 0, 65535, 0, 0, 65535],
        Type::Vec2,
        Layout::NORMALIZED,
    );
    let positions = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, -2.0),
        Vec3::new(0.0, 3.0, 0.5),
    ];
    let position = b.positions(&positions);
    let indices = b.indices_u32(&[0, 1, 2]);
    let target = b.vec3s(&[Vec3::X, Vec3::Y, Vec3::Z]);
    let mat = Mat4::from_cols_array(&std::array::from_fn(|i| i as f32));
    let matrices = b.matrices(&[mat]);
    let image = b.image_data_uri(
        "one",
        &common::gltf_write::png_bytes(&fixtures::test_image(1, 1, 0)),
        "image/png",
    );
    let sampler = b.sampler(Some(LINEAR), None, REPEAT, REPEAT);
    let texture = b.texture(image, Some(sampler));
    let material = b.material(Material {
        name: Some("everything".into()),
        base_color_factor: Some([0.5, 0.25, 1.0, 1.0]),
        base_color_texture: Some(texture),
        metallic_factor: Some(0.1),
        roughness_factor: Some(0.9),
        metallic_roughness_texture: Some(texture),
        normal_texture: Some(texture),
        normal_scale: Some(0.5),
        double_sided: true,
        alpha_mode: Some("MASK"),
        alpha_cutoff: Some(0.25),
        emissive_factor: Some([1.0, 0.5, 0.0]),
        emissive_strength: Some(4.0),
        unlit: true,
    });
    let primitive = Primitive {
        indices: Some(indices),
        material: Some(material),
        mode: Some(4),
        targets: vec![vec![("POSITION".into(), target)]],
        ..Primitive::default()
    }
    .attribute("POSITION", position)
    .attribute("COLOR_0", colours)
    .attribute("TEXCOORD_0", uvs);
    let mesh = b.mesh("triangle", &[primitive], Some(&[0.25]));
    let child = b.node(Node {
        matrix: Some(Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0))),
        ..Node::named("matrix")
    });
    let node = b.node(Node {
        mesh: Some(mesh),
        translation: Some(Vec3::X),
        rotation: Some(Quat::from_rotation_y(0.5)),
        scale: Some(Vec3::splat(2.0)),
        children: vec![child],
        ..Node::named("trs")
    });
    let input = b.times(&[0.0, 0.5]);
    let scales = b.vec3_output(&[Vec3::ONE, Vec3::splat(2.0)]);
    let translations = b.vec3_output(&[Vec3::ZERO, Vec3::Y]);
    b.animation(
        "steps",
        &[
            Channel {
                node,
                property: Property::Scale,
                input,
                output: scales,
                interpolation: Interpolation::Step,
            },
            Channel {
                node: child,
                property: Property::Translation,
                input,
                output: translations,
                interpolation: Interpolation::Linear,
            },
        ],
    );
    b.scene("Scene", &[node]);
    let _ = matrices;

    // As a .gltf with the buffer in a data: URI.
    let text = b.to_gltf_embedded();
    let document: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let uri = document["buffers"][0]["uri"].as_str().unwrap();
    let encoded = uri
        .strip_prefix("data:application/octet-stream;base64,")
        .unwrap();
    use base64::Engine;
    let bin = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(bin, b.buffer);
    let gltf = parse(&text);
    assert!(gltf.blob.is_none());

    let primitive = gltf.meshes().next().unwrap().primitives().next().unwrap();
    let reader = primitive.reader(|_| Some(&bin));
    let colours: Vec<[u8; 4]> = reader.read_colors(0).unwrap().into_rgba_u8().collect();
    assert_eq!(
        colours,
        [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
    );
    let colour_view = primitive
        .get(&gltf::Semantic::Colors(0))
        .unwrap()
        .view()
        .unwrap();
    assert_eq!(colour_view.stride(), Some(4));
    assert_eq!(
        colour_view.length(),
        4 * 2 + 3,
        "the last element needs only its own bytes"
    );
    let uvs: Vec<[f32; 2]> = reader.read_tex_coords(0).unwrap().into_f32().collect();
    assert_eq!(uvs, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    let read: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
    assert_eq!(read, positions);
    let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    assert_eq!(indices, [0, 1, 2]);
    assert_eq!(primitive.mode(), gltf::mesh::Mode::Triangles);
    let targets: Vec<Vec3> = reader
        .read_morph_targets()
        .next()
        .unwrap()
        .0
        .unwrap()
        .map(Vec3::from)
        .collect();
    assert_eq!(targets, [Vec3::X, Vec3::Y, Vec3::Z]);
    let accessor = gltf.accessors().nth(matrices).unwrap();
    assert_eq!(accessor.dimensions(), gltf::accessor::Dimensions::Mat4);
    let view = accessor.view().unwrap();
    let floats: Vec<f32> = bin[view.offset()..view.offset() + 64]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(floats, mat.to_cols_array(), "column-major");

    let material = primitive.material();
    let pbr = material.pbr_metallic_roughness();
    assert_eq!(pbr.base_color_factor(), [0.5, 0.25, 1.0, 1.0]);
    assert_eq!(pbr.metallic_factor(), 0.1);
    assert_eq!(pbr.roughness_factor(), 0.9);
    assert!(pbr.base_color_texture().is_some() && pbr.metallic_roughness_texture().is_some());
    assert_eq!(material.normal_texture().unwrap().scale(), 0.5);
    assert!(material.double_sided());
    assert_eq!(material.alpha_mode(), gltf::material::AlphaMode::Mask);
    assert_eq!(material.alpha_cutoff(), Some(0.25));
    assert_eq!(material.emissive_factor(), [1.0, 0.5, 0.0]);
    let used: Vec<&str> = gltf.extensions_used().collect();
    assert_eq!(
        used,
        ["KHR_materials_emissive_strength", "KHR_materials_unlit"]
    );

    let nodes: Vec<gltf::Node> = gltf.nodes().collect();
    assert_eq!(
        Mat4::from_cols_array_2d(&nodes[child].transform().matrix()),
        Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0))
    );
    let (t, r, s) = nodes[node].transform().decomposed();
    assert_eq!((t, s), ([1.0, 0.0, 0.0], [2.0, 2.0, 2.0]));
    assert!(Quat::from_array(r).abs_diff_eq(Quat::from_rotation_y(0.5), 1e-6));
    let animation = gltf.animations().next().unwrap();
    let interpolations: Vec<_> = animation.samplers().map(|s| s.interpolation()).collect();
    assert_eq!(
        interpolations,
        [
            gltf::animation::Interpolation::Step,
            gltf::animation::Interpolation::Linear
        ]
    );
    let times = gltf.accessors().nth(input).unwrap();
    assert_eq!(times.min(), Some(serde_json::json!([0.0])));
    assert_eq!(times.max(), Some(serde_json::json!([0.5])));
}

#[test]
fn the_shipped_character_converts() {
    let model = common::shipped_model();
    let converted = model_to_gltf(
        &model,
        &ConvertOptions {
            textures: shipped_textures(&model),
            tangents: true,
        },
    );
    let glb = converted.gltf.to_glb();
    let gltf = parse(&glb);
    let bin = blob(&gltf);

    let skin = gltf.skins().next().unwrap();
    assert_eq!(gltf.skins().count(), 1);
    assert_eq!(skin.joints().count(), 23);
    let names: Vec<String> = skin
        .joints()
        .map(|j| j.name().unwrap().to_owned())
        .collect();
    assert_eq!(names, model.skeleton.names);
    let skinned: Vec<gltf::Node> = gltf.nodes().filter(|n| n.skin().is_some()).collect();
    assert_eq!(skinned.len(), 2);
    assert!(skinned.iter().all(|n| n.mesh().is_some()));
    let animations: Vec<&str> = gltf.animations().map(|a| a.name().unwrap()).collect();
    assert_eq!(animations, ["idle", "run", "walk", "wave"]);

    // Each joint's inverse bind matrix undoes its world matrix in the scene.
    let parents = parents(&gltf);
    let locals = local_matrices(&gltf, &HashMap::new());
    let ibms: Vec<Mat4> = skin
        .reader(|_| Some(bin))
        .read_inverse_bind_matrices()
        .unwrap()
        .map(|m| Mat4::from_cols_array_2d(&m))
        .collect();
    assert_eq!(ibms.len(), 23);
    for (joint, ibm) in skin.joints().zip(&ibms) {
        let product = *ibm * world(&locals, &parents, joint.index());
        assert!(
            product.abs_diff_eq(Mat4::IDENTITY, 1e-4),
            "{}: {product}",
            joint.name().unwrap()
        );
    }

    // The bind pose skins to the md5 positions, and the character stands
    // Y up in metres, facing +Z.
    let skinned = skinned_positions(&gltf, bin, &HashMap::new());
    let md5: Vec<Vec3> = model
        .meshes
        .iter()
        .flat_map(|m| m.positions.clone())
        .collect();
    let back: Vec<Vec3> = skinned.iter().map(|&p| gltf_to_md5_point(p)).collect();
    assert_points(&back, &md5, 1e-3, "bind pose");
    let top = skinned.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    let bottom = skinned.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!(
        (top - 72.4 * 0.0254).abs() < 0.02 && bottom.abs() < 0.01,
        "{bottom}..{top}"
    );

    // Triangles wound counter-clockwise seen from outside: summed over the
    // closed shells, (b - a) x (c - a) points away from the centre.
    for node in gltf.nodes().filter(|n| n.skin().is_some()) {
        let primitive = node.mesh().unwrap().primitives().next().unwrap();
        let reader = primitive.reader(|_| Some(bin));
        let p: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
        let i: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
        let outward: f32 = i
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| p[t[k] as usize]);
                (b - a).cross(c - a).dot((a + b + c) / 3.0)
            })
            .sum();
        assert!(outward > 0.0, "signed volume {outward}");
        assert!(primitive
            .material()
            .pbr_metallic_roughness()
            .base_color_texture()
            .is_some());
        assert_eq!(
            i.len(),
            model.meshes[node.mesh().unwrap().index()].indices.len()
        );
    }

    // An animation's keys put each joint where the clip's frame does.
    let walk_index = model.clips.iter().position(|c| c.name == "walk").unwrap();
    let clip = &model.clips[walk_index];
    let animation = gltf.animations().nth(walk_index).unwrap();
    let frame = 7;
    let t = frame as f32 / clip.frame_rate;
    let overrides = sample_linear(&animation, bin, t);
    let posed = local_matrices(&gltf, &overrides);
    let mut md5_world = Vec::new();
    for (j, parent) in model.skeleton.parents.iter().enumerate() {
        let local = clip.frames[frame][j];
        let w = match parent {
            Some(p) => md5_world[*p as usize],
            None => md5crowd::anim::JointPose::IDENTITY,
        }
        .then(local);
        md5_world.push(w);
    }
    for (j, joint) in skin.joints().enumerate() {
        let (t, r) = md5_to_gltf_pose(md5_world[j]);
        let expected = Mat4::from_rotation_translation(r, t);
        let actual = world(&posed, &parents, joint.index());
        assert!(actual.abs_diff_eq(expected, 1e-4), "joint {j}");
    }
    let times: Vec<f32> = animation
        .channels()
        .next()
        .unwrap()
        .reader(|_| Some(bin))
        .read_inputs()
        .unwrap()
        .collect();
    assert_eq!(times.len(), clip.frames.len());
}

#[test]
fn blender_style_expectations_match_the_file() {
    let fixture = fixtures::blender_style();
    let gltf = parse(&fixture.glb);
    let bin = blob(&gltf);
    let names: Vec<&str> = gltf
        .skins()
        .next()
        .unwrap()
        .joints()
        .map(|j| j.name().unwrap())
        .collect();
    assert_eq!(names, fixture.joint_names);

    let md5 =
        |points: Vec<Vec3>| -> Vec<Vec3> { points.into_iter().map(gltf_to_md5_point).collect() };
    let bind = md5(skinned_positions(&gltf, bin, &HashMap::new()));
    assert_points(&bind, &fixture.bind_positions_md5, 1e-3, "bind");
    let wave = gltf
        .animations()
        .find(|a| a.name() == Some("wave"))
        .unwrap();
    let at = sample_linear(&wave, bin, fixture.wave_time);
    let posed = md5(skinned_positions(&gltf, bin, &at));
    assert_points(&posed, &fixture.wave_positions_md5, 1e-3, "wave");
    // The wave moves the forearm's and the hand's vertices only.
    for (v, (a, b)) in fixture
        .bind_positions_md5
        .iter()
        .zip(&fixture.wave_positions_md5)
        .enumerate()
    {
        let moved = !a.abs_diff_eq(*b, 1e-3);
        assert_eq!(moved, v >= 2, "vertex {v}");
    }

    // Md5 space: Z up (the arm at 140 cm), units of 2.54 cm; the arm runs
    // along the authored +X, glTF +X, md5 +Y; bones 20 cm = 7.87 units.
    let origins = &fixture.joint_origins_md5;
    assert!((origins[0].z - 140.0 / 2.54).abs() < 1e-3, "{}", origins[0]);
    assert!((origins[0].distance(origins[1]) - 20.0 / 2.54).abs() < 1e-3);
    assert!((origins[1].distance(origins[2]) - 20.0 / 2.54).abs() < 1e-3);
    assert!(origins[1].y > origins[0].y + 7.0);
    let parents = parents(&gltf);
    let locals = local_matrices(&gltf, &HashMap::new());
    for (joint, expected) in gltf.skins().next().unwrap().joints().zip(origins) {
        let at =
            gltf_to_md5_point(world(&locals, &parents, joint.index()).transform_point3(Vec3::ZERO));
        assert!(at.abs_diff_eq(*expected, 1e-3));
    }
    // The mesh node is beside the armature, not under it.
    let scene = gltf.default_scene().unwrap();
    assert_eq!(scene.nodes().count(), 2);
    assert!(scene.nodes().any(|n| n.mesh().is_some()));
}

#[test]
fn cubic_rotation_spline_goes_through_its_keys() {
    let fixture = fixtures::cubic_rotation();
    let gltf = parse(&fixture.glb);
    let bin = blob(&gltf);
    let animation = gltf.animations().next().unwrap();
    assert_eq!(animation.name(), Some(fixture.animation));
    let channel = animation.channels().next().unwrap();
    assert_eq!(channel.target().node().name(), Some(fixture.joint));
    assert_eq!(
        channel.sampler().interpolation(),
        gltf::animation::Interpolation::CubicSpline
    );
    let reader = channel.reader(|_| Some(bin));
    let times: Vec<f32> = reader.read_inputs().unwrap().collect();
    assert_eq!(times, fixture.times);
    assert_eq!(times[0], 0.25);
    let ReadOutputs::Rotations(rotations) = reader.read_outputs().unwrap() else {
        panic!("rotations");
    };
    let outputs: Vec<Vec4> = rotations.into_f32().map(Vec4::from).collect();
    assert_eq!(outputs.len(), 3 * times.len());
    for k in 0..times.len() {
        assert_eq!(outputs[3 * k], fixture.in_tangents[k]);
        assert_eq!(outputs[3 * k + 1], fixture.values[k]);
        assert_eq!(outputs[3 * k + 2], fixture.out_tangents[k]);
        let key = Quat::from_vec4(fixture.values[k]).normalize();
        assert!(
            fixture.gltf_rotation(times[k]).abs_diff_eq(key, 1e-6),
            "key {k}"
        );
        // Continuous across the key.
        for dt in [-1e-4, 1e-4] {
            let near = fixture.gltf_rotation(times[k] + dt);
            assert!(near.dot(key).abs() > 0.9999, "key {k}{dt:+}");
        }
    }
    assert_eq!(fixture.gltf_rotation(0.0), fixture.gltf_rotation(0.25));
    assert_eq!(
        fixture.gltf_rotation(9.0),
        Quat::from_vec4(fixture.values[4]).normalize()
    );
    // Between keys it leaves the straight line: not a slerp.
    let mid = fixture.gltf_rotation(0.95);
    let slerp = Quat::from_vec4(fixture.values[1]).slerp(Quat::from_vec4(fixture.values[2]), 0.5);
    assert!(mid.dot(slerp).abs() < 0.99999, "{mid} vs {slerp}");
    assert!(fixture.md5_rotation(0.95).is_normalized());
    assert!((fixture.translation_md5 - Vec3::new(0.0, 0.0, 0.5 / 0.0254)).length() < 1e-4);
}

#[test]
fn sparse_accessors_read_back_as_expected() {
    let fixture = fixtures::sparse_positions();
    let gltf = parse(&fixture.glb);
    let bin = blob(&gltf);
    let primitive = gltf.meshes().next().unwrap().primitives().next().unwrap();
    let position = primitive.get(&gltf::Semantic::Positions).unwrap();
    assert!(position.view().is_some() && position.sparse().is_some());
    let joints = primitive.get(&gltf::Semantic::Joints(0)).unwrap();
    assert!(joints.view().is_none() && joints.sparse().is_some());
    let reader = primitive.reader(|_| Some(bin));
    let read: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
    assert_eq!(read, fixture.positions);
    let read_joints: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
    assert_eq!(read_joints, fixture.joints);
    let target = primitive
        .morph_targets()
        .next()
        .unwrap()
        .positions()
        .unwrap();
    assert!(target.view().is_none() && target.sparse().is_some());
    let displacements: Vec<Vec3> = reader
        .read_morph_targets()
        .next()
        .unwrap()
        .0
        .unwrap()
        .map(Vec3::from)
        .collect();
    assert_eq!(displacements, fixture.morph_target);
    let bind = skinned_positions(&gltf, bin, &HashMap::new());
    let md5: Vec<Vec3> = bind.into_iter().map(gltf_to_md5_point).collect();
    assert_points(&md5, &fixture.positions_md5, 1e-4, "sparse bind pose");
}

#[test]
fn eight_influences_read_back_as_expected() {
    let fixture = fixtures::eight_influences();
    let gltf = parse(&fixture.glb);
    let bin = blob(&gltf);
    let primitive = gltf.meshes().next().unwrap().primitives().next().unwrap();
    let accessor = |s| primitive.get(&s).unwrap();
    use gltf::accessor::DataType;
    use gltf::Semantic::{Joints, Weights};
    assert_eq!(accessor(Weights(0)).data_type(), DataType::U16);
    assert!(accessor(Weights(0)).normalized());
    assert_eq!(accessor(Weights(1)).data_type(), DataType::U8);
    assert!(accessor(Weights(1)).normalized());
    assert_eq!(accessor(Joints(0)).data_type(), DataType::U16);
    assert_eq!(accessor(Joints(1)).data_type(), DataType::U8);
    let reader = primitive.reader(|_| Some(bin));
    let j0: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
    let j1: Vec<[u16; 4]> = reader.read_joints(1).unwrap().into_u16().collect();
    let w0: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
    let w1: Vec<[f32; 4]> = reader.read_weights(1).unwrap().into_f32().collect();
    let skin_joints = gltf.skins().next().unwrap().joints().count();
    for v in 0..4 {
        let joints: Vec<u16> = j0[v].iter().chain(&j1[v]).copied().collect();
        assert_eq!(joints, fixture.joints[v]);
        let mut distinct = joints.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 8);
        assert!(joints.iter().all(|&j| (j as usize) < skin_joints));
        let stored: Vec<f32> = w0[v].iter().chain(&w1[v]).copied().collect();
        let sum: f32 = stored.iter().sum();
        assert!((sum - fixture.file_sums[v]).abs() < 1e-6);
        for (s, w) in stored.iter().zip(fixture.weights[v]) {
            assert!((s / sum - w).abs() < 1e-6);
        }
        assert!((fixture.weights[v].iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
    assert!(
        (fixture.file_sums[1] - 0.6).abs() < 0.01,
        "{:?}",
        fixture.file_sums
    );
    assert!(
        (fixture.file_sums[2] - 1.4).abs() < 0.01,
        "{:?}",
        fixture.file_sums
    );
}

#[test]
fn external_files_are_beside_the_gltf() {
    let dir = common::scratch_dir("gltf_fixtures_external");
    let fixture = fixtures::external_files(&dir);
    let bytes = std::fs::read(&fixture.gltf).unwrap();
    let gltf = parse(&bytes);
    assert!(gltf.blob.is_none());
    let buffer = gltf.buffers().next().unwrap();
    let gltf::buffer::Source::Uri(uri) = buffer.source() else {
        panic!("an external buffer");
    };
    assert_eq!(uri, "quad.bin");
    let bin = std::fs::read(&fixture.bin).unwrap();
    assert_eq!(bin.len(), buffer.length());
    let image = gltf.images().next().unwrap();
    let gltf::image::Source::Uri { uri, .. } = image.source() else {
        panic!("an external image");
    };
    assert_eq!(uri, "quad%20skin.png");
    assert_eq!(fixture.png.file_name().unwrap(), "quad skin.png");
    let png = image::open(&fixture.png).unwrap().to_rgba8();
    assert_eq!(png, fixture.image);
    let bind = skinned_positions(&gltf, &bin, &HashMap::new());
    let md5: Vec<Vec3> = bind.into_iter().map(gltf_to_md5_point).collect();
    assert_points(&md5, &fixture.positions_md5, 1e-4, "bind");
    // Md5: the quad stands on z = 0, 1.2 m = 47.2 units tall.
    assert!(md5
        .iter()
        .all(|p| p.z.abs() < 1e-4 || (p.z - 1.2 / 0.0254).abs() < 1e-3));
}

#[test]
fn embedded_images_decode_to_what_was_put_in() {
    let fixture = fixtures::embedded_images();
    let gltf = parse(&fixture.glb);
    let bin = blob(&gltf);
    let mut decoded = Vec::new();
    for mesh in gltf.meshes() {
        let primitive = mesh.primitives().next().unwrap();
        let texture = primitive
            .material()
            .pbr_metallic_roughness()
            .base_color_texture()
            .unwrap();
        let bytes = match texture.texture().source().source() {
            gltf::image::Source::View { view, mime_type } => {
                assert_eq!(mime_type, "image/png");
                assert!(view.stride().is_none());
                bin[view.offset()..view.offset() + view.length()].to_vec()
            }
            gltf::image::Source::Uri { uri, mime_type } => {
                assert!(mime_type.is_none());
                let encoded = uri.strip_prefix("data:image/png;base64,").unwrap();
                use base64::Engine;
                base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .unwrap()
            }
        };
        decoded.push(image::load_from_memory(&bytes).unwrap().to_rgba8());
    }
    assert_eq!(decoded, fixture.images);
    let sources: Vec<bool> = gltf
        .images()
        .map(|i| matches!(i.source(), gltf::image::Source::View { .. }))
        .collect();
    assert_eq!(sources, [true, false]);
}

#[test]
fn bad_inputs_are_bad_in_the_intended_way() {
    let declared = |glb: &[u8]| u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize;

    let truncated = bad::truncated_glb();
    assert!(declared(&truncated) > truncated.len());
    assert!(
        truncated.len() > bad::bin_data_start(&truncated),
        "cut inside BIN"
    );
    assert!(Gltf::from_slice(&truncated).is_err());

    // Not handed to the gltf crate: 1.4.1's Glb::from_slice computes
    // length - 12 unchecked and panics on it in debug builds. The rest of
    // the file is whole: with its length mended it parses.
    let short = bad::glb_length_under_header();
    assert_eq!(declared(&short), 8);
    let mut mended = short.clone();
    mended[8..12].copy_from_slice(&(short.len() as u32).to_le_bytes());
    parse(&mended);

    // Past its view: valid JSON, but byteOffset + count * 12 > byteLength.
    let (glb, index) = bad::accessor_past_view();
    let gltf = parse(&glb);
    let accessor = gltf.accessors().nth(index).unwrap();
    let view = accessor.view().unwrap();
    assert!(accessor.offset() + accessor.count() * accessor.size() > view.length());

    let dangling = bad::dangling_skin_joint();
    let error = Gltf::from_slice(&dangling).unwrap_err();
    assert!(matches!(error, gltf::Error::Validation(_)), "{error:?}");
    assert!(
        format!("{error:?}").contains("skins[0].joints[1]"),
        "{error:?}"
    );
    assert!(Gltf::from_slice_without_validation(&dangling).is_ok());

    let past_skin = parse(&bad::joint_index_past_skin());
    let primitive = past_skin
        .meshes()
        .next()
        .unwrap()
        .primitives()
        .next()
        .unwrap();
    let joints: Vec<[u16; 4]> = primitive
        .reader(|_| Some(blob(&past_skin)))
        .read_joints(0)
        .unwrap()
        .into_u16()
        .collect();
    let skin_joints = past_skin.skins().next().unwrap().joints().count();
    assert_eq!(skin_joints, 2);
    assert_eq!(joints.iter().flatten().max(), Some(&5));

    let nan = parse(&bad::nan_inverse_bind_matrix());
    let ibms: Vec<[[f32; 4]; 4]> = nan
        .skins()
        .next()
        .unwrap()
        .reader(|_| Some(blob(&nan)))
        .read_inverse_bind_matrices()
        .unwrap()
        .collect();
    assert!(ibms[0].iter().flatten().all(|x| x.is_finite()));
    assert!(ibms[1][3][1].is_nan());

    let dir = common::scratch_dir("gltf_fixtures_missing_bin");
    let path = bad::missing_bin(&dir);
    let gltf = parse(&std::fs::read(&path).unwrap());
    let gltf::buffer::Source::Uri(uri) = gltf.buffers().next().unwrap().source() else {
        panic!("an external buffer");
    };
    assert_eq!(uri, "no_bin.bin");
    assert!(!dir.join(uri).exists());
}

#[test]
fn eight_influence_models_convert_with_a_second_joint_set() {
    // The shoulder tops reach five influences: with 8 kept, the converter
    // writes JOINTS_1/WEIGHTS_1 and the bind pose still skins in place.
    let anims = [common::assets().join("wave.md5anim")];
    let model = md5crowd::model::Model::load(
        &common::shipped_mesh(),
        &anims,
        md5crowd::skin::InfluenceLimit::Eight,
    )
    .unwrap();
    let glb = model_to_gltf(&model, &ConvertOptions::default())
        .gltf
        .to_glb();
    let gltf = parse(&glb);
    let bin = blob(&gltf);
    let body = gltf.meshes().next().unwrap().primitives().next().unwrap();
    assert!(body.get(&gltf::Semantic::Joints(1)).is_some());
    assert!(body.get(&gltf::Semantic::Weights(1)).is_some());
    assert!(body.get(&gltf::Semantic::Tangents).is_none());
    let fifth: Vec<[f32; 4]> = body
        .reader(|_| Some(bin))
        .read_weights(1)
        .unwrap()
        .into_f32()
        .collect();
    assert!(fifth.iter().any(|w| w[0] > 0.0));
    let skinned = skinned_positions(&gltf, bin, &HashMap::new());
    let md5: Vec<Vec3> = model
        .meshes
        .iter()
        .flat_map(|m| m.positions.clone())
        .collect();
    let back: Vec<Vec3> = skinned.into_iter().map(gltf_to_md5_point).collect();
    assert_points(&back, &md5, 1e-3, "bind pose");
}
