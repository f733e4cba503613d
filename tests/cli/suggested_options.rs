//! Every option a message suggests ("pick one with --mesh NAME") exists on
//! each command that prints it: the option strings of the source, read
//! file by file, against the options each command's `--help` lists.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::md5crowd_as_typed;

/// Each source file whose messages name options, and the commands that
/// run its code: `[]` is the render command (`md5crowd [OPTIONS]`),
/// `["bench"]` the benchmark.
const PRINTED_BY: &[(&str, &[&[&str]])] = &[
    // Loading the models: both commands load them alike.
    ("src/app/model_args.rs", &[&[], &["bench"]]),
    ("src/app/load.rs", &[&[], &["bench"]]),
    ("src/app/layer_args.rs", &[&[], &["bench"]]),
    ("src/model/channels.rs", &[&[], &["bench"]]),
    ("src/anim/looping.rs", &[&[], &["bench"]]),
    // The device and the GPU animation pass: both commands draw.
    ("src/gpu/mod.rs", &[&[], &["bench"]]),
    ("src/gpu/passes/animate.rs", &[&[], &["bench"]]),
    // The render command's own checks, window and headless runs, overlay
    // and the window controls its --help lists.
    ("src/app/mod.rs", &[&[]]),
    ("src/app/headless.rs", &[&[]]),
    ("src/app/overlay.rs", &[&[]]),
    ("src/app/controls.rs", &[&[]]),
    ("src/app/window.rs", &[&[]]),
    // A planned capture (--capture-frame) is the render command's; the
    // benchmark plans none.
    ("src/gpu/capture.rs", &[&[]]),
    ("src/app/bench_suite.rs", &[&["bench"]]),
    ("src/app/bench.rs", &[&["bench"]]),
];

/// Logging macros whose lines only inform: what they say suggests nothing.
const INFO_MACROS: [&str; 3] = ["log::info!(", "log::debug!(", "log::trace!("];

/// The string literals of Rust source `code`, outside comments, outside
/// [`INFO_MACROS`], up to its inline test module.
fn message_strings(code: &str) -> Vec<String> {
    let code = code
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or(code);
    let chars: Vec<char> = code.chars().collect();
    let starts_with = |at: usize, text: &str| {
        text.chars()
            .enumerate()
            .all(|(k, c)| chars.get(at + k) == Some(&c))
    };
    let mut strings = Vec::new();
    // Parentheses still open in an informational log call.
    let mut info_depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        if starts_with(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if starts_with(i, "/*") {
            while i < chars.len() && !starts_with(i, "*/") {
                i += 1;
            }
            i += 2;
        } else if let Some(macro_call) = INFO_MACROS.iter().find(|m| starts_with(i, m)) {
            info_depth = info_depth.max(1);
            i += macro_call.len();
        } else if chars[i] == '\''
            && (chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\'))
        {
            // A char literal ('"', '\n', '\''): no string starts in it.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if chars[i] == '"'
            || (chars[i] == 'r' && matches!(chars.get(i + 1), Some('"' | '#')))
        {
            let raw = chars[i] == 'r';
            let hashes = if raw {
                chars[i + 1..].iter().take_while(|&&c| c == '#').count()
            } else {
                0
            };
            i += if raw { 2 + hashes } else { 1 };
            let end: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let mut text = String::new();
            while i < chars.len() && !starts_with(i, &end) {
                if chars[i] == '\\' && !raw {
                    text.push(chars[i]);
                    i += 1;
                }
                text.push(chars[i]);
                i += 1;
            }
            i += end.len();
            if info_depth == 0 {
                strings.push(text);
            }
        } else {
            match chars[i] {
                '(' if info_depth > 0 => info_depth += 1,
                ')' if info_depth > 0 => info_depth -= 1,
                _ => {}
            }
            i += 1;
        }
    }
    strings
}

/// The options (`--mesh`) named in `text`.
fn options_named(text: &str) -> BTreeSet<String> {
    let mut options = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        let before = rest[..at].chars().next_back();
        let name: String = rest[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let starts_with_letter = name.starts_with(|c: char| c.is_ascii_lowercase());
        if starts_with_letter && !before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
            options.insert(format!("--{}", name.trim_end_matches('-')));
        }
        rest = &rest[at + 2 + name.len()..];
    }
    options
}

/// The options `md5crowd COMMAND --help` lists.
fn options_of(command: &[&str]) -> BTreeSet<String> {
    let output = md5crowd_as_typed(&[command, &["--help"]].concat());
    assert!(
        output.status.success(),
        "md5crowd {command:?} --help failed"
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .filter_map(|line| {
            // `-q, --quiet`, `--mesh <NAME>`.
            line.split_whitespace()
                .map(|word| word.trim_end_matches(','))
                .find(|word| word.starts_with("--"))
                .map(str::to_owned)
        })
        .collect()
}

/// Every `.rs` file under `dir`, relative to the crate.
fn source_files(dir: &Path, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
            let relative = path.strip_prefix(crate_dir).unwrap();
            files.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn every_option_a_message_suggests_exists_on_the_command_that_prints_it() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    source_files(&crate_dir.join("src"), &mut files);
    files.sort();
    let mut missing = Vec::new();
    for file in &files {
        let code = std::fs::read_to_string(crate_dir.join(file)).unwrap();
        let suggested: BTreeSet<String> = message_strings(&code)
            .iter()
            .flat_map(|text| options_named(text))
            .collect();
        let listed = PRINTED_BY.iter().find(|(f, _)| f == file);
        if suggested.is_empty() {
            assert!(
                listed.is_none(),
                "{file} suggests no option: take it out of PRINTED_BY"
            );
            continue;
        }
        let Some((_, commands)) = listed else {
            panic!(
                "{file}'s messages suggest {suggested:?}: add it to PRINTED_BY with the \
                 commands that print them"
            );
        };
        for command in *commands {
            let options = options_of(command);
            for option in &suggested {
                if !options.contains(option) {
                    missing.push(format!(
                        "{file}: {option} is no option of md5crowd {command:?}"
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    for (file, _) in PRINTED_BY {
        assert!(
            files.contains(&file.to_string()),
            "{file} is gone: update PRINTED_BY"
        );
    }
}

#[test]
fn messages_are_read_from_strings_outside_comments_and_informational_logs() {
    let code = r##"
        // pick one with --commented
        /// --documented
        let quote = '"';
        log::info!("running under RenderDoc: --capture-frame N ({})", f("--nested"));
        log::warn!("{name}: pick one with --mesh NAME");
        return Err(format!(r#"--clip {name}: no such clip"#));
        let dashes = "---- a--b";
    "##;
    let suggested: BTreeSet<String> = message_strings(code)
        .iter()
        .flat_map(|text| options_named(text))
        .collect();
    assert_eq!(
        suggested,
        BTreeSet::from(["--clip".to_owned(), "--mesh".to_owned()])
    );
}
