//! A loaded character: files in, runtime model out. This is where the md5
//! structs are turned into the skeleton, clips and skinned meshes that the
//! rest of the program uses (the conversions are in `convert`); nothing
//! downstream sees the file format, and `anim` and `skin` do not import it.

mod channels;
mod convert;
mod from_gltf;
mod materials;
mod morphs;
mod skin_choice;

use std::path::{Path, PathBuf};

use glam::Vec3;

pub use channels::CharacterChannel;
pub use convert::{
    clip_from_md5, offset_clip, offset_md5_mesh, skeleton_from_md5, skinned_mesh_from_md5,
};
pub use from_gltf::{
    gltf_to_md5, DEFAULT_SAMPLE_RATE, MAX_CLIP_POSES, MAX_SAMPLE_RATE, MIN_KEY_RATE,
};
pub use materials::ModelMaterials;
pub use morphs::HeldMorph;
pub use skin_choice::{SkinChoice, DEFAULT_SKIN};

use crate::anim::{
    close_loop, distance_curve, ground_motion, remove_root_motion, Channels, Clip, DistanceCurve,
    GroundMotion, GroundMotionSource, LoopOverrides, Morphs, Skeleton,
};
use crate::bounds::Bounds;
use crate::crowd::ImpostorLayout;
use crate::gltf::{GltfError, GltfFile};
use crate::material::{MaterialLibrary, ShadingModel};
use crate::md5::{self, Md5Error};
use crate::skin::{
    clip_pose_bounds, morph_reach, sampled_poses, BodyParts, ClipPartBounds, InfluenceLimit,
    SkinnedMesh,
};
use crate::vfs::{FileName, GameFile};

#[derive(Clone, Debug)]
pub struct Model {
    /// The mesh file it was loaded from, named (the file is not held).
    pub mesh_file: FileName,
    pub skeleton: Skeleton,
    /// Every mesh of the file, empty ones included (drawing skips those).
    pub meshes: Vec<SkinnedMesh>,
    pub clips: Vec<Clip>,
    /// How each clip carries the character over the ground, one per clip in
    /// the order of `clips` (`anim::ground_motion`). A clip with root motion
    /// has had it removed: every clip plays in place, and whoever places the
    /// character moves it by `velocity`.
    pub ground_motion: Vec<GroundMotion>,
    /// Which clip time shows the feet having covered each share of the
    /// stride, one per clip in the order of `clips` (`anim::distance_curve`):
    /// locomotion times a moving clip by it so planted feet stay planted.
    pub distance_curves: Vec<DistanceCurve>,
    /// Per clip in the order of `clips`, per frame, one box per body part
    /// (`skin::BodyParts`), each holding its part posed anywhere between
    /// that frame and the next (`skin::clip_pose_bounds`): the occlusion
    /// test's bounds, closer to the character's shape than `Clip::bounds`,
    /// which holds them all.
    pub part_bounds: Vec<ClipPartBounds>,
    /// The skins the crowd is drawn with, at least one (the first is
    /// everyone's unless instances are given others): each remaps the
    /// meshes' materials.
    pub skins: Vec<SkinChoice>,
    /// Which channel plays each joint (a declaration's `channel` lines and
    /// `--channel`, [`Model::resolve_channels`]); one whole body until the
    /// loader resolves them.
    pub channels: Channels,
    /// Each mesh's material under each skin, its images read.
    pub materials: ModelMaterials,
    /// The morph target weights its meshes' targets read (none for md5).
    pub morphs: Morphs,
}

/// What a format's reader hands [`Model::assemble`]: the file's skeleton,
/// meshes (LOD 0, in the file's order), clips and morph weights.
struct FileParts {
    skeleton: Skeleton,
    meshes: Vec<SkinnedMesh>,
    clips: Vec<Clip>,
    morphs: Morphs,
}

