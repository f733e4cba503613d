//! Writes the many-joint test subject (md5crowd::synthetic): a mesh
//! of JOINTS joints (default 110) whose vertices take up to 8 weights, and
//! two clips that bend every chain, for benches and manual soak runs. Given
//! MESHES, the tubes are cut into that many md5 meshes (many_parts_JOINTS.md5mesh),
//! a character of many parts, as tall as the shipped one, as in a mixed
//! crowd's benchmark.
//!
//! ```text
//! cargo run --release --example make_many_joints -- OUT_DIR [JOINTS [MESHES]]
//! cargo run --release -- OUT_DIR --influences 8 --skinning dqs
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use md5crowd::synthetic as many_joints;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), joints, meshes, None) = (args.next(), args.next(), args.next(), args.next())
    else {
        eprintln!("usage: make_many_joints OUT_DIR [JOINTS [MESHES]]");
        return ExitCode::from(2);
    };
    let meshes = match meshes.map(|m| m.to_string_lossy().parse::<usize>()) {
        None => None,
        Some(Ok(meshes)) if meshes >= 1 => Some(meshes),
        Some(_) => {
            eprintln!("make_many_joints: MESHES must be a whole number, at least 1");
            return ExitCode::from(2);
        }
    };
    let dir = PathBuf::from(dir);
    let joints = match joints.map(|j| j.to_string_lossy().parse::<usize>()) {
        None => many_joints::DEFAULT_JOINTS,
        Some(Ok(joints)) if joints >= 1 => joints,
        Some(_) => {
            eprintln!("make_many_joints: JOINTS must be a whole number, at least 1");
            return ExitCode::from(2);
        }
    };
    let written = match meshes {
        None => many_joints::write_many_joints(&dir, joints),
        Some(meshes) => many_joints::write_many_parts(&dir, joints, meshes, 20.0),
    };
    match written {
        Ok(written) => {
            let subject = many_joints::many_joints(joints);
            eprintln!(
                "{} joints, {} deep, {} vertices, {} triangles",
                subject.mesh.joints.len(),
                many_joints::depth(&subject.mesh),
                subject.mesh.meshes[0].verts.len(),
                subject.mesh.meshes[0].tris.len(),
            );
            for path in std::iter::once(&written.mesh).chain(&written.anims) {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "make_many_joints: cannot write into {}: {error}",
                dir.display()
            );
            ExitCode::FAILURE
        }
    }
}
