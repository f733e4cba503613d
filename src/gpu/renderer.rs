//! The renderer: the model's resources, the crowd's, the frame slots and the
//! render targets, each with its own lifetime (see the module docs of
//! [`super::model_resources`], [`super::crowd_resources`] and
//! [`super::frame`]). The frame loop itself is [`super::frame_loop`]; the
//! readbacks tests compare with the CPU reference are in readback.rs.

use std::time::{Duration, Instant};

use ash::vk;

use super::capture::FrameCapture;
use super::crowd_buffers::{check_crowd_fits, Animation, BufferLimits, CrowdBuffer, CrowdShape};
use super::crowd_frame_state::CrowdFrameState;
use super::crowd_resources::{CrowdAgents, CrowdResources};
use super::frame::{FrameSlot, FRAMES_IN_FLIGHT};
use super::frame_loop::{Destination, FrameSource};
use super::guard::{guard, Destroy};
use super::memory::{DeviceMemory, MemoryReport};
use super::model_resources::ModelResources;
use super::passes::animate::{self, Kernel};
use super::passes::overlay::OverlayPass;
use super::profiler::Profiler;
use super::scene_pipelines::ScenePipelines;
use super::shader_types::{CrowdInstance, MAX_SHADOW_CASCADES};
use super::shadow_map::ShadowMap;
use super::targets::{create_targets, Targets};
use super::{Context, GpuError};
use crate::model::Model;

pub struct RendererDesc {
    pub extent: vk::Extent2D,
    pub animation: Animation,
    /// Device memory the crowd may take, when smaller than the device's
    /// largest device-local heap (tests use it to play a small GPU).
    pub memory_budget: Option<u64>,
    /// The GPU animation kernel; `None`: the device's for the crowd's size
    /// ([`Kernel::for_device`]).
    pub animate_kernel: Option<Kernel>,
    /// Device memory every impostor atlas may take together
    /// ([`crate::crowd::IMPOSTOR_MEMORY_BUDGET`] unless the user says
    /// otherwise).
    pub impostor_budget: u64,
    /// Samples per pixel asked for; the device's largest count up to it is
    /// drawn ([`Renderer::set_samples`]).
    pub samples: u32,
    /// Shadow cascades every crowd keeps lists for (0: no shadow maps),
    /// up to [`super::shader_types::MAX_SHADOW_CASCADES`].
    pub shadow_cascades: u32,
    /// Texels a side of each cascade's layer of the shadow map.
    pub shadow_resolution: u32,
    /// Device memory a frame slot's skinning palette starts with, at most
    /// ([`super::crowd_buffers::PALETTE_START_BYTES`] unless a test plays a palette that grows).
    pub palette_start_bytes: u64,
}

pub struct Renderer {
    pub model: ModelResources,
    /// What the crowds this renderer draws are made of besides their size:
    /// the model's figures and who poses them.
    crowd_shape: CrowdShape,
    /// What [`RendererDesc::animate_kernel`] asked for; each crowd picks again.
    animate_kernel: Option<Kernel>,
    /// [`RendererDesc::impostor_budget`], for models loaded again.
    impostor_budget: u64,
    /// [`RendererDesc::palette_start_bytes`], for every crowd.
    palette_start_bytes: u64,
    /// `None` until [`Renderer::set_crowd`].
    pub(super) crowd: Option<CrowdResources>,
    /// What the frame loop remembers of the crowd; reset with it.
    pub(super) crowd_frames: CrowdFrameState,
    pub(super) slots: Vec<FrameSlot>,
    pub targets: Targets,
    /// What draws the model into the targets.
    pub pipelines: ScenePipelines,
    /// The sun's shadow map, a layer per cascade; the model's and crowd's
    /// sets point at it, so it outlives them.
    pub shadow_map: ShadowMap,
    pub(super) profiler: Profiler,
    /// The ui overlay's renderer, made by the first frame that shows it.
    pub(super) overlay: Option<OverlayPass>,
    limits: BufferLimits,
    /// Frames submitted so far; the next one uses slot `frame_index % FRAMES_IN_FLIGHT`.
    pub(super) frame_index: u64,
    /// Per slot, the frame last submitted there, if the slot still holds
    /// its results (a crowd rebuild drops the visible counts).
    pub(super) in_flight: [Option<InFlight>; FRAMES_IN_FLIGHT],
    /// Frames in a row that drew impostors and baked none (see
    /// [`Renderer::impostors_settled`]).
    pub(super) frames_without_bakes: u64,
    /// Whether the last frame drew impostors.
    pub(super) draws_impostors: bool,
    /// When the first frame was seen done, until taken
    /// ([`Renderer::take_first_frame_done`]).
    pub(super) first_frame_done: Option<Instant>,
}

