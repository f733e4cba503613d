//! Bounds computed from the poses themselves: culling must never trust an
//! exporter's md5anim `bounds` alone (zero or stale boxes make visible
//! characters vanish), so `Model::load` grows each frame's box to hold the
//! mesh skinned by that frame's pose.
//!
//! Positions only, by linear blend: the box is a culling bound, and the
//! normals and tangents `skin_vertices` also computes would be thrown away.
//! Dual quaternion skinning keeps volume where linear blending loses it, so
//! a DQS-skinned vertex can lie a little outside this box at a strongly
//! twisted joint; the sphere around the box leaves room for that.

use glam::Vec3;

use crate::anim::{
    blend_poses, local_to_model, skinning_transforms, Clip, JointPose, Skeleton, SkinningTransform,
};
use crate::bounds::Bounds;

use super::lod_influences::{affine_transforms, skin_position_by_steps, INFLUENCE_STEPS};
use super::{BodyParts, SkinnedMesh};

/// Per body part, the box around the vertices `parts` puts in it, skinned
/// by `transforms` (one per joint) with linear blend skinning, with all
/// their influences and with each smaller count a coarse level may keep
/// (`INFLUENCE_STEPS`): the boxes hold every level of detail.
/// [`Bounds::EMPTY`] for a part without vertices.
pub fn skinned_part_bounds(
    meshes: &[SkinnedMesh],
    parts: &BodyParts,
    transforms: &[SkinningTransform],
) -> Vec<Bounds> {
    let affine = affine_transforms(transforms);
    let mut skinned = [Vec3::ZERO; INFLUENCE_STEPS.len()];
    let mut boxes = vec![Bounds::EMPTY; parts.count];
    for (mesh, vertex_parts) in meshes.iter().zip(&parts.vertex_parts) {
        let limit = mesh.limit.count();
        for (((&position, joints), weights), &bits) in mesh
            .positions
            .iter()
            .zip(&mesh.joints)
            .zip(&mesh.weights)
            .zip(vertex_parts)
        {
            let count =
                skin_position_by_steps(position, joints, weights, limit, &affine, &mut skinned);
            let vertex = skinned[..count]
                .iter()
                .fold(Bounds::EMPTY, |b, &p| b.union(Bounds::point(p)));
            for (part, bounds) in boxes.iter_mut().enumerate() {
                if bits & (1 << part) != 0 {
                    *bounds = bounds.union(vertex);
                }
            }
        }
    }
    boxes
}

/// What the boxes grow by, as a fraction of the clip's largest extent: each
/// box skins the mesh at both frames and halfway between them, and a joint
/// turning 0.4 rad a frame (fast for a character at 24 fps) strays from the
/// chord between samples half a frame apart by 0.5% of its distance from
/// the root; the margin allows twice that.
const BETWEEN_SAMPLES_MARGIN: f32 = 0.01;

/// A clip's boxes: per frame, one per body part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipPartBounds {
    pub part_count: usize,
    /// Frame f's part p at `f * part_count + p`.
    pub boxes: Vec<Bounds>,
}

impl ClipPartBounds {
    pub fn frame_count(&self) -> usize {
        self.boxes.len().checked_div(self.part_count).unwrap_or(0)
    }

    /// Frame f's part boxes; none past the clip's frames.
    pub fn frame(&self, f: usize) -> &[Bounds] {
        let start = (f * self.part_count).min(self.boxes.len());
        let end = (start + self.part_count).min(self.boxes.len());
        &self.boxes[start..end]
    }

    /// The box around frame f's parts.
    pub fn whole(&self, f: usize) -> Bounds {
        self.frame(f).iter().fold(Bounds::EMPTY, |a, b| a.union(*b))
    }
}

