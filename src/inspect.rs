//! `md5crowd inspect`: what is in a set of md5 files, as text or JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use glam::Vec3;

use crate::anim::{close_loop, ground_motion, Clip, GroundMotion, GroundMotionSource, Skeleton};
use crate::bounds::Bounds;
use crate::crowd::{ImpostorLayout, IMPOSTOR_MEMORY_BUDGET};
use crate::decl::{DeclKind, Declared};
use crate::game::Game;
use crate::gltf::{is_gltf_extension, GltfError};
use crate::md5::{self, Md5Anim, Md5Error, Md5Mesh};
use crate::model::{
    bind_pose_bounds, build_mesh_levels, choose_level_influences, clip_from_md5,
    impostor_layout_of, skeleton_from_md5, skinned_mesh_from_md5, LoadOptions, Model,
};
use crate::skin::{BodyParts, InfluenceLimit, SkinnedMesh};
use crate::vfs::GameFile;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FileReport {
    Mesh(MeshReport),
    Anim(AnimReport),
    /// A game folder's model or entityDef declaration that draws an md5
    /// character (`inspect --game`).
    Declaration(DeclarationReport),
}

/// What a declaration draws, as `md5crowd --game DIR NAME` would load it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeclarationReport {
    pub name: String,
    /// "model" or "entityDef".
    pub declared_as: &'static str,
    /// The mesh's path in the game.
    pub mesh: String,
    /// Clip name to the file it plays (the first the declaration names).
    pub anims: BTreeMap<String, String>,
    pub skin: Option<String>,
    pub offset: [f32; 3],
    /// Where it is declared: the archive (or folder) and the path in it.
    pub source: String,
    pub line: u32,
    /// The impostor atlas of its clips the game holds, with one skin.
    pub impostor: ImpostorReport,
}

#[derive(Clone, Debug, Serialize)]
pub struct MeshReport {
    pub file: String,
    /// "md5" or "gltf".
    pub format: &'static str,
    pub joints: usize,
    pub meshes: Vec<SubmeshReport>,
    pub verts: usize,
    pub tris: usize,
    pub weights: usize,
    /// Most distinct joints moving one vertex.
    pub max_influences: usize,
    /// Vertices that 4 (the default) or 8 influences truncate.
    pub over4: usize,
    pub over8: usize,
    /// Largest weight that 4 influences drop.
    pub max_dropped_weight: f32,
    /// The levels of detail `Model::load` builds, LOD 0 first, over all
    /// meshes (see [`summed_lods`]).
    pub lods: Vec<LodReport>,
    /// Per level, the most joints per vertex any mesh's level skins with
    /// (`skin::lod_influences`), chosen over the poses of the anims named
    /// in the same call (none: the bind pose, where one is exact).
    pub lod_influences: Vec<usize>,
    /// How many anims those poses came from (the first mesh named gets
    /// the anims that fit it; any other, none).
    pub lod_anims: usize,
    /// The body parts occlusion culling boxes apart (`skin::BodyParts`),
    /// the trunk first.
    pub body_parts: Vec<BodyPartReport>,
    /// The impostor atlas `Model::load` makes of the mesh with the anims
    /// of `lod_anims`, drawn with its own materials (one skin).
    pub impostor: ImpostorReport,
}

/// What an impostor atlas holds (`crowd::ImpostorLayout`), the model drawn
/// alone (its atlas takes the whole `crowd::IMPOSTOR_MEMORY_BUDGET`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ImpostorReport {
    /// View directions: a column of cells each.
    pub views: u32,
    /// Rows of cells: the frames of every slot.
    pub frames: u32,
    /// Frames of each clip baked, whatever the number of clips.
    pub frames_per_clip: u32,
    /// Clips the atlas holds at once, each baked when the crowd first
    /// wants it: at most the model's clips.
    pub slots: u32,
    /// Device memory, every mip level, slot and skin counted.
    pub bytes: u64,
}

impl From<ImpostorLayout> for ImpostorReport {
    fn from(layout: ImpostorLayout) -> ImpostorReport {
        ImpostorReport {
            views: layout.views(),
            frames: layout.frames(),
            frames_per_clip: layout.frames_per_clip,
            slots: layout.slots,
            bytes: layout.bytes(),
        }
    }
}

/// One body part: the joints whose vertices it boxes, parents first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BodyPartReport {
    pub joints: Vec<String>,
}

