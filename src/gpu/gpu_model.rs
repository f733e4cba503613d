//! The static data of a crowd's models on the GPU: vertex streams, indices,
//! material textures and the skeletons as line meshes. Every mesh of every
//! model shares one buffer per stream; each mesh is a range of it
//! ([`MeshDraw`]), and each of its levels of detail a range of the index
//! buffer over the same vertices. [`ModelPart`] says where one model's
//! meshes, joints and lines are.
//!
//! Vertex streams are split by how often they change: `surface` (position,
//! normal, tangent) is the only data the CPU-skinning yardstick replaces per frame;
//! `skin` (uv, first four influences, colour) and `extra_influences`
//! (influences 5-8, only with [`InfluenceLimit::Eight`]) never change.

use super::guard::{guard, Destroy, Guard};
use super::memory::{DeviceMemory, MemoryReport};
use super::morph_data::{self, MorphEntry, MorphStreams};
use super::resources::{self, Buffer};
use super::shader_types::{
    ExtraInfluences, MaterialConstants, SkeletonVertex, SkinVertex, SurfaceVertex,
};
use super::texture::MaterialTextures;
use super::{Context, GpuError};
use crate::crowd::ImpostorLayout;
use crate::material::ShadingVariant;
use crate::model::Model;
use crate::skin::{InfluenceLimit, SkinnedMesh, MAX_LODS};
use ash::vk;

/// One md5 mesh inside the shared buffers.
#[derive(Clone, Debug)]
pub struct MeshDraw {
    /// `crowd: <model>: <md5 shader>`, the draw's command-buffer label: md5
    /// meshes have no names, their material is what tells them apart.
    pub label: String,
    /// Which of the models it belongs to.
    pub model: usize,
    /// One per level of its model ([`ModelPart::lod_count`]), LOD 0 first;
    /// a mesh with fewer levels repeats its coarsest.
    pub lods: Vec<IndexRange>,
    pub vertex_offset: i32,
    /// Per skin of its model (`Model::skins`), the index into
    /// [`GpuModel::materials`] of the mesh's material under it.
    pub materials: Vec<usize>,
    /// How its material is shaded (its first skin's: skins remap md5
    /// materials, all Doom 3's, and a glTF character has one): which of the
    /// crowd draw's pipelines draws it.
    pub shading: ShadingVariant,
}

/// A level of one mesh inside the shared index buffer, and the joints per
/// vertex it is skinned with (`skin::lod_influences`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexRange {
    pub first_index: u32,
    pub index_count: u32,
    pub influences: u32,
}

/// One model inside the shared buffers.
#[derive(Clone, Debug)]
pub struct ModelPart {
    /// The mesh file's stem: labels, logs, the overlay.
    pub name: String,
    pub joint_count: u32,
    /// Its skeleton's first joint among every model's.
    pub first_joint: u32,
    /// Its meshes: `draws[first_draw..first_draw + draw_count]`.
    pub first_draw: u32,
    pub draw_count: u32,
    /// Its vertices in the shared streams, and how many.
    pub first_vertex: u32,
    pub vertex_count: u32,
    /// Levels of detail its meshes are drawn with, 1 to [`MAX_LODS`].
    pub lod_count: u32,
    /// Per level, the largest error of any of its meshes', in model units:
    /// what cull.comp projects to pick a level.
    pub lod_errors: Vec<f32>,
    /// Per level, the triangles of all its meshes.
    pub lod_triangles: Vec<u64>,
    /// Its skeleton's lines in `skeleton_lines`: first vertex and count.
    pub first_line_vertex: u32,
    pub line_vertex_count: u32,
    /// Its contact shadow's radius, about its footprint (from its bind
    /// pose), in model units.
    pub shadow_radius: f32,
    /// What its impostor atlas holds.
    pub impostor: ImpostorLayout,
}

pub struct GpuModel {
    pub surface: Buffer,
    pub skin: Buffer,
    pub extra_influences: Option<Buffer>,
    pub indices: Buffer,
    /// Every model's meshes, model after model.
    pub draws: Vec<MeshDraw>,
    pub parts: Vec<ModelPart>,
    pub limit: InfluenceLimit,
    /// One material per distinct md5 shader string of a model, as the skins
    /// remap them: its diffuse, normal and specular maps, decoded from the
    /// images the model read at load (`Model::materials`).
    pub materials: MaterialTextures,
    /// What each of `materials` holds beside its maps (its cutoff), by the
    /// same index.
    pub material_constants: Vec<MaterialConstants>,
    pub skeleton_lines: Buffer,
    /// Per vertex of the shared streams, its first entry in `morph_entries`
    /// and how many (`morph_data::MorphStreams`).
    pub morph_ranges: Buffer,
    /// The morph targets' offsets, listed per vertex.
    pub morph_entries: Buffer,
    /// The most morph weights a model has ([`morph_data::morph_stride`]):
    /// the stride of each instance's weights.
    pub morph_stride: u32,
    /// The most levels of detail any model has: the stride of the indirect
    /// draws, a command per mesh and level.
    pub lod_count: u32,
    /// The ground's scale, from the largest bind pose: a cell's side (its
    /// height), in model units.
    pub ground_cell: f32,
}

