//! Matching GPU measurements to their frames. A frame's GPU timings can be
//! read only once its slot's fence has signalled, that is when the slot
//! comes round again [`FRAMES_IN_FLIGHT`] frames later; meanwhile this
//! remembers which frame each slot holds and what it cost the CPU.

use std::fmt;
use std::time::Duration;

use crate::gpu::frame::FRAMES_IN_FLIGHT;
use crate::gpu::profiler::FrameTimings;
use crate::gpu::renderer::Renderer;
use crate::gpu::{Context, GpuError};

/// One finished frame's costs.
#[derive(Clone, Debug)]
pub struct MeasuredFrame {
    pub index: u64,
    /// Recording and submitting its commands.
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

#[derive(Default)]
pub struct FrameLog {
    /// Per slot: the frame submitted there last and its CPU time.
    in_flight: [Option<(u64, Duration)>; FRAMES_IN_FLIGHT],
}

impl FrameLog {
    pub fn submitted(&mut self, slot: usize, index: u64, cpu: Duration) {
        self.in_flight[slot] = Some((index, cpu));
    }

    /// The frame that last used `slot`, measured; call once its fence has
    /// been waited for.
    pub fn collect(
        &mut self,
        ctx: &Context,
        renderer: &mut Renderer,
        slot: usize,
    ) -> Result<Option<MeasuredFrame>, GpuError> {
        let Some((index, cpu)) = self.in_flight[slot].take() else {
            return Ok(None);
        };
        Ok(renderer
            .take_timings(ctx, slot)?
            .map(|gpu| MeasuredFrame { index, cpu, gpu }))
    }

    /// Every frame still in flight, oldest first; call once the device is idle.
    pub fn collect_all(
        &mut self,
        ctx: &Context,
        renderer: &mut Renderer,
    ) -> Result<Vec<MeasuredFrame>, GpuError> {
        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for slot in 0..FRAMES_IN_FLIGHT {
            frames.extend(self.collect(ctx, renderer, slot)?);
        }
        frames.sort_by_key(|frame| frame.index);
        Ok(frames)
    }
}
