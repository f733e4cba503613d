//! Start-up of a game folder: writes a base folder of ARCHIVES pk4
//! archives holding ENTRIES files in all (default 10 and 50,000, named like
//! a game's), then opens it with `Vfs::open_game` and reports the time
//! (the first open, and the best of five) and the heap the opened folder
//! holds (counted by this program's allocator).
//!
//! ```text
//! cargo run --release --example game_folder_startup -- OUT_DIR [ARCHIVES ENTRIES]
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args.as_slice() {
        [dir] => Some((dir, 10, 50_000)),
        [dir, archives, entries] => match (archives.parse(), entries.parse()) {
            (Ok(archives), Ok(entries)) if archives > 0 => Some((dir, archives, entries)),
            _ => None,
        },
        _ => None,
    };
    let Some((dir, archives, entries)) = parsed else {
        eprintln!("usage: game_folder_startup OUT_DIR [ARCHIVES ENTRIES]");
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
    ExitCode::SUCCESS
}
