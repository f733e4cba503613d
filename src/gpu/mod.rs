//! The Vulkan renderer, one file per concern (zeux/niagara style): plain
//! structs that own Vulkan handles plus free functions that create, record
//! and destroy them. Every object gets a debug name and every pass a
//! command-buffer label, so a RenderDoc capture reads like the code.
//!
//! Lifetimes are explicit: whatever `create_*` returns implements
//! [`guard::Destroy`] and is handed back to it before the [`Context`] drops;
//! constructors unwind what they made when a later step fails. The renderer
//! is split by lifetime: [`model_resources`] (as long as the model),
//! [`crowd_resources`] (as long as the crowd size, its buffers described
//! by [`crowd_buffers`]), [`frame::FrameSlot`] (one frame in flight), and
//! [`frame_loop`] runs every frame, remembering the crowd's
//! [`crowd_frame_state`].

pub mod animation_data;
pub mod capture;
pub mod context;
pub mod crowd_buffers;
pub mod crowd_frame_state;
pub mod crowd_resources;
mod crowd_sets;
pub mod debug;
mod descriptors;
mod device_choice;
pub mod draw_commands;
pub mod driver;
pub mod frame;
pub mod frame_loop;
mod frame_uniforms;
pub mod gpu_model;
pub mod guard;
pub mod impostor_atlas;
mod instance_animation;
#[cfg(test)]
mod layout_tests;
pub mod material_sets;
pub mod memory;
pub mod model_resources;
pub mod morph_data;
pub mod output;
pub mod passes;
pub mod pipeline;
pub mod profiler;
mod readback;
mod record;
pub mod reflect;
pub mod renderdoc;
pub mod renderer;
pub mod resources;
pub mod scene_pipelines;
pub mod shader_types;
pub mod shaders;
pub mod shadow_map;
pub mod swapchain;
pub mod targets;
pub mod texture;
mod view_options;

pub use context::{Context, ContextDesc, MultisampleSupport};

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "cannot load the Vulkan loader ({0}); install one (e.g. `libvulkan1`) and a driver \
         (e.g. `mesa-vulkan-drivers`)"
    )]
    Loader(#[from] ash::LoadingError),
    #[error("no Vulkan driver found; install one (e.g. `mesa-vulkan-drivers` for the CPU driver lavapipe)")]
    NoDriver,
    #[error("{call} failed: {result}")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
    },
    #[error(
        "no Vulkan device supports Vulkan 1.2 with graphics, dynamic rendering and \
         synchronization2{0}; a newer driver may (or `mesa-vulkan-drivers` for the CPU driver \
         lavapipe)"
    )]
    NoSuitableDevice(String),
    #[error("--gpu {index}: {reason}")]
    GpuIndex { index: usize, reason: String },
    #[error(
        "validation was requested but the {0} layer is not installed (e.g. `vulkan-validationlayers`)"
    )]
    ValidationLayerMissing(&'static str),
    #[error("GPU memory allocation for {name} failed: {source}")]
    Allocation {
        name: String,
        source: gpu_allocator::AllocationError,
    },
    #[error("{0}: no triangles to draw")]
    EmptyModel(String),
    #[error(
        "{models}: the morph targets' offsets take {bytes} bytes, but this GPU's storage \
         buffers hold at most {limit} (maxStorageBufferRange)"
    )]
    MorphTargetsTooLarge {
        models: String,
        bytes: u64,
        limit: u64,
    },
    #[error(
        "a crowd of {requested} instances does not fit this GPU: {reason}; at most {fits} \
         instances fit"
    )]
    CrowdTooLarge {
        requested: u32,
        fits: u64,
        /// The device limit that decides, in words.
        reason: String,
    },
    #[error(
        "{name} needs {texels} texels, but this GPU's texel buffers hold at most {limit} \
         (maxTexelBufferElements)"
    )]
    TexelBufferTooLarge {
        name: String,
        texels: u64,
        limit: u32,
    },
    /// [`Context::fail_creation_step`]'s doing.
    #[error("{call} (creation step {step}) failed on purpose (test hook)")]
    InjectedFailure { call: &'static str, step: u32 },
    /// A shader's SPIR-V cannot be read, or shaders that share a descriptor
    /// set disagree about it.
    #[error("shader interface: {0}")]
    ShaderInterface(String),
    /// A crowd resize failed, and so did rebuilding the previous crowd.
    #[error("the crowd could not be rebuilt after a failed resize: {0}")]
    CrowdLost(String),
    /// What a frame was given does not match what its crowd was built for.
    #[error("frame input: {0}")]
    FrameMismatch(String),
    /// egui-ash-renderer failed outside a Vulkan call (see [`passes::overlay`]).
    #[error("ui overlay: {0}")]
    Overlay(String),
}

/// `result.map_err(vk_error("vkCreateBuffer"))`: names the failing call.
pub(crate) fn vk_error(call: &'static str) -> impl Fn(vk::Result) -> GpuError {
    move |result| GpuError::Vulkan { call, result }
}
