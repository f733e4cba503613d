//! The CPU reference jobs on hand-checkable inputs: bind pose from weights,
//! flags over the base frame, hierarchy, skinning transforms and skinning.

use glam::{Quat, Vec2, Vec3};
use md5crowd::anim::{
    local_to_model, sample_clip, skinning_transforms, JointPose, SkinningTransform,
};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{BaseJoint, HierarchyJoint, Md5Anim, Md5Mesh, Mesh, MeshJoint, Vert, Weight};
use md5crowd::model::{clip_from_md5, skeleton_from_md5, skinned_mesh_from_md5};
use md5crowd::skin::{skin_vertices, InfluenceLimit, SkinningMethod, SurfaceVertex};

/// Two joints: `root` at the origin, `arm` at (0, 0, 10) rotated 90 degrees
/// about Z (so its local +X points along model +Y).
fn two_joint_mesh() -> Md5Mesh {
    let quarter_turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let joints = vec![
        MeshJoint {
            name: "root".into(),
            parent: None,
            position: Vec3::ZERO,
            orientation: Quat::IDENTITY,
        },
        MeshJoint {
            name: "arm".into(),
            parent: Some(0),
            position: Vec3::new(0.0, 0.0, 10.0),
            orientation: quarter_turn,
        },
    ];
    let weights = vec![
        // Vertex 0: only the arm, 2 units along its local +X.
        Weight {
            joint: 1,
            bias: 1.0,
            position: Vec3::new(2.0, 0.0, 0.0),
        },
        // Vertex 1: half root at (4,0,0), half arm at local (0,0,0).
        Weight {
            joint: 0,
            bias: 0.5,
            position: Vec3::new(4.0, 0.0, 0.0),
        },
        Weight {
            joint: 1,
            bias: 0.5,
            position: Vec3::ZERO,
        },
        // Vertex 2: only the root.
        Weight {
            joint: 0,
            bias: 1.0,
            position: Vec3::new(0.0, 3.0, 0.0),
        },
    ];
    let verts = vec![
        Vert {
            uv: Vec2::new(0.0, 0.0),
            start_weight: 0,
            weight_count: 1,
        },
        Vert {
            uv: Vec2::new(1.0, 0.0),
            start_weight: 1,
            weight_count: 2,
        },
        Vert {
            uv: Vec2::new(0.0, 1.0),
            start_weight: 3,
            weight_count: 1,
        },
    ];
    Md5Mesh {
        commandline: String::new(),
        joints,
        meshes: vec![Mesh {
            shader: "test".into(),
            verts,
            tris: vec![[0, 1, 2]],
            weights,
        }],
    }
}