/// A submitted frame whose results are read when its slot comes round.
#[derive(Clone, Copy, Debug)]
pub(super) struct InFlight {
    pub index: u64,
    /// Animating, recording and submitting it.
    pub cpu: Duration,
    /// Its visible count belongs to the current crowd.
    pub counted: bool,
}

impl Renderer {
    /// A renderer for `model`, without a crowd yet: [`Renderer::set_crowd`]
    /// gives it one once [`Renderer::check_crowd_fits`] said it fits.
    pub fn new(ctx: &Context, models: &[Model], desc: &RendererDesc) -> Result<Renderer, GpuError> {
        let samples = clamp_samples(ctx, desc.samples);
        let shadow_cascades = desc.shadow_cascades.min(MAX_SHADOW_CASCADES as u32);
        let shadow_map = guard(
            ctx,
            ShadowMap::new(ctx, shadow_cascades, desc.shadow_resolution)?,
        );
        let parts = guard(
            ctx,
            ModelParts::new(
                ctx,
                models,
                (desc.extent, samples),
                (desc.impostor_budget, &shadow_map),
            )?,
        );
        let profiler = Profiler::new(ctx)?;
        let ModelParts {
            model,
            slots,
            targets,
            pipelines,
        } = parts.keep();
        Ok(Renderer {
            crowd_shape: CrowdShape::of(models, desc.animation, desc.shadow_cascades),
            animate_kernel: desc.animate_kernel,
            impostor_budget: desc.impostor_budget,
            palette_start_bytes: desc.palette_start_bytes,
            limits: BufferLimits::of(ctx, desc.memory_budget),
            model,
            crowd: None,
            crowd_frames: CrowdFrameState::default(),
            slots,
            targets,
            pipelines,
            shadow_map: shadow_map.keep(),
            profiler,
            overlay: None,
            frame_index: 0,
            in_flight: [None; FRAMES_IN_FLIGHT],
            frames_without_bakes: 0,
            draws_impostors: false,
            first_frame_done: None,
        })
    }

    /// Draws `model` from now on, built anew (vertex streams, pipelines,
    /// frame slots, targets) with the crowd standing at `placements`: a
    /// reloaded model, for instance with another influence limit. The
    /// profiler and the overlay stay. Nothing changes when the new model's
    /// resources cannot be made or the crowd would not fit beside them;
    /// an allocation failure after the old crowd went leaves no crowd.
    pub fn set_model(
        &mut self,
        ctx: &Context,
        models: &[Model],
        placements: &[CrowdInstance],
        agents: Option<&CrowdAgents>,
    ) -> Result<(), GpuError> {
        let parts = guard(
            ctx,
            ModelParts::new(
                ctx,
                models,
                (self.extent(), self.targets.samples),
                (self.impostor_budget, &self.shadow_map),
            )?,
        );
        let shape = CrowdShape::of(
            models,
            self.crowd_shape.animation,
            self.crowd_shape.shadow_cascades,
        );
        let fixed = parts.memory().total() + self.shadow_map.memory().total();
        check_crowd_fits(&shape, placements.len() as u32, &self.limits, fixed)?;
        // Frames in flight use every part about to go.
        ctx.wait_idle()?;
        self.crowd.take().destroy(ctx);
        self.crowd_frames = CrowdFrameState::default();
        let ModelParts {
            model,
            slots,
            targets,
            pipelines,
        } = parts.keep();
        std::mem::replace(&mut self.pipelines, pipelines).destroy(ctx);
        std::mem::replace(&mut self.model, model).destroy(ctx);
        self.crowd_shape = shape;
        std::mem::replace(&mut self.slots, slots).destroy(ctx);
        std::mem::replace(&mut self.targets, targets).destroy(ctx);
        // Their results went with the old slots, the bakes with the atlases.
        self.in_flight = [None; FRAMES_IN_FLIGHT];
        self.frames_without_bakes = 0;
        self.crowd = Some(self.build_crowd(ctx, placements, agents)?);
        Ok(())
    }

