//! Graphics pipeline creation: what differs between passes is gathered in
//! [`GraphicsPipelineDesc`]; the fixed choices (dynamic rendering, dynamic
//! viewport and scissor, reverse Z) live here once.

use ash::vk;

use super::guard::{guard, Destroy};
use super::{debug, reflect, shaders, vk_error, Context, GpuError};

/// The attachments every pass renders into; pipelines are built for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetFormats {
    /// `None`: depth only (a shadow map).
    pub color: Option<vk::Format>,
    /// Further colour attachments (locations 1, 2, ...), written
    /// alongside: the impostor bake keeps albedo, normals and surfaces in
    /// one pass; BLEND meshes sum weights beside weighted colours.
    pub further_colors: &'static [vk::Format],
    pub depth: vk::Format,
    /// Samples per pixel of every attachment.
    pub samples: vk::SampleCountFlags,
}

/// How a pass meets the depth buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Opaque surfaces: drawn where nearer, and they hide what follows.
    TestAndWrite,
    /// Decals over what is drawn (contact shadows): hidden where something
    /// is nearer, hiding nothing.
    TestOnly,
    /// Overlays on top of everything.
    Off,
}

#[derive(Clone, Copy)]
pub struct ShaderStage<'a> {
    pub name: &'a str,
    pub spirv: &'a [u8],
    pub specialization: Option<&'a vk::SpecializationInfo<'a>>,
}

/// The specialization every shader here uses: constant 0, a 32-bit
/// scalar (a `uint`, or a `bool` as a `VkBool32`), set to `value`.
pub fn constant_0(value: &u32) -> vk::SpecializationInfo<'_> {
    static ENTRY: [vk::SpecializationMapEntry; 1] = [vk::SpecializationMapEntry {
        constant_id: 0,
        offset: 0,
        size: size_of::<u32>(),
    }];
    vk::SpecializationInfo::default()
        .map_entries(&ENTRY)
        .data(bytemuck::bytes_of(value))
}

/// Specialization constants 0, 1, 2, ...: 32-bit scalars (`uint`, or
/// `bool` as a `VkBool32`), in order.
pub struct Constants {
    entries: Vec<vk::SpecializationMapEntry>,
    values: Vec<u32>,
}

impl Constants {
    pub fn new(values: &[u32]) -> Constants {
        let entries = (0u32..)
            .zip(values)
            .map(|(id, _)| vk::SpecializationMapEntry {
                constant_id: id,
                offset: id * size_of::<u32>() as u32,
                size: size_of::<u32>(),
            })
            .collect();
        Constants {
            entries,
            values: values.to_vec(),
        }
    }

    pub fn info(&self) -> vk::SpecializationInfo<'_> {
        vk::SpecializationInfo::default()
            .map_entries(&self.entries)
            .data(bytemuck::cast_slice(&self.values))
    }
}

#[derive(Clone, Copy)]
pub struct GraphicsPipelineDesc<'a> {
    pub name: &'a str,
    pub layout: vk::PipelineLayout,
    pub vertex_shader: ShaderStage<'a>,
    /// `None`: depth only, as a shadow map's casters are drawn.
    pub fragment_shader: Option<ShaderStage<'a>>,
    pub vertex_bindings: &'a [vk::VertexInputBindingDescription],
    pub vertex_attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    /// `LINE` needs the `fillModeNonSolid` feature ([`Context::wireframe`]).
    pub polygon_mode: vk::PolygonMode,
    pub cull_mode: vk::CullModeFlags,
    pub front_face: vk::FrontFace,
    pub depth: Depth,
    /// How the fragment meets what the attachments hold.
    pub blend: Blend,
    /// The fragment's alpha says how many of its pixel's samples it
    /// covers: a cut-out's outline gets the samples a mesh edge does. The
    /// alpha is then not written: the picture stays opaque.
    pub alpha_to_coverage: bool,
    /// Depth pushed away from the viewer, by a constant and by the
    /// surface's slope (a shadow map's casters: lit surfaces must not
    /// shadow themselves).
    pub depth_bias: Option<DepthBias>,
    pub formats: TargetFormats,
}