/// [`Model::impostor_layout`] of a model with `clips`, `skins` skins (and,
/// where `surfaces`, materials other than Doom 3's) and `bind_pose` its
/// box in the bind pose: `md5crowd inspect` reports it without building
/// the model.
pub fn impostor_layout_of(
    clips: &[Clip],
    bind_pose: Bounds,
    skins: (usize, bool),
    budget: u64,
) -> ImpostorLayout {
    let posed = clips
        .iter()
        .map(Clip::bounds_union)
        .fold(bind_pose, Bounds::union);
    ImpostorLayout::new(clips.len(), skins, posed, budget)
}

/// [`Model::bind_pose_bounds`] of `meshes`.
pub fn bind_pose_bounds(meshes: &[SkinnedMesh]) -> Bounds {
    meshes
        .iter()
        .flat_map(|m| &m.positions)
        .fold(Bounds::EMPTY, |b, &p| b.union(Bounds::point(p)))
}

/// What a model makes of a mesh as its file has it (`Model::assemble`'s
/// first step): welded unless `unwelded` (`SkinnedMesh::weld`), then its
/// LOD chain and GPU order (`SkinnedMesh::build_lods`, `optimize_for_gpu`).
/// Each level's influences are chosen once the clips are settled
/// ([`choose_level_influences`]).
pub fn build_mesh_levels(mesh: &mut SkinnedMesh, unwelded: bool) {
    if !unwelded {
        mesh.weld();
    }
    mesh.build_lods();
    mesh.optimize_for_gpu();
}

/// Each level of each mesh skins with the fewest influences that hold it
/// within its error over the poses `clips` play
/// (`SkinnedMesh::choose_level_influences`): `Model::assemble`'s last
/// step for the meshes.
pub fn choose_level_influences(skeleton: &Skeleton, clips: &[Clip], meshes: &mut [SkinnedMesh]) {
    let poses = sampled_poses(skeleton, clips);
    for mesh in meshes {
        mesh.choose_level_influences(&poses);
    }
}

/// A character to load: its mesh, its clips and how to draw them, from a
/// game's declaration (`crate::game::Game::character`) or files on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct Character {
    /// The declaration asked for (as declared, not as typed), or the
    /// mesh file's stem.
    pub name: String,
    pub mesh: GameFile,
    /// Its clips, named as the declaration names them (or after their
    /// files), in order.
    pub clips: Vec<ClipFile>,
    /// Added to the model's positions.
    pub offset: Vec3,
    /// The skin the declaration draws the character with, drawn unless
    /// `--skin` or `--skins` says.
    pub skin: Option<String>,
    /// The declaration's channels, inherited ones included, in the order
    /// first declared: resolved against the skeleton once it is loaded
    /// ([`Model::resolve_channels`]).
    pub channels: Vec<CharacterChannel>,
}

/// An `.md5anim` to load and the name its clip plays under.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipFile {
    pub name: String,
    pub file: GameFile,
}

impl ClipFile {
    /// A clip named after its file: `walk.md5anim` plays as "walk".
    pub fn named_after(file: GameFile) -> ClipFile {
        ClipFile {
            name: file.file_stem(),
            file,
        }
    }
}

/// How [`Model::load_with`] loads, beyond which files.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions<'a> {
    /// Joint influences kept per vertex.
    pub influences: InfluenceLimit,
    /// Clips that loop or play once whatever `anim::loops_by_rule` says
    /// (names matching no clip are ignored: check them with
    /// [`LoopOverrides::check`] against the [`ClipFile`] names first).
    pub loop_overrides: LoopOverrides,
    /// The game folder's materials the meshes' shaders name, opened once
    /// by whoever loads several models; `None`: the library of the game
    /// folder a mesh on disk lies in (`MaterialLibrary::for_mesh`).
    pub materials: Option<&'a MaterialLibrary>,
    /// Added to every position of the model, clips included (a model
    /// declaration's `offset`: the game draws the mesh that far from the
    /// entity's origin).
    pub offset: Vec3,
    /// See [`Model::skins`]; none: the mesh's own materials.
    pub skins: Vec<SkinChoice>,
    /// Keep the vertices as the file has them instead of welding the
    /// copies (`SkinnedMesh::weld`): for comparisons.
    pub unwelded: bool,
    /// Morph targets held at a weight, by name (`--morph`); names without
    /// a target in the model are ignored here.
    pub morphs: Vec<HeldMorph>,
}

