//! Primitives to skinned meshes: attributes read in the file's space, then
//! placed in the bind pose, wound as md5 winds, with joints and weights
//! chosen and quantized as md5's are.

use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use super::materials;
use super::morph_targets::{bind_targets, read_targets, FileTarget};
use super::rig::SkinSlots;
use super::scene::normal_matrix;
use crate::anim::Skeleton;
use crate::gltf::{read_floats, read_integers, AccessorRead, GltfError, GltfFile};
use crate::skin::{
    select_influences, smooth_normals, tangents, InfluenceLimit, LodLevel, SkinnedMesh,
    TruncationReport, VertexColor, MAX_INFLUENCES,
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
    /// COLOR_0, or white.
    pub colors: Vec<VertexColor>,
    /// Per vertex, its skin joint numbers and weights (JOINTS_0/1,
    /// WEIGHTS_0/1); empty for a primitive without a skin.
    pub influences: Vec<[(u32, f32); MAX_INFLUENCES]>,
    /// Counter-clockwise triangles, as glTF winds them.
    pub triangles: Vec<u32>,
    pub targets: Vec<FileTarget>,
}

/// How many vertices' weights did not sum to 1, and by how much.
#[derive(Default)]
pub struct WeightReport {
    renormalized: usize,
    lowest_sum: f32,
    highest_sum: f32,
    weightless: usize,
    /// The joint the last weightless vertex was bound to.
    weightless_joint: u16,
}

impl WeightReport {
    /// The report's lines, if any.
    pub fn warn(&self, file: &GltfFile, skeleton: &Skeleton, warnings: &mut Vec<String>) {
        if self.renormalized > 0 {
            warnings.push(format!(
                "{}: {} vertices' weights summed to between {:.3} and {:.3}, not 1; renormalized",
                file.name, self.renormalized, self.lowest_sum, self.highest_sum
            ));
        }
        if self.weightless > 0 {
            warnings.push(format!(
                "{}: {} vertices have no weight; bound to joint {}",
                file.name, self.weightless, skeleton.names[self.weightless_joint as usize]
            ));
        }
    }
}

/// What KHR_mesh_quantization allows besides floats: positions and
/// texture coordinates as any 8- or 16-bit integers (normalized or not),
/// normals and tangents as normalized signed ones.
const POSITION_TYPES: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];
const DIRECTION_TYPES: &[DataType] = &[DataType::F32, DataType::I8, DataType::I16];
/// What the specification allows COLOR_0 (normalized, for the integers).
const COLOR_TYPES: &[DataType] = &[DataType::F32, DataType::U8, DataType::U16];

/// The triangle primitives of node `node`'s mesh. Points and lines are
/// skipped with a warning; strips and fans become lists. The node's morph
/// weights start at `first_weight`, their names in `weight_names`.
pub fn read_primitives(
    file: &GltfFile,
    node: &gltf::Node,
    skinned: bool,
    (first_weight, weight_names): (u16, &[String]),
    warnings: &mut Vec<String>,
) -> Result<Vec<Primitive>, GltfError> {
    let Some(mesh) = node.mesh() else {
        return Ok(Vec::new());
    };
    let mut primitives = Vec::new();
    for primitive in mesh.primitives() {
        let path = format!("meshes[{}].primitives[{}]", mesh.index(), primitive.index());
        let reader = AttributeReader {
            file,
            primitive: &primitive,
            path: &path,
        };
        let Some(triangles) = reader.triangles(warnings)? else {
            continue;
        };
        let (positions, normals, tangents) = reader.geometry()?;
        let count = positions.len();
        let material = primitive.material();
        let mut uvs = reader.uvs(count)?;
        if let Some(transform) = materials::uv_transform(file, &material, warnings) {
            for uv in &mut uvs {
                *uv = transform.transform_point2(*uv);
            }
        }
        let colors = reader.colors(count)?;
        let influences = if skinned {
            reader.influences(count, warnings)?
        } else {
            Vec::new()
        };
        if let Some(&bad) = triangles.iter().find(|&&i| i as usize >= count) {
            return Err(reader.error(format!("index {bad} is past its {count} vertices")));
        }
        let targets = read_targets(file, &primitive, &path, count, first_weight, weight_names)?;
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
            tangents,
            uvs,
            colors,
            influences,
            triangles,
            targets,
        });
    }
    Ok(primitives)
}

/// One primitive's accessors, read with its path in every message.
struct AttributeReader<'a> {
    file: &'a GltfFile,
    primitive: &'a gltf::Primitive<'a>,
    path: &'a str,
}