/// How a pipeline's fragments are written into its colour attachments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blend {
    /// The fragment replaces what is there.
    Replace,
    /// Over by the fragment's alpha: `src * a + dst * (1 - a)`, the
    /// destination's alpha kept.
    Over,
    /// Weighted blended order-independent transparency (McGuire and
    /// Bavoil, 2013): colour channels sum (`src + dst`), the alpha channel
    /// multiplies what shows through (`dst * (1 - src_alpha)`). Any order
    /// of fragments gives the same sums and product. One state serves
    /// every attachment, so the device needs no `independentBlend`.
    WeightedSum,
}

/// `vkCmdSetDepthBias`'s factors, fixed in the pipeline. With reverse Z,
/// farther is smaller: pushing away is negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthBias {
    pub constant: f32,
    pub slope: f32,
}

pub fn create_graphics_pipeline(
    ctx: &Context,
    desc: &GraphicsPipelineDesc,
) -> Result<vk::Pipeline, GpuError> {
    // Modules are needed only until the pipeline exists; the guards
    // destroy them on every way out.
    let vertex_module = guard(
        ctx,
        shaders::create_shader_module(ctx, desc.vertex_shader.name, desc.vertex_shader.spirv)?,
    );
    let fragment_module = match &desc.fragment_shader {
        Some(stage) => Some(guard(
            ctx,
            shaders::create_shader_module(ctx, stage.name, stage.spirv)?,
        )),
        None => None,
    };
    let mut stages = vec![stage_info(
        vk::ShaderStageFlags::VERTEX,
        *vertex_module,
        &desc.vertex_shader,
    )];
    if let (Some(stage), Some(module)) = (&desc.fragment_shader, &fragment_module) {
        stages.push(stage_info(vk::ShaderStageFlags::FRAGMENT, **module, stage));
    }
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(desc.vertex_bindings)
        .vertex_attribute_descriptions(desc.vertex_attributes);
    let input_assembly =
        vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
    // Counts only: the viewport and scissor themselves are dynamic, so a
    // window resize needs no new pipeline.
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let mut rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(desc.polygon_mode)
        .cull_mode(desc.cull_mode)
        .front_face(desc.front_face)
        .line_width(1.0);
    if let Some(bias) = desc.depth_bias {
        rasterization = rasterization
            .depth_bias_enable(true)
            .depth_bias_constant_factor(bias.constant)
            .depth_bias_slope_factor(bias.slope);
    }
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(desc.formats.samples)
        .alpha_to_coverage_enable(desc.alpha_to_coverage);
    // Reverse Z (near plane at depth 1, infinity at 0): floating-point depth
    // keeps its precision where perspective squeezes distant geometry.
    let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(desc.depth != Depth::Off)
        .depth_write_enable(desc.depth == Depth::TestAndWrite)
        .depth_compare_op(vk::CompareOp::GREATER);
    let written = match desc.alpha_to_coverage {
        true => {
            vk::ColorComponentFlags::R | vk::ColorComponentFlags::G | vk::ColorComponentFlags::B
        }
        false => vk::ColorComponentFlags::RGBA,
    };
    let color_formats: Vec<vk::Format> = desc
        .formats
        .color
        .into_iter()
        .chain(desc.formats.further_colors.iter().copied())
        .collect();
    let blend_attachments = blend_states(desc.blend, written, color_formats.len());
    let color_blend =
        vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&color_formats)
        .depth_attachment_format(desc.formats.depth);

    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&rasterization)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth_stencil)
        .color_blend_state(&color_blend)
        .dynamic_state(&dynamic)
        .layout(desc.layout)
        .push_next(&mut rendering);
    ctx.creation_step("vkCreateGraphicsPipelines")?;
    let created = unsafe {
        ctx.device
            .create_graphics_pipelines(ctx.pipeline_cache, &[info], None)
    };
    let pipeline = created.map_err(|(_, result)| GpuError::Vulkan {
        call: "vkCreateGraphicsPipelines",
        result,
    })?[0];
    debug::set_name(ctx, pipeline, desc.name);
    Ok(pipeline)
}

fn stage_info<'a>(
    stage: vk::ShaderStageFlags,
    module: vk::ShaderModule,
    shader: &ShaderStage<'a>,
) -> vk::PipelineShaderStageCreateInfo<'a> {
    let info = vk::PipelineShaderStageCreateInfo::default()
        .stage(stage)
        .module(module)
        .name(c"main");
    match shader.specialization {
        Some(specialization) => info.specialization_info(specialization),
        None => info,
    }
}

