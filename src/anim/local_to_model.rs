use super::JointPose;

/// Model-space poses from local ones: one pass in joint order works because
/// every parent precedes its children.
pub fn local_to_model(parents: &[Option<u16>], local: &[JointPose], out_model: &mut [JointPose]) {
    assert!(
        parents.len() == local.len() && local.len() == out_model.len(),
        "one parent, local pose and output per joint"
    );
    for (joint, parent) in parents.iter().enumerate() {
        out_model[joint] = match *parent {
            Some(parent) => {
                let parent = parent as usize;
                debug_assert!(parent < joint, "parents precede children");
                out_model[parent].then(local[joint])
            }
            None => local[joint],
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn chain_matches_glam_matrix_products() {
        let parents = [None, Some(0), Some(1), Some(0)];
        let local: Vec<JointPose> = (0..4)
            .map(|i| {
                let f = i as f32 + 1.0;
                JointPose::new(
                    Quat::from_axis_angle(Vec3::new(f, 1.0, -f).normalize(), 0.3 * f),
                    Vec3::new(f, 2.0 * f, -1.0),
                )
            })
            .collect();
        let mut model = [JointPose::IDENTITY; 4];
        local_to_model(&parents, &local, &mut model);

        let m = |p: &JointPose| Mat4::from_rotation_translation(p.rotation, p.translation);
        let expected = [
            m(&local[0]),
            m(&local[0]) * m(&local[1]),
            m(&local[0]) * m(&local[1]) * m(&local[2]),
            m(&local[0]) * m(&local[3]),
        ];
        for (joint, expected) in expected.iter().enumerate() {
            assert!(
                m(&model[joint]).abs_diff_eq(*expected, 1e-4),
                "joint {joint}"
            );
        }
    }
}
