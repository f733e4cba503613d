//! Primitives to skinned meshes: attributes read in the file's space, then
//! placed in the bind pose, wound as md5 winds, with joints and weights
//! chosen and quantized as md5's are.

use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use super::rig::Rig;
use super::scene::normal_matrix;
use crate::gltf::{read_floats, read_integers, AccessorRead, GltfError, GltfFile};
use crate::skin::{
    select_influences, smooth_normals, tangents, InfluenceLimit, LodLevel, SkinnedMesh,
    TruncationReport, MAX_INFLUENCES,
};

/// A primitive as the file has it, in its mesh's space.
pub struct Primitive {
    /// The node that draws it.
    pub node: usize,
    /// `meshes[m].primitives[p]`, for messages.
    pub path: String,
    /// Its material's name (the mesh's `shader`), and index.
    pub material_name: String,
    pub material: Option<usize>,
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
    pub tangents: Option<Vec<Vec4>>,
    pub uvs: Vec<Vec2>,
    /// Per vertex, its skin joint numbers and weights (JOINTS_0/1,
    /// WEIGHTS_0/1); empty for a primitive without a skin.
    pub influences: Vec<[(u32, f32); MAX_INFLUENCES]>,
    /// Counter-clockwise triangles, as glTF winds them.
    pub triangles: Vec<u32>,
}

/// How many vertices' weights did not sum to 1, and by how much.
#[derive(Default)]
pub struct WeightReport {
    pub renormalized: usize,
    pub lowest_sum: f32,
    pub highest_sum: f32,
    pub weightless: usize,
}

const FLOAT: &[DataType] = &[DataType::F32];

