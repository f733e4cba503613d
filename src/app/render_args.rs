//! The render options, shared by the window and the headless path. The
//! top-level CLI flattens [`RenderArgs`] into its default command; `bench`
//! flattens the two parts it can use too, [`CastArgs`] and [`DrawArgs`],
//! so that both commands take them alike.

use std::path::PathBuf;

use crate::crowd::IMPOSTOR_MEMORY_BUDGET;

use super::camera::Shot;
use super::layer_args::LayerArg;
use crate::gpu::crowd_buffers::Animation;
use crate::gpu::frame_loop::ViewOptions;
use crate::gpu::shader_types::MAX_SHADOW_CASCADES;
use crate::gpu::Context;
use crate::model::{CharacterChannel, HeldMorph};
use crate::shadow::sun_direction;
use ash::vk;
use glam::Vec3;

use super::camera::DEFAULT_SUN;

pub use super::arg_values::{
    Animate, AnimateKernel, Influences, ShadowsArg, Skinning, Switch, View,
};

/// Crowd size when `--instances` is not given: a window shows off a crowd;
/// a headless render defaults to one character, the view tests compare.
pub const WINDOW_INSTANCES: u32 = 64;
pub const HEADLESS_INSTANCES: u32 = 1;

/// Where a window run with no display to open one on writes its picture
/// instead, in the working directory.
pub const NO_DISPLAY_SCREENSHOT: &str = "md5crowd.png";

/// Animation time of that picture: the crowd has set off walking.
const NO_DISPLAY_TIME: f32 = 2.0;

