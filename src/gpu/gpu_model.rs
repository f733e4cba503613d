//! A [`Model`]'s static data on the GPU: vertex streams, indices, material
//! textures and the skeleton as a line mesh. All meshes share one buffer
//! per stream; each mesh is a range of it ([`MeshDraw`]), and each of its
//! levels of detail a range of the index buffer over the same vertices.
//!
//! Vertex streams are split by how often they change: `surface` (position,
//! normal, tangent) is the only data the CPU-skinning yardstick replaces per frame;
//! `skin` (uv, first four influences) and `extra_influences` (influences
//! 5-8, only with [`InfluenceLimit::Eight`]) never change.

use std::collections::HashMap;

use super::guard::{guard, Destroy};
use super::resources::{self, Buffer};
use super::shader_types::{ExtraInfluences, SkeletonVertex, SkinVertex, SurfaceVertex};
use super::texture::MaterialTextures;
use super::{Context, GpuError};
use crate::material::MaterialLibrary;
use crate::model::Model;
use crate::skin::{InfluenceLimit, SkinnedMesh, MAX_LODS};
use ash::vk;

/// One md5 mesh inside the shared buffers.
#[derive(Clone, Debug)]
pub struct MeshDraw {
    /// `crowd: <md5 shader>`, the draw's command-buffer label: md5 meshes
    /// have no names, their material is what tells them apart.
    pub label: String,
    /// One per level of the model ([`GpuModel::lod_count`]), LOD 0 first;
    /// a mesh with fewer levels repeats its coarsest.
    pub lods: Vec<IndexRange>,
    pub vertex_offset: i32,
    /// Per skin of the model (`Model::skins`), the index into
    /// [`GpuModel::materials`] of the mesh's material under it.
    pub materials: Vec<usize>,
}

/// A level of one mesh inside the shared index buffer, and the joints per
/// vertex it is skinned with (`skin::lod_influences`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexRange {
    pub first_index: u32,
    pub index_count: u32,
    pub influences: u32,
}

pub struct GpuModel {
    pub surface: Buffer,
    pub skin: Buffer,
    pub extra_influences: Option<Buffer>,
    pub indices: Buffer,
    pub draws: Vec<MeshDraw>,
    /// Vertices of all meshes: the per-instance stride of CPU-skinned data.
    pub vertex_count: u32,
    pub joint_count: u32,
    pub limit: InfluenceLimit,
    /// One material per distinct md5 shader string, as the skins remap
    /// them: its diffuse, normal and specular maps, as `crate::material`
    /// finds them.
    pub materials: MaterialTextures,
    pub skeleton_lines: Buffer,
    pub skeleton_vertex_count: u32,
    /// Levels of detail every mesh is drawn with, 1 to [`MAX_LODS`].
    pub lod_count: u32,
    /// Per level, the largest error of any mesh's, in model units: what
    /// cull.comp projects to pick a level.
    pub lod_errors: Vec<f32>,
    /// Per level, the triangles of all meshes.
    pub lod_triangles: Vec<u64>,
    /// The ground pass's scale, from the bind pose: a contact shadow's
    /// radius (about the character's footprint) and a ground cell's side
    /// (its height), in model units.
    pub shadow_radius: f32,
    pub ground_cell: f32,
}

