//! The `md5crowd` command line. Exit codes: 0 success, 1 the machine cannot
//! do it (no Vulkan, too little memory), 2 bad input (files, arguments).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use md5crowd::app::{self, bench::BenchArgs, RenderArgs};
use md5crowd::game::Game;
use md5crowd::inspect;

#[derive(Parser)]
#[command(
    name = "md5crowd",
    version,
    about = "GPU-skinned crowds of Doom 3 md5 characters, drawn with raw Vulkan",
    after_help = app::controls::HELP,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand: draw the model (in a window unless --headless).
    #[command(flatten)]
    render: RenderArgs,
    /// Only warnings and errors on stderr (RUST_LOG overrides).
    #[arg(long, short, global = true)]
    quiet: bool,
}

// Parsed once at start-up: the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Print what md5mesh / md5anim files contain; anims are checked against
    /// the first mesh named. With --game, list the game folder's model and
    /// entityDef declarations that draw md5 characters (or those named).
    Inspect {
        #[arg(required_unless_present = "game", value_name = "FILE | DECLARATION")]
        files: Vec<PathBuf>,
        /// One JSON array, an object per file or declaration.
        #[arg(long)]
        json: bool,
        /// A game's base folder (loose files and *.pk4 archives), whose
        /// def/*.def declarations to list.
        #[arg(long, value_name = "DIR")]
        game: Option<PathBuf>,
        /// A mod folder searched before --game's base.
        #[arg(long = "mod", value_name = "DIR", requires = "game")]
        mod_dir: Option<PathBuf>,
    },
    /// Time headless frames for several crowd sizes with GPU animation, CPU
    /// animation and a static (bind pose, unskinned) crowd.
    Bench(BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_level = if cli.quiet { "warn" } else { "info" };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default_level))
        .format_timestamp(None)
        .init();

    match cli.command {
        None => match app::run(&cli.render) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::from(error.exit_code())
            }
        },
        Some(Command::Bench(args)) => match app::run_bench(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::from(error.exit_code())
            }
        },
        Some(Command::Inspect {
            files,
            json,
            game,
            mod_dir,
        }) => {
            let reports = match game {
                Some(base) => inspect_game(&base, mod_dir.as_deref(), &files),
                None => inspect::inspect_files(&files).map_err(|e| e.to_string()),
            };
            match reports {
                Ok(reports) if json => {
                    println!("{}", inspect::to_json(&reports));
                    ExitCode::SUCCESS
                }
                Ok(reports) => {
                    print!("{}", inspect::to_text(&reports));
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// `inspect --game`: the declarations named (none: all of them).
fn inspect_game(
    base: &Path,
    mod_dir: Option<&Path>,
    names: &[PathBuf],
) -> Result<Vec<inspect::FileReport>, String> {
    for folder in std::iter::once(base).chain(mod_dir) {
        if !folder.is_dir() {
            return Err(format!("{}: no such directory", folder.display()));
        }
    }
    let (game, _) = Game::open(base, mod_dir);
    let names: Vec<String> = names
        .iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    inspect::inspect_declarations(&game, &names).map_err(|e| format!("{e} (in {})", game.vfs))
}
