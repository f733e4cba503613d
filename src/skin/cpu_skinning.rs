use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3, Vec4};

use crate::anim::SkinningTransform;

use super::{morphed_vertex, SkinnedMesh};

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

/// A skinned vertex's surface: what the CPU reference writes and what the
/// vertex shader's stream 0 holds (`in_position`, `in_normal`, `in_tangent`
/// of crowd.vert; `gpu::shader_types` re-exports it as that stream's twin).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SurfaceVertex {
    pub position: Vec3,
    pub normal: Vec3,
    /// xyz along +u, w the handedness of the (tangent, bitangent, normal)
    /// frame: an array, not a `Vec4`, so the struct has no padding.
    pub tangent: [f32; 4],
}

impl SurfaceVertex {
    /// Vertex `v` of `mesh` in its bind pose.
    pub fn bind_pose(mesh: &SkinnedMesh, v: usize) -> SurfaceVertex {
        SurfaceVertex {
            position: mesh.positions[v],
            normal: mesh.normals[v],
            tangent: mesh.tangents[v].to_array(),
        }
    }
}

/// Skins every vertex of `mesh` with `method`: the reference the GPU vertex
/// shader is tested against. Morph targets move the bind pose first, by
/// `morph_weights` (its model's, `anim::Morphs` order); normals and tangents
/// use the rotations alone; the tangent's handedness is kept.
///
/// `transforms` holds one skinning transform per skeleton joint.
pub fn skin_vertices(
    mesh: &SkinnedMesh,
    transforms: &[SkinningTransform],
    morph_weights: &[f32],
    method: SkinningMethod,
    out: &mut [SurfaceVertex],
) {
    assert_eq!(out.len(), mesh.vertex_count(), "one output per vertex");
    let influences = mesh.limit.count();
    for (v, out) in out.iter_mut().enumerate() {
        let weighted = (0..influences)
            .map(|slot| {
                (
                    mesh.weights[v][slot],
                    rigid(&transforms[mesh.joints[v][slot] as usize]),
                )
            })
            .filter(|(weight, _)| *weight != 0.0);
        let bind = morphed_vertex(mesh, v, morph_weights);
        let tangent = Vec4::from_array(bind.tangent);
        let skinned = match method {
            SkinningMethod::Linear => linear_blend(weighted, bind),
            SkinningMethod::DualQuaternion => {
                let pivot = rigid(&transforms[mesh.joints[v][0] as usize]).0;
                dual_quaternion_blend(weighted, pivot, bind)
            }
        };
        *out = SurfaceVertex {
            position: skinned.position,
            normal: skinned.normal.try_normalize().unwrap_or(bind.normal),
            tangent: Vec3::from_slice(&skinned.tangent)
                .try_normalize()
                .unwrap_or(tangent.truncate())
                .extend(tangent.w)
                .to_array(),
        };
    }
}

fn rigid(transform: &SkinningTransform) -> (Quat, Vec3) {
    (
        Quat::from_array(transform.rotation),
        Vec4::from_array(transform.translation).truncate(),
    )
}

/// Moves a bind-pose vertex by one rigid transform: the point rotated and
/// translated, its directions rotated.
fn transformed(rotation: Quat, translation: Vec3, bind: SurfaceVertex) -> (Vec3, Vec3, Vec3) {
    (
        rotation * bind.position + translation,
        rotation * bind.normal,
        rotation * Vec3::from_slice(&bind.tangent),
    )
}

fn linear_blend(
    influences: impl Iterator<Item = (f32, (Quat, Vec3))>,
    bind: SurfaceVertex,
) -> SurfaceVertex {
    let (position, normal, tangent) = influences.fold(
        (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO),
        |(p, n, t), (weight, (rotation, translation))| {
            let (tp, tn, tt) = transformed(rotation, translation, bind);
            (p + weight * tp, n + weight * tn, t + weight * tt)
        },
    );
    SurfaceVertex {
        position,
        normal,
        tangent: tangent.extend(bind.tangent[3]).to_array(),
    }
}

