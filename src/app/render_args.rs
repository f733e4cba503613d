//! The render options, shared by the window and the headless path. The
//! top-level CLI flattens [`RenderArgs`] into its default command.

use std::path::PathBuf;

use crate::gpu::passes::crowd_draw::SkinningMode;
use crate::gpu::renderer::Animation;
use crate::skin::InfluenceLimit;

/// Where the shipped character lives, relative to the working directory.
pub const DEFAULT_MESH: &str = "assets/crowdling.md5mesh";

#[derive(clap::Args, Clone, Debug)]
pub struct RenderArgs {
    /// The .md5mesh to draw [default: assets/crowdling.md5mesh, with every
    /// .md5anim beside it]
    #[arg(value_name = "MESH")]
    pub mesh: Option<PathBuf>,
    /// Clips for the mesh; the first one plays.
    #[arg(value_name = "ANIM")]
    pub anims: Vec<PathBuf>,
    /// Render offscreen without a window (needs --screenshot to keep the result).
    #[arg(long)]
    pub headless: bool,
    /// Frames to render before exiting [headless default: 1; window: until closed].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: Option<u32>,
    /// Write the last frame to this PNG file.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub width: u32,
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub height: u32,
    /// Animation time in seconds of the last frame; earlier frames step back
    /// 1/60 s each. Headless only: a window plays in real time from 0.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub time: f32,
    /// Characters in the crowd, placed on a grid.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub instances: u32,
    /// Seed for the crowd's placement, clips, phases and tints.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Enable the Vulkan validation layer with synchronization validation;
    /// any warning or error it reports makes the exit status non-zero.
    /// Debug builds validate whenever the layer is installed.
    #[arg(long)]
    pub validate: bool,
    /// Use the Vulkan device with this index (as `vulkaninfo --summary` lists them).
    #[arg(long, value_name = "INDEX")]
    pub gpu: Option<usize>,
    /// Present without waiting for vertical sync (MAILBOX or IMMEDIATE when offered).
    #[arg(long)]
    pub no_vsync: bool,
    /// How vertices blend their joints' transforms (key L toggles).
    #[arg(long, value_enum, default_value_t = SkinningMode::Linear)]
    pub skinning: SkinningMode,
    /// Who poses the crowd: the animate compute pass, or the CPU reference
    /// jobs on every core, uploaded each frame.
    #[arg(long, value_enum, default_value_t = Animation::Gpu)]
    pub animate: Animation,
    /// Skin on the CPU (the reference implementation) and draw through the
    /// same pipeline with identity joint transforms. Implies --animate cpu.
    #[arg(long)]
    pub cpu_skinning: bool,
    /// Draw the skeleton over the characters (key K toggles).
    #[arg(long)]
    pub skeleton: bool,
    /// Joint influences kept per vertex.
    #[arg(long, value_enum, default_value_t = Influences::Four)]
    pub influences: Influences,
    /// Capture frame N (counting from 0) with RenderDoc. Needs the program
    /// to run under RenderDoc (`renderdoccmd capture` or qrenderdoc); in the
    /// window, F12 captures the next frame.
    #[arg(long, value_name = "N")]
    pub capture_frame: Option<u32>,
    /// Print every frame's CPU time, GPU time per pass and pipeline
    /// statistics on stdout (the window shows them in its title).
    #[arg(long)]
    pub print_timings: bool,
    /// Test hook: pretend the device has only this much memory for the crowd.
    #[arg(long, hide = true, value_name = "MIB")]
    pub memory_budget_mib: Option<u64>,
    /// Test hook: drive the window through resizes and a minimisation.
    #[arg(long, hide = true)]
    pub exercise_window: bool,
}

impl RenderArgs {
    pub fn memory_budget(&self) -> Option<u64> {
        self.memory_budget_mib.map(|mib| mib << 20)
    }

    /// CPU skinning starts from CPU-animated poses.
    pub fn animation(&self) -> Animation {
        if self.cpu_skinning {
            Animation::Cpu
        } else {
            self.animate
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Influences {
    #[value(name = "4")]
    Four,
    #[value(name = "8")]
    Eight,
}

impl From<Influences> for InfluenceLimit {
    fn from(influences: Influences) -> InfluenceLimit {
        match influences {
            Influences::Four => InfluenceLimit::Four,
            Influences::Eight => InfluenceLimit::Eight,
        }
    }
}
