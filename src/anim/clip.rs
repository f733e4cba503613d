use glam::Vec3;

use crate::md5::{quat_from_xyz, Bounds, Md5Anim};

use super::JointPose;

/// One animation, decoded: every frame holds the full local (parent-relative)
/// pose of every joint, so sampling never looks at flags again.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub name: String,
    pub frame_rate: f32,
    /// `frames[f][j]`: joint `j`'s pose relative to its parent at frame `f`.
    pub frames: Vec<Vec<JointPose>>,
    /// Model-space bounds of the animated mesh, one box per frame.
    pub bounds: Vec<Bounds>,
    /// Doom 3's convention: a looping clip's last frame repeats its first, so
    /// wrapping at `duration()` is seamless.
    pub looping: bool,
}

impl Clip {
    /// Applies each frame's animated components over the base frame, in the
    /// order the flags list them (Tx Ty Tz Qx Qy Qz). The parser has already
    /// checked that every joint's components lie inside each frame.
    pub fn from_md5(name: &str, anim: &Md5Anim) -> Clip {
        let frames = anim
            .frames
            .iter()
            .map(|components| {
                anim.hierarchy
                    .iter()
                    .zip(&anim.baseframe)
                    .map(|(joint, base)| {
                        let mut values = [
                            base.position.x,
                            base.position.y,
                            base.position.z,
                            base.orientation.x,
                            base.orientation.y,
                            base.orientation.z,
                        ];
                        let mut next = joint.start_index as usize;
                        for (bit, value) in values.iter_mut().enumerate() {
                            if joint.flags & (1 << bit) != 0 {
                                *value = components[next];
                                next += 1;
                            }
                        }
                        let [tx, ty, tz, qx, qy, qz] = values;
                        JointPose::new(quat_from_xyz(qx, qy, qz), Vec3::new(tx, ty, tz))
                    })
                    .collect()
            })
            .collect();
        Clip {
            name: name.to_owned(),
            frame_rate: anim.frame_rate,
            frames,
            bounds: anim.bounds.clone(),
            looping: true,
        }
    }

    pub fn joint_count(&self) -> usize {
        self.frames.first().map_or(0, Vec::len)
    }

    /// Seconds from the first frame to the last; zero for a single-frame clip.
    pub fn duration(&self) -> f32 {
        self.frames.len().saturating_sub(1) as f32 / self.frame_rate
    }

    /// The box that holds the animated mesh at every frame: what culling
    /// needs when it does not know which frame an instance is on.
    pub fn bounds_union(&self) -> Bounds {
        self.bounds
            .iter()
            .fold(Bounds::EMPTY, |acc, b| acc.union(*b))
    }
}