    /// Whether the impostor atlases hold every clip the crowd wants (or
    /// all they can): the last frames drew impostors and baked none, for
    /// longer than a request takes to come back from the GPU; or the last
    /// frame drew none. Headless runs, bench and tests draw until then
    /// before the frames they keep.
    pub fn impostors_settled(&self) -> bool {
        !self.draws_impostors || self.frames_without_bakes > FRAMES_IN_FLIGHT as u64
    }

    /// When the renderer's first frame was seen done (its fence waited
    /// for), once: the start-up log's measure.
    pub fn take_first_frame_done(&mut self) -> Option<Instant> {
        self.first_frame_done.take()
    }

    /// The crowd's resources; `None` before the first [`Renderer::set_crowd`].
    pub fn crowd(&self) -> Option<&CrowdResources> {
        self.crowd.as_ref()
    }

    /// What a crowd of this renderer is made of, besides its size.
    pub fn crowd_shape(&self) -> CrowdShape {
        self.crowd_shape
    }

    /// Refuses a crowd of `instances` this renderer could not hold, saying
    /// how many would fit. Ask before building the CPU side of a crowd,
    /// which grows with it too.
    pub fn check_crowd_fits(&self, instances: u32) -> Result<(), GpuError> {
        let fixed = self.fixed_memory().total();
        check_crowd_fits(&self.crowd_shape(), instances, &self.limits, fixed)
    }

    pub fn extent(&self) -> vk::Extent2D {
        self.targets.extent()
    }

    /// Samples per pixel of the targets.
    pub fn samples(&self) -> u32 {
        self.targets.samples
    }

    /// Draws with `requested` samples per pixel from now on (the device's
    /// largest count up to it, which is returned): new targets and the
    /// pipelines that draw into them, nothing else. Nothing changes when
    /// they cannot be made.
    pub fn set_samples(&mut self, ctx: &Context, requested: u32) -> Result<u32, GpuError> {
        let samples = clamp_samples(ctx, requested);
        if samples == self.targets.samples {
            return Ok(samples);
        }
        let targets = guard(
            ctx,
            create_targets(ctx, self.extent(), samples, &self.model)?,
        );
        let pipelines = ScenePipelines::new(ctx, &self.model, targets.formats())?;
        // Frames in flight draw into the old ones.
        ctx.wait_idle()?;
        std::mem::replace(&mut self.pipelines, pipelines).destroy(ctx);
        std::mem::replace(&mut self.targets, targets.keep()).destroy(ctx);
        Ok(samples)
    }

    /// Makes the crowd the one standing at `placements`, rebuilding only
    /// the crowd-sized resources: textures, pipelines and frame slots stay.
    /// The old crowd's buffers are freed before the new ones are allocated,
    /// so any crowd the fit check accepts has the memory. A crowd that does
    /// not fit is refused and the current one stays; one whose allocation
    /// fails anyway (the heap is shared with other programs) is refused
    /// too, and the current one is built again.
    pub fn set_crowd(
        &mut self,
        ctx: &Context,
        placements: &[CrowdInstance],
    ) -> Result<(), GpuError> {
        self.set_crowd_with_agents(ctx, placements, None)
    }