impl Model {
    /// [`Model::load_with`] of files on disk, each clip named after its
    /// file, with `limit` influences and nothing else asked.
    pub fn load(
        mesh_path: &Path,
        anim_paths: &[PathBuf],
        limit: InfluenceLimit,
    ) -> Result<Model, Md5Error> {
        let options = LoadOptions {
            influences: limit,
            ..LoadOptions::default()
        };
        let clips: Vec<ClipFile> = anim_paths
            .iter()
            .map(|path| ClipFile::named_after(GameFile::loose(path)))
            .collect();
        Model::load_with(&GameFile::loose(mesh_path), &clips, &options)
    }

    /// Loads a mesh and the clips that animate it. Anims whose joint names
    /// differ from the mesh's (same count and parents) bind by index with a
    /// warning, as real exporters rename joints. Each mesh's copies of a
    /// vertex are welded (`SkinnedMesh::weld`, unless the options say), then
    /// it gets its LOD chain
    /// and is then ordered for the GPU (`SkinnedMesh::build_lods`,
    /// `optimize_for_gpu`): vertex order differs from the file's. A mesh
    /// whose chain stops short is logged, with why (`skin::ShortChain`).
    /// Each clip loops or plays once by `anim::loops_by_rule` unless the
    /// options say (a loop written without its closing frame gets it:
    /// `anim::close_loop`), and its per-frame bounds grow to hold the mesh
    /// posed anywhere between that frame and the next
    /// (`skin::clip_pose_bounds`): culling never trusts the file alone.
    /// Each clip's ground motion is measured (`anim::ground_motion`), root
    /// motion taken out so that every clip plays in place, and its distance
    /// curve found (`anim::distance_curve`). Each mesh's material under
    /// each skin is resolved and its images read ([`ModelMaterials`]).
    pub fn load_with(
        mesh_file: &GameFile,
        clip_files: &[ClipFile],
        options: &LoadOptions,
    ) -> Result<Model, Md5Error> {
        let mesh_name = mesh_file.to_string();
        let mut mesh = md5::read_mesh(mesh_file)?;
        offset_md5_mesh(&mut mesh, options.offset);
        if mesh.joints.len() > Skeleton::MAX_JOINTS {
            return Err(Md5Error {
                file: mesh_name,
                location: None,
                message: format!(
                    "{} joints, but joint indices are 16-bit vertex attributes (at most {})",
                    mesh.joints.len(),
                    Skeleton::MAX_JOINTS
                ),
            });
        }
        let skeleton = skeleton_from_md5(&mesh);
        let roots: Vec<bool> = skeleton.parents.iter().map(Option::is_none).collect();
        let mut clips = Vec::with_capacity(clip_files.len());
        for clip_file in clip_files {
            let anim_name = clip_file.file.to_string();
            let anim = md5::read_anim(&clip_file.file)?;
            for warning in md5::check_anim_fits_mesh(&mesh, &mesh_name, &anim, &anim_name)? {
                log::warn!("{anim_name}: {warning}");
            }
            let mut clip = clip_from_md5(&clip_file.name, &anim);
            offset_clip(&mut clip, &roots, options.offset);
            clips.push(clip);
        }
        let meshes: Vec<SkinnedMesh> = mesh
            .meshes
            .iter()
            .map(|m| skinned_mesh_from_md5(m, &skeleton, options.influences))
            .collect();
        let skins = if options.skins.is_empty() {
            vec![SkinChoice::default_skin()]
        } else {
            options.skins.clone()
        };
        let beside_mesh;
        let library = match (options.materials, mesh_file.loose_path()) {
            (Some(library), _) => library,
            (None, Some(mesh_path)) => {
                beside_mesh = MaterialLibrary::for_mesh(mesh_path, None);
                &beside_mesh
            }
            (None, None) => {
                beside_mesh = MaterialLibrary::empty();
                &beside_mesh
            }
        };
        Ok(Model::assemble(
            mesh_file,
            FileParts {
                skeleton,
                meshes,
                clips,
                morphs: Morphs::default(),
            },
            skins,
            options,
            |meshes, skins| ModelMaterials::resolve(meshes, skins, library, mesh_file),
        ))
    }

