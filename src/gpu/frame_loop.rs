//! The one frame loop, shared by the window, headless renders, the benchmark
//! and the tests: wait for the frame slot, read what its previous frame
//! measured, let the caller update (advance time, animate), upload, record
//! the passes, send the image where it goes, submit. Callers differ only in
//! where the frame goes ([`Destination`]) and how time advances (their
//! [`FrameSource`]).

use std::fmt;
use std::time::{Duration, Instant};

use ash::vk;

use super::animation_data::ModelClips;
use super::capture::FrameCapture;
use super::crowd_buffers::{Animation, CrowdBuffer};
use super::crowd_resources::CrowdResources;
use super::frame::{self, FRAMES_IN_FLIGHT};
use super::gpu_model::ModelPart;
use super::passes::overlay::{OverlayFrame, OverlayPass};
use super::profiler::FrameTimings;
use super::renderer::{InFlight, Renderer};
use super::resources::Buffer;
use super::shader_types::{
    GpuInstanceLayer, InstanceAnimation, SkinningTransform, SurfaceVertex, VisibleHeader,
    LAYER_ADDITIVE, MAX_LAYERS, MAX_MODELS,
};
use super::swapchain::{self, Acquired, Swapchain};
use super::{output, record, Context, GpuError};
use crate::skin::MAX_LODS;

pub use super::frame_uniforms::{
    cascade_view, SceneUniforms, ANIM_LOD_RADIUS, SHADOW_DISTANCE_IN_HEIGHTS,
};
pub use super::view_options::{Shadows, ViewOptions};

/// Everything one frame's recording reads.
pub struct FrameInput<'a> {
    pub uniforms: SceneUniforms,
    /// Every instance's animation state; uploaded only when
    /// `instances_version` differs from what the frame slot last saw.
    pub instances: &'a [InstanceAnimation],
    /// Every instance's layers, [`MAX_LAYERS`] each; uploaded with
    /// `instances`.
    pub layers: &'a [GpuInstanceLayer],
    pub instances_version: u64,
    pub posed: Posed<'a>,
    pub view: ViewOptions,
}

/// What the CPU posed this frame; must match the [`Animation`] the crowd
/// was built for (a mismatch is an error, not a panic).
pub enum Posed<'a> {
    /// animate.comp poses the crowd ([`Animation::Gpu`]).
    OnGpu,
    /// [`Animation::Cpu`]: `instance_count * joint_count` transforms,
    /// instance-major.
    Cpu {
        skinning_transforms: &'a [SkinningTransform],
        /// `instance_count * GpuModel::morph_stride` weights.
        morph_weights: &'a [f32],
    },
    /// [`Animation::CpuSkinned`]: the transforms (for the skeleton overlay)
    /// and the surface vertices of every instance, `vertex_count` apart.
    CpuSkinned {
        skinning_transforms: &'a [SkinningTransform],
        vertices: &'a [SurfaceVertex],
    },
    /// [`Animation::BindPose`].
    BindPose,
}

impl Posed<'_> {
    pub fn animation(&self) -> Animation {
        match self {
            Posed::OnGpu => Animation::Gpu,
            Posed::Cpu { .. } => Animation::Cpu,
            Posed::CpuSkinned { .. } => Animation::CpuSkinned,
            Posed::BindPose => Animation::BindPose,
        }
    }
}

/// How many instances of each model the cull pass kept at each level of
/// detail, and as impostors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VisibleCounts {
    /// `[model * MAX_LODS + level]`.
    pub levels: [u32; MAX_MODELS * MAX_LODS],
    pub impostors: [u32; MAX_MODELS],
    /// Of `impostors`, those drawn as meshes too (counted in `levels`):
    /// the band around the impostor switch.
    pub band: [u32; MAX_MODELS],
}

impl Default for VisibleCounts {
    fn default() -> Self {
        VisibleHeader::default().into()
    }
}

impl From<VisibleHeader> for VisibleCounts {
    fn from(header: VisibleHeader) -> Self {
        VisibleCounts {
            levels: header.lod_counts,
            impostors: header.impostor_counts,
            band: header.band_counts,
        }
    }
}

