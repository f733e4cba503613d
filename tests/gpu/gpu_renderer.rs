//! The renderer's lifetimes: every constructor frees what it made when a
//! later step fails (a test hook fails each creation step in turn, and the
//! validation layer, which reports every object still alive when the device
//! is destroyed, must stay silent); the crowd's memory is what its one
//! description says; a crowd resize rebuilds the crowd and nothing else,
//! and a failed one keeps the old crowd drawing; a frame given input that
//! does not match its crowd is an error, not a panic.

use crate::common;

use ash::vk;
use md5crowd::gpu::capture::FrameCapture;
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::crowd_buffers::{crowd_bytes, Animation, CrowdShape, PALETTE_START_BYTES};
use md5crowd::gpu::frame::FRAMES_IN_FLIGHT;
use md5crowd::gpu::frame_loop::{
    Destination, FrameInput, FrameSource, Posed, SceneUniforms, ViewOptions,
};
use md5crowd::gpu::guard::{guard, Destroy};
use md5crowd::gpu::renderer::{Renderer, RendererDesc};
use md5crowd::gpu::shader_types::{
    CrowdInstance, GpuInstanceLayer, InstanceAnimation, SkinningTransform, SurfaceVertex,
    MAX_LAYERS,
};
use md5crowd::gpu::{Context, ContextDesc, GpuError};
use md5crowd::model::{LoadOptions, Model};
use md5crowd::skin::InfluenceLimit;
use md5crowd::vfs::GameFile;

fn model(limit: InfluenceLimit) -> Model {
    let assets = common::assets();
    // One clip: these tests rebuild the renderer once per creation step,
    // and each build bakes a row of impostors per frame of every clip.
    let anims: Vec<_> = ["walk"]
        .iter()
        .map(|clip| assets.join(format!("{clip}.md5anim")))
        .collect();
    Model::load(&assets.join("crowdling.md5mesh"), &anims, limit).unwrap()
}

fn validated_context() -> Context {
    let _ = env_logger::builder().is_test(true).try_init();
    Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .unwrap()
}

fn placements(count: usize) -> Vec<CrowdInstance> {
    (0..count)
        .map(|i| CrowdInstance {
            placement: glam::Vec4::new(i as f32 * 80.0, 0.0, 0.0, 0.0),
            tint: glam::Vec3::ONE,
            ..CrowdInstance::default()
        })
        .collect()
}

/// The instances a palette that grows starts with rows for
/// ([`growing_palette`]), where a crowd within [`PALETTE_START_BYTES`]
/// starts with every instance's.
const GROWING_PALETTE_INSTANCES: u32 = 1024;

/// [`desc`], with a skinning palette of `model`'s that starts with rows for
/// [`GROWING_PALETTE_INSTANCES`].
fn growing_palette(animation: Animation, model: &Model) -> RendererDesc {
    let row_bytes = model.skeleton.joint_count() * size_of::<SkinningTransform>();
    RendererDesc {
        palette_start_bytes: u64::from(GROWING_PALETTE_INSTANCES) * row_bytes as u64,
        ..desc(animation)
    }
}

fn desc(animation: Animation) -> RendererDesc {
    RendererDesc {
        extent: vk::Extent2D {
            width: 32,
            height: 24,
        },
        animation,
        memory_budget: None,
        animate_kernel: None,
        impostor_budget: md5crowd::crowd::IMPOSTOR_MEMORY_BUDGET,
        samples: 1,
        shadow_cascades: 0,
        shadow_resolution: 1,
        palette_start_bytes: PALETTE_START_BYTES,
    }
}

/// Drops the context (destroying the device, when the layer reports what
/// is still alive) and returns what validation said.
fn validation_after(ctx: Context) -> (u32, u32) {
    let counts = ctx.message_counts.clone();
    drop(ctx);
    (counts.warnings(), counts.errors())
}

/// A frame of `instances` instances posed as `animation` says.
struct Input {
    states: Vec<InstanceAnimation>,
    layers: Vec<GpuInstanceLayer>,
    transforms: Vec<SkinningTransform>,
    vertices: Vec<SurfaceVertex>,
    posed_as: Animation,
    view: ViewOptions,
}

