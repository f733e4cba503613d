use glam::{Quat, Vec3, Vec4};

use crate::anim::SkinningTransform;

use super::SkinnedMesh;

/// How a vertex's influences are blended; the vertex shader (skinning.glsl)
/// implements the same two, and these functions are its reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SkinningMethod {
    /// Linear blend skinning: each influence rotates and translates the
    /// bind-pose vertex, and the results are averaged by weight.
    #[default]
    Linear,
    /// Dual quaternion skinning: the influences' rigid transforms are
    /// averaged as unit dual quaternions, then applied once. Keeps volume
    /// where LBS collapses a twisting joint ("candy wrapper").
    DualQuaternion,
}

impl SkinningMethod {
    pub fn toggled(self) -> SkinningMethod {
        match self {
            SkinningMethod::Linear => SkinningMethod::DualQuaternion,
            SkinningMethod::DualQuaternion => SkinningMethod::Linear,
        }
    }
}

/// Skins every vertex of `mesh` with `method`: the reference the GPU vertex
/// shader is tested against. Normals use the rotations alone.
///
/// `transforms` holds one skinning transform per skeleton joint.
pub fn skin_vertices(
    mesh: &SkinnedMesh,
    transforms: &[SkinningTransform],
    method: SkinningMethod,
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
) {
    assert!(
        out_positions.len() == mesh.vertex_count() && out_normals.len() == mesh.vertex_count(),
        "one output position and normal per vertex"
    );
    let influences = mesh.limit.count();
    for (v, (out_position, out_normal)) in out_positions
        .iter_mut()
        .zip(out_normals.iter_mut())
        .enumerate()
    {
        let weighted = (0..influences)
            .map(|slot| {
                (
                    mesh.weights[v][slot],
                    rigid(&transforms[mesh.joints[v][slot] as usize]),
                )
            })
            .filter(|(weight, _)| *weight != 0.0);
        let (position, normal) = (mesh.positions[v], mesh.normals[v]);
        let (skinned_position, skinned_normal) = match method {
            SkinningMethod::Linear => linear_blend(weighted, position, normal),
            SkinningMethod::DualQuaternion => {
                let pivot = rigid(&transforms[mesh.joints[v][0] as usize]).0;
                dual_quaternion_blend(weighted, pivot, position, normal)
            }
        };
        *out_position = skinned_position;
        *out_normal = skinned_normal.try_normalize().unwrap_or(normal);
    }
}

fn rigid(transform: &SkinningTransform) -> (Quat, Vec3) {
    (
        Quat::from_array(transform.rotation),
        Vec4::from_array(transform.translation).truncate(),
    )
}

fn linear_blend(
    influences: impl Iterator<Item = (f32, (Quat, Vec3))>,
    position: Vec3,
    normal: Vec3,
) -> (Vec3, Vec3) {
    influences.fold(
        (Vec3::ZERO, Vec3::ZERO),
        |(p, n), (weight, (rotation, translation))| {
            (
                p + weight * (rotation * position + translation),
                n + weight * (rotation * normal),
            )
        },
    )
}

