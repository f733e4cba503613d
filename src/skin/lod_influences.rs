//! Fewer joints per vertex for the coarse levels of detail. The vertex
//! shader fetches one skinning transform per influence per vertex, and a
//! character a few pixels high cannot show that a vertex also follows a
//! neighbouring joint with a weight of 0.06. So each level keeps only the
//! largest few of every vertex's influences (renormalised to sum to 1), as
//! few as move the skinned surface, over the clips' poses, by at most a
//! share of the level's own geometric error (LOD 0, with no error, drops
//! only influences that never move anything: a rigid mesh skins with one).
//!
//! The level's error then includes what the dropped influences move. The
//! two displacements are independent (the simplifier moves the surface
//! across itself where it removed detail, a dropped influence moves it
//! along a joint's motion), so they combine in quadrature: at the share
//! below a level's error grows by at most 3% and level selection barely
//! shifts; added outright, the errors grew by up to 23% on the shipped
//! character and 16384 characters drew 20% more triangles.

use glam::{Affine3A, Quat, Vec3, Vec4};

use crate::anim::{
    local_to_model, skinning_transforms, Clip, JointPose, Skeleton, SkinningTransform,
};

use super::SkinnedMesh;

/// A level may drop influences while they move its vertices by at most this
/// fraction of its geometric error.
pub const INFLUENCE_ERROR_SHARE: f32 = 0.25;

/// Poses the measure samples, spread evenly over every frame of every clip.
pub const MAX_SAMPLED_POSES: usize = 64;

/// Influence counts a level may keep, fewest first: the vertex shader's
/// variants (crowd.vert's `INFLUENCES`).
pub const INFLUENCE_STEPS: [usize; 4] = [1, 2, 4, 8];

/// Skinning transforms of up to [`MAX_SAMPLED_POSES`] frames, evenly strided
/// over the clips' frames in order; none when there are no frames (a model
/// without clips never leaves its bind pose, where every transform is the
/// identity and no influence moves anything).
pub fn sampled_poses(skeleton: &Skeleton, clips: &[Clip]) -> Vec<Vec<SkinningTransform>> {
    let joints = skeleton.joint_count();
    let frames: Vec<&Vec<JointPose>> = clips
        .iter()
        .filter(|clip| clip.joint_count() == joints)
        .flat_map(|clip| &clip.frames)
        .collect();
    let stride = frames.len().div_ceil(MAX_SAMPLED_POSES).max(1);
    let mut model = vec![JointPose::IDENTITY; joints];
    frames
        .iter()
        .step_by(stride)
        .map(|local| {
            let mut transforms = vec![SkinningTransform::default(); joints];
            local_to_model(&skeleton.parents, local, &mut model);
            skinning_transforms(&model, &skeleton.inverse_bind_pose, &mut transforms);
            transforms
        })
        .collect()
}

/// Each joint's skinning transform as an affine map: converted once per
/// pose, for skinning many vertices.
pub fn affine_transforms(transforms: &[SkinningTransform]) -> Vec<Affine3A> {
    transforms
        .iter()
        .map(|t| {
            Affine3A::from_rotation_translation(
                Quat::from_array(t.rotation),
                Vec4::from_array(t.translation).truncate(),
            )
        })
        .collect()
}

/// Linear blend skinning of `position` with its first k influences (the
/// largest), their weights renormalised to sum to 1, for every k of
/// [`INFLUENCE_STEPS`] up to `limit`, fewest first, into `out`: crowd.vert's
/// position for a level that keeps k. Returns how many it wrote; one pass
/// over the influences serves them all.
#[inline]
pub fn skin_position_by_steps(
    position: Vec3,
    joints: &[u16],
    weights: &[f32],
    limit: usize,
    affine: &[Affine3A],
    out: &mut [Vec3; INFLUENCE_STEPS.len()],
) -> usize {
    let (mut sum, mut kept, mut written) = (Vec3::ZERO, 0.0, 0);
    for slot in 0..limit {
        let weight = weights[slot];
        if weight != 0.0 {
            sum += weight * affine[joints[slot] as usize].transform_point3(position);
            kept += weight;
        }
        if written < out.len() && INFLUENCE_STEPS[written] == slot + 1 {
            out[written] = if kept > 0.0 { sum / kept } else { position };
            written += 1;
        }
    }
    written
}

