//! Offscreen rendering: no window, no surface. Renders `--frames` frames a
//! fixed step apart so the last one is at `--time`, and saves it as PNG.
//! Same renderer and frame loop as the window; same arguments and driver
//! give the same image.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::crowd_state::CrowdSpec;
use super::load::Cast;
use super::overlay::{self, Overlay, OverlayView};
use super::scene::Scene;
use super::title::{self, FrameMeter};
use super::{
    build_crowd, log_first_frame, log_summary, validation, validation_counts, AppError, RenderArgs,
};
use crate::gpu::capture::FrameCapture;
use crate::gpu::debug::MessageCounts;
use crate::gpu::frame_loop::{Destination, Shadows, VisibleCounts};
use crate::gpu::guard::guard;
use crate::gpu::renderer::Renderer;
use crate::gpu::resources::{self, Buffer};
use crate::gpu::{Context, ContextDesc};

/// Animation time between headless frames: a 60 Hz display's.
pub const FIXED_STEP: f32 = 1.0 / 60.0;
/// Frames a headless run may draw, at its first frame's time, before the
/// frames it keeps, for those to be exact ([`Renderer::settle`]): the
/// impostor atlases bake what the crowd wants, and a palette that started
/// short of the crowd grows to what the view poses.
const WARMUP_FRAMES: u32 = 600;

pub fn run(
    args: &RenderArgs,
    cast: Rc<Cast>,
    spec: CrowdSpec,
) -> Result<Option<Arc<MessageCounts>>, AppError> {
    let mut capture = FrameCapture::new(args.capture_frame);
    let ctx = Context::new(&ContextDesc {
        validation: validation(args),
        gpu_index: args.draw.gpu,
        window: None,
    })?;
    if args.wireframe && !ctx.wireframe {
        return Err(AppError::Unsupported(format!(
            "--wireframe: {} lacks the fillModeNonSolid feature",
            ctx.device_name
        )));
    }
    let extent = vk::Extent2D {
        width: args.draw.width,
        height: args.draw.height,
    };
    let view = args.view_options(&ctx, spec.locomotion);
    let (crowd, renderer) = build_crowd(
        &ctx,
        &cast,
        spec,
        (extent, args.msaa),
        (&args.draw, view.shadows == Shadows::Map),
    )?;
    let mut renderer = guard(&ctx, renderer);
    log_summary(&ctx, &crowd, &cast, renderer.memory());
    let readback = match &args.screenshot {
        Some(_) => Some(guard(&ctx, screenshot_readback(&ctx, extent)?)),
        None => None,
    };
    let aspect = args.draw.aspect();
    let camera = args.view.camera(args.draw.camera, &crowd, aspect);
    let mut scene = Scene::new(cast, crowd, camera, view, aspect);
    scene.sun = args.draw.towards_sun();

    let rendered = render(
        &ctx,
        args,
        &mut renderer,
        &mut scene,
        readback.as_deref(),
        &mut capture,
    );
    // Whatever happened, the GPU finishes before anything is read or
    // destroyed, so a failed frame still leaves validation nothing to report.
    let last_frames = renderer.finish(&ctx);
    log_first_frame(&scene.cast, &mut renderer);
    rendered?;
    for measured in last_frames?.iter().filter(|_| args.print_timings) {
        println!("{measured}");
    }
    if let (Some(readback), Some(path)) = (&readback, &args.screenshot) {
        save_png(readback, extent, path)?;
    }
    // The guards destroy the readback and the renderer before the context,
    // whose destruction is when validation reports anything left alive.
    Ok(validation_counts(&ctx))
}

fn render(
    ctx: &Context,
    args: &RenderArgs,
    renderer: &mut Renderer,
    scene: &mut Scene,
    readback: Option<&Buffer>,
    capture: &mut FrameCapture,
) -> Result<(), AppError> {
    let count = args.frames.unwrap_or(1);
    scene.time = args.time - (count - 1) as f32 * FIXED_STEP;
    warm_up(ctx, renderer, scene)?;
    let mut overlay = args.overlay.then(|| Overlay::new(true));
    let mut meter = FrameMeter::new(Instant::now());
    let mut averages = None;
    let mut visible = VisibleCounts::default();
    let mut last_frame = Instant::now();
    for index in 0..count {
        scene.time = args.time - (count - 1 - index) as f32 * FIXED_STEP;
        let last = index == count - 1;
        if let Some(overlay) = overlay.as_mut() {
            let stats = averages
                .as_ref()
                .map(|averages| title::title_stats(averages, scene, visible, renderer));
            let view = OverlayView {
                device: &ctx.device_name,
                driver: &ctx.driver,
                stats: stats.as_ref(),
                scene,
                paused: false,
                time_scale: 1.0,
                lod_bias: args.draw.lod_bias,
                max_instances: overlay::crowd_limit(renderer),
                capture_available: capture.available(),
                wireframe_available: ctx.wireframe,
                gpu_memory: renderer.memory(),
                impostor_clips: renderer.model.impostors.baked_clips(),
                msaa: (renderer.samples(), renderer.samples()),
                palette_rows: renderer.palette_rows(),
            };
            // Nothing to click headless: the screen's size is all the input.
            let screen = egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(args.draw.width as f32, args.draw.height as f32),
            );
            let input = egui::RawInput {
                screen_rect: Some(screen),
                ..egui::RawInput::default()
            };
            let (frame, _) = overlay.run(input, &view, &mut Vec::new());
            scene.overlay = Some(frame);
        }
        let report = renderer.draw_frame(
            ctx,
            Destination::Offscreen,
            readback.filter(|_| last),
            capture,
            scene,
        )?;
        log_first_frame(&scene.cast, renderer);
        let now = Instant::now();
        if let Some(overlay) = overlay.as_mut() {
            overlay.add_frame_time((now - last_frame).as_secs_f32());
        }
        last_frame = now;
        visible = report.visible.unwrap_or(visible);
        if let Some(measured) = report.finished {
            if args.print_timings {
                println!("{measured}");
            }
            meter.add(&measured);
            averages = meter.report(now).or(averages);
        }
    }
    Ok(())
}

/// Draws frames at `scene`'s time until one is exact, and logs how many it
/// took; their measurements are dropped. None where every frame is exact
/// from the first: no impostors to bake, and a skinning palette that holds
/// every instance's rows.
fn warm_up(ctx: &Context, renderer: &mut Renderer, scene: &mut Scene) -> Result<(), AppError> {
    let bakes = scene.view.impostors && scene.view.lod_bias.is_some();
    if !bakes && !renderer.palette_may_run_short() {
        return Ok(());
    }
    let started = Instant::now();
    let frames = renderer.settle(ctx, scene, WARMUP_FRAMES)?;
    log_first_frame(&scene.cast, renderer);
    log::info!(
        "warm-up: {frames} frame(s), {:.2} s, before the first kept frame (impostors baked, palette grown)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A host-visible buffer for one RGBA8 image of `extent`.
pub(super) fn screenshot_readback(ctx: &Context, extent: vk::Extent2D) -> Result<Buffer, AppError> {
    Ok(resources::create_buffer(
        ctx,
        "screenshot readback",
        u64::from(extent.width) * u64::from(extent.height) * 4,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )?)
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