#[derive(clap::Args, Clone, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub cast: CastArgs,
    /// The clip everyone starts with, named after its file (walk.md5anim
    /// is "walk") [default: a seeded mix, the first character plays the
    /// first clip]
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    /// Seconds a clip switch crossfades over.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.25, value_parser = seconds, allow_negative_numbers = true)]
    pub blend_time: f32,
    /// Render offscreen without a window (needs --screenshot to keep the result).
    #[arg(long)]
    pub headless: bool,
    /// Frames to render before exiting [headless default: 1; window: until closed].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: Option<u32>,
    /// Write the last frame to this PNG file.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    #[command(flatten)]
    pub draw: DrawArgs,
    /// Animation time in seconds of the last frame; earlier frames step back
    /// 1/60 s each. Headless only: a window plays in real time from 0.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub time: f32,
    /// Characters in the crowd, on a square grid [default: 64 in a window,
    /// 1 headless]. The GPU's memory is the limit; asking for more than fit
    /// says how many would.
    #[arg(long, value_name = "N", value_parser = count, allow_negative_numbers = true)]
    pub instances: Option<u32>,
    /// Distance between neighbours on the grid, in model units [default:
    /// 1.5 times the model's footprint]
    #[arg(long, value_name = "UNITS", value_parser = distance, allow_negative_numbers = true)]
    pub spacing: Option<f32>,
    /// Enable the Vulkan validation layer with synchronization validation;
    /// any warning or error it reports makes the exit status non-zero.
    /// Debug builds validate whenever the layer is installed.
    #[arg(long)]
    pub validate: bool,
    /// Present without waiting for vertical sync (MAILBOX or IMMEDIATE when offered).
    #[arg(long)]
    pub no_vsync: bool,
    /// How vertices blend their joints' transforms.
    #[arg(long, value_enum, default_value_t = Skinning::Lbs)]
    pub skinning: Skinning,
    /// Who poses the crowd: the animate compute pass, or the CPU reference
    /// jobs on every core, uploaded each frame.
    #[arg(long, value_enum, default_value_t = Animate::Gpu)]
    pub animate: Animate,
    /// Skin on the CPU (the reference implementation) and draw through the
    /// same pipeline with identity joint transforms. Implies --animate cpu.
    #[arg(long)]
    pub cpu_skinning: bool,
    /// Draw the skeleton over the characters.
    #[arg(long)]
    pub skeleton: bool,
    /// Show the overlay (statistics, frame-time graph, controls; F1 in the
    /// window) from the first frame, in headless screenshots too.
    #[arg(long)]
    pub overlay: bool,
    /// Draw triangle edges only (needs the GPU's fillModeNonSolid feature).
    #[arg(long)]
    pub wireframe: bool,
    /// Draw each instance at the coarsest level of detail whose error
    /// stays under half a pixel (times --lod-bias); off: always the full mesh.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub lod: Switch,
    /// Tint each instance by its level of detail (white = full mesh).
    #[arg(long)]
    pub show_lod: bool,
    /// Coarse levels of detail skin each vertex with only its largest
    /// joint influences, as few as keep it within a quarter of the level's
    /// error; off: every level reads them all.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub lod_influences: Switch,
    /// Two-phase occlusion culling against a depth pyramid: instances
    /// hidden behind others are not drawn (the image stays the same).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub occlusion: Switch,
    /// Past the level-of-detail chain, draw a character whose projected
    /// size falls below what its impostor atlas resolves (a texel to a
    /// pixel) as one quad showing its image, baked when the crowd first
    /// wants its clip, from the nearest of 48 view directions at the
    /// nearest of 12 frames per clip; faded in across a band around that
    /// distance.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub impostors: Switch,
    /// Samples per pixel, multisample antialiasing: 1, 2, 4 or 8, clamped
    /// to what the device offers for colour and depth together (the log
    /// says so). In the window, M switches between 1 and this.
    #[arg(long, value_name = "SAMPLES", default_value_t = 4, value_parser = msaa_samples)]
    pub msaa: u32,
    /// Sun shadows: cascaded shadow maps (every character casts on the
    /// ground, on the others and on itself), blob (a dark disc under each
    /// character, on the ground) or off. In the window, H cycles them.
    /// [default: map; blob on a CPU driver such as lavapipe, where the
    /// maps' texels are filled on the CPU: 1.2 to 2.1 times the frame]
    #[arg(long, value_enum)]
    pub shadows: Option<ShadowsArg>,
    /// The ground the crowd stands on, where shadows fall; off: a standing
    /// crowd in the void (a walking one always has it).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub ground: Switch,
    /// One indirect call for each run of a mesh's levels of detail that
    /// share a pipeline, where the device has multiDrawIndirect; off: a
    /// call per level.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub multi_draw: Switch,
    /// Animation level of detail (GPU animation): characters under about 30
    /// pixels tall show a pose shared by all at that moment of their clip
    /// (30 poses a second), and are not animated one by one.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub anim_lod: Switch,
    /// How the GPU animation pass spreads its work: device picks
    /// lane-per-instance on a CPU driver (animate.comp: a lane walks an
    /// instance's joints), and on a GPU lane-per-joint for crowds under
    /// 4096 instances (animate_joints.comp: a workgroup per instance, a lane
    /// per joint, up to 256 joints), lane-per-instance from there, where it
    /// was 4 to 7.5 times faster on an H100. Larger skeletons always get
    /// lane-per-instance. The choice is logged.
    #[arg(long, value_enum, default_value_t = AnimateKernel::Device)]
    pub animate_kernel: AnimateKernel,
    /// Agents walk concentric lanes around the crowd's centre, standing,
    /// walking and running in turn, each playing the clip its speed calls
    /// for (looping clips that move over the ground; one that stays put
    /// stands) in step with the ground; off: the grid, on the spot. G in
    /// the window toggles it; picking a clip for everyone (--clip, 1-9,
    /// [ ]) switches it off, everyone back on the grid. Deterministic: the
    /// same seed and --time show the same frame.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub locomotion: Switch,
    /// Where the camera starts: above the crowd framing all of it, or at
    /// eye height at its front edge looking across it.
    #[arg(long, value_enum, default_value_t = View::Overview)]
    pub view: View,
    /// Capture frame N (counting from 0) with RenderDoc. Needs the program
    /// to run under RenderDoc (`renderdoccmd capture` or qrenderdoc); in the
    /// window, F12 captures the next frame.
    #[arg(long, value_name = "N")]
    pub capture_frame: Option<u32>,
    /// Print every frame's CPU time, GPU time per pass and pipeline
    /// statistics on stdout (the window shows them in its title).
    #[arg(long)]
    pub print_timings: bool,
    /// Test hook: drive the window through resizes and a minimisation.
    #[arg(long, hide = true)]
    pub exercise_window: bool,
}

