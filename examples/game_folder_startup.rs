//! Start-up of a game folder: writes a base folder of ARCHIVES pk4
//! archives holding ENTRIES files in all (default 10 and 50,000, named like
//! a game's), then opens it with `Vfs::open_game` and reports the time
//! (the first open, and the best of five) and the heap the opened folder
//! holds (counted by this program's allocator).
//!
//! With `--declarations`, two archives follow, for the `--game` start-up
//! figures: the shipped character with its textures and materials and a
//! def declaring it 8 times (`npc_crowdling_1` to `npc_crowdling_8`), and
//! 2.7 MB of def text (3,000 models, 3,000 entityDefs) that every opening
//! of the folder parses.
//!
//! ```text
//! cargo run --release --example game_folder_startup -- [--declarations] OUT_DIR [ARCHIVES ENTRIES]
//! ```

#[path = "../tests/common/pk4.rs"]
mod pk4;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use md5crowd::vfs::Vfs;

/// The system allocator, counting the bytes it has handed out and not
/// had back.
struct Counting;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let declarations = args.first().is_some_and(|a| a == "--declarations");
    if declarations {
        args.remove(0);
    }
    let parsed = match args.as_slice() {
        [dir] => Some((dir, 10, 50_000)),
        [dir, archives, entries] => match (archives.parse(), entries.parse()) {
            (Ok(archives), Ok(entries)) if archives > 0 => Some((dir, archives, entries)),
            _ => None,
        },
        _ => None,
    };
    let Some((dir, archives, entries)) = parsed else {
        eprintln!("usage: game_folder_startup [--declarations] OUT_DIR [ARCHIVES ENTRIES]");
        return ExitCode::from(2);
    };
    let base = PathBuf::from(dir);
    if let Err(error) = std::fs::create_dir_all(&base) {
        eprintln!("{}: {error}", base.display());
        return ExitCode::from(2);
    }
    let samples = pk4::write_big_game(&base, archives, entries);
    let bytes: u64 = (0..archives)
        .filter_map(|a| std::fs::metadata(base.join(format!("pak{a:03}.pk4"))).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "{archives} archives, {entries} files, {:.1} MiB on disk in {}",
        bytes as f64 / f64::from(1 << 20),
        base.display()
    );

    let mut times = Vec::new();
    let mut held = 0;
    for _ in 0..5 {
        let before = LIVE_BYTES.load(Ordering::Relaxed);
        let start = Instant::now();
        let (vfs, warnings) = Vfs::open_game(&base, None);
        let found = samples.iter().filter(|s| vfs.exists(s)).count();
        times.push(start.elapsed().as_secs_f64() * 1e3);
        held = LIVE_BYTES.load(Ordering::Relaxed) - before;
        assert!(warnings.is_empty() && found == samples.len());
    }
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "open and find one file per archive: first {:.1} ms, best of 5 {best:.1} ms",
        times[0]
    );
    println!(
        "heap held by the opened folder: {:.1} MiB ({:.0} bytes a file)",
        held as f64 / f64::from(1 << 20),
        held as f64 / entries.max(1) as f64
    );
    if declarations {
        write_declarations(&base, archives);
        println!(
            "and pak{archives:03}.pk4 (the character, 8 declarations), pak{:03}.pk4 (def text)",
            archives + 1
        );
    }
    ExitCode::SUCCESS
}

/// The two archives after the `archives` written: the character and a def
/// of 8 declarations of it, then 3,000 models and entityDefs of filler.
fn write_declarations(base: &std::path::Path, archives: usize) {
    const CHARACTER: &str = "models/md5/chars/crowdling";
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |name: &str| std::fs::read(assets.join(name)).expect("the shipped assets");
    let mut files: Vec<(String, Vec<u8>)> = ["crowdling.md5mesh", "walk.md5anim", "idle.md5anim"]
        .iter()
        .map(|name| (format!("{CHARACTER}/{name}"), read(name)))
        .collect();
    for entry in std::fs::read_dir(assets.join("textures")).expect("the shipped textures") {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        files.push((
            format!("textures/{name}"),
            read(&format!("textures/{name}")),
        ));
    }
    files.push((
        "materials/crowdling.mtr".into(),
        read("materials/crowdling.mtr"),
    ));
    let def: String = (1..=8)
        .map(|i| {
            format!(
                "model char_crowdling_{i} {{\n\tmesh\t{CHARACTER}/crowdling.md5mesh\n\t\
                 anim walk\t{CHARACTER}/walk.md5anim\n\tanim idle\t{CHARACTER}/idle.md5anim\n}}\n\
                 entityDef npc_crowdling_{i} {{\n\t\"model\"\t\"char_crowdling_{i}\"\n}}\n"
            )
        })
        .collect();
    files.push(("def/crowdling.def".into(), def.into_bytes()));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    pk4::write_pk4(&base.join(format!("pak{archives:03}.pk4")), &files);

    let padding = "a long key value as shipped defs carry for the editor and the scripts";
    let mut filler = String::from("entityDef filler_base {\n\t\"spawnclass\"\t\"idAI\"\n}\n");
    for i in 0..3000 {
        filler += &format!(
            "model filler_model_{i:04} {{\n\tmesh\tmodels/md5/filler/filler_{i:04}.md5mesh\n\t\
             anim idle\tmodels/md5/filler/idle_{i:04}.md5anim\n\t\
             anim walk\tmodels/md5/filler/walk_{i:04}.md5anim\n}}\n\
             entityDef filler_npc_{i:04} {{\n\t\"inherit\"\t\"filler_base\"\n\t\
             \"model\"\t\"filler_model_{i:04}\"\n\t\"skin\"\t\"skins/filler/s{i:04}\"\n"
        );
        for key in ["a", "b", "c", "d", "e", "f"] {
            filler += &format!("\t\"editor_{key}\"\t\"{padding}, declaration {i:04}\"\n");
        }
        filler += "}\n";
    }
    pk4::write_pk4(
        &base.join(format!("pak{:03}.pk4", archives + 1)),
        &[("def/filler.def", filler.as_bytes())],
    );
}
