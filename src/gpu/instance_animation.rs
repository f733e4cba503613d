//! The GPU's twins of an instance's animation state: its clips and
//! crossfade ([`InstanceAnimation`]) and the layers over them
//! ([`GpuInstanceLayer`]), as the CPU writes them for the animate and cull
//! passes whenever they change. GLSL (shaders/animation.glsl) is the source
//! of truth; `layout_tests` holds the twins to it.

use bytemuck::{Pod, Zeroable};

use crate::anim;
use crate::crowd::Instance;
use crate::shared_constants::{LAYER_ADDITIVE, MAX_LAYERS};

/// Twin of `InstanceAnimation` in shaders/animation.glsl: a
/// [`crate::crowd::Instance`]'s clips and crossfade (48 bytes, three
/// 16-byte rows).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct InstanceAnimation {
    pub clip: u32,
    pub previous_clip: u32,
    pub older_clip: u32,
    pub blend_start: f32,
    pub phase: f32,
    pub previous_phase: f32,
    pub older_phase: f32,
    pub from_weight: f32,
    pub rate: f32,
    pub padding: [u32; 3],
}

impl InstanceAnimation {
    /// `i` as the GPU reads it: its clips, which count its own model's,
    /// counted among every model's (`first_clips`: per model, its first
    /// clip in the clip table).
    pub fn new(i: &Instance, first_clips: &[u32]) -> Self {
        let first = first_clips.get(i.model as usize).copied().unwrap_or(0);
        InstanceAnimation {
            clip: first + i.clip,
            previous_clip: first + i.previous_clip,
            older_clip: first + i.older_clip,
            blend_start: i.blend_start,
            phase: i.phase,
            previous_phase: i.previous_phase,
            older_phase: i.older_phase,
            from_weight: i.from_weight,
            rate: i.rate,
            padding: [0; 3],
        }
    }
}

/// Twin of `InstanceLayer` in shaders/animation.glsl: a
/// [`crate::crowd::LayerTrack`] as the animate and cull passes read it, its clips
/// counted among every model's (32 bytes, [`MAX_LAYERS`] per instance).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuInstanceLayer {
    pub clip: u32,
    pub previous_clip: u32,
    /// The channel (0: the whole body), with [`LAYER_ADDITIVE`] set for an
    /// additive layer.
    pub channel_and_mode: u32,
    pub blend_start: f32,
    pub phase: f32,
    pub previous_phase: f32,
    /// 0: no layer.
    pub weight: f32,
    pub rate: f32,
}

impl GpuInstanceLayer {
    /// `i`'s layers as the GPU reads them, [`MAX_LAYERS`] of them, those
    /// past its own at weight 0 (`first_clips` as for
    /// [`InstanceAnimation::new`]).
    pub fn of(i: &Instance, first_clips: &[u32]) -> [GpuInstanceLayer; MAX_LAYERS] {
        let first = first_clips.get(i.model as usize).copied().unwrap_or(0);
        let mut layers = [GpuInstanceLayer::default(); MAX_LAYERS];
        for (gpu, layer) in layers.iter_mut().zip(i.layers.as_slice()) {
            let additive = match layer.mode {
                anim::LayerMode::Additive => LAYER_ADDITIVE,
                anim::LayerMode::Override => 0,
            };
            *gpu = GpuInstanceLayer {
                clip: first + layer.clip,
                previous_clip: first + layer.previous_clip,
                channel_and_mode: u32::from(layer.channel) | additive,
                blend_start: layer.blend_start,
                phase: layer.phase,
                previous_phase: layer.previous_phase,
                weight: layer.weight.clamp(0.0, 1.0),
                rate: layer.rate,
            };
        }
        layers
    }
}