/// Triangles an impostor is drawn with: a quad.
pub const IMPOSTOR_TRIANGLES: u64 = 2;

impl VisibleCounts {
    /// Instances drawn, as meshes or impostors (those in the band
    /// counted once).
    pub fn total(&self) -> u32 {
        self.levels.iter().sum::<u32>() + self.impostor_total() - self.band_total()
    }

    /// Instances drawn both as meshes and as impostors, every model's: the
    /// band around the switch.
    pub fn band_total(&self) -> u32 {
        self.band.iter().sum()
    }

    /// Instances drawn as impostors, every model's.
    pub fn impostor_total(&self) -> u32 {
        self.impostors.iter().sum()
    }

    /// Model `model`'s instances in the visible lists, per level.
    pub fn of_model(&self, model: usize) -> &[u32] {
        &self.levels[model * MAX_LODS..(model + 1) * MAX_LODS]
    }

    /// Model `model`'s drawn instances, as meshes or impostors.
    pub fn model_total(&self, model: usize) -> u32 {
        self.of_model(model).iter().sum::<u32>() + self.impostors[model] - self.band[model]
    }

    /// Triangles drawn of model `part` (the `model`-th).
    pub fn model_triangles(&self, model: usize, part: &ModelPart) -> u64 {
        let meshes: u64 = self
            .of_model(model)
            .iter()
            .zip(&part.lod_triangles)
            .map(|(&count, &triangles)| u64::from(count) * triangles)
            .sum();
        meshes + u64::from(self.impostors[model]) * IMPOSTOR_TRIANGLES
    }

    /// Triangles drawn, every model's.
    pub fn triangles(&self, parts: &[ModelPart]) -> u64 {
        parts
            .iter()
            .enumerate()
            .map(|(model, part)| self.model_triangles(model, part))
            .sum()
    }
}

/// The caller's side of a frame.
pub trait FrameSource {
    /// Called once the frame slot is free, just before recording: advance
    /// to frame `index` (animate, move the camera) and say what to draw.
    fn frame_input(&mut self, index: u64) -> FrameInput<'_>;

    /// The ui overlay to draw over this frame, taken once per frame before
    /// [`FrameSource::frame_input`]; `None` (the default) draws none and
    /// costs nothing.
    fn take_overlay(&mut self) -> Option<OverlayFrame> {
        None
    }
}

/// Where the finished colour image goes.
pub enum Destination<'a> {
    /// Nowhere but `readback`, if given: headless renders, the benchmark, tests.
    Offscreen,
    /// Blitted into the next image of the swapchain and presented.
    Present(&'a Swapchain),
}

/// How one call to [`Renderer::draw_frame`] went.
#[derive(Debug, Default)]
pub struct FrameReport {
    /// False when the swapchain was out of date and nothing was drawn.
    pub drawn: bool,
    /// The swapchain should be recreated before the next frame.
    pub swapchain_stale: bool,
    /// The frame that last used this slot, measured, once its timings are
    /// in (every frame when the device has timestamps).
    pub finished: Option<MeasuredFrame>,
    /// Instances the cull pass kept in that frame, per level of detail
    /// (none after a crowd rebuild).
    pub visible: Option<VisibleCounts>,
}

/// One finished frame's costs.
#[derive(Clone, Debug)]
pub struct MeasuredFrame {
    pub index: u64,
    /// Updating (CPU animation included), recording and submitting it.
    pub cpu: Duration,
    pub gpu: FrameTimings,
}

impl fmt::Display for MeasuredFrame {
    /// `frame 3: CPU 0.412 ms, GPU 2.345 ms (draw 2.300 ms, ...); ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cpu_ms = self.cpu.as_secs_f64() * 1e3;
        write!(f, "frame {}: CPU {cpu_ms:.3} ms, {}", self.index, self.gpu)
    }
}