impl SkinnedMesh {
    /// Sets each level's `influences` and combines what dropping the others
    /// moves, measured over `poses`, into its `error`. Call after
    /// [`SkinnedMesh::build_lods`].
    pub fn choose_level_influences(&mut self, poses: &[Vec<SkinningTransform>]) {
        let limit = self.limit.count();
        let steps: Vec<usize> = INFLUENCE_STEPS.into_iter().filter(|&k| k < limit).collect();
        // How far each vertex strays from its full skinning, per step, over
        // every pose: a property of the vertex, whichever level uses it.
        let mut strays = vec![vec![0.0f32; steps.len()]; self.vertex_count()];
        for transforms in poses {
            let affine = affine_transforms(transforms);
            let mut skinned = [Vec3::ZERO; INFLUENCE_STEPS.len()];
            for (v, stray) in strays.iter_mut().enumerate() {
                let (joints, weights) = (&self.joints[v], &self.weights[v]);
                let position = self.positions[v];
                let count =
                    skin_position_by_steps(position, joints, weights, limit, &affine, &mut skinned);
                let full = skinned[count - 1];
                for (stray, fewer) in stray.iter_mut().zip(&skinned[..count]) {
                    *stray = stray.max(fewer.distance(full));
                }
            }
        }
        let mut used = vec![false; self.vertex_count()];
        for lod in &mut self.lods {
            lod.influences = limit;
            used.fill(false);
            for &i in &lod.indices {
                used[i as usize] = true;
            }
            let budget = INFLUENCE_ERROR_SHARE * lod.error;
            for (step, &k) in steps.iter().enumerate() {
                let moved = strays
                    .iter()
                    .zip(&used)
                    .filter(|(_, &used)| used)
                    .map(|(stray, _)| stray[step])
                    .fold(0.0, f32::max);
                if moved <= budget {
                    lod.influences = k;
                    lod.error = lod.error.hypot(moved);
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::{InfluenceLimit, LodLevel};

    fn transform(rotation: Quat, translation: Vec3) -> SkinningTransform {
        SkinningTransform {
            rotation: rotation.to_array(),
            translation: translation.extend(0.0).to_array(),
        }
    }

    #[test]
    fn fewer_influences_are_renormalised() {
        let transforms = [
            transform(Quat::IDENTITY, Vec3::X),
            transform(Quat::IDENTITY, Vec3::Y),
        ];
        let affine = affine_transforms(&transforms);
        let joints = [0, 1, 0, 0];
        let weights = [0.75, 0.25, 0.0, 0.0];
        let p = Vec3::new(1.0, 2.0, 3.0);
        let mut steps = [Vec3::ZERO; INFLUENCE_STEPS.len()];
        let count = skin_position_by_steps(p, &joints, &weights, 4, &affine, &mut steps);
        assert_eq!(count, 3, "1, 2 and 4 of 4");
        // The largest alone carries the whole vertex.
        assert!(steps[0].distance(p + Vec3::X) < 1e-6);
        assert!(steps[1].distance(p + Vec3::new(0.75, 0.25, 0.0)) < 1e-6);
        assert_eq!(steps[1], steps[2]);
    }

    /// Two vertices: one on joint 0 alone, one shared 0.8 / 0.2 with joint 1,
    /// which the pose moves 10 units. Keeping joint 0 alone moves the shared
    /// vertex by 0.2 * 10 = 2 units.
    fn mesh_with_levels(errors: [f32; 3]) -> SkinnedMesh {
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        mesh.positions = vec![Vec3::ZERO, Vec3::ONE];
        mesh.joints = vec![[0; 8], [0, 1, 0, 0, 0, 0, 0, 0]];
        mesh.weights = vec![
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [0.8, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ];
        let level = |indices: Vec<u32>, error| LodLevel {
            indices,
            error,
            influences: 0,
        };
        mesh.lods = vec![
            level(vec![0, 1, 1], errors[0]),
            level(vec![0, 1, 1], errors[1]),
            level(vec![0, 0, 0], errors[2]),
        ];
        mesh
    }

    #[test]
    fn a_level_drops_what_its_error_can_hide() {
        let poses = vec![vec![
            transform(Quat::IDENTITY, Vec3::ZERO),
            transform(Quat::IDENTITY, Vec3::new(10.0, 0.0, 0.0)),
        ]];
        // LOD 0 may move nothing: its shared vertex has two joints, so two
        // lose nothing. Level 1 may move 0.25 * 4 = 1 unit: two joints again.
        // Level 2 only uses the rigid vertex: one joint, its error unchanged.
        let mut mesh = mesh_with_levels([0.0, 4.0, 0.5]);
        mesh.choose_level_influences(&poses);
        let chosen: Vec<(usize, f32)> = mesh.lods.iter().map(|l| (l.influences, l.error)).collect();
        assert_eq!(chosen, vec![(2, 0.0), (2, 4.0), (1, 0.5)]);
        // With room for 2 units, level 1 keeps one joint, and its error
        // combines both: sqrt(8² + 2²).
        let mut mesh = mesh_with_levels([0.0, 8.0, 0.5]);
        mesh.choose_level_influences(&poses);
        assert_eq!(mesh.lods[1].influences, 1);
        let combined = 68.0f32.sqrt();
        assert!(
            (mesh.lods[1].error - combined).abs() < 1e-5,
            "{}",
            mesh.lods[1].error
        );
    }

    #[test]
    fn without_poses_every_level_keeps_one_joint() {
        let mut mesh = mesh_with_levels([0.0, 4.0, 0.5]);
        mesh.choose_level_influences(&[]);
        let counts: Vec<usize> = mesh.lods.iter().map(|l| l.influences).collect();
        assert_eq!(counts, vec![1, 1, 1]);
    }
}
