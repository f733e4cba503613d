//! Body parts for occlusion bounds: a character's box is mostly empty
//! corners (beside the head, between the arms and the legs), and a far
//! character hidden behind a crowd passes the occlusion test through them.
//! Boxing the head, each limb and the trunk apart lets cull.comp test the
//! shape more closely.
//!
//! A part is a skeleton subtree that holds at most a quarter of the mesh
//! (by each vertex's largest influence) under a parent subtree that holds
//! more: on a biped the head and neck, each arm from the clavicle and each
//! leg from the thigh; what no such subtree holds is the trunk. Every
//! triangle of every level of detail belongs to one part, and that part's
//! box holds all three of its vertices, so the union of the part boxes holds
//! every pixel the triangle covers (a triangle between two boxes would
//! otherwise cross the gap between them).

use crate::anim::Skeleton;

use super::SkinnedMesh;

/// Parts at most, trunk included: one byte of part bits per vertex, and a
/// bounded number of boxes per clip frame for cull.comp to test.
pub const MAX_BODY_PARTS: usize = 8;

/// The share of the mesh's vertices a subtree may hold and still be a part.
const PART_SHARE: f32 = 0.25;

#[derive(Clone, Debug, PartialEq)]
pub struct BodyParts {
    /// Parts, 1 to [`MAX_BODY_PARTS`]; part 0 is the trunk (or, when every
    /// vertex falls in limbs, the first limb).
    pub count: usize,
    /// Per mesh, per vertex: bit p set when the vertex lies in part p's box
    /// (a vertex of triangles of two parts is in both).
    pub vertex_parts: Vec<Vec<u8>>,
    /// Per joint, the part its vertices (those it influences most) count
    /// towards: what `inspect` shows.
    pub joint_parts: Vec<u8>,
}

impl BodyParts {
    /// The parts of `meshes` (skinned to `skeleton`) over the triangles of
    /// every level of detail. One part, every vertex in it, where the
    /// skeleton has no subtree to split off (a single joint, or a mesh
    /// weighted to one bone).
    pub fn of(skeleton: &Skeleton, meshes: &[SkinnedMesh]) -> BodyParts {
        let mut part_of_joint = part_of_joint(skeleton, meshes);
        let part_of_vertex = |mesh: &SkinnedMesh, v: usize| {
            mesh.joints
                .get(v)
                .and_then(|j| part_of_joint.get(usize::from(j[0])))
                .copied()
                .unwrap_or(0)
        };
        let mut vertex_parts: Vec<Vec<u8>> = meshes
            .iter()
            .map(|mesh| vec![0u8; mesh.vertex_count()])
            .collect();
        for (mesh, parts) in meshes.iter().zip(&mut vertex_parts) {
            for level in &mesh.lods {
                for triangle in level.indices.chunks_exact(3) {
                    let [a, b, c] = [0, 1, 2].map(|i| triangle[i] as usize);
                    let [pa, pb, pc] = [a, b, c].map(|v| part_of_vertex(mesh, v));
                    // The part most of its corners are in; a triangle
                    // joining three parts goes to the trunk.
                    let part = if pa == pb || pa == pc {
                        pa
                    } else if pb == pc {
                        pb
                    } else {
                        0
                    };
                    for v in [a, b, c] {
                        if let Some(bits) = parts.get_mut(v) {
                            *bits |= 1 << part;
                        }
                    }
                }
            }
            // A vertex no triangle uses is never drawn; it still gets its
            // own part, so the parts' union holds every vertex.
            for (v, bits) in parts.iter_mut().enumerate() {
                if *bits == 0 {
                    *bits = 1 << part_of_vertex(mesh, v);
                }
            }
        }
        // Number the parts that kept a vertex, in order.
        let used = vertex_parts.iter().flatten().fold(0u8, |acc, &b| acc | b);
        let mut renumber = [0u8; MAX_BODY_PARTS];
        let mut count = 0;
        for (part, new) in renumber.iter_mut().enumerate() {
            if used & (1 << part) != 0 {
                *new = count as u8;
                count += 1;
            }
        }
        for bits in vertex_parts.iter_mut().flatten() {
            let old = *bits;
            *bits = (0..MAX_BODY_PARTS)
                .filter(|&p| old & (1 << p) != 0)
                .fold(0, |acc, p| acc | 1 << renumber[p]);
        }
        // A subtree whose every triangle joined other parts has no box:
        // its joints count towards the trunk's.
        for part in &mut part_of_joint {
            *part = renumber[usize::from(*part)];
        }
        BodyParts {
            count: count.max(1),
            vertex_parts,
            joint_parts: part_of_joint,
        }
    }
}