/// The models a crowd is cast from: the files, how they load, the joint
/// influences kept. The render command's and the benchmark's.
#[derive(clap::Args, Clone, Debug)]
pub struct CastArgs {
    /// An .md5mesh, or a directory holding one: its md5mesh and every
    /// .md5anim beside it, by name; with --game, also a model or entityDef
    /// declaration's name, or a mesh's path in the game's archives
    /// [default: the shipped character, assets/]
    #[arg(value_name = "MESH.md5mesh | DIR | DECLARATION")]
    pub model: Option<PathBuf>,
    /// Clips for the mesh (instead of a directory's own); then, for a
    /// crowd mixing models, further models, each followed by its clips
    /// (`hero.md5mesh walk.md5anim imp/ zombie.md5mesh idle.md5anim`)
    #[arg(value_name = "ANIM.md5anim | MODEL")]
    pub anims: Vec<PathBuf>,
    /// The md5mesh to draw from a directory holding several (file name,
    /// with or without .md5mesh).
    #[arg(long, value_name = "NAME")]
    pub mesh: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Joint influences kept per vertex, every model's.
    #[arg(long, value_enum, default_value_t = Influences::Four)]
    pub influences: Influences,
}

/// How a crowd is drawn whatever the command: on which device, at what
/// size, laid out from which seed, with which level-of-detail bias. The
/// render command's and the benchmark's.
#[derive(clap::Args, Clone, Debug)]
pub struct DrawArgs {
    /// The camera, in the crowd's units: eye, the point it looks at (+Z
    /// is up) and the vertical field of view in degrees (40 unless given),
    /// instead of --view's. The log prints the camera every run used in
    /// this form (and the crowd's extent), to give back or to set up the
    /// same shot in another renderer. In the window it is where the camera
    /// starts.
    #[arg(
        long,
        value_name = "EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV]"
    )]
    pub camera: Option<Shot>,
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub width: u32,
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub height: u32,
    /// Seed for the crowd's placement, clips, phases and tints.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use the Vulkan device with this index (as `vulkaninfo --summary` lists them).
    #[arg(long, value_name = "INDEX")]
    pub gpu: Option<usize>,
    /// Scales the error a level of detail may show on screen (half a pixel
    /// at 1): 2 picks coarser levels sooner, 0.5 later.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, value_parser = positive, allow_negative_numbers = true)]
    pub lod_bias: f32,
    /// Test hook: pretend the device has only this much memory for the crowd.
    #[arg(long, hide = true, value_name = "MIB")]
    pub memory_budget_mib: Option<u64>,
    /// Device memory every impostor atlas may take together, shared evenly
    /// among the models: it buys each model's slots, the clips baked at
    /// once (at least one each); past that, the clip wanted least recently
    /// makes room.
    #[arg(long, value_name = "MIB", default_value_t = IMPOSTOR_MEMORY_BUDGET >> 20)]
    pub impostor_memory_mib: u64,
    /// Where the sun (the key light) is: azimuth in degrees counter-clockwise
    /// from +X seen from above, and elevation above the horizon, e.g.
    /// `--sun 37,41` (about the default).
    #[arg(long, value_name = "AZIMUTH,ELEVATION", value_parser = sun_angles, allow_negative_numbers = true)]
    pub sun: Option<(f32, f32)>,
    /// Shadow-map cascades, each covering a farther slice of the view.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=MAX_SHADOW_CASCADES as i64))]
    pub shadow_cascades: u32,
    /// Texels a side of each cascade's shadow map.
    #[arg(long, value_name = "TEXELS", default_value_t = 2048, value_parser = clap::value_parser!(u32).range(64..=16384))]
    pub shadow_resolution: u32,
}

