//! The indirect command buffer, described once. [`DrawCommandLayout`] says
//! where every command lies; the buffer's initial words
//! ([`DrawCommandLayout::initial_words`]), the byte offsets the draws are
//! recorded with and the constants draws.comp writes by
//! ([`DrawCommandLayout::gpu`]) all come from it.
//!
//! Per phase of culling (early or all, then late), in commands of
//! [`DRAW_COMMAND_WORDS`] words: a `VkDrawIndexedIndirectCommand` per mesh
//! and level (mesh-major: every model's meshes, model after model), then
//! the skeleton overlay's `VkDrawIndirectCommand` per model and level, then
//! the impostors' per model; then the same per shadow cascade. After
//! them, animate.comp's `VkDispatchIndirectCommand` per camera phase.

use super::gpu_model::GpuModel;
use super::shader_types::{CrowdModel, GpuDrawCommandLayout, VisibleHeader};
use crate::shared_constants::{
    DISPATCH_COMMAND_WORDS, DRAW_COMMAND_WORDS, FIRST_INSTANCE_WORD, INDEXED_FIRST_INSTANCE_WORD,
    INSTANCE_COUNT_WORD, MAX_LODS, MAX_SHADOW_CASCADES,
};

/// Bytes from one draw command to the next: the stride of multi-draws.
pub const DRAW_COMMAND_STRIDE: u32 = DRAW_COMMAND_WORDS * WORD;

const WORD: u32 = size_of::<u32>() as u32;

/// Sets of draw commands: one per phase of two-phase occlusion culling (a
/// frame without occlusion culling uses the first), then one per shadow
/// cascade ([`shadow_command_set`]).
pub const COMMAND_SETS: usize = CAMERA_PHASES + MAX_SHADOW_CASCADES;

/// The camera's sets of draw commands, and its animate dispatches: one per
/// phase (shadow casters are posed by the camera, or share a pose).
const CAMERA_PHASES: usize = 2;

/// The set of draw commands shadow cascade `cascade` draws with.
pub fn shadow_command_set(cascade: usize) -> usize {
    CAMERA_PHASES + cascade
}

/// Where each indirect command of a model set lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawCommandLayout {
    /// Every model's drawn meshes.
    meshes: u32,
    models: u32,
    /// The most levels of detail any model has: each mesh and model has
    /// this many level commands.
    lods: u32,
}

impl DrawCommandLayout {
    pub fn of(model: &GpuModel) -> DrawCommandLayout {
        DrawCommandLayout {
            meshes: model.draws.len() as u32,
            models: model.parts.len() as u32,
            lods: model.lod_count,
        }
    }

    /// The skeleton overlay's commands start after the meshes'.
    fn first_overlay(&self) -> u32 {
        self.meshes * self.lods
    }

    /// The impostors' commands start after the overlay's.
    fn first_impostor(&self) -> u32 {
        self.first_overlay() + self.models * self.lods
    }

    /// Commands in one set.
    fn per_set(&self) -> u32 {
        self.first_impostor() + self.models
    }

    /// The dispatches start after every set of draw commands.
    fn first_dispatch_word(&self) -> u32 {
        COMMAND_SETS as u32 * self.per_set() * DRAW_COMMAND_WORDS
    }

    fn command_bytes(&self, set: usize, command: u32) -> u64 {
        u64::from((set as u32 * self.per_set() + command) * DRAW_COMMAND_STRIDE)
    }

    /// Byte offset of mesh `mesh`'s indexed draw at level `lod` in command
    /// set `set`.
    pub fn mesh(&self, set: usize, mesh: usize, lod: u32) -> u64 {
        self.command_bytes(set, mesh as u32 * self.lods + lod)
    }

    /// Byte offset of model `model`'s skeleton overlay draw at level `lod`.
    pub fn overlay(&self, set: usize, model: usize, lod: u32) -> u64 {
        self.command_bytes(set, self.first_overlay() + model as u32 * self.lods + lod)
    }

    /// Byte offset of model `model`'s impostor draw.
    pub fn impostor(&self, set: usize, model: usize) -> u64 {
        self.command_bytes(set, self.first_impostor() + model as u32)
    }

    /// Byte offset of the animate pass's dispatch for command set `set`.
    pub fn dispatch(&self, set: usize) -> u64 {
        u64::from((self.first_dispatch_word() + set as u32 * DISPATCH_COMMAND_WORDS) * WORD)
    }

    /// What draws.comp is told of the layout (its push constants).
    pub fn gpu(&self) -> GpuDrawCommandLayout {
        GpuDrawCommandLayout {
            first_overlay: self.first_overlay(),
            first_impostor: self.first_impostor(),
            per_phase: self.per_set(),
            first_dispatch_word: self.first_dispatch_word(),
        }
    }

