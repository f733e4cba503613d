//! Samples a clip and writes it the way Doom 3's exporter did: the first
//! frame is the baseframe, and a frame stores only the components (Tx Ty Tz
//! Qx Qy Qz) that change somewhere in the clip.

use glam::{DQuat, DVec3, Quat, Vec3};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{BaseJoint, HierarchyJoint, Md5Anim, Md5Mesh};

use super::clips::Clip;
use super::pose::{self, local_transforms, model_transforms, skin, Transform};
use super::skeleton::Skeleton;

/// A component that never strays further than this from the baseframe is
/// left out of the frames (and then read from the baseframe).
const CONSTANT_TOLERANCE: f32 = 1e-5;

pub fn md5_anim(skeleton: &Skeleton, mesh: &Md5Mesh, clip: &Clip) -> Md5Anim {
    let parents: Vec<Option<usize>> = skeleton.joints.iter().map(|j| j.parent).collect();
    let ground = lowest(&skin(mesh, &pose::bind_transforms(mesh)));
    let pelvis = skeleton.find("pelvis");
    assert!(
        skeleton.joints[pelvis]
            .parent
            .is_some_and(|p| skeleton.joints[p].orientation == DQuat::IDENTITY),
        "grounding moves the pelvis in its parent's frame, which must be model space"
    );

    // Frame N-1 repeats frame 0: Doom 3 plays a cycle of N frames in N-1
    // frame times, so the last frame is the first one again.
    let mut frames: Vec<Vec<[f32; 6]>> = (0..clip.cycle_frames)
        .map(|frame| {
            let pose = (clip.pose)(skeleton, frame as f64 / clip.cycle_frames as f64);
            let mut locals = local_transforms(skeleton, &pose);
            // The skinned mesh already includes the pose's own height; keep it.
            let lowest_now = lowest(&skin(mesh, &model_transforms(&parents, &locals)));
            locals[pelvis].position.z += ground - lowest_now + pose.pelvis_offset.z;
            locals.iter().map(components).collect()
        })
        .collect();
    frames.push(frames[0].clone());

    let baseframe = &frames[0];
    let mut hierarchy = Vec::with_capacity(skeleton.joints.len());
    let mut start_index = 0;
    for (index, joint) in skeleton.joints.iter().enumerate() {
        let flags = (0..6)
            .filter(|&c| {
                frames
                    .iter()
                    .any(|f| (f[index][c] - baseframe[index][c]).abs() > CONSTANT_TOLERANCE)
            })
            .fold(0u8, |flags, c| flags | 1 << c);
        hierarchy.push(HierarchyJoint {
            name: joint.name.clone(),
            parent: joint.parent.map(|p| p as u32),
            flags,
            start_index,
        });
        start_index += flags.count_ones();
    }

    let mut anim = Md5Anim {
        commandline: format!("{} {}", super::COMMANDLINE, clip.name),
        frame_rate: clip.frame_rate,
        num_animated_components: start_index,
        bounds: Vec::new(),
        baseframe: baseframe
            .iter()
            .map(|c| BaseJoint {
                position: Vec3::new(c[0], c[1], c[2]),
                orientation: quat_with_w(c[3], c[4], c[5]),
            })
            .collect(),
        frames: frames
            .iter()
            .map(|frame| {
                hierarchy
                    .iter()
                    .zip(frame)
                    .flat_map(|(joint, values)| {
                        (0..6)
                            .filter(|&c| joint.flags & 1 << c != 0)
                            .map(|c| values[c])
                    })
                    .collect()
            })
            .collect(),
        hierarchy,
    };
    anim.bounds = (0..anim.frames.len())
        .map(|frame| {
            let skinned = skin(
                mesh,
                &model_transforms(&parents, &decode_frame(&anim, frame)),
            );
            let (min, max) = skinned
                .iter()
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(min, max), &p| {
                    (min.min(p), max.max(p))
                });
            Bounds {
                min: min.as_vec3(),
                max: max.as_vec3(),
            }
        })
        .collect();
    anim
}

/// A frame's local transforms as a reader rebuilds them: the baseframe with
/// the flagged components replaced, in order, from the frame's floats.
pub fn decode_frame(anim: &Md5Anim, frame: usize) -> Vec<Transform> {
    anim.hierarchy
        .iter()
        .zip(&anim.baseframe)
        .map(|(joint, base)| {
            // Baseframe quaternions are built with w <= 0 (`quat_with_w`), so
            // their x, y, z mix with a frame's without a sign flip.
            let q = base.orientation;
            let mut values = [
                base.position.x,
                base.position.y,
                base.position.z,
                q.x,
                q.y,
                q.z,
            ];
            let mut next = joint.start_index as usize;
            for (c, value) in values.iter_mut().enumerate() {
                if joint.flags & 1 << c != 0 {
                    *value = anim.frames[frame][next];
                    next += 1;
                }
            }
            Transform {
                position: DVec3::new(values[0].into(), values[1].into(), values[2].into()),
                orientation: pose::as_read(quat_with_w(values[3], values[4], values[5])),
            }
        })
        .collect()
}

/// Position and quaternion xyz of a local transform, the quaternion in the
/// `w <= 0` half that md5 files store.
fn components(local: &Transform) -> [f32; 6] {
    let q = local.orientation.normalize();
    let q = if q.w > 0.0 { -q } else { q }.as_quat();
    let p = local.position.as_vec3();
    [p.x, p.y, p.z, q.x, q.y, q.z]
}

fn quat_with_w(x: f32, y: f32, z: f32) -> Quat {
    md5crowd::md5::quat_from_xyz(x, y, z)
}

fn lowest(points: &[DVec3]) -> f64 {
    points.iter().map(|p| p.z).fold(f64::INFINITY, f64::min)
}