/// The triangle primitives of node `node`'s mesh. Points and lines are
/// skipped with a warning; strips and fans become lists.
pub fn read_primitives(
    file: &GltfFile,
    node: &gltf::Node,
    skinned: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<Primitive>, GltfError> {
    let Some(mesh) = node.mesh() else {
        return Ok(Vec::new());
    };
    let mut primitives = Vec::new();
    for primitive in mesh.primitives() {
        let path = format!("meshes[{}].primitives[{}]", mesh.index(), primitive.index());
        let error = |message: String| GltfError::new(&file.name, &path, message);
        let attribute = |semantic: Semantic| primitive.get(&semantic);
        let floats = |accessor: &gltf::Accessor, name: &str, dims, types| {
            read_floats(
                file,
                accessor,
                &AccessorRead {
                    what: &format!("{name} of {path}"),
                    dimensions: dims,
                    types,
                },
            )
        };
        let Some(position) = attribute(Semantic::Positions) else {
            return Err(error("no POSITION attribute".into()));
        };
        let count = position.count();
        let positions: Vec<Vec3> = floats(&position, "POSITION", &[Dimensions::Vec3], FLOAT)?
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect();
        if !positions.iter().all(|p| p.is_finite()) {
            return Err(error(format!(
                "POSITION (accessors[{}]) holds a value that is not finite",
                position.index()
            )));
        }
        let same_count = |accessor: &gltf::Accessor, name: &str| {
            if accessor.count() == count {
                Ok(())
            } else {
                Err(error(format!(
                    "{name} (accessors[{}]) has {} elements, POSITION {count}",
                    accessor.index(),
                    accessor.count()
                )))
            }
        };
        let mut normals = None;
        if let Some(accessor) = attribute(Semantic::Normals) {
            same_count(&accessor, "NORMAL")?;
            let values = floats(&accessor, "NORMAL", &[Dimensions::Vec3], FLOAT)?;
            normals = Some(values.chunks_exact(3).map(Vec3::from_slice).collect());
        }
        let mut tangent_values = None;
        if let Some(accessor) = attribute(Semantic::Tangents) {
            same_count(&accessor, "TANGENT")?;
            let values = floats(&accessor, "TANGENT", &[Dimensions::Vec4], FLOAT)?;
            tangent_values = Some(values.chunks_exact(4).map(Vec4::from_slice).collect());
        }
        let uvs = match attribute(Semantic::TexCoords(0)) {
            Some(accessor) => {
                same_count(&accessor, "TEXCOORD_0")?;
                floats(
                    &accessor,
                    "TEXCOORD_0",
                    &[Dimensions::Vec2],
                    &[DataType::F32, DataType::U8, DataType::U16],
                )?
                .chunks_exact(2)
                .map(Vec2::from_slice)
                .collect()
            }
            None => vec![Vec2::ZERO; count],
        };
        let mut influences = Vec::new();
        if skinned {
            influences = vec![[(0u32, 0f32); MAX_INFLUENCES]; count];
            for set in 0..2u32 {
                let (Some(joints), Some(weights)) = (
                    attribute(Semantic::Joints(set)),
                    attribute(Semantic::Weights(set)),
                ) else {
                    if set == 0 {
                        return Err(error(
                            "its node has a skin, but it has no JOINTS_0 and WEIGHTS_0".into(),
                        ));
                    }
                    break;
                };
                same_count(&joints, &format!("JOINTS_{set}"))?;
                same_count(&weights, &format!("WEIGHTS_{set}"))?;
                let joint_numbers = read_integers(
                    file,
                    &joints,
                    &AccessorRead {
                        what: &format!("JOINTS_{set} of {path}"),
                        dimensions: &[Dimensions::Vec4],
                        types: &[DataType::U8, DataType::U16],
                    },
                )?;
                let weight_values = floats(
                    &weights,
                    &format!("WEIGHTS_{set}"),
                    &[Dimensions::Vec4],
                    &[DataType::F32, DataType::U8, DataType::U16],
                )?;
                if let Some(bad) = weight_values.iter().find(|w| !w.is_finite()) {
                    return Err(GltfError::new(
                        &file.name,
                        format!("accessors[{}]", weights.index()),
                        format!("WEIGHTS_{set} of {path} holds {bad}"),
                    ));
                }
                for (v, vertex) in influences.iter_mut().enumerate() {
                    for c in 0..4 {
                        vertex[set as usize * 4 + c] =
                            (joint_numbers[v * 4 + c], weight_values[v * 4 + c]);
                    }
                }
            }
            if attribute(Semantic::Joints(2)).is_some() {
                warnings.push(format!(
                    "{}: {path}: JOINTS_2 and beyond are ignored (at most 8 influences)",
                    file.name
                ));
            }
        }
        let indices: Vec<u32> = match primitive.indices() {
            Some(accessor) => read_integers(
                file,
                &accessor,
                &AccessorRead {
                    what: &format!("indices of {path}"),
                    dimensions: &[Dimensions::Scalar],
                    types: &[DataType::U8, DataType::U16, DataType::U32],
                },
            )?,
            None => (0..count as u32).collect(),
        };
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= count) {
            return Err(error(format!("index {bad} is past its {count} vertices")));
        }
        let triangles = match primitive.mode() {
            Mode::Triangles => indices.chunks_exact(3).flatten().copied().collect(),
            Mode::TriangleStrip => (2..indices.len())
                .flat_map(|i| {
                    let (a, b, c) = (indices[i - 2], indices[i - 1], indices[i]);
                    if i % 2 == 0 {
                        [a, b, c]
                    } else {
                        [b, a, c]
                    }
                })
                .collect(),
            Mode::TriangleFan => (2..indices.len())
                .flat_map(|i| [indices[0], indices[i - 1], indices[i]])
                .collect(),
            mode => {
                warnings.push(format!(
                    "{}: {path}: {mode:?} primitives are not drawn (triangles only)",
                    file.name
                ));
                continue;
            }
        };
        let material = primitive.material();
        primitives.push(Primitive {
            node: node.index(),
            material_name: material
                .name()
                .map(str::to_owned)
                .or_else(|| material.index().map(|i| format!("materials[{i}]")))
                .unwrap_or_else(|| "default material".to_owned()),
            material: material.index(),
            path,
            positions,
            normals,
            tangents: tangent_values,
            uvs,
            influences,
            triangles,
        });
    }
    Ok(primitives)
}

