//! md5 structs to the runtime model: the only code that knows both. `anim` and
//! `skin` never see the file format (as ozz-animation keeps its offline
//! conversion apart from the runtime).

use glam::{Vec2, Vec3};

use crate::anim::{loops_by_rule, Clip, JointPose, Skeleton};
use crate::md5::{self, quat_from_xyz, Md5Anim, Md5Mesh};
use crate::skin::{
    select_influences, smooth_normals, tangents, InfluenceLimit, LodLevel, SkinnedMesh,
    TruncationReport, VertexColor,
};

/// Joint indices are 16-bit vertex attributes on the GPU, so callers
/// refuse meshes with more than [`Skeleton::MAX_JOINTS`] joints first.
pub fn skeleton_from_md5(mesh: &Md5Mesh) -> Skeleton {
    debug_assert!(mesh.joints.len() <= Skeleton::MAX_JOINTS);
    let bind_pose: Vec<JointPose> = mesh
        .joints
        .iter()
        .map(|j| JointPose::new(j.orientation.normalize(), j.position))
        .collect();
    Skeleton {
        names: mesh.joints.iter().map(|j| j.name.clone()).collect(),
        parents: mesh
            .joints
            .iter()
            .map(|j| j.parent.map(|p| p as u16))
            .collect(),
        inverse_bind_pose: bind_pose.iter().map(|p| p.inverse()).collect(),
        bind_pose,
    }
}

/// Moves the mesh by `offset` (a model declaration's `offset`): every
/// joint, as md5mesh joints are in model space and vertices follow the
/// joints their weights hang on.
pub fn offset_md5_mesh(mesh: &mut Md5Mesh, offset: Vec3) {
    for joint in &mut mesh.joints {
        joint.position += offset;
    }
}

/// Moves a clip by `offset`, as [`offset_md5_mesh`] moves its mesh: the
/// root joints of every frame (`roots[j]`: joint `j` has no parent), the
/// only joints posed in model space, and the file's boxes.
pub fn offset_clip(clip: &mut Clip, roots: &[bool], offset: Vec3) {
    for frame in &mut clip.frames {
        for (pose, _) in frame.iter_mut().zip(roots).filter(|(_, &root)| root) {
            pose.translation += offset;
        }
    }
    for bounds in &mut clip.bounds {
        if !bounds.is_empty() {
            bounds.min += offset;
            bounds.max += offset;
        }
    }
}

/// Applies each frame's animated components over the base frame, in the
/// order the flags list them (Tx Ty Tz Qx Qy Qz). The parser has already
/// checked that every joint's components lie inside each frame. Whether the
/// clip loops follows [`loops_by_rule`]; `bounds` are the file's
/// (`Model::load` grows them to the skinned poses').
pub fn clip_from_md5(name: &str, anim: &Md5Anim) -> Clip {
    let frames: Vec<Vec<JointPose>> = anim
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
    let roots: Vec<bool> = anim.hierarchy.iter().map(|j| j.parent.is_none()).collect();
    Clip {
        morphs: Default::default(),
        name: name.to_owned(),
        frame_rate: anim.frame_rate,
        looping: loops_by_rule(name, &frames, &roots),
        frames,
        bounds: anim.bounds.clone(),
    }
}

/// The parser guarantees what is indexed here: weight ranges inside the
/// mesh, joints inside the skeleton, triangle corners inside the vertices.
/// Vertices and triangles keep the file's order, and `lods` holds LOD 0
/// only: `Model::load` adds the chain and the GPU order.
pub fn skinned_mesh_from_md5(
    mesh: &md5::Mesh,
    skeleton: &Skeleton,
    limit: InfluenceLimit,
) -> SkinnedMesh {
    let mut truncation = TruncationReport::default();
    let mut positions = Vec::with_capacity(mesh.verts.len());
    let mut joints = Vec::with_capacity(mesh.verts.len());
    let mut weights = Vec::with_capacity(mesh.verts.len());
    let mut vertex_weights = Vec::new();

    for vert in &mesh.verts {
        let start = vert.start_weight as usize;
        let range = &mesh.weights[start..start + vert.weight_count as usize];
        positions.push(range.iter().fold(Vec3::ZERO, |sum, w| {
            sum + w.bias * skeleton.bind_pose[w.joint as usize].transform_point(w.position)
        }));

        vertex_weights.clear();
        vertex_weights.extend(range.iter().map(|w| (w.joint as u16, w.bias)));
        let selected = select_influences(&vertex_weights, limit);
        truncation.record(&selected, limit);
        joints.push(selected.joints);
        weights.push(selected.weights);
    }

    let indices: Vec<u32> = mesh.tris.iter().flatten().copied().collect();
    let uvs: Vec<Vec2> = mesh.verts.iter().map(|v| v.uv).collect();
    let normals = smooth_normals(&positions, &indices);
    let tangents = tangents(&positions, &normals, &uvs, &indices);
    SkinnedMesh {
        morph_targets: Vec::new(),
        shader: mesh.shader.clone(),
        positions,
        normals,
        tangents,
        colors: vec![VertexColor::WHITE; uvs.len()],
        uvs,
        joints,
        weights,
        lods: vec![LodLevel::finest(indices.clone())],
        indices,
        short_chain: None,
        limit,
        truncation,
    }
}