    /// [`Renderer::set_crowd`], with a lane per instance for the agent
    /// pass (`None`: the crowd stays where it is put, locomotion or not).
    pub fn set_crowd_with_agents(
        &mut self,
        ctx: &Context,
        placements: &[CrowdInstance],
        agents: Option<&CrowdAgents>,
    ) -> Result<(), GpuError> {
        self.check_crowd_fits(placements.len() as u32)?;
        // Frames in flight read the crowd's buffers.
        ctx.wait_idle()?;
        // What builds the old crowd again, should the new one fail: the
        // renderer keeps no copy of a crowd's placements.
        let old_crowd = match &self.crowd {
            Some(old) => Some((old.read_home_placements(ctx)?, old.agents.clone())),
            None => None,
        };
        self.crowd.take().destroy(ctx);
        self.crowd_frames = CrowdFrameState::default();
        for frame in self.in_flight.iter_mut().flatten() {
            frame.counted = false;
        }
        // The new crowd may want clips the old one did not: settled only
        // once its own frames have drawn impostors without baking.
        self.frames_without_bakes = 0;
        match self.build_crowd(ctx, placements, agents) {
            Ok(crowd) => {
                self.crowd = Some(crowd);
                Ok(())
            }
            Err(error) => {
                if let Some((old, old_agents)) = old_crowd {
                    let restored = self
                        .build_crowd(ctx, &old, old_agents.as_ref())
                        .map_err(|again| GpuError::CrowdLost(again.to_string()))?;
                    self.crowd = Some(restored);
                }
                Err(error)
            }
        }
    }

    /// The crowd's resources, posed by the animate kernel for its size.
    fn build_crowd(
        &self,
        ctx: &Context,
        placements: &[CrowdInstance],
        agents: Option<&CrowdAgents>,
    ) -> Result<CrowdResources, GpuError> {
        let animate_kernel = animate::pick_kernel(
            ctx,
            self.animate_kernel,
            self.model.model.max_joint_count() as usize,
            placements.len() as u32,
        );
        CrowdResources::new(
            ctx,
            (&self.model, &self.slots, &self.shadow_map),
            placements,
            agents,
            self.crowd_shape,
            animate_kernel,
            self.palette_start_bytes,
        )
    }

    /// New targets for a new size. The caller makes sure the GPU is idle.
    pub fn resize(&mut self, ctx: &Context, extent: vk::Extent2D) -> Result<(), GpuError> {
        let targets = create_targets(ctx, extent, self.targets.samples, &self.model)?;
        std::mem::replace(&mut self.targets, targets).destroy(ctx);
        Ok(())
    }

    /// Device memory now, every allocation's: a skinning palette counts
    /// the rows it has, where the fit check counts the crowd it may grow to.
    pub fn memory(&self) -> MemoryReport {
        self.fixed_memory() + self.crowd.memory()
    }

    /// Device memory that does not grow with the crowd: the model's, the
    /// frame slots', the targets' and the shadow map's.
    pub fn fixed_memory(&self) -> MemoryReport {
        self.model.memory() + self.slots.memory() + self.targets.memory() + self.shadow_map.memory()
    }

    /// Rows of the largest frame slot's skinning palette; `None` with CPU
    /// animation (a row per instance).
    pub fn palette_rows(&self) -> Option<u32> {
        let crowd = self.crowd.as_ref()?;
        (0..self.slots.len())
            .filter_map(|slot| crowd.palette_rows(slot))
            .max()
    }

    /// Whether a frame's skinning palette can run short: it started with
    /// fewer rows than the crowd's instances take
    /// ([`super::crowd_buffers::PALETTE_START_BYTES`]) and has not grown to them.
    pub fn palette_may_run_short(&self) -> bool {
        self.crowd.as_ref().is_some_and(|crowd| {
            (0..self.slots.len())
                .filter_map(|slot| crowd.palette_rows(slot))
                .any(|rows| rows < crowd.transform_count())
        })
    }

    /// Grows slot `slot`'s skinning palette to the most rows a done frame
    /// of the crowd wanted, when it has fewer: that frame showed the
    /// instances past its rows in their shared pose, and every slot's next
    /// frames give them their own. Call while the slot is idle, before
    /// recording into it.
    pub(super) fn grow_palette(&mut self, ctx: &Context, slot: usize) -> Result<(), GpuError> {
        let Some(crowd) = self.crowd.as_mut() else {
            return Ok(());
        };
        let Some((index, wanted)) = self.crowd_frames.palette_wanted else {
            return Ok(());
        };
        // A failure is tried again before the slot's next frame.
        if let Some(rows) = crowd.grow_palette(ctx, &self.model, slot, wanted)? {
            let bytes = crowd
                .buffer(CrowdBuffer::SkinningTransforms, slot)
                .map_or(0, |b| b.size);
            log::info!(
                "skinning palette, slot {slot}: grew to {rows} rows ({:.1} MiB) for the {wanted} frame {index} wanted",
                bytes as f64 / f64::from(1 << 20)
            );
        }
        Ok(())
    }