pub fn upload_model(ctx: &Context, model: &Model) -> Result<GpuModel, GpuError> {
    let meshes: Vec<&SkinnedMesh> = drawn_meshes(model).collect();
    if meshes.is_empty() || model.skeleton.joint_count() == 0 {
        return Err(GpuError::EmptyModel(model.mesh_file.to_string()));
    }
    let limit = meshes[0].limit;
    let lod_count = meshes
        .iter()
        .map(|m| m.lods.len())
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_LODS);
    let mut lod_errors = vec![0.0f32; lod_count];
    let mut lod_triangles = vec![0u64; lod_count];

    let mut skin = Vec::new();
    let mut extra = Vec::new();
    let mut indices = Vec::new();
    let mut draws = Vec::new();
    let library = match (&model.game, model.mesh_file.loose_path()) {
        (Some(game), _) => MaterialLibrary::from_vfs(game),
        (None, Some(mesh_path)) => MaterialLibrary::for_mesh(mesh_path, None),
        (None, None) => MaterialLibrary::empty(),
    };
    let mut material_of_shader: HashMap<&str, usize> = HashMap::new();
    let mut materials = guard(ctx, MaterialTextures::default());
    let mut vertex_count = 0usize;
    for mesh in &meshes {
        let mut mesh_materials = Vec::with_capacity(model.skins.len());
        for skin in &model.skins {
            let shader = skin.remap(&mesh.shader);
            let index = match material_of_shader.get(shader) {
                Some(&index) => index,
                None => {
                    let images = library.resolve(shader, &model.mesh_file);
                    let index = materials.add(ctx, &images)?;
                    material_of_shader.insert(shader, index);
                    index
                }
            };
            mesh_materials.push(index);
        }
        // A mesh without a chain has its full index list as its one level;
        // a mesh with fewer levels than the model repeats its coarsest.
        let own_levels = mesh.lods.len().max(1);
        let mut lods: Vec<IndexRange> = Vec::with_capacity(lod_count);
        for level in 0..lod_count {
            let (level_indices, error, influences) = mesh
                .lods
                .get(level.min(own_levels - 1))
                .map_or((&mesh.indices[..], 0.0, limit.count()), |lod| {
                    (&lod.indices[..], lod.error, lod.influences)
                });
            let range = match lods.last() {
                Some(&coarsest) if level >= own_levels => coarsest,
                _ => {
                    let range = IndexRange {
                        first_index: indices.len() as u32,
                        index_count: level_indices.len() as u32,
                        influences: influences.min(limit.count()) as u32,
                    };
                    indices.extend_from_slice(level_indices);
                    range
                }
            };
            lods.push(range);
            lod_errors[level] = lod_errors[level].max(error);
            lod_triangles[level] += level_indices.len() as u64 / 3;
        }
        draws.push(MeshDraw {
            label: format!("crowd: {}", mesh.shader),
            lods,
            vertex_offset: vertex_count as i32,
            materials: mesh_materials,
        });
        vertex_count += mesh.vertex_count();
        for v in 0..mesh.vertex_count() {
            let (joints, weights) = (&mesh.joints[v], &mesh.weights[v]);
            skin.push(SkinVertex {
                uv: mesh.uvs[v],
                joints: [joints[0], joints[1], joints[2], joints[3]],
                weights: unorm8([weights[0], weights[1], weights[2], weights[3]]),
            });
            if limit == InfluenceLimit::Eight {
                extra.push(ExtraInfluences {
                    joints: [joints[4], joints[5], joints[6], joints[7]],
                    weights: unorm8([weights[4], weights[5], weights[6], weights[7]]),
                });
            }
        }
    }
    let memory = materials.memory();
    log::info!(
        "textures: {} images, {:.2} MiB of device memory, {} of them block-compressed",
        memory.images,
        memory.bytes as f64 / f64::from(1 << 20),
        memory.block_compressed
    );

    let bind_pose = model.bind_pose_bounds();
    let size = bind_pose.max - bind_pose.min;
    let shadow_radius = (0.6 * size.x.max(size.y)).max(f32::EPSILON);
    let ground_cell = size.z.max(size.x).max(size.y).max(f32::EPSILON);

    // Named for RenderDoc's resource list and mesh viewer.
    let model_name = model.mesh_file.file_stem();
    let vertex = vk::BufferUsageFlags::VERTEX_BUFFER;
    let upload = |name: String, usage, bytes: &[u8]| {
        resources::create_buffer_with_data(ctx, &name, usage, bytes).map(|b| guard(ctx, b))
    };
    let surface = upload(
        format!("vertices: {model_name} (position, normal, tangent)"),
        vertex,
        bytemuck::cast_slice(&surface_vertices(&meshes)),
    )?;
    let skin = upload(
        format!("vertices: {model_name} (uv, joints, weights)"),
        vertex,
        bytemuck::cast_slice(&skin),
    )?;
    let extra_influences = match limit {
        InfluenceLimit::Four => None,
        InfluenceLimit::Eight => Some(upload(
            format!("vertices: {model_name} (joints, weights 5-8)"),
            vertex,
            bytemuck::cast_slice(&extra),
        )?),
    };
    let indices = upload(
        format!("indices: {model_name}"),
        vk::BufferUsageFlags::INDEX_BUFFER,
        bytemuck::cast_slice(&indices),
    )?;
    let lines = skeleton_lines(model);
    let skeleton_lines = upload(
        format!("vertices: {model_name} skeleton lines"),
        vertex,
        bytemuck::cast_slice(&lines),
    )?;
    Ok(GpuModel {
        surface: surface.keep(),
        skin: skin.keep(),
        extra_influences: extra_influences.map(|b| b.keep()),
        indices: indices.keep(),
        draws,
        vertex_count: vertex_count as u32,
        joint_count: model.skeleton.joint_count() as u32,
        limit,
        materials: materials.keep(),
        skeleton_vertex_count: lines.len() as u32,
        skeleton_lines: skeleton_lines.keep(),
        lod_count: lod_count as u32,
        lod_errors,
        lod_triangles,
        shadow_radius,
        ground_cell,
    })
}