/// Per joint, its part: that of the nearest ancestor (itself included)
/// rooting a part subtree, else the trunk's, 0. At most
/// `MAX_BODY_PARTS - 1` subtrees, the largest, become parts.
fn part_of_joint(skeleton: &Skeleton, meshes: &[SkinnedMesh]) -> Vec<u8> {
    let joints = skeleton.joint_count();
    let mut subtree = vec![0usize; joints];
    for mesh in meshes {
        for influences in &mesh.joints {
            if let Some(count) = subtree.get_mut(usize::from(influences[0])) {
                *count += 1;
            }
        }
    }
    let total: usize = subtree.iter().sum();
    // Parents come first: children add into them from the back.
    for joint in (0..joints).rev() {
        if let Some(parent) = skeleton.parents[joint] {
            subtree[usize::from(parent)] += subtree[joint];
        }
    }
    let limit = (total as f32 * PART_SHARE) as usize;
    let mut roots: Vec<usize> = (0..joints)
        .filter(|&j| {
            let parent_larger = skeleton.parents[j].is_none_or(|p| subtree[usize::from(p)] > limit);
            subtree[j] > 0 && subtree[j] <= limit && parent_larger
        })
        .collect();
    roots.sort_by_key(|&j| std::cmp::Reverse(subtree[j]));
    roots.truncate(MAX_BODY_PARTS - 1);
    let mut part = vec![0u8; joints];
    for joint in 0..joints {
        if let Some(index) = roots.iter().position(|&r| r == joint) {
            part[joint] = index as u8 + 1;
        } else if let Some(parent) = skeleton.parents[joint] {
            part[joint] = part[usize::from(parent)];
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::JointPose;
    use crate::skin::{InfluenceLimit, LodLevel};
    use glam::Vec3;

    /// Joint j dominates `vertices[j]` vertices, numbered joint by joint;
    /// no triangles.
    fn subject(parents: &[Option<u16>], vertices: &[usize]) -> (Skeleton, SkinnedMesh) {
        let skeleton = Skeleton {
            names: (0..parents.len()).map(|j| format!("j{j}")).collect(),
            parents: parents.to_vec(),
            bind_pose: vec![JointPose::IDENTITY; parents.len()],
            inverse_bind_pose: vec![JointPose::IDENTITY; parents.len()],
        };
        let mut mesh = SkinnedMesh::empty_for_tests(InfluenceLimit::Four);
        for (joint, &count) in vertices.iter().enumerate() {
            for _ in 0..count {
                mesh.positions.push(Vec3::ZERO);
                mesh.joints.push([joint as u16, 0, 0, 0, 0, 0, 0, 0]);
                mesh.weights.push([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
            }
        }
        (skeleton, mesh)
    }

    fn with_triangles(mut mesh: SkinnedMesh, indices: Vec<u32>) -> SkinnedMesh {
        mesh.lods = vec![LodLevel {
            indices,
            error: 0.0,
            influences: 1,
        }];
        mesh
    }

    #[test]
    fn subtrees_of_a_quarter_under_larger_ones_become_parts_largest_first() {
        // 0 trunk (40) -> 1 head (10), 2 arm (20) -> 3 hand (10), 4 leg (20):
        // the arm's subtree holds 30%, so its hand is the part.
        let parents = [None, Some(0), Some(0), Some(2), Some(0)];
        let (skeleton, mesh) = subject(&parents, &[40, 10, 20, 10, 20]);
        assert_eq!(part_of_joint(&skeleton, &[mesh]), vec![0, 2, 0, 3, 1]);
    }

    #[test]
    fn a_triangle_joins_the_part_of_most_corners_and_its_vertices_follow() {
        // Trunk vertices 0-3, head 4-5, arm 6-7.
        let parents = [None, Some(0), Some(0)];
        let (skeleton, mesh) = subject(&parents, &[4, 2, 2]);
        let mesh = with_triangles(
            mesh,
            vec![
                0, 1, 4, // trunk
                4, 5, 0, // head, vertex 0 joins it
                0, 4, 6, // three parts: trunk
            ],
        );
        let parts = BodyParts::of(&skeleton, &[mesh]);
        assert_eq!(parts.count, 3);
        assert_eq!(parts.joint_parts, [0, 1, 2]);
        let (trunk, head, arm) = (1, 2, 4);
        assert_eq!(
            parts.vertex_parts[0],
            vec![
                trunk | head,
                trunk,
                trunk, // in no triangle: its own part
                trunk,
                trunk | head,
                head,
                trunk, // only in the three-part triangle
                arm,   // in no triangle
            ]
        );
    }

    #[test]
    fn one_joint_is_one_part() {
        let (skeleton, mesh) = subject(&[None], &[5]);
        let parts = BodyParts::of(&skeleton, &[mesh]);
        assert_eq!(parts.count, 1);
        assert!(parts.vertex_parts[0].iter().all(|&b| b == 1));
        assert_eq!(parts.joint_parts, [0]);
    }
}
