use glam::{Quat, Vec3, Vec4};

use crate::anim::SkinningTransform;

use super::SkinnedMesh;

/// Linear blend skinning, the reference the GPU vertex shader is tested
/// against: each influence rotates and translates the bind-pose vertex, and
/// the results are averaged by weight. Normals use the rotations alone.
///
/// `transforms` holds one skinning transform per skeleton joint.
pub fn skin_vertices(
    mesh: &SkinnedMesh,
    transforms: &[SkinningTransform],
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
        let (position, normal) = (mesh.positions[v], mesh.normals[v]);
        let mut skinned_position = Vec3::ZERO;
        let mut skinned_normal = Vec3::ZERO;
        for slot in 0..influences {
            let weight = mesh.weights[v][slot];
            if weight == 0.0 {
                continue;
            }
            let transform = &transforms[mesh.joints[v][slot] as usize];
            let rotation = Quat::from_array(transform.rotation);
            let translation = Vec4::from_array(transform.translation).truncate();
            skinned_position += weight * (rotation * position + translation);
            skinned_normal += weight * (rotation * normal);
        }
        *out_position = skinned_position;
        *out_normal = skinned_normal.try_normalize().unwrap_or(normal);
    }
}
