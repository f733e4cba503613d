//! A mesh rewritten the ways converters and exporters write md5 files, not
//! the way id's exporter did (one vertex per position and uv, shared by every
//! triangle there): md5crowd must build the same levels of detail whatever
//! the split. Each rewrite draws the same surface; the text is written here,
//! with a converter's six-decimal floats, not by md5crowd's own writer.

use std::collections::HashMap;
use std::fmt::Write as _;

use glam::{Vec2, Vec3};
use md5crowd::md5::{Mesh, MeshJoint, Vert, Weight};

/// Every triangle with three vertices of its own, as a converter writes a
/// flat-shaded mesh (its normals differ per face, so no vertex is shared).
pub fn per_face(mesh: &Mesh) -> Mesh {
    let mut out = empty_like(mesh);
    for tri in &mesh.tris {
        let corners = tri.map(|v| copy_vert(mesh, v, &mut out));
        out.tris.push(corners);
    }
    out
}

/// Texture coordinates by cube projection, as a modelling tool's "cube
/// projection" unwrap gives a hard-surface mesh: each triangle takes the
/// axis its face points along most, each axis one cell of a 3x2 grid in
/// texture space, so vertices are split wherever neighbouring triangles
/// took different axes: a uv seam at every such edge.
pub fn cube_seams(mesh: &Mesh, joints: &[MeshJoint]) -> Mesh {
    let positions = bind_positions(mesh, joints);
    let (low, high) = positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(low, high), &p| (low.min(p), high.max(p)),
    );
    let unit = |p: Vec3| (p - low) / (high - low).max(Vec3::splat(1e-6));
    let mut out = empty_like(mesh);
    let mut split: HashMap<(u32, usize), u32> = HashMap::new();
    for tri in &mesh.tris {
        let [a, b, c] = tri.map(|v| positions[v as usize]);
        // md5 winds clockwise seen from outside.
        let face = (c - a).cross(b - a);
        let axis = face.abs().max_position();
        let cell = axis * 2 + usize::from(face[axis] < 0.0);
        let corners = tri.map(|v| {
            *split.entry((v, cell)).or_insert_with(|| {
                let copy = copy_vert(mesh, v, &mut out);
                let p = unit(positions[v as usize]);
                let plane = Vec2::new(p[(axis + 1) % 3], p[(axis + 2) % 3]);
                let origin = Vec2::new((cell % 3) as f32 / 3.0, (cell / 3) as f32 / 2.0);
                out.verts[copy as usize].uv = origin + plane * Vec2::new(1.0 / 3.0, 0.5) * 0.96;
                copy
            })
        });
        out.tris.push(corners);
    }
    out
}

/// Every vertex written twice (the triangles use either copy, corner by
/// corner), and degenerate triangles after every fourth one: one through a
/// vertex and its copy, one naming a vertex twice, as meshes welded by
/// position tolerance or with collapsed edges come out of some tools.
pub fn with_duplicates(mesh: &Mesh) -> Mesh {
    let mut out = empty_like(mesh);
    let copies: Vec<[u32; 2]> = (0..mesh.verts.len() as u32)
        .map(|v| [copy_vert(mesh, v, &mut out), copy_vert(mesh, v, &mut out)])
        .collect();
    for (t, tri) in mesh.tris.iter().enumerate() {
        let [a, b, c] = [0, 1, 2].map(|k| copies[tri[k] as usize][(t + k) % 2]);
        out.tris.push([a, b, c]);
        if t % 4 == 3 {
            let a_copy = copies[tri[0] as usize][(t + 1) % 2];
            out.tris.push([a, a_copy, b]);
            out.tris.push([c, c, b]);
        }
    }
    out
}

/// The mesh cut into meshes of at most `triangles` triangles each, every
/// one part of a single connected piece of the surface (a few rings of a
/// limb, a cap), as characters assembled from many small objects are
/// exported: one mesh block per object.
pub fn pieces(mesh: &Mesh, triangles: usize) -> Vec<Mesh> {
    // Connected pieces of the surface: triangles sharing a vertex.
    let mut parent: Vec<usize> = (0..mesh.verts.len()).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for tri in &mesh.tris {
        for k in 1..3 {
            let (a, b) = (
                root(&mut parent, tri[0] as usize),
                root(&mut parent, tri[k] as usize),
            );
            parent[a] = b;
        }
    }
    let mut by_piece: Vec<(usize, Vec<[u32; 3]>)> = Vec::new();
    for tri in &mesh.tris {
        let piece = root(&mut parent, tri[0] as usize);
        match by_piece.iter_mut().find(|(p, _)| *p == piece) {
            Some((_, tris)) => tris.push(*tri),
            None => by_piece.push((piece, vec![*tri])),
        }
    }
    by_piece
        .iter()
        .flat_map(|(_, tris)| tris.chunks(triangles))
        .map(|tris| {
            let mut piece = empty_like(mesh);
            let mut renumbered = HashMap::new();
            for tri in tris {
                let corners = tri.map(|v| {
                    *renumbered
                        .entry(v)
                        .or_insert_with(|| copy_vert(mesh, v, &mut piece))
                });
                piece.tris.push(corners);
            }
            piece
        })
        .collect()
}