impl Input {
    fn new(model: &Model, instances: usize, posed_as: Animation) -> Input {
        let joints = model.skeleton.joint_count();
        let identity = SkinningTransform::from(md5crowd::anim::JointPose::IDENTITY);
        Input {
            states: vec![InstanceAnimation::default(); instances],
            layers: vec![GpuInstanceLayer::default(); instances * MAX_LAYERS],
            transforms: vec![identity; instances * joints],
            vertices: vec![
                SurfaceVertex::default();
                instances
                    * CrowdShape::of(std::slice::from_ref(model), posed_as, 0).vertex_count
                        as usize
            ],
            posed_as,
            view: ViewOptions {
                show_skeleton: true,
                ..ViewOptions::default()
            },
        }
    }
}

impl FrameSource for Input {
    fn frame_input(&mut self, _index: u64) -> FrameInput<'_> {
        let posed = match self.posed_as {
            Animation::Gpu => Posed::OnGpu,
            Animation::BindPose => Posed::BindPose,
            Animation::Cpu => Posed::Cpu {
                skinning_transforms: &self.transforms,
                // The shipped md5 character has no morph targets.
                morph_weights: &[],
            },
            Animation::CpuSkinned => Posed::CpuSkinned {
                skinning_transforms: &self.transforms,
                vertices: &self.vertices,
            },
        };
        FrameInput {
            uniforms: SceneUniforms::default(),
            instances: &self.states,
            layers: &self.layers,
            instances_version: self.states.len() as u64,
            posed,
            view: self.view,
        }
    }
}

/// A renderer and its first crowd, as the app builds them.
fn build(
    ctx: &Context,
    model: &Model,
    crowd: &[CrowdInstance],
    desc: &RendererDesc,
) -> Result<Renderer, GpuError> {
    let mut renderer = guard(ctx, Renderer::new(ctx, std::slice::from_ref(model), desc)?);
    renderer.set_crowd(ctx, crowd)?;
    Ok(renderer.keep())
}

fn draw(ctx: &Context, renderer: &mut Renderer, input: &mut Input) -> Result<(), GpuError> {
    let mut capture = FrameCapture::new(None);
    renderer.draw_frame(ctx, Destination::Offscreen, None, &mut capture, input)?;
    renderer.finish(ctx)?;
    Ok(())
}

#[test]
fn every_failed_creation_step_leaves_nothing_alive() {
    if !common::vulkan_or_skip() {
        return;
    }
    // Eight influences and CPU skinning: every optional buffer exists.
    let model = model(InfluenceLimit::Eight);
    fail_every_creation_step(&model, &placements(5), &desc(Animation::CpuSkinned));
}

/// The same for a glTF character with unlit OPAQUE and BLEND meshes: the
/// blend composite, its weighted targets, the blended pipelines and the
/// impostor atlas's surface and emission images are made too.
#[test]
fn every_failed_creation_step_of_a_blended_character_leaves_nothing_alive() {
    if !common::vulkan_or_skip() {
        return;
    }
    let path = common::scratch_dir("failed_blended_creation").join("decal.glb");
    std::fs::write(&path, common::material_fixtures::eye_decal()).unwrap();
    let model = Model::load_gltf(&GameFile::loose(&path), &LoadOptions::default()).unwrap();
    fail_every_creation_step(&model, &placements(5), &desc(Animation::Gpu));
}

/// Builds a renderer of `model` once per creation step, that step failing:
/// each build returns that failure and leaves no Vulkan object alive.
fn fail_every_creation_step(model: &Model, crowd: &[CrowdInstance], desc: &RendererDesc) {
    let steps = {
        let ctx = validated_context();
        ctx.fail_creation_step(None);
        let renderer = build(&ctx, model, crowd, desc).unwrap();
        let steps = ctx.creation_steps();
        renderer.destroy(&ctx);
        assert_eq!(validation_after(ctx), (0, 0));
        steps
    };
    assert!(steps > 50, "only {steps} creation steps were counted");
    for step in 0..steps {
        let ctx = validated_context();
        ctx.fail_creation_step(Some(step));
        match build(&ctx, model, crowd, desc) {
            Err(GpuError::InjectedFailure { step: failed, .. }) => assert_eq!(failed, step),
            Err(other) => panic!("step {step}: {other}"),
            Ok(_) => panic!("step {step} did not fail"),
        }
        assert_eq!(
            validation_after(ctx),
            (0, 0),
            "creation step {step} of {steps} leaked (see the validation messages above)"
        );
    }
    println!("{steps} creation steps each failed once, nothing leaked");
}