impl DrawArgs {
    pub fn impostor_budget(&self) -> u64 {
        self.impostor_memory_mib << 20
    }

    pub fn memory_budget(&self) -> Option<u64> {
        self.memory_budget_mib.map(|mib| mib << 20)
    }

    /// Width over height.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    /// The direction towards the sun, `--sun`'s or the default key light's.
    pub fn towards_sun(&self) -> Vec3 {
        self.sun.map_or(DEFAULT_SUN, |(azimuth, elevation)| {
            sun_direction(azimuth, elevation)
        })
    }
}

/// `--sun`: two angles in degrees, the elevation above the horizon.
fn sun_angles(text: &str) -> Result<(f32, f32), String> {
    let expected =
        "expected AZIMUTH,ELEVATION in degrees, e.g. 37,41, the elevation above 0 and at most 90";
    let (azimuth, elevation) = text.split_once(',').ok_or(expected)?;
    let angle = |t: &str| t.trim().parse::<f32>().ok().filter(|a| a.is_finite());
    match (angle(azimuth), angle(elevation)) {
        (Some(azimuth), Some(elevation)) if elevation > 0.0 && elevation <= 90.0 => {
            Ok((azimuth, elevation))
        }
        _ => Err(expected.into()),
    }
}

/// How the model is loaded, for drawing and for the benchmark alike.
#[derive(clap::Args, Clone, Debug, PartialEq)]
pub struct LoadArgs {
    /// A channel, a named set of joints that a layer can play a clip on:
    /// NAME=JOINTS, `*joint` the joint and its descendants, a bare name the
    /// joint alone, `-` before either takes them out (`--channel
    /// torso='*Spine'`, `--channel legs='*origin -*Waist'`), as Doom 3's
    /// `channel` lines; a joint belongs to the last channel that claims it.
    /// Repeatable; after a declaration's own channels, replacing one of the
    /// same name. A joint name the mesh lacks is a warning. Every model of
    /// the crowd gets them.
    #[arg(long = "channel", value_name = "NAME=JOINTS", value_parser = CharacterChannel::from_command_line)]
    pub channels: Vec<CharacterChannel>,
    /// A layer over every instance's clip: the channel's joints play one
    /// of the clips (each instance picks one, at a phase of its own)
    /// instead, blended in by the weight (1 unless given); `all` is the
    /// whole body. Repeatable, applied in order, before --additive's; 3
    /// layers at most. The window's N steps the first layer's clip.
    #[arg(long = "layer", value_name = "CHANNEL:CLIP[,CLIP...][@WEIGHT]")]
    pub layers: Vec<LayerArg>,
    /// An additive layer over the whole body: the clip's difference from
    /// its first frame, scaled by the weight (1 unless given), added on
    /// top of what plays beneath. Repeatable, after --layer's.
    #[arg(long, value_name = "CLIP[,CLIP...][@WEIGHT]", value_parser = LayerArg::parse_additive)]
    pub additive: Vec<LayerArg>,
    /// A morph target (blend shape) of a glTF character held at a weight
    /// for the whole crowd, over what its clips play: NAME=WEIGHT, every
    /// target of the name (`inspect` lists them). Repeatable. A name no
    /// model has is an error.
    #[arg(long = "morph", value_name = "NAME=WEIGHT", value_parser = HeldMorph::from_command_line)]
    pub morphs: Vec<HeldMorph>,
    /// Clips that loop, by name, comma-separated, whatever the rule says.
    /// The rule: a name with loop or cycle loops; one named for dying,
    /// pain, attacking, firing, jumping, reloading, a gesture or a
    /// transition (die, pain, attack, fire, jump, wave, to, start, stand_up,
    /// crouch_down, ...) plays once and holds its last pose; one named for
    /// moving or resting (walk, run, jog, strafe, idle, stand, ...) loops;
    /// any other loops when the step from its last frame back to its first
    /// is at most twice its largest frame-to-frame step.
    #[arg(long = "loop", value_name = "NAME,...", value_delimiter = ',')]
    pub looping: Vec<String>,
    /// Clips that play once and hold their last pose, by name,
    /// comma-separated, whatever the rule (see --loop) says.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub once: Vec<String>,
    /// The game's base folder: where materials/*.mtr and images are looked
    /// up, in its loose files and its *.pk4 archives [default: the nearest
    /// ancestor of the mesh holding materials/, or the parent of the
    /// models/ folder the mesh path goes through]
    #[arg(long, value_name = "DIR")]
    pub textures: Option<PathBuf>,
    /// An installed id Tech 4 game's base folder (Doom 3's base/, holding
    /// pak000.pk4 ...): its loose files and *.pk4 archives are one file
    /// system, the model may be named by its declaration in def/*.def
    /// (`--game ~/doom3/base monster_demon_imp`: the mesh, its clips by
    /// the names declared, its offset and skin), and materials, images and
    /// skins are looked up in it.
    #[arg(long, value_name = "DIR", conflicts_with = "textures")]
    pub game: Option<PathBuf>,
    /// A mod folder searched before --game's base: its files and
    /// declarations override the base's.
    #[arg(long = "mod", value_name = "DIR", requires = "game")]
    pub mod_dir: Option<PathBuf>,
    /// Draw everyone with this skin (a skins/*.skin declaration of the
    /// game folder; `default`: the mesh's own materials) [default: the
    /// model declaration's skin, else the mesh's own]
    #[arg(long, value_name = "NAME", conflicts_with = "skins")]
    pub skin: Option<String>,
    /// Give each instance one of these skins, seeded, at most 8
    /// (`default`: the mesh's own materials): one mesh, a varied crowd,
    /// with no extra draws (each mesh's descriptor set holds its material
    /// under every skin; crowd.frag picks by the instance's).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub skins: Vec<String>,
    /// Weld the copies exporters write of a vertex (equal in position, uv
    /// and influences: flat-shaded and per-face meshes) so each is shaded
    /// once; off: the vertices as the file has them.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub weld: Switch,
    /// Several models: each one's share of the crowd, by the model's name
    /// (its mesh file's stem), comma-separated (`--mix hero:3,imp:1`); a
    /// model not named weighs 1 [default: equal shares]
    #[arg(long, value_name = "NAME:WEIGHT,...", value_delimiter = ',', value_parser = mix_share)]
    pub mix: Vec<(String, f32)>,
}