/// Uploads `models` (one or more) into shared buffers, in order.
/// Uploads `models`, whose impostor atlases may take `impostor_budget`
/// bytes together, an even share each.
pub fn upload_models(
    ctx: &Context,
    models: &[Model],
    impostor_budget: u64,
) -> Result<GpuModel, GpuError> {
    let Some(first) = models.first() else {
        return Err(GpuError::EmptyModel("no model".into()));
    };
    let limit = first
        .meshes
        .first()
        .map_or(InfluenceLimit::Four, |m| m.limit);
    let mut streams = Streams {
        limit,
        impostor_budget: impostor_budget / models.len() as u64,
        ..Streams::default()
    };
    let mut parts = Vec::with_capacity(models.len());
    let mut materials = guard(ctx, MaterialTextures::default());
    let mut material_constants = Vec::new();
    let mut first_joint = 0u32;
    let mut ground_cell = f32::EPSILON;
    for (model_index, model) in models.iter().enumerate() {
        let meshes: Vec<(&SkinnedMesh, &Vec<usize>)> = model
            .meshes
            .iter()
            .zip(&model.materials.of_mesh)
            .filter(|(mesh, _)| !mesh.indices.is_empty())
            .collect();
        if meshes.is_empty() || model.skeleton.joint_count() == 0 {
            return Err(GpuError::EmptyModel(model.mesh_file.to_string()));
        }
        // The model's materials, resolved and read at load.
        let material_indices = model
            .materials
            .maps
            .iter()
            .map(|maps| materials.add(ctx, maps))
            .collect::<Result<Vec<_>, _>>()?;
        material_constants.extend(
            model
                .materials
                .maps
                .iter()
                .map(|maps| MaterialConstants::from(&maps.shading)),
        );
        let (part, extent) =
            streams.add_model(model_index, model, &meshes, &material_indices, first_joint);
        ground_cell = ground_cell.max(extent);
        first_joint += part.joint_count;
        parts.push(part);
    }
    let memory = materials.memory();
    let filtering = match ctx.max_anisotropy {
        Some(anisotropy) => format!("filtered with up to {anisotropy}x anisotropy"),
        None => "filtered trilinearly (no anisotropy: a CPU driver or a device without it)".into(),
    };
    log::info!(
        "textures: {} images, {:.2} MiB of device memory, {} of them block-compressed, {filtering}",
        memory.images,
        memory.bytes as f64 / f64::from(1 << 20),
        memory.block_compressed
    );
    // Named for RenderDoc's resource list and mesh viewer.
    let model_name = parts
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    let storage_range = super::crowd_buffers::BufferLimits::of(ctx, None).max_storage_buffer_range;
    morph_data::check_fits(&streams.morphs, storage_range, &model_name)?;
    let buffers = streams.upload(ctx, &model_name)?;
    Ok(GpuModel {
        surface: buffers.surface.keep(),
        skin: buffers.skin.keep(),
        extra_influences: buffers.extra_influences.map(|b| b.keep()),
        indices: buffers.indices.keep(),
        skeleton_lines: buffers.skeleton_lines.keep(),
        morph_ranges: buffers.morph_ranges.keep(),
        morph_entries: buffers.morph_entries.keep(),
        morph_stride: morph_data::morph_stride(models),
        lod_count: parts.iter().map(|p| p.lod_count).max().unwrap_or(1),
        draws: streams.draws,
        parts,
        limit,
        materials: materials.keep(),
        material_constants,
        ground_cell,
    })
}

/// Every model's vertex streams, indices and draws, gathered on the CPU
/// for one upload per stream.
#[derive(Default)]
struct Streams {
    limit: InfluenceLimit,
    surface: Vec<SurfaceVertex>,
    skin: Vec<SkinVertex>,
    /// Influences 5-8, with [`InfluenceLimit::Eight`] only.
    extra: Vec<ExtraInfluences>,
    indices: Vec<u32>,
    lines: Vec<SkeletonVertex>,
    morphs: MorphStreams,
    draws: Vec<MeshDraw>,
    /// What each model's impostor atlas may take: an even share of the
    /// budget ([`crate::crowd::IMPOSTOR_MEMORY_BUDGET`] by default).
    impostor_budget: u64,
}