#[test]
fn a_failed_crowd_resize_keeps_the_old_crowd_and_leaks_nothing() {
    if !common::vulkan_or_skip() {
        return;
    }
    let model = model(InfluenceLimit::Four);
    let desc = desc(Animation::Gpu);
    let steps = {
        let ctx = validated_context();
        let mut renderer = build(&ctx, &model, &placements(4), &desc).unwrap();
        ctx.fail_creation_step(None);
        renderer.set_crowd(&ctx, &placements(9)).unwrap();
        let steps = ctx.creation_steps();
        renderer.destroy(&ctx);
        steps
    };
    assert!(steps > 5, "only {steps} creation steps in a resize");
    for step in 0..steps {
        let ctx = validated_context();
        let mut renderer = build(&ctx, &model, &placements(4), &desc).unwrap();
        ctx.fail_creation_step(Some(step));
        let error = renderer.set_crowd(&ctx, &placements(9)).unwrap_err();
        assert!(matches!(error, GpuError::InjectedFailure { .. }), "{error}");
        ctx.fail_creation_step(None);
        assert_eq!(
            renderer.crowd().unwrap().instance_count(),
            4,
            "the old crowd is back"
        );
        let mut input = Input::new(&model, 4, Animation::Gpu);
        draw(&ctx, &mut renderer, &mut input).unwrap();
        renderer.destroy(&ctx);
        assert_eq!(validation_after(ctx), (0, 0), "resize step {step}");
    }
}

#[test]
fn the_fit_check_counts_what_the_crowd_allocates() {
    if !common::vulkan_or_skip() {
        return;
    }
    let ctx = validated_context();
    let model = model(InfluenceLimit::Eight);
    let row_bytes = (model.skeleton.joint_count() * size_of::<SkinningTransform>()) as u64;
    let beyond = GROWING_PALETTE_INSTANCES as usize + 300;
    for animation in [
        Animation::Gpu,
        Animation::Cpu,
        Animation::CpuSkinned,
        Animation::BindPose,
    ] {
        for count in [1, 7, 100, beyond] {
            let shape = CrowdShape::of(std::slice::from_ref(&model), animation, 0);
            // A palette starts with every instance's rows within its
            // start's bytes; one that starts short may grow to the crowd,
            // which the fit check counts. The CPU uploads every
            // instance's transforms.
            for (desc, short) in [
                (desc(animation), 0),
                (
                    growing_palette(animation, &model),
                    count.saturating_sub(GROWING_PALETTE_INSTANCES as usize),
                ),
            ] {
                let renderer = build(&ctx, &model, &placements(count), &desc).unwrap();
                assert_eq!(renderer.crowd().unwrap().shape, shape);
                let palette_short = match animation {
                    Animation::Gpu => FRAMES_IN_FLIGHT as u64 * short as u64 * row_bytes,
                    _ => 0,
                };
                assert_eq!(
                    renderer.crowd().unwrap().requested_bytes(),
                    crowd_bytes(&shape, count as u32) - palette_short,
                    "{animation:?} x {count}, palette short of {short}"
                );
                renderer.destroy(&ctx);
            }
        }
    }
    assert_eq!(validation_after(ctx), (0, 0));
}

#[test]
fn a_failed_palette_growth_keeps_the_slot_drawing_and_leaks_nothing() {
    if !common::vulkan_or_skip() {
        return;
    }
    let ctx = validated_context();
    let model = model(InfluenceLimit::Four);
    // Everyone is in view of the default uniforms, and drawn in one phase:
    // each slot's first frame wants more rows than the palette starts with.
    let count = GROWING_PALETTE_INSTANCES as usize + 100;
    let desc = growing_palette(Animation::Gpu, &model);
    let mut renderer = build(&ctx, &model, &placements(count), &desc).unwrap();
    let mut input = Input::new(&model, count, Animation::Gpu);
    input.view.occlusion = false;
    for _ in 0..FRAMES_IN_FLIGHT {
        draw(&ctx, &mut renderer, &mut input).unwrap();
    }
    let rows = |renderer: &Renderer, slot| renderer.crowd().unwrap().palette_rows(slot);
    // A palette row is one joint's transform.
    let joints = model.skeleton.joint_count() as u32;
    for step in 0.. {
        ctx.fail_creation_step(Some(step));
        match draw(&ctx, &mut renderer, &mut input) {
            Err(GpuError::InjectedFailure { step: failed, .. }) => {
                assert_eq!(failed, step);
                assert_eq!(
                    rows(&renderer, 0),
                    Some(GROWING_PALETTE_INSTANCES * joints),
                    "as it was"
                );
            }
            Err(other) => panic!("step {step}: {other}"),
            Ok(()) => {
                assert!(step > 0, "growing creates a buffer");
                break;
            }
        }
    }
    ctx.fail_creation_step(None);
    draw(&ctx, &mut renderer, &mut input).unwrap();
    for slot in 0..FRAMES_IN_FLIGHT {
        assert_eq!(
            rows(&renderer, slot),
            Some(count as u32 * joints),
            "slot {slot}"
        );
    }
    renderer.destroy(&ctx);
    assert_eq!(validation_after(ctx), (0, 0));
}