    /// Whether the last frame drawn was exact: the impostor atlases held
    /// what it wanted ([`Renderer::impostors_settled`]) and, once done, its
    /// skinning palette held a row for every instance it posed (one that
    /// ran short showed the rest in shared poses, chosen by the order of
    /// the GPU's atomics). Only a crowd whose palette starts short of
    /// every instance's rows can run short.
    pub fn settled(&self) -> bool {
        self.impostors_settled() && !self.crowd_frames.last_done_ran_short()
    }

    /// Draws offscreen frames of `source` until one is exact
    /// ([`Renderer::settled`]), `limit` at most, and waits for them;
    /// returns how many it drew. Their measurements are dropped: headless
    /// runs, bench and tests keep the frames after, which are then exact
    /// from the first.
    pub fn settle(
        &mut self,
        ctx: &Context,
        source: &mut dyn FrameSource,
        limit: u32,
    ) -> Result<u32, GpuError> {
        let mut frames = 0;
        loop {
            let mut no_capture = FrameCapture::new(None);
            self.draw_frame(ctx, Destination::Offscreen, None, &mut no_capture, source)?;
            frames += 1;
            // Whether the palette ran short is known once the frame is done.
            if self.impostors_settled() {
                self.finish(ctx)?;
            }
            if self.settled() || frames == limit {
                break;
            }
        }
        self.finish(ctx)?;
        Ok(frames)
    }
}

impl Destroy for Renderer {
    fn destroy(self, ctx: &Context) {
        self.profiler.destroy(ctx);
        self.overlay.destroy(ctx);
        self.pipelines.destroy(ctx);
        self.targets.destroy(ctx);
        self.crowd.destroy(ctx);
        self.slots.destroy(ctx);
        self.model.destroy(ctx);
        self.shadow_map.destroy(ctx);
    }
}

/// What lives as long as the model, and the parts made to its measure:
/// the frame slots (its draw commands), the targets (its pyramid) and the
/// pipelines that draw it into them.
struct ModelParts {
    model: ModelResources,
    slots: Vec<FrameSlot>,
    targets: Targets,
    pipelines: ScenePipelines,
}

impl ModelParts {
    fn new(
        ctx: &Context,
        models: &[Model],
        (extent, samples): (vk::Extent2D, u32),
        (impostor_budget, shadow_map): (u64, &ShadowMap),
    ) -> Result<ModelParts, GpuError> {
        let model = guard(
            ctx,
            ModelResources::new(ctx, models, impostor_budget, shadow_map)?,
        );
        let mut slots = guard(ctx, Vec::with_capacity(FRAMES_IN_FLIGHT));
        let draw_commands = model.draw_commands.initial_words(&model.model);
        for slot in 0..FRAMES_IN_FLIGHT {
            let requests = model.impostors.requests_bytes();
            slots.push(FrameSlot::new(ctx, slot, &draw_commands, requests)?);
        }
        let targets = guard(ctx, create_targets(ctx, extent, samples, &model)?);
        let pipelines = ScenePipelines::new(ctx, &model, targets.formats())?;
        Ok(ModelParts {
            model: model.keep(),
            slots: slots.keep(),
            targets: targets.keep(),
            pipelines,
        })
    }
}

impl Destroy for ModelParts {
    fn destroy(self, ctx: &Context) {
        self.pipelines.destroy(ctx);
        self.targets.destroy(ctx);
        self.slots.destroy(ctx);
        self.model.destroy(ctx);
    }
}

/// Device memory that does not grow with the crowd.
impl DeviceMemory for ModelParts {
    fn memory(&self) -> MemoryReport {
        self.model.memory() + self.slots.memory() + self.targets.memory()
    }
}

/// The device's largest sample count up to `requested`, said in the log
/// when it is less.
fn clamp_samples(ctx: &Context, requested: u32) -> u32 {
    let samples = ctx.multisample.clamp(requested);
    if samples != requested {
        log::warn!(
            "MSAA {requested}x: {} offers {:?} samples a pixel for colour and depth together; drawing {samples}x",
            ctx.device_name,
            ctx.multisample.offered()
        );
    }
    samples
}