#[test]
fn bind_pose_positions_by_hand() {
    let md5 = two_joint_mesh();
    let skeleton = skeleton_from_md5(&md5);
    let mesh = skinned_mesh_from_md5(&md5.meshes[0], &skeleton, InfluenceLimit::Four);
    // arm's local +X is model +Y: (0, 2, 10).
    assert!(
        mesh.positions[0].abs_diff_eq(Vec3::new(0.0, 2.0, 10.0), 1e-5),
        "{}",
        mesh.positions[0]
    );
    // 0.5 * (4, 0, 0) + 0.5 * (0, 0, 10).
    assert!(mesh.positions[1].abs_diff_eq(Vec3::new(2.0, 0.0, 5.0), 1e-5));
    assert!(mesh.positions[2].abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-5));
    assert_eq!(mesh.joints[1][..2], [0, 1]);
    assert_eq!(mesh.indices, vec![0, 1, 2]);
    for n in &mesh.normals {
        assert!((n.length() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn identity_animation_leaves_the_bind_pose() {
    let md5 = two_joint_mesh();
    let skeleton = skeleton_from_md5(&md5);
    let mesh = skinned_mesh_from_md5(&md5.meshes[0], &skeleton, InfluenceLimit::Four);
    let mut transforms = vec![SkinningTransform::default(); 2];
    skinning_transforms(
        &skeleton.bind_pose,
        &skeleton.inverse_bind_pose,
        &mut transforms,
    );
    let mut skinned = vec![SurfaceVertex::default(); 3];
    skin_vertices(
        &mesh,
        &transforms,
        &[],
        SkinningMethod::Linear,
        &mut skinned,
    );
    let positions: Vec<Vec3> = skinned.iter().map(|v| v.position).collect();
    let normals: Vec<Vec3> = skinned.iter().map(|v| v.normal).collect();
    for (skinned, bind) in positions.iter().zip(&mesh.positions) {
        assert!(skinned.abs_diff_eq(*bind, 1e-5), "{skinned} != {bind}");
    }
    for (skinned, bind) in normals.iter().zip(&mesh.normals) {
        assert!(skinned.abs_diff_eq(*bind, 1e-5));
    }
}

#[test]
fn bending_the_arm_moves_only_its_vertices() {
    let md5 = two_joint_mesh();
    let skeleton = skeleton_from_md5(&md5);
    let mesh = skinned_mesh_from_md5(&md5.meshes[0], &skeleton, InfluenceLimit::Four);
    // Local poses: the arm turns a further 90 degrees about its parent's Z.
    let bind_local = [
        skeleton.bind_pose[0],
        skeleton.bind_pose[0].inverse().then(skeleton.bind_pose[1]),
    ];
    let bent = [
        bind_local[0],
        JointPose::new(
            Quat::from_rotation_z(std::f32::consts::PI),
            bind_local[1].translation,
        ),
    ];
    let mut model = [JointPose::IDENTITY; 2];
    local_to_model(&skeleton.parents, &bent, &mut model);
    let mut transforms = [SkinningTransform::default(); 2];
    skinning_transforms(&model, &skeleton.inverse_bind_pose, &mut transforms);
    let mut skinned = vec![SurfaceVertex::default(); 3];
    skin_vertices(
        &mesh,
        &transforms,
        &[],
        SkinningMethod::Linear,
        &mut skinned,
    );
    let positions: Vec<Vec3> = skinned.iter().map(|v| v.position).collect();
    // The arm now points along model -X: its vertex moves from (0,2,10) to (-2,0,10).
    assert!(
        positions[0].abs_diff_eq(Vec3::new(-2.0, 0.0, 10.0), 1e-4),
        "{}",
        positions[0]
    );
    // Linear blend of the bind position (2,0,5): unmoved by the root, turned
    // 90 degrees about the arm joint (0,0,10) by the arm -> (0,2,5). Equal
    // biases quantize to 128/255 (the lower joint index takes the odd level).
    let (w0, w1) = (128.0 / 255.0, 127.0 / 255.0);
    let expected = w0 * Vec3::new(2.0, 0.0, 5.0) + w1 * Vec3::new(0.0, 2.0, 5.0);
    assert!(
        positions[1].abs_diff_eq(expected, 1e-4),
        "{} != {expected}",
        positions[1]
    );
    assert!(positions[2].abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-5));
}

#[test]
fn flags_override_only_their_components() {
    // Joint 0 animates Tz only (flag 4); joint 1 animates Qx Qz (flags 8 | 32).
    let anim = Md5Anim {
        commandline: String::new(),
        frame_rate: 24.0,
        num_animated_components: 3,
        hierarchy: vec![
            HierarchyJoint {
                name: "root".into(),
                parent: None,
                flags: 4,
                start_index: 0,
            },
            HierarchyJoint {
                name: "arm".into(),
                parent: Some(0),
                flags: 8 | 32,
                start_index: 1,
            },
        ],
        bounds: vec![
            Bounds {
                min: Vec3::splat(-1.0),
                max: Vec3::splat(1.0)
            };
            2
        ],
        baseframe: vec![
            BaseJoint {
                position: Vec3::new(1.0, 2.0, 3.0),
                orientation: Quat::IDENTITY,
            },
            BaseJoint {
                position: Vec3::new(0.0, 0.0, 10.0),
                orientation: md5crowd::md5::quat_from_xyz(0.0, 0.6, 0.0),
            },
        ],
        frames: vec![vec![7.0, 0.0, 0.0], vec![8.0, 0.1, 0.2]],
    };
    let clip = clip_from_md5("test", &anim);
    assert_eq!(clip.frames[0][0].translation, Vec3::new(1.0, 2.0, 7.0));
    assert_eq!(clip.frames[1][0].translation, Vec3::new(1.0, 2.0, 8.0));
    let q = clip.frames[1][1].rotation;
    assert_eq!((q.x, q.y, q.z), (0.1, 0.6, 0.2));
    assert!(
        (q.w + (1.0f32 - 0.01 - 0.36 - 0.04).sqrt()).abs() < 1e-6,
        "w is the negative root"
    );
    assert!((clip.duration() - 1.0 / 24.0).abs() < 1e-6);

    let mut local = [JointPose::IDENTITY; 2];
    sample_clip(&clip, 0.5 / 24.0, &mut local);
    assert!(local[0]
        .translation
        .abs_diff_eq(Vec3::new(1.0, 2.0, 7.5), 1e-5));
}