impl AttributeReader<'_> {
    fn error(&self, message: String) -> GltfError {
        GltfError::new(&self.file.name, self.path, message)
    }

    fn floats(
        &self,
        accessor: &gltf::Accessor,
        name: &str,
        dimensions: &[Dimensions],
        types: &[DataType],
    ) -> Result<Vec<f32>, GltfError> {
        read_floats(
            self.file,
            accessor,
            &AccessorRead {
                what: &format!("{name} of {}", self.path),
                dimensions,
                types,
            },
        )
    }

    /// Attribute `semantic`, whose count must be `count`.
    fn attribute(
        &self,
        semantic: Semantic,
        count: usize,
    ) -> Result<Option<gltf::Accessor<'_>>, GltfError> {
        let Some(accessor) = self.primitive.get(&semantic) else {
            return Ok(None);
        };
        if accessor.count() != count {
            return Err(self.error(format!(
                "{} (accessors[{}]) has {} elements, POSITION {count}",
                semantic.to_string(),
                accessor.index(),
                accessor.count()
            )));
        }
        Ok(Some(accessor))
    }

    /// Positions, and normals and tangents where the primitive has them.
    #[allow(clippy::type_complexity)]
    fn geometry(&self) -> Result<(Vec<Vec3>, Option<Vec<Vec3>>, Option<Vec<Vec4>>), GltfError> {
        let Some(position) = self.primitive.get(&Semantic::Positions) else {
            return Err(self.error("no POSITION attribute".into()));
        };
        let count = position.count();
        let positions: Vec<Vec3> = self
            .floats(&position, "POSITION", &[Dimensions::Vec3], POSITION_TYPES)?
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect();
        if !positions.iter().all(|p| p.is_finite()) {
            return Err(self.error(format!(
                "POSITION (accessors[{}]) holds a value that is not finite",
                position.index()
            )));
        }
        let normals = match self.attribute(Semantic::Normals, count)? {
            Some(accessor) => Some(
                self.floats(&accessor, "NORMAL", &[Dimensions::Vec3], DIRECTION_TYPES)?
                    .chunks_exact(3)
                    .map(Vec3::from_slice)
                    .collect(),
            ),
            None => None,
        };
        let tangents = match self.attribute(Semantic::Tangents, count)? {
            Some(accessor) => Some(
                self.floats(&accessor, "TANGENT", &[Dimensions::Vec4], DIRECTION_TYPES)?
                    .chunks_exact(4)
                    .map(Vec4::from_slice)
                    .collect(),
            ),
            None => None,
        };
        Ok((positions, normals, tangents))
    }

    /// TEXCOORD_0, or zeros.
    fn uvs(&self, count: usize) -> Result<Vec<Vec2>, GltfError> {
        Ok(match self.attribute(Semantic::TexCoords(0), count)? {
            Some(accessor) => self
                .floats(&accessor, "TEXCOORD_0", &[Dimensions::Vec2], POSITION_TYPES)?
                .chunks_exact(2)
                .map(Vec2::from_slice)
                .collect(),
            None => vec![Vec2::ZERO; count],
        })
    }

    /// COLOR_0 as linear RGBA (a VEC3's alpha is 1), or white.
    fn colors(&self, count: usize) -> Result<Vec<VertexColor>, GltfError> {
        let Some(accessor) = self.attribute(Semantic::Colors(0), count)? else {
            return Ok(vec![VertexColor::WHITE; count]);
        };
        let path = format!("{}.attributes.COLOR_0", self.path);
        if accessor.data_type() != DataType::F32 && !accessor.normalized() {
            return Err(GltfError::new(
                &self.file.name,
                path,
                format!(
                    "accessors[{}] holds integers that are not normalized: colours are floats \
                     or normalized unsigned bytes or shorts",
                    accessor.index()
                ),
            ));
        }
        let read = AccessorRead {
            what: &path,
            dimensions: &[Dimensions::Vec3, Dimensions::Vec4],
            types: COLOR_TYPES,
        };
        let values = read_floats(self.file, &accessor, &read)?;
        let linear = |c: &[f32]| match c.len() {
            3 => Vec3::from_slice(c).extend(1.0),
            _ => Vec4::from_slice(c),
        };
        let components = accessor.dimensions().multiplicity();
        Ok(values
            .chunks_exact(components)
            .map(|c| VertexColor::from_linear(linear(c)))
            .collect())
    }

    /// Per vertex, its joint numbers and weights from JOINTS_0/1 and
    /// WEIGHTS_0/1.
    fn influences(
        &self,
        count: usize,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<[(u32, f32); MAX_INFLUENCES]>, GltfError> {
        let mut influences = vec![[(0u32, 0f32); MAX_INFLUENCES]; count];
        for set in 0..2u32 {
            let (Some(joints), Some(weights)) = (
                self.attribute(Semantic::Joints(set), count)?,
                self.attribute(Semantic::Weights(set), count)?,
            ) else {
                if set == 0 {
                    return Err(self.error(
                        "its node has a skin, but it has no JOINTS_0 and WEIGHTS_0".into(),
                    ));
                }
                break;
            };
            let joint_numbers = read_integers(
                self.file,
                &joints,
                &AccessorRead {
                    what: &format!("JOINTS_{set} of {}", self.path),
                    dimensions: &[Dimensions::Vec4],
                    types: &[DataType::U8, DataType::U16],
                },
            )?;
            let weight_values = self.floats(
                &weights,
                &format!("WEIGHTS_{set}"),
                &[Dimensions::Vec4],
                &[DataType::F32, DataType::U8, DataType::U16],
            )?;
            if let Some(bad) = weight_values.iter().find(|w| !w.is_finite()) {
                return Err(GltfError::new(
                    &self.file.name,
                    format!("accessors[{}]", weights.index()),
                    format!("WEIGHTS_{set} of {} holds {bad}", self.path),
                ));
            }
            for (v, vertex) in influences.iter_mut().enumerate() {
                for c in 0..4 {
                    vertex[set as usize * 4 + c] =
                        (joint_numbers[v * 4 + c], weight_values[v * 4 + c]);
                }
            }
        }
        if self.primitive.get(&Semantic::Joints(2)).is_some() {
            warnings.push(format!(
                "{}: {}: JOINTS_2 and beyond are ignored (at most 8 influences)",
                self.file.name, self.path
            ));
        }
        Ok(influences)
    }

    /// The primitive's triangles, counter-clockwise as glTF winds them;
    /// `None` (and a warning) for points and lines.
    fn triangles(&self, warnings: &mut Vec<String>) -> Result<Option<Vec<u32>>, GltfError> {
        let indices: Vec<u32> = match self.primitive.indices() {
            Some(accessor) => read_integers(
                self.file,
                &accessor,
                &AccessorRead {
                    what: &format!("indices of {}", self.path),
                    dimensions: &[Dimensions::Scalar],
                    types: &[DataType::U8, DataType::U16, DataType::U32],
                },
            )?,
            None => {
                let count = self
                    .primitive
                    .get(&Semantic::Positions)
                    .map_or(0, |p| p.count());
                (0..count as u32).collect()
            }
        };
        Ok(Some(match self.primitive.mode() {
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
                    "{}: {}: {mode:?} primitives are not drawn (triangles only)",
                    self.file.name, self.path
                ));
                return Ok(None);
            }
        }))
    }
}

