//! The values the render options take: the `on` / `off` switch and the
//! enums clap parses (`--view`, `--shadows`, `--skinning`, `--animate`,
//! `--animate-kernel`, `--influences`), with what each stands for in the
//! renderer.

use super::camera::{OrbitCamera, Shot};
use super::crowd_state::CrowdState;
use crate::gpu::frame_loop::Shadows;
use crate::gpu::passes::animate::Kernel;
use crate::skin::{InfluenceLimit, SkinningMethod};
use glam::Vec3;

/// `--shadows` (and one of `bench --shadows`, `"shadows"` in its JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShadowsArg {
    Map,
    Blob,
    Off,
}

impl From<ShadowsArg> for Shadows {
    fn from(arg: ShadowsArg) -> Shadows {
        match arg {
            ShadowsArg::Map => Shadows::Map,
            ShadowsArg::Blob => Shadows::Blob,
            ShadowsArg::Off => Shadows::Off,
        }
    }
}

/// `--skinning`: how vertices blend their joints' transforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Skinning {
    /// Linear blend skinning.
    Lbs,
    /// Dual quaternion skinning.
    Dqs,
}

impl From<Skinning> for SkinningMethod {
    fn from(skinning: Skinning) -> SkinningMethod {
        match skinning {
            Skinning::Lbs => SkinningMethod::Linear,
            Skinning::Dqs => SkinningMethod::DualQuaternion,
        }
    }
}

/// `--view`: where the camera starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// From above, framing the whole crowd.
    Overview,
    /// At eye height at the crowd's front edge, looking across it.
    Street,
}

impl View {
    /// The camera a run starts with: `shot` where `--camera` gives one,
    /// else this view fitted to the crowd at `aspect`. The log says which,
    /// in `--camera` form, beside the crowd's extent.
    pub fn camera(self, shot: Option<Shot>, crowd: &CrowdState, aspect: f32) -> OrbitCamera {
        let camera = match (shot, self) {
            (Some(shot), _) => OrbitCamera::from_shot(shot),
            (None, View::Overview) => {
                OrbitCamera::framing(crowd.outline(), aspect, crowd.instances.len() > 1)
            }
            (None, View::Street) => OrbitCamera::street(crowd.outline()),
        };
        let (min, max) = crowd
            .outline()
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)));
        log::info!(
            "camera: --camera {} (the crowd spans {min} to {max})",
            camera.shot()
        );
        camera
    }
}

/// An `on` / `off` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Switch {
    On,
    Off,
}

/// `--animate-kernel`: which GPU animation kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AnimateKernel {
    /// The device's: lane-per-instance on a CPU driver; on a GPU,
    /// lane-per-joint for crowds under 4096 instances, else lane-per-instance.
    Device,
    /// animate.comp: a lane per instance.
    LanePerInstance,
    /// animate_joints.comp: a workgroup per instance, a lane per joint.
    LanePerJoint,
}

impl AnimateKernel {
    pub fn kernel(self) -> Option<Kernel> {
        match self {
            AnimateKernel::Device => None,
            AnimateKernel::LanePerInstance => Some(Kernel::LanePerInstance),
            AnimateKernel::LanePerJoint => Some(Kernel::LanePerJoint),
        }
    }
}

/// `--animate`: who poses the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Animate {
    /// animate.comp, for the visible instances only.
    Gpu,
    /// `crowd::animate_crowd` on every core, uploaded each frame.
    Cpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Influences {
    #[value(name = "4")]
    Four,
    #[value(name = "8")]
    Eight,
}

impl From<Influences> for InfluenceLimit {
    fn from(influences: Influences) -> InfluenceLimit {
        match influences {
            Influences::Four => InfluenceLimit::Four,
            Influences::Eight => InfluenceLimit::Eight,
        }
    }
}
