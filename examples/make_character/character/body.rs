//! The crowdling's surface: one closed tube per body part, described by knot
//! tables (cross-section radii along a path through the bind-pose joints),
//! and the skinning influences of every vertex.

use glam::DVec3;

use super::atlas;
use super::curves::smoothstep;
use super::skeleton::{landmarks as at, Side, Skeleton};
use super::sweep::{Knots, Path, Sweep, ELLIPTIC};
use super::tube::{Shell, ShellVertex};

/// A shell plus, per vertex, its raw `(joint, weight)` influences.
pub struct Part {
    pub name: String,
    pub shell: Shell,
    pub influences: Vec<Vec<(usize, f64)>>,
}

/// One md5 `mesh` block to be: the parts drawn with one material.
pub struct Surface {
    pub shader: &'static str,
    pub parts: Vec<Part>,
}

/// How finely the parts are built: as shipped, or low poly (a few hundred
/// triangles in all, as low-poly game art is): a third of the segments
/// around each part (at least 4) and one ring per kept knot, every other
/// interior knot kept.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Shipped,
    LowPoly,
}

impl Detail {
    fn segments(self, shipped: usize) -> usize {
        match self {
            Detail::Shipped => shipped,
            Detail::LowPoly => shipped.div_ceil(3).max(4),
        }
    }

    fn subdivisions(self, shipped: usize) -> usize {
        match self {
            Detail::Shipped => shipped,
            Detail::LowPoly => 1,
        }
    }

    /// The knot table, low poly without every other interior knot (the poles
    /// and the last interior knot stay, so the part keeps its length and
    /// ends).
    fn knots(self, knots: &Knots) -> Vec<[f64; 4]> {
        let last = knots.len() - 1;
        knots
            .iter()
            .enumerate()
            .filter(|&(i, _)| self == Detail::Shipped || i == 0 || i % 2 == 1 || i + 1 >= last)
            .map(|(_, &row)| row)
            .collect()
    }
}

/// From the base of the neck down to the crotch: chest, waist, hips.
const TORSO: &Knots = &[
    [0.0, 0.0, 0.0, 0.0],
    [0.6, 2.6, 3.2, 0.0],
    [1.4, 3.8, 5.6, -0.2],
    [2.6, 4.4, 7.4, -0.3],
    [4.7, 5.0, 8.6, -0.3],
    [7.7, 5.4, 8.4, 0.0],
    [11.2, 5.1, 7.7, 0.1],
    [14.7, 4.5, 6.9, 0.0],
    [18.2, 4.5, 7.1, -0.1],
    [21.7, 4.9, 7.7, -0.3],
    [24.7, 5.0, 7.9, -0.5],
    [27.2, 4.4, 7.0, -0.5],
    [28.6, 3.2, 5.0, -0.4],
    [29.4, 1.5, 2.5, -0.3],
    [29.8, 0.0, 0.0, -0.3],
];
/// Top of the torso path; `along` runs down from here.
const TORSO_TOP: f64 = 61.2;

/// Hip (along 0) to knee (17) to ankle (33.4), on into the shoe.
const LEG: &Knots = &[
    [-3.0, 0.0, 0.0, 0.0],
    [-2.6, 2.6, 2.4, 0.0],
    [-1.6, 3.8, 3.6, 0.0],
    [0.0, 4.6, 4.4, 0.0],
    [4.0, 4.8, 4.5, 0.1],
    [9.0, 4.3, 4.1, 0.2],
    [14.0, 3.6, 3.4, 0.2],
    [17.0, 3.3, 3.2, 0.3],
    [20.0, 3.6, 3.2, -0.4],
    [24.0, 3.7, 3.3, -0.6],
    [29.0, 2.9, 2.7, -0.2],
    [32.5, 2.3, 2.2, 0.0],
    [34.5, 1.9, 1.8, 0.0],
    [35.3, 0.0, 0.0, 0.0],
];

