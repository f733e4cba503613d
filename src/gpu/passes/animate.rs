//! Animation on the GPU: for each visible instance, sample its clip (and
//! the clips it fades from), run the joint hierarchy and write its skinning
//! transforms, a quaternion and a translation per joint, into the buffer
//! crowd.vert reads. Two kernels do the same jobs in the same order, shaped
//! for two kinds of device (see [`Kernel`]). The CPU reference is
//! `crowd::animate_crowd`.

use ash::vk;

use super::cull;
use crate::gpu::guard::{guard, Destroy};
use crate::gpu::pipeline::{self, ComputePipeline, ShaderStage};
use crate::gpu::shader_types::CrowdComputeConstants;
use crate::gpu::shaders::spirv;
use crate::gpu::{debug, Context, GpuError};

/// The most joints animate_joints.comp keeps in shared memory (its
/// `SHARED_JOINTS`, specialized to this): 8 KiB of model poses, within
/// every device's 16 KiB. A multiple of its lanes (checked when the
/// pipeline is made).
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

/// On a GPU, crowds of this many instances or more animate faster with a
/// lane per instance. Measured on an NVIDIA H100 (docs/performance.md): a
/// lane per joint won at 1,024 posed instances (0.014 against 0.018 ms for
/// 23 joints), where a lane per instance fills 16 warps of a GPU that holds
/// thousands; from 16,384 on a lane per instance was 4 to 7.5 times faster,
/// for 23, 85 and 110 joints alike. A crowd's size bounds what it poses.
pub const LANE_PER_INSTANCE_FROM: u32 = 4096;

