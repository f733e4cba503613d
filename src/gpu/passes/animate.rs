//! Animation on the GPU: for each visible instance, sample its clip (and
//! the clips it fades from), run the joint hierarchy and write its skinning
//! transforms, a quaternion and a translation per joint, into the buffer
//! crowd.vert reads. Two kernels do the same jobs in the same order, shaped
//! for two kinds of device (see [`Kernel`]). The CPU reference is
//! `crowd::animate_crowd`.

use ash::vk;

use super::cull;
use crate::gpu::guard::Destroy;
use crate::gpu::pipeline::{self, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// The most joints animate_joints.comp keeps in shared memory (its
/// `SHARED_JOINTS`, specialized to this): 8 KiB of model poses, within
/// every device's 16 KiB. A multiple of its 64 lanes.
pub const SHARED_JOINTS: usize = 256;

/// How the animate pass spreads the work over lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// animate.comp: a lane per instance, walking its joints in order. What
    /// a CPU driver runs fastest: its lanes are the SIMD lanes of one core,
    /// which read alike and need no barrier (lavapipe turns a workgroup
    /// barrier into a coroutine switch per group of lanes). The fallback for
    /// skeletons past [`SHARED_JOINTS`].
    LanePerInstance,
    /// animate_joints.comp: a workgroup per instance, a lane per joint, the
    /// hierarchy resolved level by level in shared memory: what a GPU wants
    /// (neighbouring lanes read neighbouring clip texels and write
    /// neighbouring palette entries; a crowd's worth of lanes in flight).
    LanePerJoint,
}

impl Kernel {
    /// The kernel for `device_type` and a skeleton of `joints` joints.
    pub fn for_device(device_type: vk::PhysicalDeviceType, joints: usize) -> Kernel {
        if device_type == vk::PhysicalDeviceType::CPU {
            Kernel::LanePerInstance
        } else {
            Kernel::LanePerJoint.for_skeleton(joints)
        }
    }

    /// This kernel if it can pose `joints` joints, else
    /// [`Kernel::LanePerInstance`], which poses any number.
    pub fn for_skeleton(self, joints: usize) -> Kernel {
        if joints > SHARED_JOINTS {
            Kernel::LanePerInstance
        } else {
            self
        }
    }

    /// The name the command line and the benchmark's JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::LanePerInstance => "lane-per-instance",
            Kernel::LanePerJoint => "lane-per-joint",
        }
    }
}

/// The kernel for a skeleton of `joints` joints on this device:
/// `requested` where it can pose them (a warning where it cannot), else
/// the device's ([`Kernel::for_device`]).
pub fn pick_kernel(ctx: &Context, requested: Option<Kernel>, joints: usize) -> Kernel {
    let kernel = match requested {
        Some(kernel) => kernel.for_skeleton(joints),
        None => {
            let device_type = unsafe {
                ctx.instance
                    .get_physical_device_properties(ctx.physical_device)
                    .device_type
            };
            Kernel::for_device(device_type, joints)
        }
    };
    if requested.is_some_and(|asked| asked != kernel) {
        log::warn!(
            "{joints} joints are more than the {} kernel keeps in shared memory \
             ({SHARED_JOINTS}); animating with {}",
            Kernel::LanePerJoint.name(),
            kernel.name()
        );
    }
    log::debug!("GPU animation kernel: {}", kernel.name());
    kernel
}

pub struct Animate {
    pub pipeline: vk::Pipeline,
    pub kernel: Kernel,
}

pub fn create_animate(
    ctx: &Context,
    layout: vk::PipelineLayout,
    kernel: Kernel,
) -> Result<Animate, GpuError> {
    let shared_joints = SHARED_JOINTS as u32;
    let shared_joints = pipeline::constant_0(&shared_joints);
    let shader = match kernel {
        Kernel::LanePerInstance => ShaderStage {
            name: "animate.comp",
            spirv: spirv::ANIMATE_COMP,
            specialization: None,
        },
        Kernel::LanePerJoint => ShaderStage {
            name: "animate_joints.comp",
            spirv: spirv::ANIMATE_JOINTS_COMP,
            specialization: Some(&shared_joints),
        },
    };
    let pipeline = pipeline::create_compute_pipeline(ctx, "animate", layout, &shader)?;
    Ok(Animate { pipeline, kernel })
}

impl Destroy for Animate {
    fn destroy(self, ctx: &Context) {
        self.pipeline.destroy(ctx);
    }
}

/// After the cull pass and the draws pass, with the compute set bound: as
/// many workgroups as draws.comp wrote into the `VkDispatchIndirectCommand`
/// at `dispatch` (buffer, offset), enough for the palette rows this phase
/// handed out (the posed list's new entries) and no more.
pub fn record_animate(
    ctx: &Context,
    cmd: vk::CommandBuffer,
    pass: &Animate,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
    dispatch: (vk::Buffer, u64),
) {
    let _label = debug::label(ctx, cmd, "animate");
    cull::bind_and_push(ctx, cmd, pass.pipeline, layout, constants);
    unsafe {
        ctx.device
            .cmd_dispatch_indirect(cmd, dispatch.0, dispatch.1)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_drivers_get_a_lane_per_instance_and_gpus_a_lane_per_joint_while_it_fits() {
        use vk::PhysicalDeviceType as Device;
        assert_eq!(Kernel::for_device(Device::CPU, 23), Kernel::LanePerInstance);
        for gpu in [
            Device::DISCRETE_GPU,
            Device::INTEGRATED_GPU,
            Device::VIRTUAL_GPU,
        ] {
            assert_eq!(Kernel::for_device(gpu, 1), Kernel::LanePerJoint);
            assert_eq!(Kernel::for_device(gpu, SHARED_JOINTS), Kernel::LanePerJoint);
            assert_eq!(
                Kernel::for_device(gpu, SHARED_JOINTS + 1),
                Kernel::LanePerInstance
            );
        }
        assert_eq!(
            Kernel::LanePerJoint.for_skeleton(300),
            Kernel::LanePerInstance
        );
        assert_eq!(
            Kernel::LanePerInstance.for_skeleton(3),
            Kernel::LanePerInstance
        );
    }
}
