//! Reports gathered: from md5 and glTF files, read and converted as
//! `Model::load` would, and from a game folder's declarations.

use std::path::{Path, PathBuf};

use glam::Vec3;

use super::{
    AnimReport, BodyPartReport, DeclarationReport, FileReport, InspectError, LodReport, MeshReport,
    MorphTargetReport, SubmeshReport,
};
use crate::anim::{close_loop, ground_motion, Clip, GroundMotion, Skeleton};
use crate::bounds::Bounds;
use crate::crowd::{ImpostorLayout, IMPOSTOR_MEMORY_BUDGET};
use crate::decl::{DeclKind, Declared};
use crate::game::Game;
use crate::gltf::{is_gltf_extension, GltfError};
use crate::material::Shading;
use crate::md5::{self, Md5Anim, Md5Mesh};
use crate::model::{
    bind_pose_bounds, build_mesh_levels, choose_level_influences, clip_from_md5,
    impostor_layout_of, skeleton_from_md5, skinned_mesh_from_md5, LoadOptions, Model,
};
use crate::skin::{BodyParts, InfluenceLimit, SkinnedMesh};
use crate::vfs::GameFile;

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

/// A glTF file as the md5 objects report it: the model `Model::load_gltf`
/// makes (4 influences), one mesh object and one anim object per
/// animation.
fn gltf_reports(file: String, path: &Path) -> Result<Vec<FileReport>, GltfError> {
    let model = Model::load_gltf(&GameFile::loose(path), &LoadOptions::default())?;
    let meshes: Vec<SubmeshReport> = model
        .meshes
        .iter()
        .zip(&model.materials.of_mesh)
        .map(|(m, of_skin)| SubmeshReport {
            shader: m.shader.clone(),
            verts: m.vertex_count(),
            tris: m.triangle_count(),
            weights: kept_weights(m),
            lod_note: m.short_chain.map(|short| short.to_string()),
            morph_targets: m
                .morph_targets
                .iter()
                .map(|target| MorphTargetReport {
                    name: target.name.clone(),
                    vertices: target.moved_vertices(),
                    clips: model
                        .clips
                        .iter()
                        .filter(|c| c.morphs.animated.contains(&target.weight))
                        .map(|c| c.name.clone())
                        .collect(),
                })
                .collect(),
            // A mesh without triangles is never drawn and keeps no material.
            material: of_skin
                .first()
                .map_or_else(Shading::default, |&i| model.materials.maps[i].shading),
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
            morph_channels: clip.morphs.channels,
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
            morph_targets: Vec::new(),
            material: Shading::default(),
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
        impostor: impostor_layout_of(
            clips,
            bind_pose_bounds(&four),
            (1, false),
            IMPOSTOR_MEMORY_BUDGET,
        )
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
        morph_channels: 0,
        loops: clip.looping,
        name_mismatches,
        ground_speed: motion.speed,
        ground_velocity: motion.velocity.to_array(),
        ground_source: motion.source,
    }
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
            channels: model
                .channels
                .iter()
                .filter_map(|declared| crate::game::character_channel(declared).ok())
                .map(|channel| channel.spec.to_string())
                .collect(),
            source: declared.origin.source.clone(),
            line: declared.origin.line,
            impostor: ImpostorLayout::new(clips, (1, false), posed, IMPOSTOR_MEMORY_BUDGET).into(),
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
