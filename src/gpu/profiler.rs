//! GPU timings per pass and pipeline statistics, read back without stalls.
//!
//! Every frame slot has its own query pools. A frame resets its slot's
//! queries at the start of its command buffer ([`Profiler::begin_frame`]),
//! writes a timestamp pair around each pass ([`Profiler::begin`] /
//! [`Profiler::end`]) and one pipeline-statistics query around the
//! scene's draws. The results are taken when the slot comes round again, after its
//! fence was waited for: the GPU is done with them by then, so reading
//! them never waits.
//!
//! ```ignore
//! let cull = profiler.begin(ctx, cmd, "cull");
//! // ... record the pass ...
//! profiler.end(ctx, cmd, cull);
//! ```

use std::fmt;

use ash::vk;

use super::context::TimestampFormat;
use super::frame::FRAMES_IN_FLIGHT;
use super::guard::Destroy;
use super::{debug, vk_error, Context, GpuError};

/// Timestamp pairs per frame; a frame has a handful of passes.
pub const MAX_SCOPES: usize = 32;

/// What one frame measured on the GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTimings {
    /// Pass name and GPU milliseconds, in recording order. Passes do not
    /// nest or overlap, so they add up (see [`Profiler::end`]).
    pub passes: Vec<(&'static str, f64)>,
    /// Vertex shader runs in the scene's draws (crowd and skeleton
    /// overlay); `None` without `pipelineStatisticsQuery`. A post-transform
    /// vertex cache makes this lower than the index count.
    pub vertex_invocations: Option<u64>,
    /// Primitives leaving the clipper in the scene's draws, before
    /// back-face culling: roughly the triangles inside the view.
    pub clipping_primitives: Option<u64>,
}

impl FrameTimings {
    pub fn gpu_ms(&self) -> f64 {
        self.passes.iter().map(|(_, ms)| ms).sum()
    }
}

impl fmt::Display for FrameTimings {
    /// `GPU 1.234 ms (draw 1.100 ms, skeleton 0.134 ms); 1234 vertex
    /// invocations, 456 clipping primitives`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passes.is_empty() {
            write!(f, "no GPU timestamps")?;
        } else {
            write!(f, "GPU {:.3} ms (", self.gpu_ms())?;
            for (i, (name, ms)) in self.passes.iter().enumerate() {
                let separator = if i == 0 { "" } else { ", " };
                write!(f, "{separator}{name} {ms:.3} ms")?;
            }
            write!(f, ")")?;
        }
        match (self.vertex_invocations, self.clipping_primitives) {
            (Some(vertices), Some(primitives)) => write!(
                f,
                "; {vertices} vertex invocations, {primitives} clipping primitives"
            ),
            _ => write!(f, "; no pipeline statistics"),
        }
    }
}

/// An open timestamp pair; hand it back to [`Profiler::end`].
#[must_use = "a scope is closed with Profiler::end"]
pub struct Scope {
    index: usize,
}

/// The counters the statistics query collects, in the order Vulkan writes
/// their results (ascending flag bits).
const STATISTICS: vk::QueryPipelineStatisticFlags = vk::QueryPipelineStatisticFlags::from_raw(
    vk::QueryPipelineStatisticFlags::VERTEX_SHADER_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::CLIPPING_PRIMITIVES.as_raw(),
);

#[derive(Default)]
struct SlotQueries {
    /// `2 * MAX_SCOPES` timestamps; `None` when the queue has none.
    timestamps: Option<vk::QueryPool>,
    statistics: Option<vk::QueryPool>,
    /// The scopes of the frame recorded last into this slot.
    scopes: Vec<&'static str>,
    statistics_recorded: bool,
    /// Recorded and not yet taken.
    pending: bool,
}

pub struct Profiler {
    format: Option<TimestampFormat>,
    slots: Vec<SlotQueries>,
    /// The slot being recorded.
    current: usize,
    open_scopes: usize,
}

impl Profiler {
    pub fn new(ctx: &Context) -> Result<Profiler, GpuError> {
        let mut profiler = Profiler {
            format: ctx.queries.timestamps,
            slots: Vec::with_capacity(FRAMES_IN_FLIGHT),
            current: 0,
            open_scopes: 0,
        };
        for slot in 0..FRAMES_IN_FLIGHT {
            // Pushed before its pools exist, so `destroy` frees whatever
            // was made when a creation fails.
            profiler.slots.push(SlotQueries::default());
            if let Err(error) = create_pools(ctx, slot, &mut profiler.slots[slot]) {
                profiler.destroy(ctx);
                return Err(error);
            }
        }
        Ok(profiler)
    }

    /// Starts recording frame slot `slot` into `cmd`: its queries are reset
    /// (on the GPU, at the start of `cmd`), and any results not yet taken
    /// are dropped. Call outside a rendering scope.
    pub fn begin_frame(&mut self, ctx: &Context, cmd: vk::CommandBuffer, slot: usize) {
        debug_assert_eq!(self.open_scopes, 0, "a profiler scope was never ended");
        self.current = slot;
        let queries = &mut self.slots[slot];
        queries.scopes.clear();
        queries.statistics_recorded = false;
        queries.pending = true;
        unsafe {
            if let Some(pool) = queries.timestamps {
                ctx.device
                    .cmd_reset_query_pool(cmd, pool, 0, 2 * MAX_SCOPES as u32);
            }
            if let Some(pool) = queries.statistics {
                ctx.device.cmd_reset_query_pool(cmd, pool, 0, 1);
            }
        }
    }