#[test]
fn resizing_the_crowd_rebuilds_only_the_crowd() {
    if !common::vulkan_or_skip() {
        return;
    }
    let ctx = validated_context();
    let model = model(InfluenceLimit::Four);
    let mut renderer = build(&ctx, &model, &placements(3), &desc(Animation::Gpu)).unwrap();
    let textures = |renderer: &Renderer| -> Vec<vk::Image> {
        renderer
            .model
            .model
            .materials
            .images
            .iter()
            .map(|image| image.handle)
            .collect()
    };
    let (pipeline, before) = (
        renderer.pipelines.crowd_draw.variants(),
        textures(&renderer),
    );
    let mut input = Input::new(&model, 3, Animation::Gpu);
    draw(&ctx, &mut renderer, &mut input).unwrap();
    for count in [12, 2, 40] {
        renderer.set_crowd(&ctx, &placements(count)).unwrap();
        assert_eq!(renderer.crowd().unwrap().instance_count(), count as u32);
        let mut input = Input::new(&model, count, Animation::Gpu);
        draw(&ctx, &mut renderer, &mut input).unwrap();
    }
    assert_eq!(
        renderer.pipelines.crowd_draw.variants(),
        pipeline,
        "no pipeline rebuild"
    );
    assert_eq!(textures(&renderer), before, "no texture re-upload");
    renderer.destroy(&ctx);
    assert_eq!(validation_after(ctx), (0, 0));
}

#[test]
fn a_new_model_is_built_around_the_same_crowd_or_refused_with_nothing_changed() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (four, eight) = (model(InfluenceLimit::Four), model(InfluenceLimit::Eight));
    let count = 6;
    let crowd = placements(count);
    for animation in [Animation::Gpu, Animation::CpuSkinned] {
        let ctx = validated_context();
        let mut renderer = build(&ctx, &four, &crowd, &desc(animation)).unwrap();
        draw(
            &ctx,
            &mut renderer,
            &mut Input::new(&four, count, animation),
        )
        .unwrap();
        renderer
            .set_model(&ctx, std::slice::from_ref(&eight), &crowd, None)
            .unwrap();
        let gpu_model = &renderer.model.model;
        assert_eq!(gpu_model.limit, InfluenceLimit::Eight, "{animation:?}");
        assert!(
            gpu_model.extra_influences.is_some(),
            "the second joints/weights stream"
        );
        assert_eq!(renderer.crowd().unwrap().instance_count(), count as u32);
        // Every frame slot draws with the new parts.
        for _ in 0..=FRAMES_IN_FLIGHT {
            draw(
                &ctx,
                &mut renderer,
                &mut Input::new(&eight, count, animation),
            )
            .unwrap();
        }
        renderer.destroy(&ctx);
        assert_eq!(validation_after(ctx), (0, 0), "{animation:?}");
    }

    // A device whose memory holds the crowd beside the 4-influence model
    // exactly: the 8-influence model's extra stream does not fit too.
    let ctx = validated_context();
    let animation = Animation::Gpu;
    let probe = build(&ctx, &four, &crowd, &desc(animation)).unwrap();
    let fixed = probe.fixed_memory().total();
    probe.destroy(&ctx);
    let budget = fixed
        + crowd_bytes(
            &CrowdShape::of(std::slice::from_ref(&four), animation, 0),
            count as u32,
        );
    let small_gpu = RendererDesc {
        memory_budget: Some(budget),
        ..desc(animation)
    };
    let mut renderer = build(&ctx, &four, &crowd, &small_gpu).unwrap();
    let pipeline = renderer.pipelines.crowd_draw.variants();
    let error = renderer
        .set_model(&ctx, std::slice::from_ref(&eight), &crowd, None)
        .unwrap_err();
    assert!(matches!(error, GpuError::CrowdTooLarge { .. }), "{error}");
    assert_eq!(renderer.model.model.limit, InfluenceLimit::Four);
    assert_eq!(
        renderer.pipelines.crowd_draw.variants(),
        pipeline,
        "nothing rebuilt"
    );
    assert_eq!(renderer.crowd().unwrap().instance_count(), count as u32);
    draw(
        &ctx,
        &mut renderer,
        &mut Input::new(&four, count, animation),
    )
    .unwrap();
    renderer.destroy(&ctx);
    assert_eq!(validation_after(ctx), (0, 0));
}