/// `primitive` as a skinned mesh in the bind pose: `to_bind` takes its
/// space to the bind pose's; a primitive without influences moves with
/// joint `rigid_joint` alone.
pub fn skinned_mesh(
    file: &GltfFile,
    primitive: &Primitive,
    rig: &Rig,
    to_bind: Mat4,
    rigid_joint: u16,
    limit: InfluenceLimit,
    weights: &mut WeightReport,
) -> Result<SkinnedMesh, GltfError> {
    let positions: Vec<Vec3> = primitive
        .positions
        .iter()
        .map(|&p| to_bind.transform_point3(p))
        .collect();
    // glTF winds counter-clockwise, md5 clockwise; a mirroring transform
    // turns the winding over once more.
    let mirrored = to_bind.determinant() < 0.0;
    let indices: Vec<u32> = primitive
        .triangles
        .chunks_exact(3)
        .flat_map(|t| {
            if mirrored {
                [t[0], t[1], t[2]]
            } else {
                [t[0], t[2], t[1]]
            }
        })
        .collect();
    let normals = match &primitive.normals {
        Some(normals) => {
            let matrix = normal_matrix(to_bind);
            normals
                .iter()
                .map(|&n| (matrix * n).try_normalize().unwrap_or(Vec3::Z))
                .collect()
        }
        None => smooth_normals(&positions, &indices),
    };
    let tangents = match &primitive.tangents {
        Some(tangents) => {
            let matrix = glam::Mat3::from_mat4(to_bind);
            let handedness = if mirrored { -1.0 } else { 1.0 };
            tangents
                .iter()
                .map(|t| {
                    let xyz = (matrix * t.truncate()).try_normalize().unwrap_or(Vec3::X);
                    xyz.extend(if t.w < 0.0 { -handedness } else { handedness })
                })
                .collect()
        }
        // glTF's normal maps point green up the image (-v); derived
        // tangents' bitangent runs along +v, as Doom 3's maps do.
        None => tangents(&positions, &normals, &primitive.uvs, &indices)
            .into_iter()
            .map(|t| t.truncate().extend(-t.w))
            .collect(),
    };
    let mut truncation = TruncationReport::default();
    let mut joints = Vec::with_capacity(positions.len());
    let mut vertex_weights = Vec::with_capacity(positions.len());
    let mut listed = Vec::with_capacity(MAX_INFLUENCES);
    for v in 0..positions.len() {
        listed.clear();
        match primitive.influences.get(v) {
            // A primitive without influences is a rigid part of `rigid_joint`.
            None => listed.push((rigid_joint, 1.0)),
            Some(influences) => {
                for &(slot, weight) in influences.iter().filter(|(_, w)| *w > 0.0) {
                    let Some(&joint) = rig.joint_of_slot.get(slot as usize) else {
                        return Err(GltfError::new(
                            &file.name,
                            &primitive.path,
                            format!(
                                "vertex {v} names joint {slot} of skins[{}], which has {}",
                                rig.skin.unwrap_or(0),
                                rig.joint_of_slot.len()
                            ),
                        ));
                    };
                    listed.push((joint, weight));
                }
                let sum: f32 = listed.iter().map(|(_, w)| w).sum();
                if listed.is_empty() {
                    weights.weightless += 1;
                    listed.push((rigid_joint, 1.0));
                } else if (sum - 1.0).abs() > 0.01 {
                    if weights.renormalized == 0 {
                        (weights.lowest_sum, weights.highest_sum) = (sum, sum);
                    }
                    weights.renormalized += 1;
                    weights.lowest_sum = weights.lowest_sum.min(sum);
                    weights.highest_sum = weights.highest_sum.max(sum);
                }
            }
        }
        let selected = select_influences(&listed, limit);
        truncation.record(&selected, limit);
        joints.push(selected.joints);
        vertex_weights.push(selected.weights);
    }
    Ok(SkinnedMesh {
        shader: primitive.material_name.clone(),
        positions,
        normals,
        tangents,
        uvs: primitive.uvs.clone(),
        joints,
        weights: vertex_weights,
        lods: vec![LodLevel::finest(indices.clone())],
        indices,
        short_chain: None,
        limit,
        truncation,
    })
}
