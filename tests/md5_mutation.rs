//! Seeded mutation testing of the md5 parsers: thousands of corrupted copies
//! of a valid mesh and anim (byte flips, lost and repeated tokens, changed
//! digits, absurd counts, truncation, shuffled lines). Whatever the input, a
//! parser must return (a panic fails the test), must not allocate more than
//! the input could describe, must point errors inside the text, and anything
//! it accepts must survive a trip through the writer.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Range;

use glam::{Vec2, Vec3};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{
    parse_anim, parse_mesh, quat_from_xyz, write_anim, write_mesh, BaseJoint, HierarchyJoint,
    Md5Anim, Md5Error, Md5Mesh, Mesh, MeshJoint, Vert, Weight,
};

const VARIANTS_PER_FILE: usize = 20_000;

/// The parsers reserve at most a few times the input's size (a Vec of 80-byte
/// joints for 17-byte joint lines, say); a count taken from the header would
/// ask for gigabytes.
fn allocation_limit(text: &str) -> usize {
    8 * text.len() + 4096
}

// ------------------------------------------------------ allocation tracking

/// Forwards to the system allocator, remembering per thread the largest
/// single request (tests run on parallel threads).
struct LargestAllocation;

thread_local! {
    static LARGEST_REQUEST: Cell<usize> = const { Cell::new(0) };
}

fn note_request(size: usize) {
    // `try_with` because the allocator also serves thread teardown.
    let _ = LARGEST_REQUEST.try_with(|largest| largest.set(largest.get().max(size)));
}

unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_request(new_size);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Runs `f`, returning its result and the largest allocation it requested.
fn largest_allocation_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST_REQUEST.with(|largest| largest.set(0));
    let result = f();
    (result, LARGEST_REQUEST.with(Cell::get))
}

// ------------------------------------------------------------------ PRNG

/// SplitMix64: tiny, seedable, and good enough to pick mutations.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`; `n` must be positive.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ------------------------------------------------------------- mutations

/// Values that sit on the edges of what the grammar accepts.
const INTERESTING_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "-2",
    "63",
    "64",
    "2000000000",
    "4000000000",
    "4294967295",
    "4294967296",
    "99999999999999999999",
    "1e39",
    "-1e39",
    "1e-45",
    "nan",
    "inf",
    "0.5",
    "+.5e-3",
];

const INTERESTING_BYTES: &[u8] = b"{}()\"/-+.e09 \t\r\n";

fn mutate(text: &str, rng: &mut SplitMix64) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        if bytes.is_empty() {
            break;
        }
        match rng.below(11) {
            0 => {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next() as u8;
            }
            1 => {
                let i = rng.below(bytes.len());
                bytes[i] = *rng.pick(INTERESTING_BYTES);
            }
            2 => change_digit(&mut bytes, rng),
            3 => {
                let span = rng.pick(&token_spans(&bytes)).clone();
                bytes.drain(span);
            }
            4 => {
                let span = rng.pick(&token_spans(&bytes)).clone();
                let copy = [b" ", &bytes[span.clone()]].concat();
                bytes.splice(span.end..span.end, copy);
            }
            5 => {
                let span = rng.pick(&token_spans(&bytes)).clone();
                bytes.splice(span, rng.pick(INTERESTING_NUMBERS).bytes());
            }
            6 => replace_a_count(&mut bytes, rng),
            7 => bytes.truncate(rng.below(bytes.len())),
            8 => edit_lines(&mut bytes, |lines| {
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(i, j);
            }),
            9 => edit_lines(&mut bytes, |lines| {
                lines.remove(rng.below(lines.len()));
            }),
            _ => edit_lines(&mut bytes, |lines| {
                let i = rng.below(lines.len());
                lines.insert(i, lines[i].clone());
            }),
        }
    }
    // Flipped bytes may not be UTF-8; the file reader decodes the same way.
    String::from_utf8_lossy(&bytes).into_owned()
}