#[test]
fn a_failed_model_switch_leaks_nothing() {
    if !common::vulkan_or_skip() {
        return;
    }
    let (four, eight) = (model(InfluenceLimit::Four), model(InfluenceLimit::Eight));
    let crowd = placements(4);
    let desc = desc(Animation::Gpu);
    let steps = {
        let ctx = validated_context();
        let mut renderer = build(&ctx, &four, &crowd, &desc).unwrap();
        ctx.fail_creation_step(None);
        renderer
            .set_model(&ctx, std::slice::from_ref(&eight), &crowd, None)
            .unwrap();
        let steps = ctx.creation_steps();
        renderer.destroy(&ctx);
        steps
    };
    assert!(steps > 20, "only {steps} creation steps in a model switch");
    for step in 0..steps {
        let ctx = validated_context();
        let mut renderer = build(&ctx, &four, &crowd, &desc).unwrap();
        ctx.fail_creation_step(Some(step));
        let error = renderer
            .set_model(&ctx, std::slice::from_ref(&eight), &crowd, None)
            .unwrap_err();
        assert!(matches!(error, GpuError::InjectedFailure { .. }), "{error}");
        ctx.fail_creation_step(None);
        // Before the swap the old model and crowd stay and draw; after it
        // (the new crowd's buffers) the renderer is left without a crowd.
        if renderer.crowd().is_some() {
            assert_eq!(
                renderer.model.model.limit,
                InfluenceLimit::Four,
                "step {step}"
            );
            draw(
                &ctx,
                &mut renderer,
                &mut Input::new(&four, 4, Animation::Gpu),
            )
            .unwrap();
        }
        renderer.destroy(&ctx);
        assert_eq!(validation_after(ctx), (0, 0), "model switch step {step}");
    }
}

#[test]
fn a_frame_that_does_not_match_its_crowd_is_an_error() {
    if !common::vulkan_or_skip() {
        return;
    }
    let ctx = validated_context();
    let model = model(InfluenceLimit::Four);
    let mut renderer = build(&ctx, &model, &placements(3), &desc(Animation::Gpu)).unwrap();
    let mut clip_past_the_end = Input::new(&model, 3, Animation::Gpu);
    clip_past_the_end.states[1].previous_clip = model.clips.len() as u32;
    let wrong = [
        Input::new(&model, 3, Animation::Cpu),
        Input::new(&model, 3, Animation::CpuSkinned),
        Input::new(&model, 2, Animation::Gpu),
        clip_past_the_end,
    ];
    for mut input in wrong {
        let error = draw(&ctx, &mut renderer, &mut input).unwrap_err();
        assert!(matches!(error, GpuError::FrameMismatch(_)), "{error}");
    }
    // The renderer is unharmed: the right input draws.
    draw(
        &ctx,
        &mut renderer,
        &mut Input::new(&model, 3, Animation::Gpu),
    )
    .unwrap();
    let mut cpu = build(&ctx, &model, &placements(3), &desc(Animation::Cpu)).unwrap();
    let mut short = Input::new(&model, 3, Animation::Cpu);
    short.transforms.pop();
    assert!(matches!(
        draw(&ctx, &mut cpu, &mut short),
        Err(GpuError::FrameMismatch(_))
    ));
    draw(&ctx, &mut cpu, &mut Input::new(&model, 3, Animation::Cpu)).unwrap();
    cpu.destroy(&ctx);
    renderer.destroy(&ctx);
    assert_eq!(validation_after(ctx), (0, 0));
}