    /// Loads a glTF 2.0 file (.glb or .gltf) as `Model::load_with` loads
    /// md5 files: the character's meshes, skeleton, materials and every
    /// animation (`from_gltf` says what is read and how), then the same
    /// welding, levels of detail, loop rule, ground motion, bounds and
    /// influences per level. Skins and clips from other files do not
    /// apply: a glTF model draws its own materials and plays its own
    /// animations.
    pub fn load_gltf(mesh_file: &GameFile, options: &LoadOptions) -> Result<Model, GltfError> {
        Model::from_gltf(&GltfFile::open(mesh_file)?, mesh_file, options)
    }

    /// [`Model::load_gltf`] of a file already read (`mesh_file` names it).
    pub fn from_gltf(
        file: &GltfFile,
        mesh_file: &GameFile,
        options: &LoadOptions,
    ) -> Result<Model, GltfError> {
        let character = from_gltf::read_character(file, options.influences)?;
        for warning in &character.warnings {
            log::warn!("{warning}");
        }
        let from_gltf::GltfCharacter {
            skeleton,
            meshes,
            materials,
            mesh_materials,
            clips,
            image_warnings,
            morphs,
            ..
        } = character;
        Ok(Model::assemble(
            mesh_file,
            FileParts {
                skeleton,
                meshes,
                clips,
                morphs,
            },
            vec![SkinChoice::default_skin()],
            options,
            |meshes, _| {
                ModelMaterials::of_meshes(meshes, materials, &mesh_materials, image_warnings)
            },
        ))
    }