impl Renderer {
    /// Draws the next frame: see the module docs. `readback` receives the
    /// image (tightly packed RGBA8) once the frame's fence signals;
    /// `capture` wraps the frame in a RenderDoc capture when asked to.
    pub fn draw_frame(
        &mut self,
        ctx: &Context,
        destination: Destination,
        readback: Option<&Buffer>,
        capture: &mut FrameCapture,
        source: &mut dyn FrameSource,
    ) -> Result<FrameReport, GpuError> {
        let slot = (self.frame_index % FRAMES_IN_FLIGHT as u64) as usize;
        frame::wait(ctx, &self.slots[slot])?;
        let (finished, visible) = self.collect(ctx, slot)?;
        self.grow_palette(ctx, slot)?;
        let mut report = FrameReport {
            finished,
            visible,
            ..FrameReport::default()
        };
        let cpu_start = Instant::now();
        let mut overlay = source.take_overlay();
        let input = source.frame_input(self.frame_index);
        // Checked and written before anything is begun, so a bad input
        // leaves the slot, its fence and the swapchain as they were.
        self.upload(slot, &input)?;
        self.upload_overlay(ctx, slot, overlay.as_mut())?;
        let presented = match destination {
            Destination::Offscreen => None,
            Destination::Present(swapchain) => match swapchain::acquire(swapchain, slot)? {
                // Still drawn when suboptimal: the acquire semaphore is
                // signalled and must be waited on. Recreated afterwards.
                Acquired::Image { index, suboptimal } => {
                    report.swapchain_stale = suboptimal;
                    Some((swapchain, index))
                }
                Acquired::OutOfDate => {
                    report.swapchain_stale = true;
                    return Ok(report);
                }
            },
        };

        capture.begin_frame(ctx, self.frame_index);
        let cmd = frame::begin(ctx, &self.slots[slot])?;
        // A failed overlay draw is reported once the frame is submitted:
        // the slot's fence was reset and must signal.
        let bakes = self.model.impostors.plan(self.frame_index);
        // Counted from the first frame that draws impostors: requests
        // come back only from those.
        let animation = self.crowd_shape().animation;
        self.draws_impostors = record::draws_impostors(&input.view, animation);
        self.frames_without_bakes = match (self.draws_impostors, bakes.units()) {
            (true, 0) => self.frames_without_bakes + 1,
            _ => 0,
        };
        let overlay_drawn = self.record(ctx, cmd, slot, (&input, &bakes), overlay.as_ref());
        let color = self.targets.picture();
        if let Some((swapchain, image)) = presented {
            output::record_blit_to_swapchain(ctx, cmd, color, swapchain.images[image as usize]);
        }
        if let Some(readback) = readback {
            output::record_readback(ctx, cmd, color, readback);
        }
        let frame = &self.slots[slot];
        match presented {
            Some((swapchain, image)) => {
                frame::submit(
                    ctx,
                    frame,
                    Some((
                        swapchain.image_available[slot],
                        vk::PipelineStageFlags2::BLIT,
                    )),
                    Some(swapchain.render_finished[image as usize]),
                )?;
                report.swapchain_stale |= swapchain::present(ctx, swapchain, image)?;
            }
            None => frame::submit(ctx, frame, None, None)?,
        }
        self.in_flight[slot] = Some(InFlight {
            index: self.frame_index,
            cpu: cpu_start.elapsed(),
            counted: true,
        });
        capture.end_frame(ctx);
        self.frame_index += 1;
        report.drawn = true;
        overlay_drawn?;
        Ok(report)
    }

    /// Waits for the GPU and returns what the frames still in flight
    /// measured, oldest first: the end of a run.
    pub fn finish(&mut self, ctx: &Context) -> Result<Vec<MeasuredFrame>, GpuError> {
        ctx.wait_idle()?;
        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for slot in 0..FRAMES_IN_FLIGHT {
            frames.extend(self.collect(ctx, slot)?.0);
        }
        frames.sort_by_key(|frame| frame.index);
        Ok(frames)
    }

    /// Index of the slot the last submitted frame used.
    pub fn last_slot(&self) -> usize {
        ((self.frame_index + FRAMES_IN_FLIGHT as u64 - 1) % FRAMES_IN_FLIGHT as u64) as usize
    }

    /// How many instances the cull pass kept in the frame that last used
    /// `slot`; call once that frame is done.
    pub fn visible_count(&self, slot: usize) -> VisibleCounts {
        self.visible_header(slot).into()
    }