/// As skinning.glsl: each transform becomes the dual quaternion (r, ½ t r);
/// weights are negated for rotations in the other hemisphere than `pivot`
/// (q and -q are one rotation, but their sum cancels); the blend is
/// normalised by its real part's length and applied as rotate-then-translate.
fn dual_quaternion_blend(
    influences: impl Iterator<Item = (f32, (Quat, Vec3))>,
    pivot: Quat,
    bind: SurfaceVertex,
) -> SurfaceVertex {
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
        return SurfaceVertex::default();
    }
    let (real, dual) = (real / length, dual / length);
    // translation = 2 * dual * conjugate(real), the vector part.
    let translation = 2.0
        * (real.w * dual.truncate() - dual.w * real.truncate()
            + real.truncate().cross(dual.truncate()));
    let (position, normal, tangent) = transformed(Quat::from_vec4(real), translation, bind);
    SurfaceVertex {
        position,
        normal,
        tangent: tangent.extend(bind.tangent[3]).to_array(),
    }
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
        mesh.tangents = vec![Vec4::new(1.0, 0.0, 0.0, -1.0)];
        mesh.joints = vec![[0, 1, 0, 0, 0, 0, 0, 0]];
        mesh.weights = vec![[weights[0], weights[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]];
        mesh
    }

    fn skin(
        mesh: &SkinnedMesh,
        transforms: &[SkinningTransform],
        method: SkinningMethod,
    ) -> SurfaceVertex {
        let mut out = [SurfaceVertex::default()];
        skin_vertices(mesh, transforms, &[], method, &mut out);
        out[0]
    }

    #[test]
    fn a_single_influence_is_the_rigid_transform_in_both_methods() {
        let pose = JointPose::new(Quat::from_rotation_z(0.7), Vec3::new(1.0, 2.0, 3.0));
        let mesh = two_joint_vertex(Vec3::new(4.0, -1.0, 2.0), [1.0, 0.0]);
        let transforms = [SkinningTransform::from(pose), SkinningTransform::default()];
        let expected = pose.rotation * Vec3::new(4.0, -1.0, 2.0) + pose.translation;
        for method in [SkinningMethod::Linear, SkinningMethod::DualQuaternion] {
            let p = skin(&mesh, &transforms, method).position;
            assert!(
                (p - expected).length() < 1e-5,
                "{method:?}: {p} vs {expected}"
            );
        }
    }

    #[test]
    fn directions_turn_with_the_joint_and_the_handedness_stays() {
        let pose = JointPose::new(Quat::from_rotation_z(0.7), Vec3::new(1.0, 2.0, 3.0));
        let mesh = two_joint_vertex(Vec3::new(4.0, -1.0, 2.0), [1.0, 0.0]);
        let transforms = [SkinningTransform::from(pose), SkinningTransform::default()];
        for method in [SkinningMethod::Linear, SkinningMethod::DualQuaternion] {
            let skinned = skin(&mesh, &transforms, method);
            let tangent = Vec4::from_array(skinned.tangent);
            assert!(
                tangent
                    .truncate()
                    .abs_diff_eq(pose.rotation * Vec3::X, 1e-5),
                "{method:?}: {tangent}"
            );
            assert_eq!(tangent.w, -1.0, "{method:?}");
            assert!(skinned.normal.abs_diff_eq(Vec3::Z, 1e-5), "{method:?}");
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
        let lbs = skin(&mesh, &transforms, SkinningMethod::Linear).position;
        let dqs = skin(&mesh, &transforms, SkinningMethod::DualQuaternion).position;
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
        let dqs = skin(&mesh, &transforms, SkinningMethod::DualQuaternion).position;
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
        let a = skin(&mesh, &same, SkinningMethod::DualQuaternion).position;
        let b = skin(&mesh, &mixed, SkinningMethod::DualQuaternion).position;
        assert!((a - b).length() < 1e-5, "{a} vs {b}");
    }
}