/// One `--mix` entry, `NAME:WEIGHT`.
fn mix_share(text: &str) -> Result<(String, f32), String> {
    let (name, weight) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("expected NAME:WEIGHT, found '{text}'"))?;
    match weight.parse::<f32>() {
        Ok(w) if w.is_finite() && w >= 0.0 && !name.is_empty() => Ok((name.to_owned(), w)),
        _ => Err(format!(
            "expected NAME:WEIGHT with a weight of 0 or more, found '{text}'"
        )),
    }
}

impl RenderArgs {
    /// A window run where no display can show one (`has_display` false: on
    /// a server, over ssh, in a container) becomes a headless render of the
    /// window's crowd into [`NO_DISPLAY_SCREENSHOT`], so the demo still shows
    /// something; `None` when the window can open or the run is headless.
    pub fn without_display(&self, has_display: bool) -> Option<RenderArgs> {
        if self.headless || has_display {
            return None;
        }
        let mut headless = self.clone();
        headless.headless = true;
        headless.instances = Some(self.instances());
        headless.screenshot = Some(
            self.screenshot
                .clone()
                .unwrap_or_else(|| PathBuf::from(NO_DISPLAY_SCREENSHOT)),
        );
        if self.time == 0.0 {
            headless.time = NO_DISPLAY_TIME;
        }
        Some(headless)
    }

