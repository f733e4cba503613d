//! Morph targets: each drawn node's weights ([`MorphSlots`]), each
//! primitive's targets read in its mesh's space ([`read_targets`]) and
//! placed in the bind pose with its vertices ([`bind_targets`]).

use std::collections::HashMap;
use std::ops::Range;

use glam::{Mat3, Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::meshes::Primitive;
use super::scene::normal_matrix;
use crate::anim::Morphs;
use crate::gltf::{read_floats, AccessorRead, GltfError, GltfFile};
use crate::skin::MorphTarget;

/// What the specification and KHR_mesh_quantization allow for target
/// offsets: floats, or signed 8- and 16-bit integers (positions normalized
/// or not, directions normalized).
const OFFSET_TYPES: &[DataType] = &[DataType::F32, DataType::I8, DataType::I16];

/// One morph target of a primitive as the file has it, in its mesh's
/// space.
pub struct FileTarget {
    /// The model's weight that drives it (`anim::Morphs`).
    pub weight: u16,
    pub name: String,
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
    pub tangents: Option<Vec<Vec3>>,
}

/// The model's morph weights, one set per drawn node whose mesh has
/// targets: two nodes drawing one mesh keep their own weights, as glTF's
/// `node.weights` and animation channels (which target nodes) give them.
#[derive(Default)]
pub struct MorphSlots {
    pub morphs: Morphs,
    /// Per node index, its weights' range in `morphs`.
    of_node: HashMap<usize, Range<usize>>,
}

impl MorphSlots {
    /// The weights of `node`, where it has any.
    pub fn of_node(&self, node: usize) -> Option<Range<usize>> {
        self.of_node.get(&node).cloned()
    }

    /// Gives drawn node `node` its weights (names and defaults) after
    /// checking that its mesh's primitives agree on their targets; returns
    /// the first weight's index.
    pub fn add_node(&mut self, file: &GltfFile, node: &gltf::Node) -> Result<u16, GltfError> {
        let n = node.index();
        if let Some(range) = self.of_node.get(&n) {
            return Ok(range.start as u16);
        }
        let Some(mesh) = node.mesh() else {
            return Ok(0);
        };
        let count = target_count(file, &mesh)?;
        let first = self.morphs.count();
        if first + count > usize::from(u16::MAX) {
            return Err(GltfError::new(
                &file.name,
                format!("meshes[{}]", mesh.index()),
                format!(
                    "its {count} morph targets make more than {} weights in the model",
                    u16::MAX
                ),
            ));
        }
        let defaults = match (node.weights(), mesh.weights()) {
            (Some(weights), _) => Some((weights, format!("nodes[{n}].weights"))),
            (None, Some(weights)) => Some((weights, format!("meshes[{}].weights", mesh.index()))),
            (None, None) => None,
        };
        match defaults {
            Some((weights, path)) if weights.len() != count || !all_finite(weights) => {
                // The specification's MUST: a viewer could not tell which
                // target a weight is for.
                return Err(GltfError::new(
                    &file.name,
                    path,
                    format!(
                        "{} weights for {count} morph targets (one finite weight per target)",
                        weights.len()
                    ),
                ));
            }
            Some((weights, _)) => self.morphs.defaults.extend_from_slice(weights),
            None => self.morphs.defaults.extend(std::iter::repeat_n(0.0, count)),
        }
        let names = target_names(&mesh, count);
        self.morphs.names.extend(names);
        self.of_node.insert(n, first..first + count);
        Ok(first as u16)
    }
}

fn all_finite(values: &[f32]) -> bool {
    values.iter().all(|w| w.is_finite())
}

/// How many targets every primitive of `mesh` has: the specification asks
/// that they all have the same, in the same order, as one weight drives
/// the same target of each.
pub fn target_count(file: &GltfFile, mesh: &gltf::Mesh) -> Result<usize, GltfError> {
    let mut counts = mesh.primitives().map(|p| p.morph_targets().len());
    let first = counts.next().unwrap_or(0);
    if let Some((p, other)) = counts.enumerate().find(|&(_, c)| c != first) {
        return Err(GltfError::new(
            &file.name,
            format!("meshes[{}].primitives[{}].targets", mesh.index(), p + 1),
            format!("{other} morph targets, but primitives[0] has {first}"),
        ));
    }
    Ok(first)
}

/// The names of `mesh`'s `count` targets: its `extras.targetNames` (the
/// de facto convention of Blender, three.js and the Sample Viewer), else
/// each target's POSITION accessor's name (glTF Tools for Unity writes
/// them there), else `mesh.i`.
fn target_names(mesh: &gltf::Mesh, count: usize) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Extras {
        #[serde(rename = "targetNames")]
        target_names: Vec<String>,
    }
    let extras = mesh
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<Extras>(raw.get()).ok())
        .map(|e| e.target_names)
        .filter(|names| names.len() == count);
    if let Some(names) = extras {
        return names;
    }
    let mesh_name = mesh
        .name()
        .map_or_else(|| format!("meshes[{}]", mesh.index()), str::to_owned);
    let accessor_names: Vec<Option<&str>> = mesh
        .primitives()
        .next()
        .map(|p| {
            p.morph_targets()
                .map(|t| t.positions().and_then(|a| a.name()))
                .collect()
        })
        .unwrap_or_default();
    (0..count)
        .map(|t| match accessor_names.get(t).copied().flatten() {
            Some(name) => name.to_owned(),
            None => format!("{mesh_name}.{t}"),
        })
        .collect()
}