/// Shoulder (along 0) to elbow (11.7) to wrist (22.4).
const ARM: &Knots = &[
    [-2.6, 0.0, 0.0, 0.0],
    [-2.2, 1.6, 1.6, 0.0],
    [-1.3, 2.5, 2.5, 0.0],
    [0.0, 3.0, 3.0, 0.0],
    [3.5, 2.8, 2.7, 0.0],
    [7.5, 2.4, 2.3, 0.0],
    [11.7, 2.0, 2.0, 0.0],
    [14.0, 2.3, 2.2, 0.0],
    [18.0, 1.9, 1.8, 0.0],
    [21.5, 1.5, 1.4, 0.0],
    [22.8, 1.2, 1.1, 0.0],
    [23.3, 0.0, 0.0, 0.0],
];

/// A mitten, flat in the plane of the thigh it hangs beside.
const HAND: &Knots = &[
    [-0.8, 0.0, 0.0, 0.0],
    [-0.4, 1.2, 0.8, 0.0],
    [0.5, 1.6, 0.9, 0.0],
    [2.5, 2.1, 1.0, 0.1],
    [4.5, 2.0, 0.9, 0.1],
    [6.0, 1.5, 0.7, 0.1],
    [6.6, 0.8, 0.45, 0.1],
    [6.9, 0.0, 0.0, 0.1],
];

/// A shoe from heel to toe; its front is up, so the radii are half-height and
/// half-width and the lift raises the instep.
const SHOE: &Knots = &[
    [-0.6, 0.0, 0.0, 0.0],
    [-0.3, 1.2, 1.3, 0.0],
    [0.5, 1.8, 1.8, 0.1],
    [2.0, 2.3, 1.9, 0.6],
    [4.0, 2.2, 2.0, 0.5],
    [6.5, 1.6, 2.2, 0.0],
    [9.0, 1.3, 2.2, -0.3],
    [11.2, 1.1, 1.9, -0.45],
    [12.2, 0.8, 1.3, -0.5],
    [12.8, 0.0, 0.0, -0.5],
];
const HEEL: DVec3 = DVec3::new(-3.0, 4.2, 1.75);

const NECK: &Knots = &[
    [-0.4, 0.0, 0.0, 0.0],
    [0.0, 2.2, 2.4, 0.0],
    [3.5, 2.1, 2.2, 0.0],
    [6.5, 2.3, 2.4, 0.0],
    [6.9, 0.0, 0.0, 0.0],
];
const NECK_BASE: DVec3 = DVec3::new(-0.4, 0.0, 57.5);
const NECK_TOP: DVec3 = DVec3::new(0.1, 0.0, 64.0);

/// Top to chin, so that the face reads upright in the head texture.
const HEAD: &Knots = &[
    [0.0, 0.0, 0.0, 0.0],
    [0.35, 1.9, 1.8, -0.3],
    [1.2, 3.3, 3.1, -0.3],
    [2.6, 4.2, 3.9, -0.2],
    [4.3, 4.5, 4.1, 0.0],
    [6.0, 4.3, 3.9, 0.2],
    [7.6, 3.8, 3.5, 0.4],
    [9.0, 3.1, 2.8, 0.7],
    [10.1, 2.0, 1.7, 0.9],
    [10.6, 1.0, 0.9, 0.9],
    [10.8, 0.0, 0.0, 0.9],
];
const CROWN: DVec3 = DVec3::new(0.5, 0.0, 72.4);
const CHIN: DVec3 = DVec3::new(0.7, 0.0, 61.6);

const NOSE: &Knots = &[
    [-0.2, 0.0, 0.0, 0.0],
    [0.0, 0.9, 0.7, 0.0],
    [1.0, 0.8, 0.6, 0.0],
    [1.7, 0.5, 0.4, 0.0],
    [2.0, 0.0, 0.0, 0.0],
];
const NOSE_ROOT: DVec3 = DVec3::new(4.4, 0.0, 66.2);
const NOSE_TIP: DVec3 = DVec3::new(6.4, 0.0, 65.6);