fn change_digit(bytes: &mut [u8], rng: &mut SplitMix64) {
    let digits: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i].is_ascii_digit())
        .collect();
    if !digits.is_empty() {
        let i = *rng.pick(&digits);
        bytes[i] = b'0' + rng.below(10) as u8;
    }
}

/// Replaces the value after a `num...` keyword, where a parser that trusted
/// the header would reserve memory.
fn replace_a_count(bytes: &mut Vec<u8>, rng: &mut SplitMix64) {
    let spans = token_spans(bytes);
    let counts: Vec<_> = spans
        .windows(2)
        .filter(|pair| bytes[pair[0].clone()].starts_with(b"num"))
        .map(|pair| pair[1].clone())
        .collect();
    if !counts.is_empty() {
        let span = rng.pick(&counts).clone();
        bytes.splice(span, rng.pick(INTERESTING_NUMBERS).bytes());
    }
}

/// Byte ranges of the whitespace-separated runs; never empty (the caller's
/// text is not), so one can always be picked.
fn token_spans(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, b) in bytes.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                spans.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    spans.extend(start.map(|s| s..bytes.len()));
    if spans.is_empty() {
        spans.push(0..0);
    }
    spans
}

fn edit_lines(bytes: &mut Vec<u8>, edit: impl FnOnce(&mut Vec<Vec<u8>>)) {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    edit(&mut lines);
    *bytes = lines.join(&b"\n"[..]);
}

// --------------------------------------------------------------- inputs

fn sample_mesh() -> Md5Mesh {
    let joint = |name: &str, parent, x| MeshJoint {
        name: name.into(),
        parent,
        position: Vec3::new(x, 0.5, 36.0),
        orientation: quat_from_xyz(0.1 * x, -0.2, 0.3),
    };
    let mesh = |shader: &str, verts: u32| Mesh {
        shader: shader.into(),
        verts: (0..verts)
            .map(|i| Vert {
                uv: Vec2::new(i as f32 / 8.0, 1.0 - i as f32 / 16.0),
                start_weight: i,
                weight_count: 1 + i % 2,
            })
            .collect(),
        tris: (0..verts.saturating_sub(2))
            .map(|i| [i, i + 2, i + 1])
            .collect(),
        weights: (0..=verts)
            .map(|i| Weight {
                joint: i % 4,
                bias: 0.5,
                position: Vec3::new(i as f32, -1.25e-3, 7.0),
            })
            .collect(),
    };
    Md5Mesh {
        commandline: "mesh hero.mb -dest hero.md5mesh".into(),
        joints: vec![
            joint("origin", None, 0.0),
            joint("pelvis", Some(0), 1.0),
            joint("spine", Some(1), 2.0),
            joint("head", Some(2), 3.0),
        ],
        meshes: vec![mesh("models/hero/body", 8), mesh("models/hero//eyes", 0)],
    }
}

fn sample_anim() -> Md5Anim {
    let joint = |name: &str, parent, flags, start_index| HierarchyJoint {
        name: name.into(),
        parent,
        flags,
        start_index,
    };
    Md5Anim {
        commandline: "anim walk.mb".into(),
        frame_rate: 24.0,
        num_animated_components: 9,
        hierarchy: vec![
            joint("origin", None, 0b000111, 0),
            joint("pelvis", Some(0), 0b111000, 3),
            joint("spine", Some(1), 0, 6),
            joint("head", Some(2), 0b101001, 6),
        ],
        bounds: (0..3)
            .map(|f| Bounds {
                min: Vec3::splat(-1.0 - f as f32),
                max: Vec3::new(1.0, 1.0, 70.0 + f as f32),
            })
            .collect(),
        baseframe: (0..4)
            .map(|j| BaseJoint {
                position: Vec3::new(j as f32, 0.0, 0.5),
                orientation: quat_from_xyz(0.0, 0.1 * j as f32, 0.0),
            })
            .collect(),
        frames: (0..3)
            .map(|f| (0..9).map(|c| (f * 9 + c) as f32 * 0.125 - 2.0).collect())
            .collect(),
    }
}