/// The targets of `primitive` (`path` names it), whose POSITION has
/// `count` vertices; target `t` is driven by weight `first_weight + t`
/// and named `names[first_weight + t]`.
pub fn read_targets(
    file: &GltfFile,
    primitive: &gltf::Primitive,
    path: &str,
    count: usize,
    first_weight: u16,
    names: &[String],
) -> Result<Vec<FileTarget>, GltfError> {
    let mut targets = Vec::with_capacity(primitive.morph_targets().len());
    for (t, target) in primitive.morph_targets().enumerate() {
        let read = |accessor: Option<gltf::Accessor>, semantic: &str| {
            let Some(accessor) = accessor else {
                return Ok(None);
            };
            let target_path = format!("{path}.targets[{t}].{semantic}");
            let error = |message: String| GltfError::new(&file.name, &target_path, message);
            // Checked before reading: the count sizes what is allocated.
            if accessor.count() != count {
                return Err(error(format!(
                    "accessors[{}] has {} elements, the primitive's POSITION {count}",
                    accessor.index(),
                    accessor.count()
                )));
            }
            let values = read_floats(
                file,
                &accessor,
                &AccessorRead {
                    what: &target_path,
                    dimensions: &[Dimensions::Vec3],
                    types: OFFSET_TYPES,
                },
            )?;
            if values.iter().any(|v| !v.is_finite()) {
                return Err(error(format!(
                    "accessors[{}] holds a value that is not finite",
                    accessor.index()
                )));
            }
            Ok(Some(
                values
                    .chunks_exact(3)
                    .map(Vec3::from_slice)
                    .collect::<Vec<_>>(),
            ))
        };
        let weight = first_weight + t as u16;
        targets.push(FileTarget {
            weight,
            name: names.get(usize::from(weight)).cloned().unwrap_or_default(),
            // A target without POSITION moves no point (its directions
            // may still turn).
            positions: read(target.positions(), "POSITION")?
                .unwrap_or_else(|| vec![Vec3::ZERO; count]),
            normals: read(target.normals(), "NORMAL")?,
            tangents: read(target.tangents(), "TANGENT")?,
        });
    }
    Ok(targets)
}

/// `primitive`'s targets in the bind pose, as `meshes::skinned_mesh`
/// places its vertices with `to_bind`. Offsets are differences, so they
/// take the linear part alone. A direction's offset is scaled as its
/// vertex's base direction was when it was normalized, so that the base
/// plus the weighted offset points where glTF's morphed direction, then
/// transformed, points. Offsets of directions the file does not give (and
/// md5crowd derives) are dropped.
pub fn bind_targets(primitive: &Primitive, to_bind: Mat4) -> Vec<MorphTarget> {
    let linear = Mat3::from_mat4(to_bind);
    let normal = normal_matrix(to_bind);
    let directions =
        |offsets: &Option<Vec<Vec3>>, base: Option<&[Vec3]>, matrix: Mat3| match (offsets, base) {
            (Some(offsets), Some(base)) => offsets
                .iter()
                .zip(base)
                .map(|(&offset, &base)| {
                    let length = (matrix * base).length();
                    if length > 0.0 {
                        matrix * offset / length
                    } else {
                        Vec3::ZERO
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
    let tangents: Option<Vec<Vec3>> = primitive
        .tangents
        .as_ref()
        .map(|t| t.iter().map(|t| t.truncate()).collect());
    primitive
        .targets
        .iter()
        .map(|target| MorphTarget {
            name: target.name.clone(),
            weight: target.weight,
            positions: target.positions.iter().map(|&p| linear * p).collect(),
            normals: directions(&target.normals, primitive.normals.as_deref(), normal),
            tangents: directions(&target.tangents, tangents.as_deref(), linear),
        })
        .collect()
}