pub fn crowdling_surfaces(skeleton: &Skeleton, detail: Detail) -> Vec<Surface> {
    let j = |name: &str| skeleton.find(name);
    let mut body = Vec::new();

    let torso = Sweep {
        path: Path::new(vec![DVec3::new(0.0, 0.0, TORSO_TOP), DVec3::ZERO]),
        front: DVec3::X,
        knots: &detail.knots(TORSO),
        subdivisions: detail.subdivisions(2),
        segments: detail.segments(24),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::TORSO_TEXELS),
    };
    body.push(Part::new("torso", &torso, |v| {
        torso_influences(skeleton, v.position)
    }));

    for side in Side::BOTH {
        body.extend(limb_parts(skeleton, detail, side));
    }

    let neck_chain = [
        (j("chest"), f64::NEG_INFINITY, 0.0),
        (j("neck"), 0.8, 1.0),
        (j("head"), (at::HEAD - NECK_BASE).length(), 1.0),
    ];
    let neck = Sweep {
        path: Path::new(vec![NECK_BASE, NECK_TOP]),
        front: DVec3::X,
        knots: &detail.knots(NECK),
        subdivisions: detail.subdivisions(1),
        segments: detail.segments(12),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::NECK_TEXELS),
    };
    body.push(Part::new("neck", &neck, |v| {
        chain_influences(v.along, &neck_chain)
    }));

    let head = Sweep {
        path: Path::new(vec![CROWN, CHIN]),
        front: DVec3::X,
        knots: &detail.knots(HEAD),
        subdivisions: detail.subdivisions(2),
        segments: detail.segments(24),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::HEAD_TEXELS),
    };
    let nose = Sweep {
        path: Path::new(vec![NOSE_ROOT, NOSE_TIP]),
        front: DVec3::Z,
        knots: &detail.knots(NOSE),
        subdivisions: detail.subdivisions(1),
        segments: detail.segments(8),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::NOSE_TEXELS),
    };
    let rigid_head = |_: &ShellVertex| vec![(j("head"), 1.0)];
    let head = vec![
        Part::new("head", &head, rigid_head),
        Part::new("nose", &nose, rigid_head),
    ];

    vec![
        Surface {
            shader: atlas::BODY_SHADER,
            parts: body,
        },
        Surface {
            shader: atlas::HEAD_SHADER,
            parts: head,
        },
    ]
}

/// One side's leg, arm, hand and shoe, in that order.
fn limb_parts(skeleton: &Skeleton, detail: Detail, side: Side) -> Vec<Part> {
    let j = |name: &str| skeleton.find(name);
    let mut parts = Vec::with_capacity(4);
    let limb = |name: &str| j(&side.joint(name));
    let path = |points: &[DVec3]| Path::new(points.iter().map(|&p| side.place(p)).collect());

    let leg = path(&[at::HIP, at::KNEE, at::ANKLE]);
    let leg_chain = [
        (j("pelvis"), f64::NEG_INFINITY, 0.0),
        (limb("thigh"), 0.0, 2.0),
        (limb("calf"), leg.joint_along(1), 2.5),
        (limb("foot"), leg.joint_along(2), 1.5),
    ];
    let leg = Sweep {
        path: leg,
        front: DVec3::X,
        knots: &detail.knots(LEG),
        subdivisions: detail.subdivisions(2),
        segments: detail.segments(16),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::leg_texels(side)),
    };
    parts.push(Part::new(&side.joint("leg"), &leg, |v| {
        chain_influences(v.along, &leg_chain)
    }));

    let arm = path(&[at::SHOULDER, at::ELBOW, at::WRIST]);
    let arm_chain = [
        (j("chest"), f64::NEG_INFINITY, 0.0),
        (limb("clavicle"), -2.0, 1.5),
        (limb("upper_arm"), 0.0, 1.5),
        (limb("forearm"), arm.joint_along(1), 2.0),
        (limb("hand"), arm.joint_along(2), 1.0),
    ];
    let arm = Sweep {
        path: arm,
        front: DVec3::X,
        knots: &detail.knots(ARM),
        subdivisions: detail.subdivisions(2),
        segments: detail.segments(14),
        roundness: ELLIPTIC,
        uv: atlas::uv(atlas::arm_texels(side)),
    };
    parts.push(Part::new(&side.joint("arm"), &arm, |v| {
        chain_influences(v.along, &arm_chain)
    }));

    let hand_chain = [
        (limb("forearm"), f64::NEG_INFINITY, 0.0),
        (limb("hand"), 0.0, 0.8),
    ];
    let hand = Sweep {
        path: path(&[at::WRIST, at::FINGERTIPS]),
        front: DVec3::X,
        knots: &detail.knots(HAND),
        subdivisions: detail.subdivisions(1),
        segments: detail.segments(12),
        roundness: 2.5,
        uv: atlas::uv(atlas::hand_texels(side)),
    };
    parts.push(Part::new(&side.joint("hand"), &hand, |v| {
        chain_influences(v.along, &hand_chain)
    }));

    let ball = at::BALL.x - HEEL.x;
    let shoe_chain = [
        (limb("foot"), f64::NEG_INFINITY, 0.0),
        (limb("toe"), ball, 1.2),
    ];
    let shoe = Sweep {
        path: path(&[HEEL, at::TOE_TIP + DVec3::new(0.4, 0.0, 0.55)]),
        front: DVec3::Z,
        knots: &detail.knots(SHOE),
        subdivisions: detail.subdivisions(2),
        segments: detail.segments(16),
        roundness: 3.0,
        uv: atlas::uv(atlas::shoe_texels(side)),
    };
    parts.push(Part::new(&side.joint("shoe"), &shoe, |v| {
        chain_influences(v.along, &shoe_chain)
    }));
    parts
}

