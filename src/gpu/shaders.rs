//! Shader modules from the SPIR-V that build.rs compiled from shaders/.

use ash::vk;

use super::{debug, vk_error, Context, GpuError};

/// `CROWD_VERT`, `CROWD_FRAG`, ...: one constant per file in shaders/.
pub mod spirv {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

pub fn create_shader_module(
    ctx: &Context,
    name: &str,
    spirv: &[u8],
) -> Result<vk::ShaderModule, GpuError> {
    // Copied into words: `include_bytes!` promises no alignment.
    let code = ash::util::read_spv(&mut std::io::Cursor::new(spirv))
        .map_err(|error| GpuError::ShaderInterface(format!("{name}: {error}")))?;
    let info = vk::ShaderModuleCreateInfo::default().code(&code);
    ctx.creation_step("vkCreateShaderModule")?;
    let module = unsafe { ctx.device.create_shader_module(&info, None) }
        .map_err(vk_error("vkCreateShaderModule"))?;
    debug::set_name(ctx, module, name);
    Ok(module)
}