// ---------------------------------------------------------------- checks

/// Checks one variant; returns whether the parser rejected it.
fn check<T: PartialEq + std::fmt::Debug>(
    what: &str,
    variant: usize,
    text: &str,
    parse: fn(&str, &str) -> Result<T, Md5Error>,
    write: fn(&T) -> String,
) -> bool {
    let context = || format!("{what} variant {variant}:\n{text}");
    let (result, largest) = largest_allocation_of(|| parse(text, "mutant"));
    assert!(
        largest <= allocation_limit(text),
        "allocated {largest} bytes for {} bytes of text; {}",
        text.len(),
        context()
    );
    match result {
        Ok(parsed) => {
            let rewritten = write(&parsed);
            match parse(&rewritten, "rewritten") {
                Ok(reparsed) => assert_eq!(reparsed, parsed, "{}", context()),
                Err(e) => panic!("writer output does not parse ({e}); {}", context()),
            }
            false
        }
        Err(error) => {
            assert_eq!(error.file, "mutant");
            let location = error.location.expect("parse errors have a location");
            let lines = text.split('\n').count() as u32;
            assert!(
                (1..=lines).contains(&location.line) && location.column >= 1,
                "{error} lies outside the text; {}",
                context()
            );
            true
        }
    }
}

fn run_mutations<T: PartialEq + std::fmt::Debug>(
    what: &str,
    seed: u64,
    valid: &str,
    parse: fn(&str, &str) -> Result<T, Md5Error>,
    write: fn(&T) -> String,
) {
    assert!(
        parse(valid, "valid").is_ok(),
        "the {what} to mutate is valid"
    );
    let mut rng = SplitMix64(seed);
    let mut rejected = 0;
    for variant in 0..VARIANTS_PER_FILE {
        let text = mutate(valid, &mut rng);
        rejected += usize::from(check(what, variant, &text, parse, write));
    }
    // Mutations that keep the file valid (a changed float, say) are fine, but
    // most must break it or the mutations exercise nothing.
    assert!(
        rejected > VARIANTS_PER_FILE / 2,
        "only {rejected} of {VARIANTS_PER_FILE} {what} variants were rejected"
    );
}

#[test]
fn mutated_meshes_never_panic_or_overallocate() {
    let text = write_mesh(&sample_mesh());
    run_mutations("mesh", 0x6d65_7368, &text, parse_mesh, write_mesh);
}

#[test]
fn mutated_anims_never_panic_or_overallocate() {
    let text = write_anim(&sample_anim());
    run_mutations("anim", 0x616e_696d, &text, parse_anim, write_anim);
}

#[test]
fn huge_header_counts_with_tiny_bodies_fail_without_reserving() {
    let cases = [
        (
            parse_mesh_unit as fn(&str) -> Result<(), Md5Error>,
            "MD5Version 10 commandline \"\" numJoints 2000000000 numMeshes 4000000000
             joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) }",
        ),
        (
            parse_mesh_unit,
            "MD5Version 10 commandline \"\" numJoints 1 numMeshes 1
             joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) }
             mesh { shader \"\" numverts 2000000000 vert 0 ( 0 0 ) 0 1 }",
        ),
        (
            parse_anim_unit,
            "MD5Version 10 commandline \"\" numFrames 4294967295 numJoints 4294967295
             frameRate 24 numAnimatedComponents 4294967295 hierarchy { \"root\" -1 63 0 }",
        ),
    ];
    for (parse, text) in cases {
        let (result, largest) = largest_allocation_of(|| parse(text));
        assert!(result.is_err());
        assert!(largest < 64 * 1024, "allocated {largest} bytes for {text}");
    }
}

fn parse_mesh_unit(text: &str) -> Result<(), Md5Error> {
    parse_mesh(text, "huge").map(drop)
}

fn parse_anim_unit(text: &str) -> Result<(), Md5Error> {
    parse_anim(text, "huge").map(drop)
}