impl Part {
    fn new(
        name: &str,
        sweep: &Sweep,
        influences: impl Fn(&ShellVertex) -> Vec<(usize, f64)>,
    ) -> Part {
        let shell = sweep.build();
        let influences = shell.vertices.iter().map(influences).collect();
        Part {
            name: name.to_owned(),
            shell,
            influences,
        }
    }
}

/// Vertical blending up the spine, plus the neighbours a torso really drags
/// along: the thighs at the hips, the clavicles and upper arms at the
/// shoulders. Where several meet (the shoulder tops) a vertex ends up with five
/// influences, more than a GPU skinning path keeps.
fn torso_influences(skeleton: &Skeleton, position: DVec3) -> Vec<(usize, f64)> {
    let j = |name: &str| skeleton.find(name);
    let spine = [
        (j("pelvis"), f64::NEG_INFINITY, 0.0),
        (j("spine_1"), at::SPINE_1.z, 1.8),
        (j("spine_2"), at::SPINE_2.z, 1.8),
        (j("chest"), at::CHEST.z, 1.8),
        (j("neck"), at::NECK.z, 3.0),
    ];
    let mut influences = chain_influences(position.z, &spine);
    for side in Side::BOTH {
        let outward = position.y * side.sign();
        let hip = smoothstep(38.5, 33.5, position.z) * smoothstep(1.0, 6.0, outward);
        let collar = smoothstep(51.0, 58.0, position.z) * smoothstep(-9.0, 7.0, outward);
        let shoulder = smoothstep(51.0, 56.5, position.z) * smoothstep(3.0, 8.5, outward);
        influences.push((j(&side.joint("thigh")), 0.6 * hip));
        influences.push((j(&side.joint("clavicle")), 0.5 * collar));
        influences.push((j(&side.joint("upper_arm")), 0.7 * shoulder));
    }
    influences
}

/// Joints that take over one after another along a path: `(joint, along,
/// blend)` hands the surface to `joint` from `along` on, fading over `blend`
/// either side. The first joint owns everything before the second.
fn chain_influences(along: f64, chain: &[(usize, f64, f64)]) -> Vec<(usize, f64)> {
    let taken_over = |&(_, start, blend): &(usize, f64, f64)| {
        if start == f64::NEG_INFINITY {
            1.0
        } else {
            smoothstep(start - blend, start + blend, along)
        }
    };
    chain
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let handed_on = chain.get(i + 1).map_or(0.0, taken_over);
            (link.0, taken_over(link) - handed_on)
        })
        .filter(|&(_, weight)| weight > 0.0)
        .collect()
}
