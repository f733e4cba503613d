//! The `.md5mesh` grammar:
//!
//! ```text
//! MD5Version 10
//! commandline "..."
//! numJoints N
//! numMeshes M
//! joints { "name" parent ( px py pz ) ( qx qy qz )   ...N times }
//! mesh {                                             ...M times
//!     shader "..."
//!     numverts V    vert i ( s t ) startWeight countWeight     ...V times
//!     numtris T     tri i a b c                                ...T times
//!     numweights W  weight i joint bias ( x y z )              ...W times
//! }
//! ```
//!
//! Besides the syntax, every cross-reference is checked here (triangle to
//! vert, vert to weight, weight to joint, joint to parent), so code that
//! consumes an [`Md5Mesh`] can index without checking.

use super::lexer::Token;
use super::parser::{Parser, Result};
use super::{Md5Error, Md5Mesh, Mesh, MeshJoint, Vert, Weight};

// The shortest text each entry can take: header counts reserve no more
// entries than the rest of the file could hold.
const MIN_JOINT_BYTES: usize = r#"""0(0 0 0)(0 0 0)"#.len();
const MIN_MESH_BYTES: usize = r#"mesh{shader""numverts 0 numtris 0 numweights 0}"#.len();
const MIN_VERT_BYTES: usize = "vert 0(0 0)0 1".len();
const MIN_TRI_BYTES: usize = "tri 0 0 0 0".len();
const MIN_WEIGHT_BYTES: usize = "weight 0 0 0(0 0 0)".len();

/// Parses an `.md5mesh`; `file` names the text in error messages.
pub fn parse_mesh(text: &str, file: &str) -> std::result::Result<Md5Mesh, Md5Error> {
    let mut p = Parser::new(text, file);
    let commandline = p.header()?;

    p.keyword("numJoints")?;
    let (num_joints, token) = p.count("numJoints")?;
    if num_joints == 0 {
        return Err(p.error(&token, "numJoints is 0, a mesh needs at least one joint"));
    }
    p.keyword("numMeshes")?;
    let (num_meshes, _) = p.count("numMeshes")?;

    let joints = joints(&mut p, num_joints)?;
    let mut meshes = Vec::with_capacity(p.capacity(num_meshes, MIN_MESH_BYTES));
    for i in 0..num_meshes {
        p.keyword_described("mesh", || format!("mesh {i} of {num_meshes}"))?;
        meshes.push(mesh(&mut p, num_joints)?);
    }
    p.end_of_file(|| format!("end of file after {num_meshes} meshes (numMeshes {num_meshes})"))?;

    Ok(Md5Mesh {
        commandline,
        joints,
        meshes,
    })
}

fn joints(p: &mut Parser, num_joints: u32) -> Result<Vec<MeshJoint>> {
    p.keyword("joints")?;
    p.bracket("{")?;
    let mut joints = Vec::with_capacity(p.capacity(num_joints, MIN_JOINT_BYTES));
    for i in 0..num_joints {
        let name = p.string_described(|| format!("joint {i} of {num_joints} (a quoted name)"))?;
        joints.push(MeshJoint {
            name: name.to_owned(),
            parent: p.parent(i)?,
            position: p.vec3()?,
            orientation: p.orientation()?,
        });
    }
    p.bracket_described("}", || {
        format!("'}}' after {num_joints} joints (numJoints {num_joints})")
    })?;
    Ok(joints)
}

fn mesh(p: &mut Parser, num_joints: u32) -> Result<Mesh> {
    p.bracket("{")?;
    p.keyword("shader")?;
    let shader = p.string()?.to_owned();

    p.keyword("numverts")?;
    let (num_verts, _) = p.count("numverts")?;
    let capacity = p.capacity(num_verts, MIN_VERT_BYTES);
    let mut verts = Vec::with_capacity(capacity);
    // Weights come after the verts that use them: remember where each vert's
    // range was written to point there once the weight count is known.
    let mut start_weight_offsets = Vec::with_capacity(capacity);
    for i in 0..num_verts {
        p.keyword_described("vert", || format!("vert {i} of {num_verts}"))?;
        p.entry_index("vert", i)?;
        let uv = p.vec2()?;
        let (start_weight, start_token) = p.count("startWeight")?;
        let (weight_count, count_token) = p.count("countWeight")?;
        if weight_count == 0 {
            return Err(p.error(
                &count_token,
                format!("vert {i} has countWeight 0, expected at least 1"),
            ));
        }
        verts.push(Vert {
            uv,
            start_weight,
            weight_count,
        });
        start_weight_offsets.push(start_token.offset);
    }

    p.keyword_described("numtris", || {
        format!("'numtris' after {num_verts} verts (numverts {num_verts})")
    })?;
    let (num_tris, _) = p.count("numtris")?;
    let mut tris = Vec::with_capacity(p.capacity(num_tris, MIN_TRI_BYTES));
    for i in 0..num_tris {
        p.keyword_described("tri", || format!("tri {i} of {num_tris}"))?;
        p.entry_index("tri", i)?;
        let mut corners = [0; 3];
        for corner in &mut corners {
            let (vert, token) = p.count("tri vert index")?;
            check_below(p, &token, vert, num_verts, || {
                format!("tri {i} uses vert {vert} but the mesh has {num_verts} verts")
            })?;
            *corner = vert;
        }
        tris.push(corners);
    }

    p.keyword_described("numweights", || {
        format!("'numweights' after {num_tris} tris (numtris {num_tris})")
    })?;
    let (num_weights, _) = p.count("numweights")?;
    let mut weights = Vec::with_capacity(p.capacity(num_weights, MIN_WEIGHT_BYTES));
    for i in 0..num_weights {
        p.keyword_described("weight", || format!("weight {i} of {num_weights}"))?;
        p.entry_index("weight", i)?;
        let (joint, token) = p.count("weight joint index")?;
        check_below(p, &token, joint, num_joints, || {
            format!("weight {i} uses joint {joint} but numJoints is {num_joints}")
        })?;
        weights.push(Weight {
            joint,
            bias: p.float()?,
            position: p.vec3()?,
        });
    }

    p.bracket_described("}", || {
        format!("'}}' after {num_weights} weights (numweights {num_weights})")
    })?;
    for (i, (vert, &offset)) in verts.iter().zip(&start_weight_offsets).enumerate() {
        let end = u64::from(vert.start_weight) + u64::from(vert.weight_count);
        if end > u64::from(num_weights) {
            return Err(p.error_at(
                offset,
                format!(
                    "vert {i} uses weights {}..{end} but numweights is {num_weights}",
                    vert.start_weight
                ),
            ));
        }
    }
    Ok(Mesh {
        shader,
        verts,
        tris,
        weights,
    })
}

fn check_below(
    p: &Parser,
    token: &Token,
    index: u32,
    limit: u32,
    message: impl FnOnce() -> String,
) -> Result<()> {
    if index < limit {
        Ok(())
    } else {
        Err(p.error(token, message()))
    }
}