/// `primitive` as a skinned mesh in the bind pose: `to_bind` takes its
/// space to the bind pose's; `skin` maps its joint numbers; a primitive
/// without influences (and a vertex without weight) moves with joint
/// `rigid_joint` alone.
pub fn skinned_mesh(
    file: &GltfFile,
    primitive: &Primitive,
    skin: Option<&SkinSlots>,
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
                    let joint = skin.and_then(|s| s.joint_of_slot.get(slot as usize));
                    let Some(&joint) = joint else {
                        return Err(GltfError::new(
                            &file.name,
                            &primitive.path,
                            format!(
                                "vertex {v} names joint {slot} of skins[{}], which has {}",
                                skin.map_or(0, |s| s.skin),
                                skin.map_or(0, |s| s.joint_of_slot.len())
                            ),
                        ));
                    };
                    listed.push((joint, weight));
                }
                let sum: f32 = listed.iter().map(|(_, w)| w).sum();
                if listed.is_empty() {
                    weights.weightless += 1;
                    weights.weightless_joint = rigid_joint;
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
        morph_targets: bind_targets(primitive, to_bind),
        shader: primitive.material_name.clone(),
        positions,
        normals,
        tangents,
        uvs: primitive.uvs.clone(),
        colors: primitive.colors.clone(),
        joints,
        weights: vertex_weights,
        lods: vec![LodLevel::finest(indices.clone())],
        indices,
        short_chain: None,
        limit,
        truncation,
    })
}