/// The uploaded streams, each freed if a later one fails.
struct StreamBuffers<'c> {
    morph_entries: Guard<'c, Buffer>,
    morph_ranges: Guard<'c, Buffer>,
    skeleton_lines: Guard<'c, Buffer>,
    indices: Guard<'c, Buffer>,
    extra_influences: Option<Guard<'c, Buffer>>,
    skin: Guard<'c, Buffer>,
    surface: Guard<'c, Buffer>,
}

impl Streams {
    /// Appends model `model_index`'s drawn `meshes` (with each skin's index
    /// into the uploaded materials, `material_indices`) and its skeleton's
    /// lines; returns where they are, and the largest side of its bind
    /// pose's box.
    fn add_model(
        &mut self,
        model_index: usize,
        model: &Model,
        meshes: &[(&SkinnedMesh, &Vec<usize>)],
        material_indices: &[usize],
        first_joint: u32,
    ) -> (ModelPart, f32) {
        let name = model.mesh_file.file_stem();
        let lod_count = meshes
            .iter()
            .map(|(m, _)| m.lods.len())
            .max()
            .unwrap_or(1)
            .clamp(1, MAX_LODS);
        let mut lod_errors = vec![0.0f32; lod_count];
        let mut lod_triangles = vec![0u64; lod_count];
        let first_draw = self.draws.len() as u32;
        let first_vertex = self.surface.len() as u32;
        for &(mesh, of_skin) in meshes {
            let lods = self.add_levels(mesh, lod_count, &mut lod_errors, &mut lod_triangles);
            self.draws.push(MeshDraw {
                label: format!("crowd: {name}: {}", mesh.shader),
                model: model_index,
                lods,
                vertex_offset: self.surface.len() as i32,
                materials: of_skin.iter().map(|&m| material_indices[m]).collect(),
                shading: of_skin.first().map_or_else(Default::default, |&m| {
                    model.materials.maps[m].shading.variant()
                }),
            });
            self.add_vertices(mesh);
        }
        let bind_pose = model.bind_pose_bounds();
        let size = bind_pose.max - bind_pose.min;
        let first_line_vertex = self.lines.len() as u32;
        self.lines.extend(skeleton_lines(model));
        let part = ModelPart {
            name,
            joint_count: model.skeleton.joint_count() as u32,
            first_joint,
            first_draw,
            draw_count: self.draws.len() as u32 - first_draw,
            first_vertex,
            vertex_count: self.surface.len() as u32 - first_vertex,
            lod_count: lod_count as u32,
            lod_errors,
            lod_triangles,
            first_line_vertex,
            line_vertex_count: self.lines.len() as u32 - first_line_vertex,
            shadow_radius: 0.6 * size.x.max(size.y),
            impostor: model.impostor_layout(self.impostor_budget),
        };
        (part, size.max_element())
    }

    /// Appends `mesh`'s index lists, one range per level of its model's
    /// `lod_count`, and adds each level's error and triangles to the
    /// model's. A mesh without a chain has its full index list as its one
    /// level; a mesh with fewer levels than its model repeats its coarsest.
    fn add_levels(
        &mut self,
        mesh: &SkinnedMesh,
        lod_count: usize,
        lod_errors: &mut [f32],
        lod_triangles: &mut [u64],
    ) -> Vec<IndexRange> {
        let limit = self.limit.count();
        let own_levels = mesh.lods.len().max(1);
        let mut lods: Vec<IndexRange> = Vec::with_capacity(lod_count);
        for level in 0..lod_count {
            let (level_indices, error, influences) = mesh
                .lods
                .get(level.min(own_levels - 1))
                .map_or((&mesh.indices[..], 0.0, limit), |lod| {
                    (&lod.indices[..], lod.error, lod.influences)
                });
            let range = match lods.last() {
                Some(&coarsest) if level >= own_levels => coarsest,
                _ => {
                    let range = IndexRange {
                        first_index: self.indices.len() as u32,
                        index_count: level_indices.len() as u32,
                        influences: influences.min(limit) as u32,
                    };
                    self.indices.extend_from_slice(level_indices);
                    range
                }
            };
            lods.push(range);
            lod_errors[level] = lod_errors[level].max(error);
            lod_triangles[level] += level_indices.len() as u64 / 3;
        }
        lods
    }