    /// The buffer as each frame slot's starts: every draw with zero
    /// instances and every dispatch with zero workgroups; draws.comp
    /// rewrites the instance counts, first instances and workgroup counts
    /// every frame. Levels past a mesh's own repeat its coarsest: cull.comp
    /// never puts that model's instances there.
    pub fn initial_words(&self, model: &GpuModel) -> Vec<u32> {
        let pad = |command: &[u32]| {
            let mut words = [0; DRAW_COMMAND_WORDS as usize];
            words[..command.len()].copy_from_slice(command);
            words
        };
        let mut set = Vec::with_capacity((self.per_set() * DRAW_COMMAND_WORDS) as usize);
        for draw in &model.draws {
            for level in 0..self.lods as usize {
                let range = draw.lods[level.min(draw.lods.len() - 1)];
                // indexCount, instanceCount, firstIndex, vertexOffset, firstInstance
                set.extend(pad(&[
                    range.index_count,
                    0,
                    range.first_index,
                    draw.vertex_offset as u32,
                ]));
            }
        }
        for part in &model.parts {
            for _ in 0..self.lods {
                // vertexCount, instanceCount, firstVertex, firstInstance
                set.extend(pad(&[part.line_vertex_count, 0, part.first_line_vertex]));
            }
        }
        // A quad (a triangle strip) per impostor instance.
        for _ in &model.parts {
            set.extend(pad(&[4]));
        }
        let mut words = set.repeat(COMMAND_SETS);
        for _ in 0..CAMERA_PHASES {
            // groupCountX, Y, Z, padded.
            words.extend([0, 1, 1, 0][..DISPATCH_COMMAND_WORDS as usize].iter());
        }
        words
    }

    /// CPU reference of draws.comp: the words after a frame whose cull left
    /// `header`, in two phases (occlusion culling) or one (which writes the
    /// first command set only and leaves the second as it was: here, as it
    /// starts), from the buffer's `initial_words` of `model`, for the
    /// crowd's `models` of `instance_count` instances in all, the animate
    /// kernel posing `instances_per_workgroup` a workgroup.
    pub fn words_after_frame(
        &self,
        model: &GpuModel,
        header: &VisibleHeader,
        crowd: (&[CrowdModel], u32),
        instances_per_workgroup: u32,
        two_phases: bool,
    ) -> Vec<u32> {
        let (models, instance_count) = crowd;
        let mut words = self.initial_words(model);
        // A draw of the instances counted from `counts.0` to `counts.1`,
        // its list starting at `first`.
        let write = |words: &mut [u32], offset: u64, first_word: u32, counts: (u32, u32), first| {
            let word = (offset / u64::from(WORD)) as usize;
            words[word + INSTANCE_COUNT_WORD as usize] = counts.1 - counts.0;
            words[word + first_word as usize] = first + counts.0;
        };
        let sets = if two_phases { CAMERA_PHASES } else { 1 };
        for set in 0..sets {
            // The first phase counts from none, the late one from where the
            // early one left (a single phase leaves its counts as the early's).
            let phase = |before: u32, after: u32| match set {
                0 => (0, before),
                _ => (before, after),
            };
            for (mesh, draw) in model.draws.iter().enumerate() {
                for lod in 0..self.lods {
                    let counter = draw.model * MAX_LODS + lod as usize;
                    let counts = phase(header.early_counts[counter], header.lod_counts[counter]);
                    let first = lod * instance_count + models[draw.model].first_instance;
                    let offset = self.mesh(set, mesh, lod);
                    write(
                        &mut words,
                        offset,
                        INDEXED_FIRST_INSTANCE_WORD,
                        counts,
                        first,
                    );
                }
            }
            for (m, crowd_model) in models.iter().enumerate() {
                for lod in 0..self.lods {
                    let counter = m * MAX_LODS + lod as usize;
                    let counts = phase(header.early_counts[counter], header.lod_counts[counter]);
                    let first = lod * instance_count + crowd_model.first_instance;
                    let offset = self.overlay(set, m, lod);
                    write(&mut words, offset, FIRST_INSTANCE_WORD, counts, first);
                }
                let counts = phase(header.early_impostor_counts[m], header.impostor_counts[m]);
                let first = self.lods * instance_count + crowd_model.first_instance;
                write(
                    &mut words,
                    self.impostor(set, m),
                    FIRST_INSTANCE_WORD,
                    counts,
                    first,
                );
            }
            let (before, after) = phase(header.early_posed_count, header.posed_count);
            let word = (self.dispatch(set) / u64::from(WORD)) as usize;
            words[word] = (after - before).div_ceil(instances_per_workgroup);
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: DrawCommandLayout = DrawCommandLayout {
        meshes: 3,
        models: 2,
        lods: 4,
    };

    fn word(offset: u64) -> usize {
        (offset / u64::from(WORD)) as usize
    }

    #[test]
    fn commands_tile_the_buffer_without_overlap() {
        let mut starts = Vec::new();
        for set in 0..COMMAND_SETS {
            for mesh in 0..3 {
                starts.extend((0..4).map(|lod| LAYOUT.mesh(set, mesh, lod)));
            }
            for model in 0..2 {
                starts.extend((0..4).map(|lod| LAYOUT.overlay(set, model, lod)));
            }
            starts.extend((0..2).map(|model| LAYOUT.impostor(set, model)));
        }
        let stride = u64::from(DRAW_COMMAND_STRIDE);
        for (n, start) in starts.iter().enumerate() {
            assert_eq!(*start, n as u64 * stride, "command {n}");
        }
        let end = starts.len() as u64 * stride;
        assert_eq!(LAYOUT.dispatch(0), end);
        assert_eq!(LAYOUT.dispatch(1), end + 16);
        let gpu = LAYOUT.gpu();
        assert_eq!(gpu.per_phase as usize * COMMAND_SETS, starts.len());
        assert_eq!(
            u64::from(gpu.first_overlay) * stride,
            LAYOUT.overlay(0, 0, 0)
        );
        assert_eq!(
            u64::from(gpu.first_impostor) * stride,
            LAYOUT.impostor(0, 0)
        );
        assert_eq!(gpu.first_dispatch_word as usize, word(LAYOUT.dispatch(0)));
    }
}
