//! The `md5crowd` command line as users type it: what the arguments load,
//! how each mistake ends (exit status and message), `inspect`, `bench`,
//! game folders and mixed crowds; the options messages suggest.

mod bench_cli;
mod cli_errors;
mod game_cli;
mod inspect_cli;
mod mixed_cli;
mod render_cli;
mod suggested_options;