    /// Appends `mesh`'s bind-pose surface, its influences and its morph
    /// targets' lists.
    fn add_vertices(&mut self, mesh: &SkinnedMesh) {
        let count = mesh.vertex_count();
        self.morphs.add_mesh(mesh);
        self.surface
            .extend((0..count).map(|v| SurfaceVertex::bind_pose(mesh, v)));
        for v in 0..count {
            let (joints, weights) = (&mesh.joints[v], &mesh.weights[v]);
            self.skin.push(SkinVertex {
                uv: mesh.uvs[v],
                joints: [joints[0], joints[1], joints[2], joints[3]],
                weights: unorm8([weights[0], weights[1], weights[2], weights[3]]),
                color: mesh.colors[v],
            });
            if self.limit == InfluenceLimit::Eight {
                self.extra.push(ExtraInfluences {
                    joints: [joints[4], joints[5], joints[6], joints[7]],
                    weights: unorm8([weights[4], weights[5], weights[6], weights[7]]),
                });
            }
        }
    }

    /// One device-local buffer per stream, named after `model_name`.
    fn upload<'c>(
        &self,
        ctx: &'c Context,
        model_name: &str,
    ) -> Result<StreamBuffers<'c>, GpuError> {
        let vertex = vk::BufferUsageFlags::VERTEX_BUFFER;
        let upload = |name: String, usage, bytes: &[u8]| {
            resources::create_buffer_with_data(ctx, &name, usage, bytes).map(|b| guard(ctx, b))
        };
        let surface = upload(
            format!("vertices: {model_name} (position, normal, tangent)"),
            vertex,
            bytemuck::cast_slice(&self.surface),
        )?;
        let skin = upload(
            format!("vertices: {model_name} (uv, joints, weights, colour)"),
            vertex,
            bytemuck::cast_slice(&self.skin),
        )?;
        let extra_influences = match self.limit {
            InfluenceLimit::Four => None,
            InfluenceLimit::Eight => Some(upload(
                format!("vertices: {model_name} (joints, weights 5-8)"),
                vertex,
                bytemuck::cast_slice(&self.extra),
            )?),
        };
        let indices = upload(
            format!("indices: {model_name}"),
            vk::BufferUsageFlags::INDEX_BUFFER,
            bytemuck::cast_slice(&self.indices),
        )?;
        let skeleton_lines = upload(
            format!("vertices: {model_name} skeleton lines"),
            vertex,
            bytemuck::cast_slice(&self.lines),
        )?;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let morph_ranges = upload(
            format!("morph target ranges: {model_name}"),
            storage,
            bytemuck::cast_slice(&self.morphs.ranges),
        )?;
        // Vulkan buffers cannot be empty; without targets no range is read.
        let no_entry = [MorphEntry::default()];
        let entries = match self.morphs.entries.is_empty() {
            true => &no_entry[..],
            false => &self.morphs.entries[..],
        };
        let morph_entries = upload(
            format!("morph target offsets: {model_name}"),
            storage,
            bytemuck::cast_slice(entries),
        )?;
        Ok(StreamBuffers {
            morph_entries,
            morph_ranges,
            skeleton_lines,
            indices,
            extra_influences,
            skin,
            surface,
        })
    }
}

impl GpuModel {
    /// The most joints any model has.
    pub fn max_joint_count(&self) -> u32 {
        self.parts.iter().map(|p| p.joint_count).max().unwrap_or(0)
    }
}

impl DeviceMemory for GpuModel {
    fn memory(&self) -> MemoryReport {
        let buffers = [
            &self.surface,
            &self.skin,
            &self.indices,
            &self.skeleton_lines,
            &self.morph_ranges,
            &self.morph_entries,
        ];
        MemoryReport::buffers(buffers.into_iter().chain(&self.extra_influences))
            + MemoryReport::textures(&self.materials.images)
    }
}

impl Destroy for GpuModel {
    fn destroy(self, ctx: &Context) {
        self.surface.destroy(ctx);
        self.skin.destroy(ctx);
        self.extra_influences.destroy(ctx);
        self.indices.destroy(ctx);
        self.skeleton_lines.destroy(ctx);
        self.morph_ranges.destroy(ctx);
        self.morph_entries.destroy(ctx);
        self.materials.destroy(ctx);
    }
}

/// The meshes that have triangles, in the order the buffers hold them.
pub fn drawn_meshes(model: &Model) -> impl Iterator<Item = &SkinnedMesh> {
    model.meshes.iter().filter(|m| !m.indices.is_empty())
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
