//! Offscreen rendering: no window, no surface. Renders `--frames` frames a
//! fixed step apart so the last one is at `--time`, and saves it as PNG.
//! Same renderer and pipelines as the window; same arguments and driver give
//! the same image.

use std::sync::Arc;
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::camera::{self, OrbitCamera};
use super::capture::FrameCapture;
use super::crowd_state::{CrowdSpec, CrowdState};
use super::frame_stats::FrameLog;
use super::{build_crowd, log_summary, validation, validation_counts, AppError, RenderArgs};
use crate::gpu::debug::MessageCounts;
use crate::gpu::frame::{self, Frame, FRAMES_IN_FLIGHT};
use crate::gpu::renderer::Renderer;
use crate::gpu::resources::{self, Buffer};
use crate::gpu::{output, Context, ContextDesc};
use crate::model::Model;

/// Animation time between headless frames: a 60 Hz display's.
const FIXED_STEP: f32 = 1.0 / 60.0;

pub fn run(
    args: &RenderArgs,
    model: &Model,
    spec: CrowdSpec,
) -> Result<Option<Arc<MessageCounts>>, AppError> {
    let mut capture = FrameCapture::new(args.capture_frame);
    let ctx = Context::new(&ContextDesc {
        validation: validation(args),
        gpu_index: args.gpu,
        window: None,
    })?;
    if args.wireframe && !ctx.wireframe {
        return Err(AppError::Unsupported(format!(
            "--wireframe: {} lacks the fillModeNonSolid feature",
            ctx.device_name
        )));
    }
    let extent = vk::Extent2D {
        width: args.width,
        height: args.height,
    };
    let (mut crowd, mut renderer) = build_crowd(&ctx, model, spec, extent, args.memory_budget())?;
    log_summary(&ctx, model, spec.instances, renderer.buffer_bytes());
    let frames = frame::create_frames(&ctx)?;
    let readback = match &args.screenshot {
        Some(_) => Some(resources::create_buffer(
            &ctx,
            "screenshot readback",
            u64::from(extent.width) * u64::from(extent.height) * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?),
        None => None,
    };

    let mut frame_log = FrameLog::default();
    let rendered = render(
        &ctx,
        args,
        model,
        &mut crowd,
        &mut renderer,
        &frames,
        readback.as_ref(),
        &mut capture,
        &mut frame_log,
    );
    // Teardown runs whatever happened, so a failed frame still leaves the
    // validation layer nothing to complain about.
    let idle = ctx.wait_idle();
    let last_timings = match (args.print_timings, &rendered, &idle) {
        (true, Ok(()), Ok(())) => frame_log.collect_all(&ctx, &mut renderer),
        _ => Ok(Vec::new()),
    };
    for measured in last_timings.iter().flatten() {
        println!("{measured}");
    }
    let saved = match (&readback, &args.screenshot) {
        (Some(readback), Some(path)) if rendered.is_ok() && idle.is_ok() => {
            save_png(readback, extent, path)
        }
        _ => Ok(()),
    };
    if let Some(readback) = readback {
        resources::destroy_buffer(&ctx, readback);
    }
    frame::destroy_frames(&ctx, frames);
    renderer.destroy(&ctx);
    rendered?;
    idle?;
    last_timings?;
    saved?;
    Ok(validation_counts(&ctx))
}

#[allow(clippy::too_many_arguments)]
fn render(
    ctx: &Context,
    args: &RenderArgs,
    model: &Model,
    crowd: &mut CrowdState,
    renderer: &mut Renderer,
    frames: &[Frame],
    readback: Option<&Buffer>,
    capture: &mut FrameCapture,
    frame_log: &mut FrameLog,
) -> Result<(), AppError> {
    let aspect = args.width as f32 / args.height as f32;
    let camera = OrbitCamera::framing(crowd.outline(), aspect, crowd.instances.len() > 1);
    let count = args.frames.unwrap_or(1);
    for index in 0..count {
        let slot = index as usize % FRAMES_IN_FLIGHT;
        let frame = &frames[slot];
        frame::wait(ctx, frame)?;
        if let Some(measured) = frame_log.collect(ctx, renderer, slot)? {
            if args.print_timings {
                println!("{measured}");
            }
        }
        crowd.animate(model, args.time - (count - 1 - index) as f32 * FIXED_STEP);
        capture.begin_frame(ctx, u64::from(index));
        let cpu_start = Instant::now();
        let cmd = frame::begin(ctx, frame)?;
        renderer.record(
            ctx,
            cmd,
            slot,
            &crowd.frame_input(
                camera::frame_uniforms(&camera, aspect),
                args.skinning,
                args.skeleton,
                args.wireframe,
            ),
        );
        if let (Some(readback), true) = (readback, index == count - 1) {
            output::record_readback(ctx, cmd, &renderer.color, readback);
        }
        frame::submit(ctx, frame, None, None)?;
        frame_log.submitted(slot, u64::from(index), cpu_start.elapsed());
        capture.end_frame(ctx);
    }
    Ok(())
}

pub(super) fn save_png(
    readback: &Buffer,
    extent: vk::Extent2D,
    path: &std::path::Path,
) -> Result<(), AppError> {
    image::save_buffer_with_format(
        path,
        readback.read(),
        extent.width,
        extent.height,
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|source| AppError::Screenshot {
        path: path.display().to_string(),
        source,
    })?;
    log::info!("wrote {}", path.display());
    Ok(())
}