    /// The visible lists' header as the frame that last used `slot` left
    /// it; call once that frame is done.
    fn visible_header(&self, slot: usize) -> VisibleHeader {
        let bytes = self.slots[slot].visible_readback.read();
        bytemuck::pod_read_unaligned(&bytes[..size_of::<VisibleHeader>()])
    }

    /// The measurements of the frame that last used `slot`, whose fence
    /// has signalled; each is returned once. The skinning palette rows it
    /// wanted are kept for every slot's next frame ([`Renderer::grow_palette`]).
    fn collect(
        &mut self,
        ctx: &Context,
        slot: usize,
    ) -> Result<(Option<MeasuredFrame>, Option<VisibleCounts>), GpuError> {
        let Some(last) = self.in_flight[slot].take() else {
            return Ok((None, None));
        };
        if last.index == 0 {
            self.first_frame_done = Some(Instant::now());
        }
        let header = last.counted.then(|| self.visible_header(slot));
        let requests = self.slots[slot].impostor_requests.read();
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(requests);
        self.model.impostors.note_requests(&words, last.index);
        if let (Some(header), Some(crowd)) = (header, &self.crowd) {
            let rows = crowd.palette_rows(slot);
            self.crowd_frames
                .note_palette(last.index, header.palette_rows_wanted, rows);
        }
        let visible = header.map(VisibleCounts::from);
        let measured = self.profiler.take(ctx, slot)?.map(|gpu| MeasuredFrame {
            index: last.index,
            cpu: last.cpu,
            gpu,
        });
        Ok((measured, visible))
    }

    /// Frees what the overlay retired in the slot's last frame and uploads
    /// the textures `overlay` needs; the overlay's renderer is made when
    /// first needed and lives as long as this renderer.
    fn upload_overlay(
        &mut self,
        ctx: &Context,
        slot: usize,
        overlay: Option<&mut OverlayFrame>,
    ) -> Result<(), GpuError> {
        if self.overlay.is_none() && overlay.is_some() {
            self.overlay = Some(OverlayPass::new(ctx)?);
        }
        match &mut self.overlay {
            Some(pass) => pass.upload(ctx, slot, overlay),
            None => Ok(()),
        }
    }