/// An md5mesh as a converter writes it: six decimals, no comments.
pub fn md5mesh_text(commandline: &str, joints: &[MeshJoint], meshes: &[Mesh]) -> String {
    let mut out = String::new();
    writeln!(out, "MD5Version 10").unwrap();
    writeln!(out, "commandline \"{commandline}\"\n").unwrap();
    writeln!(out, "numJoints {}", joints.len()).unwrap();
    writeln!(out, "numMeshes {}\n", meshes.len()).unwrap();
    writeln!(out, "joints {{").unwrap();
    for joint in joints {
        let parent = joint.parent.map_or(-1, |p| p as i64);
        let (p, q) = (joint.position, joint.orientation);
        // md5 rebuilds w as -sqrt(...): store the quaternion with w <= 0.
        let q = if q.w > 0.0 { -q } else { q };
        writeln!(
            out,
            "\t\"{}\"\t{parent} ( {:.6} {:.6} {:.6} ) ( {:.6} {:.6} {:.6} )",
            joint.name, p.x, p.y, p.z, q.x, q.y, q.z
        )
        .unwrap();
    }
    writeln!(out, "}}").unwrap();
    for mesh in meshes {
        writeln!(out, "\nmesh {{\n\tshader \"{}\"\n", mesh.shader).unwrap();
        writeln!(out, "\tnumverts {}", mesh.verts.len()).unwrap();
        for (i, v) in mesh.verts.iter().enumerate() {
            writeln!(
                out,
                "\tvert {i} ( {:.6} {:.6} ) {} {}",
                v.uv.x, v.uv.y, v.start_weight, v.weight_count
            )
            .unwrap();
        }
        writeln!(out, "\n\tnumtris {}", mesh.tris.len()).unwrap();
        for (i, [a, b, c]) in mesh.tris.iter().enumerate() {
            writeln!(out, "\ttri {i} {a} {b} {c}").unwrap();
        }
        writeln!(out, "\n\tnumweights {}", mesh.weights.len()).unwrap();
        for (i, w) in mesh.weights.iter().enumerate() {
            let p = w.position;
            writeln!(
                out,
                "\tweight {i} {} {:.6} ( {:.6} {:.6} {:.6} )",
                w.joint, w.bias, p.x, p.y, p.z
            )
            .unwrap();
        }
        writeln!(out, "}}").unwrap();
    }
    out
}

fn empty_like(mesh: &Mesh) -> Mesh {
    Mesh {
        shader: mesh.shader.clone(),
        verts: Vec::new(),
        tris: Vec::new(),
        weights: Vec::new(),
    }
}

/// Appends vertex `v` of `from` to `to`, with a run of weights of its own
/// (converters write each vertex's weights apart, shared or not).
fn copy_vert(from: &Mesh, v: u32, to: &mut Mesh) -> u32 {
    let vert = from.verts[v as usize];
    let start = vert.start_weight as usize;
    let run = &from.weights[start..start + vert.weight_count as usize];
    to.verts.push(Vert {
        uv: vert.uv,
        start_weight: to.weights.len() as u32,
        weight_count: vert.weight_count,
    });
    to.weights.extend_from_slice(run);
    to.verts.len() as u32 - 1
}

/// Where the bind pose puts each vertex: its weights placed by their joints.
fn bind_positions(mesh: &Mesh, joints: &[MeshJoint]) -> Vec<Vec3> {
    mesh.verts
        .iter()
        .map(|vert| {
            let start = vert.start_weight as usize;
            mesh.weights[start..start + vert.weight_count as usize]
                .iter()
                .map(|w: &Weight| {
                    let joint = &joints[w.joint as usize];
                    w.bias * (joint.position + joint.orientation * w.position)
                })
                .sum()
        })
        .collect()
}
