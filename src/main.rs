//! The `md5crowd` command line. Exit codes: 0 success, 1 the machine cannot
//! do it (no Vulkan, too little memory), 2 bad input (files, arguments).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use md5crowd::app::{self, bench::BenchArgs, RenderArgs};
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
    /// the first mesh named.
    Inspect {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// One JSON array, an object per file.
        #[arg(long)]
        json: bool,
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
        Some(Command::Inspect { files, json }) => match inspect::inspect_files(&files) {
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
        },
    }
}