/// One level of detail of a whole model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LodReport {
    /// Triangles of every mesh at this level.
    pub tris: usize,
    /// The largest of the meshes' errors at this level, in model units.
    pub error: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct SubmeshReport {
    pub shader: String,
    pub verts: usize,
    pub tris: usize,
    pub weights: usize,
    /// Why this mesh's LOD chain stops short of its coarsest target
    /// (`skin::ShortChain`); null when it does not.
    pub lod_note: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnimReport {
    pub file: String,
    /// The clip's name: an md5anim's file stem, a glTF animation's own.
    pub name: String,
    /// "md5" or "gltf".
    pub format: &'static str,
    pub joints: usize,
    pub frames: usize,
    pub frame_rate: f32,
    /// Seconds as played: a loop written without its closing frame plays
    /// one frame longer than `frames` says (`anim::close_loop`).
    pub duration: f32,
    pub animated_components: u32,
    /// Whether the clip loops or plays once, by `anim::loops_by_rule` (the
    /// renderer's `--loop` / `--once` can say otherwise).
    pub loops: bool,
    /// Against the first mesh named in the same call: joint names that differ
    /// (bound by index, as the loader does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_mismatches: Option<Vec<String>>,
    /// Model units per second that the clip carries the character over the
    /// ground, by its root motion or its feet (`anim::ground_motion`).
    pub ground_speed: f32,
    /// Direction of travel times `ground_speed`, in the md5's model space.
    pub ground_velocity: [f32; 3],
    #[serde(skip)]
    pub ground_source: GroundMotionSource,
}

/// Reads every file (kind by extension: `.md5anim` is an anim, anything else
/// a mesh) and checks each anim against the first mesh given. Stops at the
/// first invalid file.
pub fn inspect_files(paths: &[PathBuf]) -> Result<Vec<FileReport>, InspectError> {
    let mut first_mesh: Option<(String, Md5Mesh)> = None;
    // Where the first mesh's report is, and the clips of the anims checked
    // against it: its levels' influences are chosen over their poses, as
    // `Model::load` chooses them.
    let mut first_mesh_report = None;
    let mut fitting_clips = Vec::new();
    let mut reports = Vec::with_capacity(paths.len());
    for path in paths {
        let file = path.display().to_string();
        if is_gltf_extension(&GameFile::loose(path).extension()) {
            reports.extend(gltf_reports(file, path)?);
            continue;
        }
        let is_anim = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md5anim"));
        if is_anim {
            let anim = md5::read_anim_file(path)?;
            let name_mismatches = match &first_mesh {
                Some((mesh_file, mesh)) => {
                    Some(md5::check_anim_fits_mesh(mesh, mesh_file, &anim, &file)?)
                }
                None => None,
            };
            let mut clip = clip_from_md5(&GameFile::loose(path).file_stem(), &anim);
            if clip.looping {
                // As `Model::load` plays it: a loop without its closing
                // frame gets it, one frame longer than the file.
                let roots: Vec<bool> = anim.hierarchy.iter().map(|j| j.parent.is_none()).collect();
                close_loop(&mut clip, &roots);
            }
            let motion = anim_parents(&anim).map_or(GroundMotion::STILL, |parents| {
                ground_motion(&parents, &clip)
            });
            let fits = name_mismatches.is_some();
            reports.push(FileReport::Anim(anim_report(
                file,
                &anim,
                &clip,
                name_mismatches,
                motion,
            )));
            if fits {
                fitting_clips.push(clip);
            }
        } else {
            let mesh = md5::read_mesh_file(path)?;
            first_mesh_report.get_or_insert(reports.len());
            reports.push(FileReport::Mesh(mesh_report(file.clone(), &mesh, &[])));
            first_mesh.get_or_insert((file, mesh));
        }
    }
    if let (Some(index), Some((file, mesh))) = (first_mesh_report, first_mesh) {
        if !fitting_clips.is_empty() {
            reports[index] = FileReport::Mesh(mesh_report(file, &mesh, &fitting_clips));
        }
    }
    Ok(reports)
}

/// Why `inspect` could not read a file.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error(transparent)]
    Md5(#[from] Md5Error),
    #[error(transparent)]
    Gltf(#[from] GltfError),
}

/// A glTF file as the md5 objects report it: the model `Model::load_gltf`
/// makes (4 influences), one mesh object and one anim object per
/// animation.
fn gltf_reports(file: String, path: &Path) -> Result<Vec<FileReport>, GltfError> {
    let model = Model::load_gltf(&GameFile::loose(path), &LoadOptions::default())?;
    let meshes: Vec<SubmeshReport> = model
        .meshes
        .iter()
        .map(|m| SubmeshReport {
            shader: m.shader.clone(),
            verts: m.vertex_count(),
            tris: m.triangle_count(),
            weights: kept_weights(m),
            lod_note: m.short_chain.map(|short| short.to_string()),
        })
        .collect();
    let truncation = |f: fn(&SkinnedMesh) -> usize| model.meshes.iter().map(f).sum::<usize>();
    let mesh = MeshReport {
        file: file.clone(),
        format: "gltf",
        joints: model.skeleton.joint_count(),
        verts: model.vertex_count(),
        tris: model.triangle_count(),
        weights: meshes.iter().map(|m| m.weights).sum(),
        meshes,
        max_influences: model
            .meshes
            .iter()
            .map(|m| m.truncation.max_influences)
            .max()
            .unwrap_or(0),
        over4: truncation(|m| m.truncation.truncated_vertices),
        // JOINTS_0 and JOINTS_1 hold at most 8.
        over8: 0,
        max_dropped_weight: model
            .meshes
            .iter()
            .map(|m| m.truncation.max_dropped_weight)
            .fold(0.0, f32::max),
        lods: summed_lods(&model.meshes),
        lod_influences: level_influences(&model.meshes),
        lod_anims: model.clips.len(),
        body_parts: body_parts(&model.skeleton, &model.meshes),
        impostor: model.impostor_layout(IMPOSTOR_MEMORY_BUDGET).into(),
    };
    let mut reports = vec![FileReport::Mesh(mesh)];
    for (clip, motion) in model.clips.iter().zip(&model.ground_motion) {
        reports.push(FileReport::Anim(AnimReport {
            file: file.clone(),
            name: clip.name.clone(),
            format: "gltf",
            joints: clip.joint_count(),
            frames: clip.frames.len(),
            frame_rate: clip.frame_rate,
            duration: clip.duration(),
            animated_components: 0,
            loops: clip.looping,
            name_mismatches: None,
            ground_speed: motion.speed,
            ground_velocity: motion.velocity.to_array(),
            ground_source: motion.source,
        }));
    }
    Ok(reports)
}

/// Influences a mesh's vertices keep, over all of them.
fn kept_weights(mesh: &SkinnedMesh) -> usize {
    mesh.weights
        .iter()
        .map(|w| w.iter().filter(|&&w| w > 0.0).count())
        .sum()
}

/// `clips`: the anims that fit the mesh, whose poses choose each level's
/// influences (their root motion, which `Model::load` takes out, moves every
/// influence alike and changes no choice).
fn mesh_report(file: String, mesh: &Md5Mesh, clips: &[Clip]) -> MeshReport {
    let skeleton = skeleton_from_md5(mesh);
    let mut four: Vec<SkinnedMesh> = mesh
        .meshes
        .iter()
        .map(|m| {
            let mut skinned = skinned_mesh_from_md5(m, &skeleton, InfluenceLimit::Four);
            build_mesh_levels(&mut skinned, false);
            skinned
        })
        .collect();
    choose_level_influences(&skeleton, clips, &mut four);
    let eight: Vec<_> = mesh
        .meshes
        .iter()
        .map(|m| skinned_mesh_from_md5(m, &skeleton, InfluenceLimit::Eight).truncation)
        .collect();
    let meshes: Vec<SubmeshReport> = mesh
        .meshes
        .iter()
        .zip(&four)
        .map(|(m, skinned)| SubmeshReport {
            shader: m.shader.clone(),
            verts: m.verts.len(),
            tris: m.tris.len(),
            weights: m.weights.len(),
            lod_note: skinned.short_chain.map(|short| short.to_string()),
        })
        .collect();
    MeshReport {
        file,
        format: "md5",
        joints: mesh.joints.len(),
        verts: meshes.iter().map(|m| m.verts).sum(),
        tris: meshes.iter().map(|m| m.tris).sum(),
        weights: meshes.iter().map(|m| m.weights).sum(),
        meshes,
        max_influences: four
            .iter()
            .map(|m| m.truncation.max_influences)
            .max()
            .unwrap_or(0),
        over4: four.iter().map(|m| m.truncation.truncated_vertices).sum(),
        over8: eight.iter().map(|t| t.truncated_vertices).sum(),
        max_dropped_weight: four
            .iter()
            .map(|m| m.truncation.max_dropped_weight)
            .fold(0.0, f32::max),
        lods: summed_lods(&four),
        lod_influences: level_influences(&four),
        lod_anims: clips.len(),
        body_parts: body_parts(&skeleton, &four),
        // The clips' boxes are the files' (`Model::load` grows them around
        // the posed mesh): that moves the atlas's sphere, which no number
        // reported here depends on.
        impostor: impostor_layout_of(clips, bind_pose_bounds(&four), 1, IMPOSTOR_MEMORY_BUDGET)
            .into(),
    }
}

fn body_parts(skeleton: &Skeleton, meshes: &[SkinnedMesh]) -> Vec<BodyPartReport> {
    let parts = BodyParts::of(skeleton, meshes);
    (0..parts.count)
        .map(|part| BodyPartReport {
            joints: parts
                .joint_parts
                .iter()
                .zip(&skeleton.names)
                .filter(|(&p, _)| usize::from(p) == part)
                .map(|(_, name)| name.clone())
                .collect(),
        })
        .collect()
}

/// A model's LOD chain as one: level k's triangles summed over the meshes
/// and the largest of their errors, a mesh with fewer levels counting its
/// coarsest for the missing ones (as a renderer drawing the whole model at
/// level k does). Always LOD 0, 0 triangles when there is no mesh.
pub fn summed_lods(meshes: &[SkinnedMesh]) -> Vec<LodReport> {
    let levels = meshes.iter().map(|m| m.lods.len()).max().unwrap_or(1);
    (0..levels)
        .map(|k| {
            let at_k = || {
                meshes
                    .iter()
                    .filter_map(|m| m.lods.get(k).or(m.lods.last()))
            };
            LodReport {
                tris: at_k().map(|l| l.triangle_count()).sum(),
                error: at_k().map(|l| l.error).fold(0.0, f32::max),
            }
        })
        .collect()
}

/// Per level of the chain [`summed_lods`] reports, the most influences any
/// mesh's level keeps.
fn level_influences(meshes: &[SkinnedMesh]) -> Vec<usize> {
    let levels = meshes.iter().map(|m| m.lods.len()).max().unwrap_or(1);
    (0..levels)
        .map(|k| {
            meshes
                .iter()
                .filter_map(|m| m.lods.get(k).or(m.lods.last()))
                .map(|l| l.influences)
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The anim's own hierarchy as the runtime's parents; `None` past the 16-bit
/// joint indices that `Model::load` refuses too.
fn anim_parents(anim: &Md5Anim) -> Option<Vec<Option<u16>>> {
    anim.hierarchy
        .iter()
        .map(|joint| match joint.parent {
            Some(parent) => u16::try_from(parent).ok().map(Some),
            None => Some(None),
        })
        .collect()
}

fn anim_report(
    file: String,
    anim: &Md5Anim,
    clip: &Clip,
    name_mismatches: Option<Vec<String>>,
    motion: GroundMotion,
) -> AnimReport {
    AnimReport {
        file,
        name: clip.name.clone(),
        format: "md5",
        joints: anim.hierarchy.len(),
        frames: anim.frames.len(),
        frame_rate: anim.frame_rate,
        duration: clip.duration(),
        animated_components: anim.num_animated_components,
        loops: clip.looping,
        name_mismatches,
        ground_speed: motion.speed,
        ground_velocity: motion.velocity.to_array(),
        ground_source: motion.source,
    }
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

/// Every declaration of `game` that draws an md5 character, in the order
/// read, or (`names` not empty) those named, in that order. An unknown
/// name is an error naming the closest declared ones.
pub fn inspect_declarations(game: &Game, names: &[String]) -> Result<Vec<FileReport>, String> {
    let report = |declared: Declared| {
        let model = declared.model.ok()?;
        // Listing reads no md5 file, and the atlas's size depends on the
        // clips (those the game holds: `Game::character` leaves the rest
        // out) and skins alone: its sphere, where each cell's image sits,
        // is left a point.
        let clips = model
            .anims
            .iter()
            .filter(|anim| game.vfs.find(anim.file()).is_some())
            .count();
        let posed = Bounds::point(Vec3::ZERO);
        Some(FileReport::Declaration(DeclarationReport {
            name: declared.name.to_owned(),
            declared_as: declared.kind.type_word(),
            anims: model
                .anims
                .iter()
                .map(|anim| (anim.name.clone(), anim.file().to_owned()))
                .collect(),
            mesh: model.mesh,
            skin: model.skin,
            offset: model.offset.to_array(),
            source: declared.origin.source.clone(),
            line: declared.origin.line,
            impostor: ImpostorLayout::new(clips, 1, posed, IMPOSTOR_MEMORY_BUDGET).into(),
        }))
    };
    if names.is_empty() {
        return Ok(game.decls.iter().filter_map(report).collect());
    }
    names
        .iter()
        .map(|name| {
            game.decls.resolve_model(name).map_err(|e| e.to_string())?;
            // The entityDef of that name if there is one, as the renderer
            // takes it.
            game.decls
                .iter()
                .filter(|d| d.name.eq_ignore_ascii_case(name))
                .min_by_key(|d| d.kind != DeclKind::Entity)
                .and_then(report)
                .ok_or_else(|| format!("{name}: draws no md5 character"))
        })
        .collect()
}

pub fn to_json(reports: &[FileReport]) -> String {
    serde_json::to_string_pretty(reports).expect("reports serialize")
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
                    if let Some(note) = &s.lod_note {
                        writeln!(out, "    short LOD chain: {note}").unwrap();
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
                writeln!(out, "  {}", impostor_text(&d.impostor)).unwrap();
            }
        }
    }
    out
}