impl Kernel {
    /// The kernel for a crowd of `instances` with skeletons of up to
    /// `joints` joints on a device of `device_type`.
    pub fn for_device(
        device_type: vk::PhysicalDeviceType,
        joints: usize,
        instances: u32,
    ) -> Kernel {
        if device_type == vk::PhysicalDeviceType::CPU || instances >= LANE_PER_INSTANCE_FROM {
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

    /// Instances one workgroup of this kernel's `pipeline` poses: what
    /// draws.comp divides the posed count by for the indirect dispatch.
    pub fn instances_per_workgroup(self, pipeline: &ComputePipeline) -> u32 {
        match self {
            Kernel::LanePerInstance => pipeline.workgroup_size[0],
            Kernel::LanePerJoint => 1,
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

/// The kernel for a crowd of `instances` with skeletons of up to `joints`
/// joints on this device: `requested` where it can pose them (a warning
/// where it cannot), else the device's ([`Kernel::for_device`]). The choice
/// is logged.
pub fn pick_kernel(
    ctx: &Context,
    requested: Option<Kernel>,
    joints: usize,
    instances: u32,
) -> Kernel {
    let device_type = unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.physical_device)
            .device_type
    };
    let kernel = match requested {
        Some(kernel) => kernel.for_skeleton(joints),
        None => Kernel::for_device(device_type, joints, instances),
    };
    if requested.is_some_and(|asked| asked != kernel) {
        log::warn!(
            "{joints} joints are more than the {} kernel keeps in shared memory \
             ({SHARED_JOINTS}); animating with {}",
            Kernel::LanePerJoint.name(),
            kernel.name()
        );
    }
    let why = match requested {
        Some(_) => "--animate-kernel",
        None if device_type == vk::PhysicalDeviceType::CPU => "a CPU driver's choice",
        None => "a GPU's choice: a lane per instance from 4096 instances on",
    };
    log::info!(
        "animate kernel: {} for {instances} instances of up to {joints} joints ({why})",
        kernel.name()
    );
    kernel
}

/// The animate pipeline of each kernel the model's skeletons allow: the
/// crowd's size picks one ([`pick_kernel`]).
pub struct Animate {
    pub pipelines: PerKernel,
}

/// A compute pipeline per animate kernel; none for a lane per joint when a
/// skeleton is past [`SHARED_JOINTS`].
pub struct PerKernel {
    lane_per_instance: ComputePipeline,
    lane_per_joint: Option<ComputePipeline>,
}

impl PerKernel {
    /// Makes `make(kernel)` for every kernel that can pose `joints` joints,
    /// destroying what it made when a later one fails.
    pub fn new(
        ctx: &Context,
        joints: usize,
        make: impl Fn(Kernel) -> Result<ComputePipeline, GpuError>,
    ) -> Result<PerKernel, GpuError> {
        let lane_per_instance = guard(ctx, make(Kernel::LanePerInstance)?);
        let lane_per_joint = match Kernel::LanePerJoint.for_skeleton(joints) {
            Kernel::LanePerJoint => Some(make(Kernel::LanePerJoint)?),
            Kernel::LanePerInstance => None,
        };
        Ok(PerKernel {
            lane_per_instance: lane_per_instance.keep(),
            lane_per_joint,
        })
    }

    /// `kernel`'s pipeline; [`Kernel::LanePerInstance`]'s where the other
    /// was not made, as [`Kernel::for_skeleton`] picks.
    pub fn get(&self, kernel: Kernel) -> ComputePipeline {
        match (kernel, self.lane_per_joint) {
            (Kernel::LanePerJoint, Some(pipeline)) => pipeline,
            _ => self.lane_per_instance,
        }
    }
}

impl Destroy for PerKernel {
    fn destroy(self, ctx: &Context) {
        self.lane_per_joint.destroy(ctx);
        self.lane_per_instance.destroy(ctx);
    }
}

/// Both kernels' pipelines (one where a skeleton of `joints` joints is past
/// what a lane per joint holds).
pub fn create_animate(
    ctx: &Context,
    layout: vk::PipelineLayout,
    joints: usize,
) -> Result<Animate, GpuError> {
    let shared_joints = SHARED_JOINTS as u32;
    let shared_joints = pipeline::constant_0(&shared_joints);
    let pipelines = PerKernel::new(ctx, joints, |kernel| {
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
        let pipeline = guard(
            ctx,
            pipeline::create_compute_pipeline(ctx, "animate", layout, &shader)?,
        );
        let lanes = pipeline.workgroup_size[0];
        if kernel == Kernel::LanePerJoint && !(SHARED_JOINTS as u32).is_multiple_of(lanes) {
            return Err(GpuError::ShaderInterface(format!(
                "animate_joints.comp: SHARED_JOINTS ({SHARED_JOINTS}) is not a multiple of its {lanes} lanes"
            )));
        }
        Ok(pipeline.keep())
    })?;
    Ok(Animate { pipelines })
}

impl Destroy for Animate {
    fn destroy(self, ctx: &Context) {
        self.pipelines.destroy(ctx);
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
    kernel: Kernel,
    layout: vk::PipelineLayout,
    constants: CrowdComputeConstants,
    dispatch: (vk::Buffer, u64),
) {
    let _label = debug::label(ctx, cmd, "animate");
    cull::bind_and_push(ctx, cmd, pass.pipelines.get(kernel), layout, constants);
    unsafe {
        ctx.device
            .cmd_dispatch_indirect(cmd, dispatch.0, dispatch.1)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_drivers_get_a_lane_per_instance_and_gpus_a_lane_per_joint_for_small_crowds() {
        use vk::PhysicalDeviceType as Device;
        for instances in [1, 1024, LANE_PER_INSTANCE_FROM, 1_000_000] {
            assert_eq!(
                Kernel::for_device(Device::CPU, 23, instances),
                Kernel::LanePerInstance
            );
        }
        for gpu in [
            Device::DISCRETE_GPU,
            Device::INTEGRATED_GPU,
            Device::VIRTUAL_GPU,
        ] {
            // The H100 measured a lane per joint faster at 1,024 posed
            // instances and 4 to 7.5 times slower from 16,384 on.
            assert_eq!(Kernel::for_device(gpu, 23, 1024), Kernel::LanePerJoint);
            assert_eq!(
                Kernel::for_device(gpu, SHARED_JOINTS, LANE_PER_INSTANCE_FROM - 1),
                Kernel::LanePerJoint
            );
            for instances in [LANE_PER_INSTANCE_FROM, 16_384, 100_000, 1_000_000] {
                assert_eq!(
                    Kernel::for_device(gpu, 23, instances),
                    Kernel::LanePerInstance
                );
            }
            assert_eq!(
                Kernel::for_device(gpu, SHARED_JOINTS + 1, 1),
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
