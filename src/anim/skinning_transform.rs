use bytemuck::{Pod, Zeroable};

use super::JointPose;

/// What the vertex shader reads per instance and joint: the transform from the
/// bind pose to the animated pose. Rust twin of `SkinningTransform` in
/// shaders/skinning.glsl (the GLSL is the source of truth; a test compares the
/// layouts through SPIR-V reflection).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkinningTransform {
    /// Unit quaternion, x y z w.
    pub rotation: [f32; 4],
    /// x y z; w is padding (0) so the struct is two vec4s in std430.
    pub translation: [f32; 4],
}

impl From<JointPose> for SkinningTransform {
    fn from(pose: JointPose) -> Self {
        SkinningTransform {
            rotation: pose.rotation.to_array(),
            translation: pose.translation.extend(0.0).to_array(),
        }
    }
}

impl From<SkinningTransform> for JointPose {
    fn from(t: SkinningTransform) -> Self {
        JointPose::new(
            glam::Quat::from_array(t.rotation),
            glam::Vec4::from_array(t.translation).truncate(),
        )
    }
}

/// `model[j] * inverse_bind[j]`: moves a bind-pose vertex to where joint `j`
/// carries it in the animated pose.
pub fn skinning_transforms(
    model: &[JointPose],
    inverse_bind: &[JointPose],
    out: &mut [SkinningTransform],
) {
    assert!(
        model.len() == inverse_bind.len() && model.len() == out.len(),
        "one model pose, inverse bind pose and output per joint"
    );
    for ((out, model), inverse_bind) in out.iter_mut().zip(model).zip(inverse_bind) {
        *out = model.then(*inverse_bind).into();
    }
}