    /// What every format's loader does once the file's skeleton, meshes
    /// (LOD 0, as the file orders them) and clips are read: welds each
    /// mesh (unless the options say), gives it its LOD chain and GPU order
    /// (`SkinnedMesh::build_lods`, `optimize_for_gpu`), settles each clip's
    /// looping, ground motion, distance curve and bounds, picks each
    /// level's influences, and resolves the materials with `materials`.
    fn assemble(
        mesh_file: &GameFile,
        FileParts {
            skeleton,
            meshes,
            mut clips,
            mut morphs,
        }: FileParts,
        skins: Vec<SkinChoice>,
        options: &LoadOptions,
        materials: impl FnOnce(&[SkinnedMesh], &[SkinChoice]) -> ModelMaterials,
    ) -> Model {
        let roots: Vec<bool> = skeleton.parents.iter().map(Option::is_none).collect();
        let mut meshes: Vec<SkinnedMesh> = meshes
            .into_iter()
            .enumerate()
            .map(|(index, mut mesh)| {
                build_mesh_levels(&mut mesh, options.unwelded);
                if let Some(short) = &mesh.short_chain {
                    log::info!(
                        "{mesh_file}: mesh {index} (\"{}\"): {} levels of detail, short: {short}",
                        mesh.shader,
                        mesh.lods.len()
                    );
                }
                mesh
            })
            .collect();
        let parts = BodyParts::of(&skeleton, &meshes);
        morphs::settle_clip_morphs(&mut morphs, &mut clips, &options.morphs);
        let mut ground_motions = Vec::with_capacity(clips.len());
        let mut distance_curves = Vec::with_capacity(clips.len());
        let mut part_bounds = Vec::with_capacity(clips.len());
        for clip in &mut clips {
            if let Some(looping) = options.loop_overrides.loops(&clip.name) {
                clip.looping = looping;
            }
            if clip.looping {
                close_loop(clip, &roots);
            }
            // Before the bounds grow, so that they hold the clip in place.
            let motion = ground_motion(&skeleton.parents, clip);
            if motion.source == GroundMotionSource::RootMotion {
                remove_root_motion(&skeleton.parents, clip, motion.velocity);
            }
            ground_motions.push(motion);
            // From the clip in place: its planted feet slide back as it plays.
            distance_curves.push(distance_curve(&skeleton.parents, clip, &motion));
            // Frame f's box: the file's for frames f and f + 1, and the mesh
            // posed anywhere between them.
            let mut posed = clip_pose_bounds(&skeleton, clip, &meshes, &parts);
            let file = std::mem::take(&mut clip.bounds);
            let file_box = |f: usize| file.get(f).copied().unwrap_or(Bounds::EMPTY);
            // Morph targets carry vertices past the skinned shape.
            let reach = morph_reach(&meshes, std::slice::from_ref(clip), &morphs.defaults);
            clip.bounds = (0..clip.frames.len())
                .map(|f| {
                    let skinned = posed.whole(f).grown(reach);
                    skinned.union(file_box(f)).union(file_box(f + 1))
                })
                .collect();
            // Where the mesh could not be posed (a clip of another
            // skeleton), every part gets the frame's whole box.
            for (f, whole) in clip.bounds.iter().enumerate() {
                let start = f * posed.part_count;
                for part in &mut posed.boxes[start..start + posed.part_count] {
                    *part = match part.is_empty() {
                        true => *whole,
                        false => part.grown(reach),
                    };
                }
            }
            part_bounds.push(posed);
        }
        // From the clips in place, as they play.
        choose_level_influences(&skeleton, &clips, &mut meshes);
        let materials = materials(&meshes, &skins);
        Model {
            mesh_file: mesh_file.name(),
            meshes,
            clips,
            ground_motion: ground_motions,
            distance_curves,
            part_bounds,
            channels: Channels::whole_body(skeleton.joint_count()),
            skeleton,
            skins,
            materials,
            morphs,
        }
    }

    /// Joints per vertex the meshes were built with (`LoadOptions::influences`).
    pub fn influences(&self) -> InfluenceLimit {
        self.meshes
            .first()
            .map_or_else(InfluenceLimit::default, |m| m.limit)
    }

    pub fn triangle_count(&self) -> usize {
        self.meshes.iter().map(SkinnedMesh::triangle_count).sum()
    }

    /// Boxes per clip frame in `part_bounds`, at least 1: one where there
    /// are no clips, or no part boxes for them.
    pub fn body_part_count(&self) -> usize {
        self.part_bounds.first().map_or(1, |b| b.part_count.max(1))
    }

    /// What its impostor atlas holds when it may take `budget` bytes: a
    /// cell per view and frame of as many clips as the budget buys, of
    /// each skin, framing the sphere around the box that holds it in every
    /// pose of every clip (and its bind pose); its texels keep what
    /// metallic-roughness and unlit shading need where a material has them.
    pub fn impostor_layout(&self, budget: u64) -> ImpostorLayout {
        let surfaces = self
            .materials
            .maps
            .iter()
            .any(|m| m.shading.model != ShadingModel::Doom3);
        impostor_layout_of(
            &self.clips,
            self.bind_pose_bounds(),
            (self.skins.len(), surfaces),
            budget,
        )
    }

    /// The box around every drawn vertex in the bind pose.
    pub fn bind_pose_bounds(&self) -> Bounds {
        bind_pose_bounds(&self.meshes)
    }

    pub fn vertex_count(&self) -> usize {
        self.meshes.iter().map(SkinnedMesh::vertex_count).sum()
    }
}