/// Per frame f of `clip` and body part, the box around the part of `meshes`
/// posed anywhere from frame f to frame f + 1 as animate.comp interpolates
/// them (the last frame: its own pose): skinned by both frames' poses and
/// by the blend halfway between, grown by `BETWEEN_SAMPLES_MARGIN` for the
/// arcs between those. Culling by the boxes of the frames an instance is
/// between is tighter than by the clip's whole swing. Every box is empty
/// for a clip of another skeleton. Frames are independent, so they are
/// split across every core.
pub fn clip_pose_bounds(
    skeleton: &Skeleton,
    clip: &Clip,
    meshes: &[SkinnedMesh],
    parts: &BodyParts,
) -> ClipPartBounds {
    let joints = skeleton.joint_count();
    let frame_count = clip.frames.len();
    let part_count = parts.count;
    let empty = ClipPartBounds {
        part_count,
        boxes: vec![Bounds::EMPTY; frame_count * part_count],
    };
    if clip.frames.is_empty() || clip.joint_count() != joints {
        return empty;
    }
    // Per frame: (the boxes at the frame, the boxes halfway to the next).
    let mut samples = vec![(empty.frame(0).to_vec(), empty.frame(0).to_vec()); frame_count];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = frame_count.div_ceil(threads);
    std::thread::scope(|scope| {
        for (chunk, samples) in samples.chunks_mut(per_thread).enumerate() {
            scope.spawn(move || {
                let mut halfway = vec![JointPose::IDENTITY; joints];
                let mut model = vec![JointPose::IDENTITY; joints];
                let mut transforms = vec![SkinningTransform::default(); joints];
                let mut skin = |pose: &[JointPose]| {
                    local_to_model(&skeleton.parents, pose, &mut model);
                    skinning_transforms(&model, &skeleton.inverse_bind_pose, &mut transforms);
                    skinned_part_bounds(meshes, parts, &transforms)
                };
                for (i, (at, between)) in samples.iter_mut().enumerate() {
                    let frame = chunk * per_thread + i;
                    let next = (frame + 1).min(frame_count - 1);
                    *at = skin(&clip.frames[frame]);
                    if next != frame {
                        blend_poses(&clip.frames[frame], &clip.frames[next], 0.5, &mut halfway);
                        *between = skin(&halfway);
                    }
                }
            });
        }
    });
    let whole = samples
        .iter()
        .flat_map(|(at, between)| at.iter().chain(between))
        .fold(Bounds::EMPTY, |acc, b| acc.union(*b));
    let margin = BETWEEN_SAMPLES_MARGIN * (whole.max - whole.min).max_element().max(0.0);
    let boxes = (0..frame_count)
        .flat_map(|f| {
            let (at, between) = &samples[f];
            let next = &samples[(f + 1).min(frame_count - 1)].0;
            (0..part_count).map(move |p| at[p].union(between[p]).union(next[p]).grown(margin))
        })
        .collect();
    ClipPartBounds { part_count, boxes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::InfluenceLimit;
    use glam::{Mat4, Quat, Vec3};

    /// Two joints, the second 10 units up; four vertices shared between them.
    fn subject() -> (Skeleton, SkinnedMesh) {
        let bind_pose = vec![
            JointPose::IDENTITY,
            JointPose::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, 10.0)),
        ];
        let skeleton = Skeleton {
            names: vec!["root".into(), "arm".into()],
            parents: vec![None, Some(0)],
            inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
            bind_pose,
        };
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        // Largest influence first, as `select_influences` orders them.
        let influences = |w: f32| {
            let (joints, weights) = if w >= 0.5 {
                ([0, 1], [w, 1.0 - w])
            } else {
                ([1, 0], [1.0 - w, w])
            };
            (
                [joints[0], joints[1], 0, 0, 0, 0, 0, 0],
                [weights[0], weights[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            )
        };
        for (position, w) in [
            (Vec3::new(1.0, 0.0, 0.0), 1.0),
            (Vec3::new(0.0, 1.0, 5.0), 0.6),
            (Vec3::new(1.0, 0.0, 12.0), 0.0),
            (Vec3::new(-2.0, 0.0, 15.0), 0.2),
        ] {
            mesh.positions.push(position);
            mesh.normals.push(Vec3::Z);
            let (joints, weights) = influences(w);
            mesh.joints.push(joints);
            mesh.weights.push(weights);
        }
        (skeleton, mesh)
    }

    #[test]
    fn each_frame_box_holds_the_skinned_mesh_exactly() {
        let (skeleton, mesh) = subject();
        let clip = swing(&[0.0, 0.7, 1.6]);
        let meshes = [mesh];
        let parts = BodyParts::of(&skeleton, &meshes);
        assert_eq!(parts.count, 1, "two joints of two vertices each: no limb");
        let boxes = clip_pose_bounds(&skeleton, &clip, &meshes, &parts);
        assert_eq!(boxes.frame_count(), 3);
        // Frame f's box: the mesh at frames f and f + 1 and halfway (where
        // nlerp and slerp agree), grown by 1% of the largest extent.
        let posed = |f: usize, to_next: f32| {
            let next = (f + 1).min(2);
            posed_box(
                &skeleton,
                &meshes[0],
                &blend(&clip.frames[f], &clip.frames[next], to_next),
            )
        };
        let unions: Vec<Bounds> = (0..3)
            .map(|f| posed(f, 0.0).union(posed(f, 0.5)).union(posed(f, 1.0)))
            .collect();
        let whole = unions.iter().fold(Bounds::EMPTY, |a, b| a.union(*b));
        let margin = 0.01 * (whole.max - whole.min).max_element();
        for (f, expected) in unions.iter().enumerate() {
            let bounds = boxes.whole(f);
            let expected = expected.grown(margin);
            assert!(
                bounds.min.abs_diff_eq(expected.min, 1e-4)
                    && bounds.max.abs_diff_eq(expected.max, 1e-4),
                "{bounds:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn a_box_holds_the_mesh_between_its_samples() {
        // 0.3 rad a frame, as a brisk swing at 24 fps; the first frames
        // straddle a turn where points reach their farthest between samples.
        let (skeleton, mesh) = subject();
        let clip = swing(&[-0.1, 0.2, 0.5, 0.8]);
        let meshes = std::slice::from_ref(&mesh);
        let boxes = clip_pose_bounds(&skeleton, &clip, meshes, &BodyParts::of(&skeleton, meshes));
        for f in 0..3 {
            let bounds = boxes.whole(f);
            for step in 1..16 {
                let pose = blend(&clip.frames[f], &clip.frames[f + 1], step as f32 / 16.0);
                let inside = posed_box(&skeleton, &mesh, &pose);
                assert!(
                    inside.min.cmpge(bounds.min).all() && inside.max.cmple(bounds.max).all(),
                    "frame {f} + {step}/16: {inside:?} outside {bounds:?}"
                );
            }
        }
    }

    /// Two joints, each turned by its frame's angle.
    fn swing(angles: &[f32]) -> Clip {
        let frames: Vec<Vec<JointPose>> = angles
            .iter()
            .map(|&angle| {
                vec![
                    JointPose::new(Quat::from_rotation_z(angle), Vec3::new(angle, 0.0, 0.0)),
                    JointPose::new(Quat::from_rotation_x(angle), Vec3::new(0.0, 0.0, 10.0)),
                ]
            })
            .collect();
        Clip {
            morphs: Default::default(),
            name: "swing".into(),
            frame_rate: 24.0,
            bounds: vec![Bounds::point(Vec3::ZERO); frames.len()],
            frames,
            looping: false,
        }
    }

    /// Slerp and lerp: the reference blend.
    fn blend(a: &[JointPose], b: &[JointPose], t: f32) -> Vec<JointPose> {
        a.iter()
            .zip(b)
            .map(|(a, b)| {
                JointPose::new(
                    a.rotation.slerp(b.rotation, t),
                    a.translation.lerp(b.translation, t),
                )
            })
            .collect()
    }

    /// Reference: each vertex through 4x4 matrices, model pose times inverse
    /// bind pose per joint, blended by weight; with both joints, and with
    /// the larger alone (a coarse level's skinning).
    fn posed_box(skeleton: &Skeleton, mesh: &SkinnedMesh, frame: &[JointPose]) -> Bounds {
        let matrix = |p: JointPose| Mat4::from_rotation_translation(p.rotation, p.translation);
        let root = matrix(frame[0]);
        let model = [root, root * matrix(frame[1])];
        let skin = |v: usize, slots: usize| -> Vec3 {
            let kept: f32 = mesh.weights[v][..slots].iter().sum();
            (0..slots)
                .map(|slot| {
                    let joint = mesh.joints[v][slot] as usize;
                    let skin = model[joint] * matrix(skeleton.inverse_bind_pose[joint]);
                    mesh.weights[v][slot] / kept * skin.transform_point3(mesh.positions[v])
                })
                .sum()
        };
        (0..mesh.vertex_count()).fold(Bounds::EMPTY, |b, v| {
            b.union(Bounds::point(skin(v, 2)))
                .union(Bounds::point(skin(v, 1)))
        })
    }
}