    /// Writes what the CPU produced into slot `slot`'s buffers, after
    /// checking it is what the crowd was built for.
    fn upload(&mut self, slot: usize, input: &FrameInput) -> Result<(), GpuError> {
        let uniforms = self.frame_uniforms(input);
        self.slots[slot].uniforms.write(&[uniforms]);
        let crowd = self
            .crowd
            .as_mut()
            .ok_or_else(|| GpuError::FrameMismatch("the renderer has no crowd yet".into()))?;
        let instance_count = crowd.instance_count() as usize;
        let expected = crowd.shape.animation;
        if input.posed.animation() != expected {
            return Err(GpuError::FrameMismatch(format!(
                "posed as {:?} for a crowd built for {expected:?}",
                input.posed.animation()
            )));
        }
        let check = |what: &str, given: usize, wanted: usize| {
            if given == wanted {
                Ok(())
            } else {
                Err(GpuError::FrameMismatch(format!(
                    "{given} {what} for a crowd that needs {wanted}"
                )))
            }
        };
        check("instance states", input.instances.len(), instance_count)?;
        check(
            "instance layers",
            input.layers.len(),
            instance_count * MAX_LAYERS,
        )?;
        // The instance states the CPU writes into the slot when they
        // changed: all of them, or while the agents walk only those of the
        // models that stand (agents.comp writes the walkers', so once the
        // agents stop, everyone's are uploaded again).
        let walking = crowd.agents_walk(input.view.locomotion);
        let written = &mut self.crowd_frames.slots[slot];
        let stale = written.instances_version != Some(input.instances_version)
            || (written.walkers_moved && !walking);
        written.walkers_moved = walking;
        if stale {
            for (m, clips) in self.model.animation.models.iter().enumerate() {
                let crowd_model = crowd.models[m];
                if walking && crowd.walks(m) {
                    continue;
                }
                // The shaders index the clip table with these: checked
                // as the CPU checks its own indices. A model without clips
                // has one entry standing for its bind pose.
                let own = clips.first_clip..clips.first_clip + clips.clip_count.max(1);
                let first = crowd_model.first_instance as usize;
                let states = &input.instances[first..first + crowd_model.instance_count as usize];
                let bad_clip = states.iter().position(|i| {
                    [i.clip, i.previous_clip, i.older_clip]
                        .iter()
                        .any(|clip| !own.contains(clip))
                });
                if let Some(instance) = bad_clip {
                    return Err(GpuError::FrameMismatch(format!(
                        "instance {} plays a clip outside its model's {own:?} in the clip table",
                        first + instance
                    )));
                }
                crowd
                    .buffer_mut(CrowdBuffer::InstanceAnimation, slot)
                    .expect("every crowd has instance states")
                    .write_at(first, states);
            }
            write_layers(crowd, &self.model.animation.models, slot, input.layers)?;
            self.crowd_frames.slots[slot].instances_version = Some(input.instances_version);
        }
        let (transforms, vertices) = match input.posed {
            Posed::OnGpu | Posed::BindPose => (None, None),
            Posed::Cpu {
                skinning_transforms,
                morph_weights,
            } => {
                let stride = self.model.model.morph_stride as usize;
                check(
                    "morph weights",
                    morph_weights.len(),
                    input.instances.len() * stride,
                )?;
                if stride > 0 {
                    crowd
                        .buffer_mut(CrowdBuffer::MorphWeights, slot)
                        .expect("every crowd has morph weights")
                        .write(morph_weights);
                }
                (Some(skinning_transforms), None)
            }
            Posed::CpuSkinned {
                skinning_transforms,
                vertices,
            } => (Some(skinning_transforms), Some(vertices)),
        };
        if let Some(transforms) = transforms {
            check(
                "skinning transforms",
                transforms.len(),
                crowd.transform_count() as usize,
            )?;
            crowd
                .buffer_mut(CrowdBuffer::SkinningTransforms, slot)
                .expect("every crowd has skinning transforms")
                .write(transforms);
        }
        if let Some(vertices) = vertices {
            let vertex_count = crowd
                .models
                .iter()
                .zip(&self.model.model.parts)
                .map(|(m, part)| (m.instance_count * part.vertex_count) as usize)
                .sum();
            check("skinned vertices", vertices.len(), vertex_count)?;
            crowd
                .buffer_mut(CrowdBuffer::CpuSkinnedVertices, slot)
                .expect("a CPU-skinned crowd has vertices")
                .write(vertices);
        }
        Ok(())
    }
}

/// Writes every instance's layers into slot `slot`'s buffer, after
/// checking that each layer played plays clips and a channel of its own
/// model (the shaders index the clip table and the masks with them).
fn write_layers(
    crowd: &mut CrowdResources,
    models: &[ModelClips],
    slot: usize,
    layers: &[GpuInstanceLayer],
) -> Result<(), GpuError> {
    for (clips, crowd_model) in models.iter().zip(&crowd.models) {
        let own = clips.first_clip..clips.first_clip + clips.clip_count;
        let first = crowd_model.first_instance as usize * MAX_LAYERS;
        let count = crowd_model.instance_count as usize * MAX_LAYERS;
        let bad = layers[first..first + count].iter().position(|layer| {
            let channel = layer.channel_and_mode & !LAYER_ADDITIVE;
            layer.weight > 0.0
                && (!own.contains(&layer.clip)
                    || !own.contains(&layer.previous_clip)
                    || channel >= clips.layer_mask_count)
        });
        if let Some(layer) = bad {
            return Err(GpuError::FrameMismatch(format!(
                "instance {} plays a layer outside its model's clips {own:?} or its {} channels",
                (first + layer) / MAX_LAYERS,
                clips.layer_mask_count
            )));
        }
    }
    crowd
        .buffer_mut(CrowdBuffer::InstanceLayers, slot)
        .expect("every crowd has instance layers")
        .write(layers);
    Ok(())
}
