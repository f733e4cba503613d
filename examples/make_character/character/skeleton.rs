//! The crowdling's skeleton: 23 joints in Doom 3 model space (Z up, facing +X,
//! so the character's left is +Y), about 72 units tall with the soles at z = 0.
//!
//! Every bone joint's local +X axis points along its bone, so the bind pose is
//! full of 90-degree orientations: a loader that mixes up quaternion order or
//! w's sign puts limbs visibly in the wrong place. The second axis is chosen
//! so that no orientation is a half turn: md5 stores only x, y, z and rebuilds
//! w, which loses all precision when w is near 0. (The spine's +Z points back
//! for that reason; pointing it forward would make its frame a half turn.)

use glam::{DMat3, DQuat, DVec3};

pub struct BindJoint {
    pub name: String,
    pub parent: Option<usize>,
    /// Model-space position and orientation, as md5mesh stores them.
    pub position: DVec3,
    pub orientation: DQuat,
}

pub struct Skeleton {
    pub joints: Vec<BindJoint>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// +1 on the character's left (+Y), -1 on its right.
    pub fn sign(self) -> f64 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }

    /// `thigh` -> `l_thigh` / `r_thigh`.
    pub fn joint(self, limb: &str) -> String {
        match self {
            Side::Left => format!("l_{limb}"),
            Side::Right => format!("r_{limb}"),
        }
    }

    /// Mirrors a left-side point to this side.
    pub fn place(self, left: DVec3) -> DVec3 {
        DVec3::new(left.x, left.y * self.sign(), left.z)
    }
}

/// Landmarks of the left half; the right half mirrors them across y = 0.
pub mod landmarks {
    use glam::DVec3;

    pub const PELVIS: DVec3 = DVec3::new(0.0, 0.0, 39.0);
    pub const SPINE_1: DVec3 = DVec3::new(0.0, 0.0, 42.5);
    pub const SPINE_2: DVec3 = DVec3::new(-0.3, 0.0, 47.0);
    pub const CHEST: DVec3 = DVec3::new(-0.5, 0.0, 51.5);
    pub const NECK: DVec3 = DVec3::new(-0.2, 0.0, 59.5);
    pub const HEAD: DVec3 = DVec3::new(0.2, 0.0, 63.0);
    pub const CLAVICLE: DVec3 = DVec3::new(0.3, 1.5, 57.0);
    pub const SHOULDER: DVec3 = DVec3::new(-0.3, 8.0, 57.0);
    pub const ELBOW: DVec3 = DVec3::new(-0.8, 10.3, 45.5);
    pub const WRIST: DVec3 = DVec3::new(0.2, 12.2, 35.0);
    pub const FINGERTIPS: DVec3 = DVec3::new(0.6, 13.0, 28.5);
    pub const HIP: DVec3 = DVec3::new(0.0, 4.2, 37.0);
    pub const KNEE: DVec3 = DVec3::new(0.6, 4.2, 20.0);
    pub const ANKLE: DVec3 = DVec3::new(-0.2, 4.2, 3.6);
    pub const BALL: DVec3 = DVec3::new(5.5, 4.4, 1.2);
    pub const TOE_TIP: DVec3 = DVec3::new(9.0, 4.4, 1.2);
}

impl Skeleton {
    pub fn crowdling() -> Skeleton {
        use landmarks::*;
        let mut skeleton = Skeleton { joints: Vec::new() };
        let forward = DVec3::X;
        let back = -DVec3::X;
        let up = DVec3::Z;
        skeleton.add("origin", None, DVec3::ZERO, DQuat::IDENTITY);
        skeleton.add("pelvis", Some("origin"), PELVIS, DQuat::IDENTITY);
        skeleton.add_bone("spine_1", "pelvis", SPINE_1, SPINE_2, back);
        skeleton.add_bone("spine_2", "spine_1", SPINE_2, CHEST, back);
        skeleton.add_bone("chest", "spine_2", CHEST, NECK, back);
        skeleton.add_bone("neck", "chest", NECK, HEAD, back);
        skeleton.add_bone("head", "neck", HEAD, HEAD + up, back);
        for side in Side::BOTH {
            let at = |p: DVec3| side.place(p);
            let name = |limb: &str| side.joint(limb);
            skeleton.add_bone(&name("clavicle"), "chest", at(CLAVICLE), at(SHOULDER), up);
            skeleton.add_bone(
                &name("upper_arm"),
                &name("clavicle"),
                at(SHOULDER),
                at(ELBOW),
                forward,
            );
            skeleton.add_bone(
                &name("forearm"),
                &name("upper_arm"),
                at(ELBOW),
                at(WRIST),
                forward,
            );
            skeleton.add_bone(
                &name("hand"),
                &name("forearm"),
                at(WRIST),
                at(FINGERTIPS),
                forward,
            );
        }
        for side in Side::BOTH {
            let at = |p: DVec3| side.place(p);
            let name = |limb: &str| side.joint(limb);
            skeleton.add_bone(&name("thigh"), "pelvis", at(HIP), at(KNEE), forward);
            skeleton.add_bone(&name("calf"), &name("thigh"), at(KNEE), at(ANKLE), forward);
            skeleton.add_bone(&name("foot"), &name("calf"), at(ANKLE), at(BALL), up);
            skeleton.add_bone(&name("toe"), &name("foot"), at(BALL), at(TOE_TIP), up);
        }
        skeleton
    }

    /// The joint called `name`; the generator only asks for joints it defines.
    pub fn find(&self, name: &str) -> usize {
        self.joints
            .iter()
            .position(|joint| joint.name == name)
            .unwrap_or_else(|| panic!("the crowdling has no joint named {name}"))
    }

    fn add(&mut self, name: &str, parent: Option<&str>, position: DVec3, orientation: DQuat) {
        let parent = parent.map(|p| self.find(p));
        self.joints.push(BindJoint {
            name: name.to_owned(),
            parent,
            position,
            orientation,
        });
    }

    /// A joint at `start` whose +X points at `end` and whose +Z leans towards `hint`.
    fn add_bone(&mut self, name: &str, parent: &str, start: DVec3, end: DVec3, hint: DVec3) {
        let x = (end - start).normalize();
        let z = (hint - x * hint.dot(x)).normalize();
        let y = z.cross(x);
        let orientation = DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize();
        self.add(name, Some(parent), start, orientation);
    }
}
