//! Choosing which joints move a vertex. md5 allows any number of weights per
//! vertex (Doom 3's own models use up to 8); the GPU reads a fixed 4 or 8.

/// Influence slots stored per vertex; with [`InfluenceLimit::Four`] the last
/// four are zero.
pub const MAX_INFLUENCES: usize = 8;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InfluenceLimit {
    /// One `uvec4`/`vec4` attribute pair: the common case, cheapest to skin.
    #[default]
    Four,
    /// Two attribute pairs, for models authored with up to 8 influences.
    Eight,
}

impl InfluenceLimit {
    pub fn count(self) -> usize {
        match self {
            InfluenceLimit::Four => 4,
            InfluenceLimit::Eight => 8,
        }
    }
}

/// What the limit cost: reported by `md5crowd inspect` and at load time so
/// a user knows whether 8 influences would look different.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TruncationReport {
    /// Vertices that had more distinct joints than the limit.
    pub truncated_vertices: usize,
    /// The largest single weight that was dropped (0 when none was).
    pub max_dropped_weight: f32,
    /// Most distinct joints any vertex had before truncation.
    pub max_influences: usize,
}

impl TruncationReport {
    /// Counts one vertex's [`select_influences`] under `limit`.
    pub fn record(&mut self, selected: &SelectedInfluences, limit: InfluenceLimit) {
        self.max_influences = self.max_influences.max(selected.distinct);
        if selected.distinct > limit.count() {
            self.truncated_vertices += 1;
            self.max_dropped_weight = self.max_dropped_weight.max(selected.max_dropped);
        }
    }
}

/// The kept influences of one vertex: joints and weights, largest weight
/// first, weights quantized to multiples of 1/255 that sum to exactly 1.
///
/// Quantizing here rather than in the GPU upload means the CPU reference skins
/// with exactly the weights the `unorm8` vertex attribute delivers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectedInfluences {
    pub joints: [u16; MAX_INFLUENCES],
    pub weights: [f32; MAX_INFLUENCES],
    /// Distinct joints before truncation.
    pub distinct: usize,
    /// Largest weight left out (before renormalization).
    pub max_dropped: f32,
}

/// Merges repeated joints, keeps the `limit` largest weights (ties broken by
/// joint index so the result is deterministic), renormalizes and quantizes.
/// `weights` are (joint, bias) pairs; a vertex whose biases are all zero or
/// negative falls back to equal shares of its kept joints.
pub fn select_influences(weights: &[(u16, f32)], limit: InfluenceLimit) -> SelectedInfluences {
    let mut merged: Vec<(u16, f32)> = Vec::with_capacity(weights.len());
    for &(joint, bias) in weights {
        match merged.iter_mut().find(|(j, _)| *j == joint) {
            Some((_, total)) => *total += bias,
            None => merged.push((joint, bias)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let kept = merged.len().min(limit.count());
    let max_dropped = merged[kept..].iter().map(|w| w.1).fold(0.0, f32::max);

    let mut joints = [0u16; MAX_INFLUENCES];
    let mut shares = [0f32; MAX_INFLUENCES];
    let total: f32 = merged[..kept].iter().map(|w| w.1.max(0.0)).sum();
    for (slot, &(joint, bias)) in merged[..kept].iter().enumerate() {
        joints[slot] = joint;
        shares[slot] = if total > 0.0 {
            bias.max(0.0) / total
        } else {
            1.0 / kept as f32
        };
    }
    SelectedInfluences {
        joints,
        weights: quantize_unorm8(&shares[..kept]),
        distinct: merged.len(),
        max_dropped,
    }
}

/// Largest-remainder rounding to k/255 so that the 8-bit weights still sum to
/// exactly 255: a vertex never shrinks or grows under skinning.
fn quantize_unorm8(shares: &[f32]) -> [f32; MAX_INFLUENCES] {
    let mut levels = [0u32; MAX_INFLUENCES];
    let mut remainders = [(0f32, 0usize); MAX_INFLUENCES];
    for (i, share) in shares.iter().enumerate() {
        let exact = share * 255.0;
        levels[i] = exact.floor() as u32;
        remainders[i] = (exact - exact.floor(), i);
    }
    let missing = 255u32.saturating_sub(levels.iter().sum());
    let remainders = &mut remainders[..shares.len()];
    remainders.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in remainders.iter().take(missing as usize) {
        levels[i] += 1;
    }
    levels.map(|l| l as f32 / 255.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_largest_sorted_and_sums_to_one() {
        let w = [(3, 0.1), (1, 0.4), (7, 0.05), (2, 0.2), (5, 0.15), (4, 0.1)];
        let s = select_influences(&w, InfluenceLimit::Four);
        assert_eq!(&s.joints[..4], &[1, 2, 5, 3]);
        assert_eq!(s.distinct, 6);
        assert!((s.max_dropped - 0.1).abs() < 1e-6);
        let sum: f32 = s.weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "{sum}");
        assert!(s.weights.windows(2).take(3).all(|p| p[0] >= p[1]));
        assert_eq!(&s.weights[4..], &[0.0; 4]);
        for w in s.weights {
            assert_eq!((w * 255.0).round() / 255.0, w, "multiple of 1/255");
        }
    }

    #[test]
    fn eight_keeps_everything_here() {
        let w = [(3, 0.1), (1, 0.4), (7, 0.05), (2, 0.2), (5, 0.15), (4, 0.1)];
        let s = select_influences(&w, InfluenceLimit::Eight);
        assert_eq!(s.max_dropped, 0.0);
        assert_eq!(&s.joints[..6], &[1, 2, 5, 3, 4, 7]);
    }

    #[test]
    fn repeated_joints_are_merged() {
        let s = select_influences(&[(2, 0.25), (9, 0.5), (2, 0.25)], InfluenceLimit::Four);
        assert_eq!(s.distinct, 2);
        assert_eq!(&s.joints[..2], &[2, 9], "equal weights: lower joint first");
        assert_eq!(s.weights[0], 128.0 / 255.0);
        assert_eq!(s.weights[1], 127.0 / 255.0);
    }

    #[test]
    fn degenerate_biases_share_equally() {
        let s = select_influences(&[(0, 0.0), (1, 0.0)], InfluenceLimit::Four);
        assert!((s.weights[0] + s.weights[1] - 1.0).abs() < 1e-6);
        assert!((s.weights[0] - s.weights[1]).abs() <= 1.0 / 255.0 + 1e-6);
    }
}