impl GpuModel {
    /// Device memory its buffers take (textures not counted).
    pub fn buffer_bytes(&self) -> u64 {
        let extra = self.extra_influences.as_ref().map_or(0, |b| b.size);
        self.surface.size + self.skin.size + extra + self.indices.size + self.skeleton_lines.size
    }
}

impl Destroy for GpuModel {
    fn destroy(self, ctx: &Context) {
        self.surface.destroy(ctx);
        self.skin.destroy(ctx);
        self.extra_influences.destroy(ctx);
        self.indices.destroy(ctx);
        self.skeleton_lines.destroy(ctx);
        self.materials.destroy(ctx);
    }
}

/// The meshes that have triangles, in the order the buffers hold them.
pub fn drawn_meshes(model: &Model) -> impl Iterator<Item = &SkinnedMesh> {
    model.meshes.iter().filter(|m| !m.indices.is_empty())
}

/// Bind-pose stream 0 of the drawn meshes, concatenated in draw order; the
/// CPU-skinning path writes the same layout with skinned values.
pub fn surface_vertices(meshes: &[&SkinnedMesh]) -> Vec<SurfaceVertex> {
    meshes
        .iter()
        .flat_map(|m| (0..m.vertex_count()).map(|v| SurfaceVertex::bind_pose(m, v)))
        .collect()
}

/// Weights arrive as exact multiples of 1/255 (see `select_influences`), so
/// this rounding is lossless.
fn unorm8(weights: [f32; 4]) -> [u8; 4] {
    weights.map(|w| (w.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Two vertices per joint that has a parent. A model whose joints are all
/// roots gets one degenerate line, as buffers cannot be empty.
fn skeleton_lines(model: &Model) -> Vec<SkeletonVertex> {
    let skeleton = &model.skeleton;
    let end = |joint: usize| SkeletonVertex {
        bind_position: skeleton.bind_pose[joint].translation,
        joint: joint as u32,
    };
    let mut lines: Vec<SkeletonVertex> = skeleton
        .parents
        .iter()
        .enumerate()
        .filter_map(|(joint, parent)| parent.map(|p| [end(joint), end(p as usize)]))
        .flatten()
        .collect();
    if lines.is_empty() {
        lines = vec![end(0), end(0)];
    }
    lines
}
