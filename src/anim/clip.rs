use crate::bounds::Bounds;

use super::{ClipMorphs, JointPose};

/// One animation, decoded: every frame holds the full local (parent-relative)
/// pose of every joint, so sampling never looks at flags again. Decoded from a
/// file by `crate::model::clip_from_md5`.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub name: String,
    pub frame_rate: f32,
    /// `frames[f][j]`: joint `j`'s pose relative to its parent at frame `f`.
    pub frames: Vec<Vec<JointPose>>,
    /// Model-space bounds of the animated mesh, one box per frame: the
    /// md5anim's, grown at load to hold the mesh posed anywhere from that
    /// frame to the next as it is interpolated, and the file's box of the
    /// next frame (`crate::skin::clip_pose_bounds`), so wrong bounds in a
    /// file never cull a visible character, and an instance between two
    /// frames is inside the first one's box.
    pub bounds: Vec<Bounds>,
    /// Whether time wraps at `duration()` (Doom 3's convention: a looping
    /// clip's last frame repeats its first, so the wrap is seamless;
    /// `close_loop` makes it so for loops written otherwise) or the
    /// clip holds its last pose once over. Decided by `loops_by_rule` and
    /// `LoopOverrides`.
    pub looping: bool,
    /// The morph target weights it plays (none for md5 clips).
    pub morphs: ClipMorphs,
}

impl Clip {
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
