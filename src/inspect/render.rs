//! The reports written out: as text for people, one block per file or
//! declaration, and as JSON for programs.

use std::fmt::Write as _;

use super::{AnimReport, FileReport, ImpostorReport, LodReport, MeshReport, MorphTargetReport};
use crate::anim::GroundMotionSource;
use crate::material::{AlphaMode, Shading};

pub fn to_json(reports: &[FileReport]) -> String {
    serde_json::to_string_pretty(reports).expect("reports serialize")
}

/// `metallic-roughness, MASK at 0.5, double-sided`, in the JSON's names.
fn material_text(shading: &Shading) -> String {
    let name = |value: serde_json::Value| value.as_str().unwrap_or_default().to_owned();
    let mut text = format!(
        "{}, {}",
        name(serde_json::json!(shading.model)),
        name(serde_json::json!(shading.alpha))
    );
    if shading.alpha == AlphaMode::Mask {
        write!(text, " at {}", shading.alpha_cutoff).unwrap();
    }
    if shading.double_sided {
        text.push_str(", double-sided");
    }
    text
}

pub fn to_text(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        match report {
            FileReport::Mesh(m) => {
                let kind = if m.format == "gltf" {
                    "glTF"
                } else {
                    "md5mesh"
                };
                writeln!(out, "{} ({kind})", m.file).unwrap();
                writeln!(out, "  joints: {}", m.joints).unwrap();
                for (i, s) in m.meshes.iter().enumerate() {
                    writeln!(
                        out,
                        "  mesh {i}: shader \"{}\": {} verts, {} tris, {} weights",
                        s.shader, s.verts, s.tris, s.weights
                    )
                    .unwrap();
                    if m.format == "gltf" {
                        writeln!(out, "    material: {}", material_text(&s.material)).unwrap();
                    }
                    if let Some(note) = &s.lod_note {
                        writeln!(out, "    short LOD chain: {note}").unwrap();
                    }
                    for target in &s.morph_targets {
                        writeln!(out, "    {}", morph_target_text(target)).unwrap();
                    }
                }
                writeln!(
                    out,
                    "  total: {} verts, {} tris, {} weights",
                    m.verts, m.tris, m.weights
                )
                .unwrap();
                writeln!(
                    out,
                    "  influences: at most {} per vertex; {} vertices over 4, {} over 8; largest weight dropped at 4: {:.4}",
                    m.max_influences, m.over4, m.over8, m.max_dropped_weight
                )
                .unwrap();
                writeln!(out, "  LODs: {}", lod_chain_text(&m.lods)).unwrap();
                writeln!(out, "  influences per level: {}", lod_influences_text(m)).unwrap();
                writeln!(
                    out,
                    "  body parts (occlusion boxes): {}",
                    body_parts_text(m)
                )
                .unwrap();
                writeln!(out, "  {}", impostor_text(&m.impostor)).unwrap();
            }
            FileReport::Anim(a) => {
                match a.format {
                    "gltf" => writeln!(out, "{}: animation \"{}\"", a.file, a.name).unwrap(),
                    _ => writeln!(out, "{} (md5anim)", a.file).unwrap(),
                }
                writeln!(
                    out,
                    "  joints: {}, frames: {} at {} fps ({:.3} s, {}), animated components: {}",
                    a.joints,
                    a.frames,
                    a.frame_rate,
                    a.duration,
                    if a.loops { "loops" } else { "plays once" },
                    a.animated_components
                )
                .unwrap();
                if a.morph_channels > 0 {
                    writeln!(out, "  morph weight channels: {}", a.morph_channels).unwrap();
                }
                writeln!(out, "  {}", ground_speed_text(a)).unwrap();
                match &a.name_mismatches {
                    Some(m) if m.is_empty() => {
                        writeln!(out, "  fits the mesh: joint names and parents match").unwrap()
                    }
                    Some(m) => {
                        writeln!(
                            out,
                            "  fits the mesh by index; {} joint names differ:",
                            m.len()
                        )
                        .unwrap();
                        for line in m {
                            writeln!(out, "    {line}").unwrap();
                        }
                    }
                    None => {}
                }
            }
            FileReport::Declaration(d) => {
                writeln!(
                    out,
                    "{} ({}, {}:{})",
                    d.name, d.declared_as, d.source, d.line
                )
                .unwrap();
                writeln!(out, "  mesh: {}", d.mesh).unwrap();
                let clips: Vec<&str> = d.anims.keys().map(String::as_str).collect();
                writeln!(out, "  clips: {}: {}", clips.len(), clips.join(", ")).unwrap();
                if let Some(skin) = &d.skin {
                    writeln!(out, "  skin: {skin}").unwrap();
                }
                if d.offset != [0.0; 3] {
                    let [x, y, z] = d.offset;
                    writeln!(out, "  offset: ({x} {y} {z})").unwrap();
                }
                if !d.channels.is_empty() {
                    writeln!(out, "  channels: {}", d.channels.join(", ")).unwrap();
                }
                writeln!(out, "  {}", impostor_text(&d.impostor)).unwrap();
            }
        }
    }
    out
}