    pub fn instances(&self) -> u32 {
        self.instances.unwrap_or(if self.headless {
            HEADLESS_INSTANCES
        } else {
            WINDOW_INSTANCES
        })
    }

    /// What scales the error a level of detail may show; `None`: LOD off.
    pub fn lod_bias(&self) -> Option<f32> {
        (self.lod == Switch::On).then_some(self.draw.lod_bias)
    }

    /// `--shadows`, or where it is not given the device's default: shadow
    /// maps, but blob shadows on a CPU driver (said in the log).
    pub fn shadows(&self, ctx: &Context) -> ShadowsArg {
        if let Some(shadows) = self.shadows {
            return shadows;
        }
        let device_type = unsafe {
            ctx.instance
                .get_physical_device_properties(ctx.physical_device)
                .device_type
        };
        if device_type == vk::PhysicalDeviceType::CPU {
            log::info!(
                "shadows: blob, {} being a CPU driver (--shadows map draws shadow maps, at 1.2 to 2.1 times the frame time)",
                ctx.device_name
            );
            ShadowsArg::Blob
        } else {
            ShadowsArg::Map
        }
    }

    /// What the frame loop draws on `ctx`'s device, as the flags ask;
    /// wireframe only where the device can (`Context::wireframe`), shadows
    /// as [`RenderArgs::shadows`] says, and locomotion as the crowd has it
    /// (`CrowdSpec::locomotion`: off when a clip is picked).
    pub fn view_options(&self, ctx: &Context, locomotion: bool) -> ViewOptions {
        let wireframe_supported = ctx.wireframe;
        ViewOptions {
            skinning: self.skinning.into(),
            show_skeleton: self.skeleton,
            wireframe: self.wireframe && wireframe_supported,
            lod_bias: self.lod_bias(),
            show_lod: self.show_lod,
            lod_influences: self.lod_influences == Switch::On,
            occlusion: self.occlusion == Switch::On,
            impostors: self.impostors == Switch::On,
            compute_only: false,
            anim_lod: self.anim_lod == Switch::On,
            multi_draw: self.multi_draw == Switch::On,
            locomotion,
            ground: self.ground == Switch::On,
            frozen_cull: None,
            shadows: self.shadows(ctx).into(),
            shadow_cascade_colors: false,
            morphs: true,
        }
    }

    /// CPU skinning starts from CPU-animated poses.
    pub fn animation(&self) -> Animation {
        match (self.cpu_skinning, self.animate) {
            (true, _) => Animation::CpuSkinned,
            (false, Animate::Gpu) => Animation::Gpu,
            (false, Animate::Cpu) => Animation::Cpu,
        }
    }
}

/// A whole number, 1 or more.
fn count(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(value) if value > 0 => Ok(value),
        _ => Err(format!("expected a whole number from 1 to {}", u32::MAX)),
    }
}

/// A finite, non-negative number of seconds.
fn seconds(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err("expected a number of seconds, 0 or more".into()),
    }
}

/// A finite, positive length.
fn distance(text: &str) -> Result<f32, String> {
    positive(text)
}

/// A finite, positive number.
/// `--msaa`: a sample count Vulkan names.
pub fn msaa_samples(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(samples @ (1 | 2 | 4 | 8)) => Ok(samples),
        _ => Err("expected 1, 2, 4 or 8 samples per pixel".into()),
    }
}

fn positive(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err("expected a positive number".into()),
    }
}