    /// Opens the pass `name`: a timestamp once all earlier commands finish.
    /// Panics past [`MAX_SCOPES`] scopes in a frame (a renderer bug).
    pub fn begin(&mut self, ctx: &Context, cmd: vk::CommandBuffer, name: &'static str) -> Scope {
        let queries = &mut self.slots[self.current];
        let index = queries.scopes.len();
        assert!(index < MAX_SCOPES, "more than {MAX_SCOPES} profiler scopes");
        queries.scopes.push(name);
        self.open_scopes += 1;
        if let Some(pool) = queries.timestamps {
            write_timestamp(ctx, cmd, pool, 2 * index as u32);
        }
        Scope { index }
    }

    /// Closes a pass: a timestamp once its commands finish. Both ends wait
    /// for all earlier work (ALL_COMMANDS), so passes never overlap in the
    /// measurement and their times add up; work outside every scope
    /// (barriers, the present blit) is not counted.
    pub fn end(&mut self, ctx: &Context, cmd: vk::CommandBuffer, scope: Scope) {
        self.open_scopes -= 1;
        if let Some(pool) = self.slots[self.current].timestamps {
            write_timestamp(ctx, cmd, pool, 2 * scope.index as u32 + 1);
        }
    }

    /// Starts counting vertex shader invocations and clipped primitives;
    /// once per frame, outside rendering scopes: lavapipe (mesa 22.3)
    /// crashes when a statistics query begins inside a dynamic rendering
    /// scope.
    pub fn begin_statistics(&mut self, ctx: &Context, cmd: vk::CommandBuffer) {
        let queries = &mut self.slots[self.current];
        if let Some(pool) = queries.statistics {
            debug_assert!(!queries.statistics_recorded, "statistics begun twice");
            queries.statistics_recorded = true;
            unsafe {
                ctx.device
                    .cmd_begin_query(cmd, pool, 0, vk::QueryControlFlags::empty())
            };
        }
    }

    pub fn end_statistics(&mut self, ctx: &Context, cmd: vk::CommandBuffer) {
        if let Some(pool) = self.slots[self.current].statistics {
            unsafe { ctx.device.cmd_end_query(cmd, pool, 0) };
        }
    }

    /// What the frame last recorded into `slot` measured, once: `None` if
    /// nothing new was recorded there. The slot's fence must have been
    /// waited for since its submission.
    pub fn take(&mut self, ctx: &Context, slot: usize) -> Result<Option<FrameTimings>, GpuError> {
        let queries = &mut self.slots[slot];
        if !std::mem::take(&mut queries.pending) {
            return Ok(None);
        }
        let passes = match (queries.timestamps, self.format) {
            (Some(pool), Some(format)) if !queries.scopes.is_empty() => {
                let mut ticks = vec![0u64; 2 * queries.scopes.len()];
                read_results(ctx, pool, &mut ticks)?;
                queries
                    .scopes
                    .iter()
                    .zip(ticks.chunks_exact(2))
                    .map(|(&name, pair)| {
                        let elapsed = pair[1].wrapping_sub(pair[0]) & format.valid_mask;
                        (name, elapsed as f64 * format.period_ns / 1e6)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut statistics = None;
        if let (Some(pool), true) = (queries.statistics, queries.statistics_recorded) {
            // One query, one u64 per counter in STATISTICS.
            let mut counters = [[0u64; 2]];
            read_results(ctx, pool, &mut counters)?;
            statistics = Some(counters[0]);
        }
        Ok(Some(FrameTimings {
            passes,
            vertex_invocations: statistics.map(|c| c[0]),
            clipping_primitives: statistics.map(|c| c[1]),
        }))
    }
}

fn create_pools(ctx: &Context, slot: usize, queries: &mut SlotQueries) -> Result<(), GpuError> {
    if ctx.queries.timestamps.is_some() {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2 * MAX_SCOPES as u32);
        queries.timestamps = Some(create_pool(
            ctx,
            &format!("frame {slot} pass timestamps"),
            &info,
        )?);
    }
    if ctx.queries.pipeline_statistics {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::PIPELINE_STATISTICS)
            .query_count(1)
            .pipeline_statistics(STATISTICS);
        queries.statistics = Some(create_pool(
            ctx,
            &format!("frame {slot} scene statistics"),
            &info,
        )?);
    }
    Ok(())
}

fn create_pool(
    ctx: &Context,
    name: &str,
    info: &vk::QueryPoolCreateInfo,
) -> Result<vk::QueryPool, GpuError> {
    ctx.creation_step("vkCreateQueryPool")?;
    let pool = unsafe { ctx.device.create_query_pool(info, None) }
        .map_err(vk_error("vkCreateQueryPool"))?;
    debug::set_name(ctx, pool, name);
    Ok(pool)
}

fn write_timestamp(ctx: &Context, cmd: vk::CommandBuffer, pool: vk::QueryPool, query: u32) {
    unsafe {
        ctx.synchronization2.cmd_write_timestamp2(
            cmd,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            pool,
            query,
        )
    };
}

/// One `T` per query from the start of `pool`, 64-bit, without WAIT: the
/// caller knows they are there.
fn read_results<T>(ctx: &Context, pool: vk::QueryPool, out: &mut [T]) -> Result<(), GpuError> {
    unsafe {
        ctx.device
            .get_query_pool_results(pool, 0, out, vk::QueryResultFlags::TYPE_64)
    }
    .map_err(vk_error("vkGetQueryPoolResults"))
}

impl Destroy for Profiler {
    fn destroy(self, ctx: &Context) {
        for slot in self.slots {
            slot.timestamps.destroy(ctx);
            slot.statistics.destroy(ctx);
        }
    }
}