/// As skinning.glsl: each transform becomes the dual quaternion (r, ½ t r);
/// weights are negated for rotations in the other hemisphere than `pivot`
/// (q and -q are one rotation, but their sum cancels); the blend is
/// normalised by its real part's length and applied as rotate-then-translate.
fn dual_quaternion_blend(
    influences: impl Iterator<Item = (f32, (Quat, Vec3))>,
    pivot: Quat,
    position: Vec3,
    normal: Vec3,
) -> (Vec3, Vec3) {
    let (real, dual) = influences.fold(
        (Vec4::ZERO, Vec4::ZERO),
        |(real, dual), (weight, (rotation, translation))| {
            let translation = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0);
            let q_dual = Vec4::from(translation * rotation) * 0.5;
            let q_real = Vec4::from(rotation);
            let weight = if q_real.dot(Vec4::from(pivot)) < 0.0 {
                -weight
            } else {
                weight
            };
            (real + weight * q_real, dual + weight * q_dual)
        },
    );
    let length = real.length();
    if length == 0.0 {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    let (real, dual) = (real / length, dual / length);
    // translation = 2 * dual * conjugate(real), the vector part.
    let translation = 2.0
        * (real.w * dual.truncate() - dual.w * real.truncate()
            + real.truncate().cross(dual.truncate()));
    let rotation = Quat::from_vec4(real);
    (rotation * position + translation, rotation * normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::JointPose;
    use crate::skin::InfluenceLimit;

    /// One vertex at `position` bound to joints 0 and 1 with `weights`.
    fn two_joint_vertex(position: Vec3, weights: [f32; 2]) -> SkinnedMesh {
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        mesh.positions = vec![position];
        mesh.normals = vec![Vec3::Z];
        mesh.joints = vec![[0, 1, 0, 0, 0, 0, 0, 0]];
        mesh.weights = vec![[weights[0], weights[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]];
        mesh
    }

    fn skin(
        mesh: &SkinnedMesh,
        transforms: &[SkinningTransform],
        method: SkinningMethod,
    ) -> (Vec3, Vec3) {
        let (mut p, mut n) = (vec![Vec3::ZERO], vec![Vec3::ZERO]);
        skin_vertices(mesh, transforms, method, &mut p, &mut n);
        (p[0], n[0])
    }

    #[test]
    fn a_single_influence_is_the_rigid_transform_in_both_methods() {
        let pose = JointPose::new(Quat::from_rotation_z(0.7), Vec3::new(1.0, 2.0, 3.0));
        let mesh = two_joint_vertex(Vec3::new(4.0, -1.0, 2.0), [1.0, 0.0]);
        let transforms = [SkinningTransform::from(pose), SkinningTransform::default()];
        let expected = pose.rotation * Vec3::new(4.0, -1.0, 2.0) + pose.translation;
        for method in [SkinningMethod::Linear, SkinningMethod::DualQuaternion] {
            let (p, _) = skin(&mesh, &transforms, method);
            assert!(
                (p - expected).length() < 1e-5,
                "{method:?}: {p} vs {expected}"
            );
        }
    }

    #[test]
    fn dual_quaternions_keep_a_twisted_vertex_off_the_axis() {
        // Half way between no twist and a half turn about X: LBS averages
        // the point with its mirror image and lands on the axis (the candy
        // wrapper); DQS rotates it a quarter turn and keeps its distance.
        let twist = JointPose::new(Quat::from_rotation_x(std::f32::consts::PI), Vec3::ZERO);
        let transforms = [
            SkinningTransform::from(JointPose::IDENTITY),
            SkinningTransform::from(twist),
        ];
        let mesh = two_joint_vertex(Vec3::new(5.0, 1.0, 0.0), [0.5, 0.5]);
        let (lbs, _) = skin(&mesh, &transforms, SkinningMethod::Linear);
        let (dqs, _) = skin(&mesh, &transforms, SkinningMethod::DualQuaternion);
        assert!(lbs.y.hypot(lbs.z) < 1e-5, "LBS collapses: {lbs}");
        assert!(
            (dqs.y.hypot(dqs.z) - 1.0).abs() < 1e-5,
            "DQS keeps the radius: {dqs}"
        );
        assert!((dqs.x - 5.0).abs() < 1e-5, "{dqs}");
    }

    #[test]
    fn dual_quaternions_blend_translations_with_the_weights() {
        let a = JointPose::new(Quat::IDENTITY, Vec3::new(2.0, 0.0, 0.0));
        let b = JointPose::new(Quat::IDENTITY, Vec3::new(0.0, 4.0, 0.0));
        let transforms = [SkinningTransform::from(a), SkinningTransform::from(b)];
        let mesh = two_joint_vertex(Vec3::ZERO, [0.25, 0.75]);
        let (dqs, _) = skin(&mesh, &transforms, SkinningMethod::DualQuaternion);
        assert!((dqs - Vec3::new(0.5, 3.0, 0.0)).length() < 1e-5, "{dqs}");
    }

    #[test]
    fn opposite_hemisphere_quaternions_blend_as_one_rotation() {
        // -q is q: flipping one influence's sign must not change the result.
        let pose = JointPose::new(Quat::from_rotation_y(0.4), Vec3::new(0.0, 0.0, 1.0));
        let mut flipped = SkinningTransform::from(pose);
        flipped.rotation = flipped.rotation.map(|c| -c);
        let mesh = two_joint_vertex(Vec3::new(1.0, 2.0, 3.0), [0.5, 0.5]);
        let same = [SkinningTransform::from(pose); 2];
        let mixed = [SkinningTransform::from(pose), flipped];
        let (a, _) = skin(&mesh, &same, SkinningMethod::DualQuaternion);
        let (b, _) = skin(&mesh, &mixed, SkinningMethod::DualQuaternion);
        assert!((a - b).length() < 1e-5, "{a} vs {b}");
    }
}