/// `morph target "Smile": 412 verts, animated by idle, wave`.
fn morph_target_text(target: &MorphTargetReport) -> String {
    let clips = if target.clips.is_empty() {
        "animated by no clip".to_owned()
    } else {
        format!("animated by {}", target.clips.join(", "))
    };
    format!(
        "morph target \"{}\": {} verts, {clips}",
        target.name, target.vertices
    )
}

/// `ground speed: 50.2 units/s along (1.00, 0.00, 0.00), from the feet`.
fn ground_speed_text(report: &AnimReport) -> String {
    let how = match report.ground_source {
        GroundMotionSource::Still => return "ground speed: 0 (on the spot)".to_owned(),
        GroundMotionSource::Feet => "from the feet",
        GroundMotionSource::RootMotion => "root motion (md5crowd plays the clip in place)",
    };
    let [x, y, z] = report.ground_velocity.map(|v| v / report.ground_speed);
    format!(
        "ground speed: {:.1} units/s along ({x:.2}, {y:.2}, {z:.2}), {how}",
        report.ground_speed
    )
}

/// `5920 tris, 2970 (err 0.19), ..., 52 (err 15.37)`; error in model units.
fn lod_chain_text(lods: &[LodReport]) -> String {
    let mut text = String::new();
    for (k, lod) in lods.iter().enumerate() {
        if k == 0 {
            write!(text, "{} tris", lod.tris).unwrap();
        } else {
            write!(text, ", {} (err {:.2})", lod.tris, lod.error).unwrap();
        }
    }
    text
}

/// `4 4 4 4 2 2 1 1 (over the poses of 4 anims)`.
fn lod_influences_text(report: &MeshReport) -> String {
    let counts: Vec<String> = report.lod_influences.iter().map(usize::to_string).collect();
    let over = match report.lod_anims {
        0 => "no anims named: the bind pose, where one is exact".to_owned(),
        1 => "over the poses of 1 anim".to_owned(),
        n => format!("over the poses of {n} anims"),
    };
    format!("{} ({over})", counts.join(" "))
}

/// `impostor atlas: 48 views x 48 frames, 24.0 MiB`.
fn impostor_text(impostor: &ImpostorReport) -> String {
    format!(
        "impostor atlas: {} views x {} frames a clip, {} clip(s) at once, {:.1} MiB",
        impostor.views,
        impostor.frames_per_clip,
        impostor.slots,
        impostor.bytes as f64 / f64::from(1 << 20)
    )
}

/// Each part as its first joint and how many more: `neck (+1)`.
fn body_parts_text(report: &MeshReport) -> String {
    let parts: Vec<String> = report
        .body_parts
        .iter()
        .map(|part| match part.joints.as_slice() {
            [] => "(no joints)".to_owned(),
            [only] => only.clone(),
            [first, rest @ ..] => format!("{first} (+{})", rest.len()),
        })
        .collect();
    format!("{}: {}", parts.len(), parts.join(", "))
}