/// The blend state of each of `attachments` colour attachments, writing
/// the components `written`.
fn blend_states(
    blend: Blend,
    written: vk::ColorComponentFlags,
    attachments: usize,
) -> Vec<vk::PipelineColorBlendAttachmentState> {
    use vk::BlendFactor as Factor;
    let state = |(src, dst): (Factor, Factor), (src_alpha, dst_alpha): (Factor, Factor)| {
        vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(written)
            .blend_enable(blend != Blend::Replace)
            .src_color_blend_factor(src)
            .dst_color_blend_factor(dst)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(src_alpha)
            .dst_alpha_blend_factor(dst_alpha)
            .alpha_blend_op(vk::BlendOp::ADD)
    };
    let kept_alpha = (Factor::ZERO, Factor::ONE);
    match blend {
        Blend::Replace => vec![state((Factor::ONE, Factor::ZERO), kept_alpha); attachments],
        Blend::Over => {
            vec![state((Factor::SRC_ALPHA, Factor::ONE_MINUS_SRC_ALPHA), kept_alpha); attachments]
        }
        Blend::WeightedSum => vec![
            state(
                (Factor::ONE, Factor::ONE),
                (Factor::ZERO, Factor::ONE_MINUS_SRC_ALPHA)
            );
            attachments
        ],
    }
}

/// Viewport and scissor covering `extent`, the dynamic state every pass sets.
pub fn set_viewport(ctx: &Context, cmd: vk::CommandBuffer, extent: vk::Extent2D) {
    let viewport = vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: extent.width as f32,
        height: extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    unsafe {
        ctx.device.cmd_set_viewport(cmd, 0, &[viewport]);
        ctx.device.cmd_set_scissor(cmd, 0, &[extent.into()]);
    }
}

/// `vkCreatePipelineLayout`, named.
pub fn create_pipeline_layout(
    ctx: &Context,
    name: &str,
    set_layouts: &[vk::DescriptorSetLayout],
    push_constants: &[vk::PushConstantRange],
) -> Result<vk::PipelineLayout, GpuError> {
    let info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(set_layouts)
        .push_constant_ranges(push_constants);
    ctx.creation_step("vkCreatePipelineLayout")?;
    let layout = unsafe { ctx.device.create_pipeline_layout(&info, None) }
        .map_err(vk_error("vkCreatePipelineLayout"))?;
    debug::set_name(ctx, layout, name);
    Ok(layout)
}

/// A compute pipeline and the workgroup size its shader declares: the
/// shader's `local_size` is the one place that size is written, and
/// dispatches are counted from what is reflected here.
#[derive(Clone, Copy, Debug)]
pub struct ComputePipeline {
    pub handle: vk::Pipeline,
    pub workgroup_size: [u32; 3],
}

impl ComputePipeline {
    /// Workgroups that give `invocations` invocations along x.
    pub fn groups_for(&self, invocations: u32) -> u32 {
        invocations.div_ceil(self.workgroup_size[0])
    }
}

impl Destroy for ComputePipeline {
    fn destroy(self, ctx: &Context) {
        self.handle.destroy(ctx);
    }
}

/// A compute pipeline from one shader; compute passes differ only in these.
pub fn create_compute_pipeline(
    ctx: &Context,
    name: &str,
    layout: vk::PipelineLayout,
    shader: &ShaderStage,
) -> Result<ComputePipeline, GpuError> {
    let workgroup_size = reflect::workgroup_size(shader.spirv)
        .map_err(|error| GpuError::ShaderInterface(format!("{}: {error}", shader.name)))?;
    let module = guard(
        ctx,
        shaders::create_shader_module(ctx, shader.name, shader.spirv)?,
    );
    let info = vk::ComputePipelineCreateInfo::default()
        .stage(stage_info(vk::ShaderStageFlags::COMPUTE, *module, shader))
        .layout(layout);
    ctx.creation_step("vkCreateComputePipelines")?;
    let created = unsafe {
        ctx.device
            .create_compute_pipelines(ctx.pipeline_cache, &[info], None)
    };
    let pipeline = created.map_err(|(_, result)| GpuError::Vulkan {
        call: "vkCreateComputePipelines",
        result,
    })?[0];
    debug::set_name(ctx, pipeline, name);
    Ok(ComputePipeline {
        handle: pipeline,
        workgroup_size,
    })
}
