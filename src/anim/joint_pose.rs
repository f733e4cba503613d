use glam::{Quat, Vec3};

/// A rigid transform (rotation then translation), the unit every animation job
/// works in. Quaternions rather than matrices because they blend well and are
/// what the GPU stores: 7 floats instead of 12.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointPose {
    pub rotation: Quat,
    pub translation: Vec3,
}

impl JointPose {
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    pub fn new(rotation: Quat, translation: Vec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// `self` applied after `child`: composes a parent's pose with a pose
    /// expressed in the parent's frame (the matrix product `self * child`).
    pub fn then(self, child: JointPose) -> JointPose {
        JointPose {
            rotation: (self.rotation * child.rotation).normalize(),
            translation: self.rotation * child.translation + self.translation,
        }
    }

    pub fn inverse(self) -> JointPose {
        let rotation = self.rotation.inverse();
        JointPose {
            rotation,
            translation: -(rotation * self.translation),
        }
    }

    pub fn transform_point(self, point: Vec3) -> Vec3 {
        self.rotation * point + self.translation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Affine3A, Mat4};

    fn pose(axis: Vec3, angle: f32, t: Vec3) -> JointPose {
        JointPose::new(Quat::from_axis_angle(axis.normalize(), angle), t)
    }

    fn matrix(p: JointPose) -> Mat4 {
        Mat4::from_rotation_translation(p.rotation, p.translation)
    }

    #[test]
    fn then_matches_matrix_product() {
        let a = pose(Vec3::new(1.0, 2.0, 3.0), 0.7, Vec3::new(4.0, -1.0, 2.0));
        let b = pose(Vec3::new(-2.0, 0.5, 1.0), -1.3, Vec3::new(0.5, 3.0, -7.0));
        let composed = matrix(a.then(b));
        let expected = matrix(a) * matrix(b);
        assert!(
            composed.abs_diff_eq(expected, 1e-5),
            "{composed} != {expected}"
        );
    }

    #[test]
    fn inverse_undoes_the_pose() {
        let a = pose(Vec3::new(0.3, -1.0, 0.2), 2.1, Vec3::new(10.0, 20.0, -5.0));
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert!(a
            .inverse()
            .transform_point(a.transform_point(p))
            .abs_diff_eq(p, 1e-4));
        let affine = Affine3A::from_rotation_translation(a.rotation, a.translation).inverse();
        assert!(matrix(a.inverse()).abs_diff_eq(Mat4::from(affine), 1e-5));
    }
}
