//! Helpers and fixtures shared by the integration tests: whether Vulkan, a
//! device feature, a virtual X server and xdotool are there (and what to do
//! when they are not), running the binary with validation, comparing PNGs,
//! and the files the tests write (game folders, images, glTF, scaled
//! characters).

// The shipped character's generator, for the tests that compare what it
// writes with assets/ and that load its low-poly exports.
#[path = "../../examples/make_character/character/mod.rs"]
pub mod character;
pub mod dds;
mod game_files;
pub use game_files::{shipped_character, shipped_tga, solid_tga, tga_bytes, write_file};
pub mod gltf_fixtures;
pub mod gltf_write;
pub mod material_fixtures;
pub mod md5_to_gltf;
pub mod morphed;
pub use md5crowd::synthetic as many_joints;
pub mod pk4;
mod vulkan;
pub use vulkan::{required_or_skip, vulkan_or_skip};

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use image::RgbaImage;
use md5crowd::gpu::context::Validation;
use md5crowd::gpu::frame::FRAMES_IN_FLIGHT;
use md5crowd::gpu::{Context, ContextDesc};
use md5crowd::md5::{read_anim_file, read_mesh_file, Md5Error};
use md5crowd::model::Model;
use md5crowd::skin::InfluenceLimit;

/// [`vulkan_or_skip`], then whether the device draws wireframes
/// (`fillModeNonSolid`); missing, it skips or (CI) fails like Vulkan.
pub fn wireframe_or_skip() -> bool {
    feature_or_skip("fillModeNonSolid", |device| device.wireframe)
}

/// [`vulkan_or_skip`], then whether one indirect call can draw many
/// commands (`multiDrawIndirect`); without it `--multi-draw on` draws as
/// `off` does, so a comparison of the two tests nothing: it skips or (CI)
/// fails like Vulkan.
pub fn multi_draw_or_skip() -> bool {
    feature_or_skip("multiDrawIndirect", |device| device.multi_draw_indirect)
}

/// [`vulkan_or_skip`], then whether the device has the feature `name`
/// (`has` reads it off the context).
fn feature_or_skip(name: &str, has: impl Fn(&Context) -> bool) -> bool {
    if !vulkan_or_skip() {
        return false;
    }
    let probe = Context::new(&ContextDesc {
        validation: Validation::Off,
        gpu_index: None,
        window: None,
    })
    .expect("a device");
    has(&probe) || required_or_skip(&format!("{} has no {name}", probe.device_name))
}

/// Whether `xdotool` is installed (it can be started: `xdotool version`
/// itself fails without a display); missing, it skips or (CI) fails like
/// Vulkan.
pub fn xdotool_or_skip() -> bool {
    let installed = Command::new("xdotool")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    installed || required_or_skip("xdotool is not installed")
}

/// A virtual X server for a window test, after checking for Vulkan (and,
/// with `xdotool`, for xdotool): `None` when the test should skip; with
/// `MD5CROWD_REQUIRE_VULKAN=1` anything missing fails the test instead.
pub fn window_or_skip(xdotool: bool) -> Option<VirtualDisplay> {
    if !vulkan_or_skip() {
        return None;
    }
    let display = match VirtualDisplay::start() {
        Ok(display) => display,
        Err(why) => {
            required_or_skip(&why);
            return None;
        }
    };
    if xdotool && !xdotool_or_skip() {
        return None;
    }
    Some(display)
}

/// An Xvfb server on a display of its own, stopped when dropped.
pub struct VirtualDisplay {
    server: Child,
    /// `:N`, for `DISPLAY`.
    pub display: String,
}

impl VirtualDisplay {
    /// A fresh 1280x1024 server; the error says why there is none (Xvfb is
    /// not installed, no display number is free).
    pub fn start() -> Result<VirtualDisplay, String> {
        // Display numbers whose lock file is absent are free; start high to
        // stay clear of real sessions, and offset by pid and by a counter so
        // parallel test runs, and parallel tests in one run, pick different
        // ones (a lock file only appears once the server is up).
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let first = 90 + std::process::id() % 100 + 100 * STARTED.fetch_add(1, Ordering::Relaxed);
        let mut number = first;
        let mut failures = Vec::new();
        while failures.len() < 5 {
            number = (number..first + 100)
                .find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())
                .ok_or_else(|| format!("no free X display in :{first}..:{}", first + 99))?;
            let display = format!(":{number}");
            let server = Command::new("Xvfb")
                .args([
                    display.as_str(),
                    "-screen",
                    "0",
                    "1280x1024x24",
                    "-nolisten",
                    "tcp",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("Xvfb is not installed ({e})"))?;
            // Stopped on drop, whatever happens next.
            let mut x = VirtualDisplay { server, display };
            let socket = format!("/tmp/.X11-unix/X{number}");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Some(status) = x.server.try_wait().ok().flatten() {
                    // Another server took the number between the check and
                    // the start: try the next one.
                    failures.push(format!("{}: Xvfb exited ({status})", x.display));
                    break;
                }
                if Path::new(&socket).exists() {
                    return Ok(x);
                }
                if Instant::now() > deadline {
                    failures.push(format!("{}: no socket after 10 s", x.display));
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            number += 1;
        }
        panic!("Xvfb did not start: {}", failures.join("; "));
    }

    /// Runs `xdotool ARGS` against this display, failing the test if it has
    /// not finished after `timeout` (`search --sync` waits for ever for a
    /// window that never appears).
    pub fn xdotool_within(&self, args: &[&str], timeout: Duration) -> Output {
        let mut child = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run xdotool");
        let deadline = Instant::now() + timeout;
        while child.try_wait().expect("wait for xdotool").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("xdotool {args:?} did not finish within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        child.wait_with_output().expect("xdotool output")
    }

    /// [`Self::xdotool_within`] 60 s.
    pub fn xdotool(&self, args: &[&str]) -> Output {
        self.xdotool_within(args, Duration::from_secs(60))
    }

    /// The title of `window` (an X window id).
    pub fn title(&self, window: &str) -> String {
        let name = self.xdotool(&["getwindowname", window]);
        String::from_utf8_lossy(&name.stdout).trim().to_owned()
    }

    /// Waits until the title of `window` ends in `ending`, failing the test
    /// after [`WINDOW_DEADLINE`].
    pub fn wait_for_title(&self, window: &str, ending: &str) {
        let deadline = Instant::now() + WINDOW_DEADLINE;
        loop {
            let now = self.title(window);
            if now.ends_with(ending) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "title \"{now}\" never ended in {ending:?}"
            );
            // Polled: the title changes every half second.
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts `md5crowd --validate --print-timings ARGS` in a window on
    /// this display and waits for the window (60 s at most).
    pub fn launch(&self, args: &[&str]) -> WindowedApp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
            .args(["--validate", "--print-timings"])
            .args(args)
            .env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run md5crowd");
        let output = Arc::new(Mutex::new(WindowedOutput::default()));
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let readers = vec![
            read_lines(stdout, Arc::clone(&output), |output, line| {
                output.frames += usize::from(line.starts_with("frame "));
                output.stdout.push_str(line);
            }),
            read_lines(stderr, Arc::clone(&output), |output, line| {
                output.log.push_str(line);
            }),
        ];
        let found = self.xdotool(&["search", "--sync", "--name", "md5crowd"]);
        let window = String::from_utf8_lossy(&found.stdout)
            .lines()
            .next()
            .expect("the window appears")
            .to_owned();
        WindowedApp {
            child,
            window,
            output,
            readers,
        }
    }
}

/// md5crowd in a window on a [`VirtualDisplay`], read as it runs, so that a
/// test acts once the app is ready for it, however slow the machine: its
/// log (stderr), and the frames it has drawn (the `--print-timings` line
/// each prints on stdout).
pub struct WindowedApp {
    child: Child,
    /// The window's id, for xdotool.
    pub window: String,
    output: Arc<Mutex<WindowedOutput>>,
    readers: Vec<JoinHandle<()>>,
}

/// What a [`WindowedApp`] has written so far.
#[derive(Default)]
struct WindowedOutput {
    stdout: String,
    log: String,
    /// Frames whose timings were printed.
    frames: usize,
}

/// Frames the app may have laid out (taking their input) before an input
/// sent now, beyond those whose timings were read: the frames in flight,
/// the one being laid out, and one printed but not read yet.
const FRAMES_PAST_INPUT: usize = FRAMES_IN_FLIGHT + 2;

/// How long a windowed app gets for anything a test waits for: generous,
/// since a CPU Vulkan driver on busy cores may take seconds a frame.
pub const WINDOW_DEADLINE: Duration = Duration::from_secs(120);

/// A thread that hands each line of `pipe` (its newline kept) to `read`.
fn read_lines(
    pipe: impl Read + Send + 'static,
    output: Arc<Mutex<WindowedOutput>>,
    read: fn(&mut WindowedOutput, &str),
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut pipe = BufReader::new(pipe);
        let mut line = Vec::new();
        while pipe.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            read(&mut output.lock().unwrap(), &String::from_utf8_lossy(&line));
            line.clear();
        }
    })
}

impl WindowedApp {
    /// Waits until `done` holds for what the app has written, failing the
    /// test (with the log) if the app exits first or after
    /// [`WINDOW_DEADLINE`]; `what` names what was awaited.
    fn wait_until(&mut self, what: &str, done: impl Fn(&WindowedOutput) -> bool) {
        let deadline = Instant::now() + WINDOW_DEADLINE;
        loop {
            if done(&self.output.lock().unwrap()) {
                return;
            }
            let exited = self.child.try_wait().expect("poll md5crowd");
            if exited.is_some() || Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                let why = exited.map_or(format!("not within {WINDOW_DEADLINE:?}"), |status| {
                    format!("md5crowd exited first ({status})")
                });
                panic!("{what}: {why}; its log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the app has drawn a frame laid out after this call: an
    /// input sent before the call has reached the overlay and the controls.
    pub fn wait_for_frame(&mut self) {
        let frames = self.output.lock().unwrap().frames + FRAMES_PAST_INPUT + 1;
        self.wait_until(&format!("frame {frames}"), |output| output.frames >= frames);
    }

    /// Waits until the log holds `count` lines that `matches`.
    pub fn wait_for_log_lines(&mut self, count: usize, matches: impl Fn(&str) -> bool) {
        self.wait_until(&format!("{count} matching log lines"), |output| {
            output.log.lines().filter(|line| matches(line)).count() >= count
        });
    }

    /// What the app has logged so far.
    pub fn log(&self) -> String {
        self.output.lock().unwrap().log.clone()
    }

    /// Waits for the app to quit (after the test pressed Escape), killing
    /// it and failing the test after 60 s; what it wrote.
    pub fn wait_for_exit(mut self) -> Output {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().expect("wait for md5crowd").is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("md5crowd did not quit on Escape");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let status = self.child.wait().expect("md5crowd's status");
        for reader in self.readers {
            reader.join().expect("a pipe reader");
        }
        let output = self.output.lock().unwrap();
        Output {
            status,
            stdout: output.stdout.clone().into_bytes(),
            stderr: output.log.clone().into_bytes(),
        }
    }
}

impl Drop for VirtualDisplay {
    /// SIGTERM first, so that the server removes its lock file and socket
    /// (SIGKILL leaves both, and the number looks taken for ever after).
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.server.id()) {
            // SAFETY: kill(2) on our own child's pid has no memory effects.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline {
                if self.server.try_wait().ok().flatten().is_some() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

pub fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// The shipped character's mesh.
pub fn shipped_mesh() -> PathBuf {
    assets().join("crowdling.md5mesh")
}

/// The shipped character with every shipped clip, in name order.
pub fn shipped_model() -> Model {
    let anims: Vec<PathBuf> = ["idle", "run", "walk", "wave"]
        .iter()
        .map(|name| assets().join(format!("{name}.md5anim")))
        .collect();
    Model::load(&shipped_mesh(), &anims, InfluenceLimit::Four).unwrap()
}

/// A fresh directory for one test's files.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("render_tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `md5crowd --validate ARGS` and returns its output, failing the test
/// unless it exited 0 with the layer silent.
pub fn md5crowd_validated(args: &[&str]) -> Output {
    let output = md5crowd(args);
    assert_validated(&output);
    output
}

/// Runs `md5crowd ARGS` as a user types it: no validation layer, the
/// default log level.
pub fn md5crowd_as_typed(args: &[&str]) -> Output {
    md5crowd_as_typed_with_env(args, &[])
}

/// [`md5crowd_as_typed`] with these environment variables set.
pub fn md5crowd_as_typed_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args(args)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .output()
        .expect("run md5crowd")
}

/// Exit status 2 and a single `error:` line holding every part of `message`.
pub fn assert_bad_input(output: &Output, message: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line:\n{stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for part in message {
        assert!(lines[0].contains(part), "\"{part}\" not in:\n{stderr}");
    }
}

/// Runs `md5crowd bench ARGS --json JSON`, which must succeed, and returns
/// the report it wrote.
pub fn bench_report(args: &[&str], json: &Path) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(json)
        .output()
        .expect("run md5crowd bench");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

/// A path as a command-line argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

pub fn md5crowd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg("--validate")
        .args(args)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd")
}

pub fn assert_validated(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "md5crowd failed ({}):\n{stderr}",
        output.status
    );
    assert!(
        stderr.contains("validation: no warnings, no errors"),
        "validation did not run clean:\n{stderr}"
    );
    assert!(
        !stderr.contains("[ERROR vulkan]") && !stderr.contains("[WARN  vulkan]"),
        "{stderr}"
    );
}

/// Renders the shipped character headless at 320x240 and returns the image.
pub fn render(dir: &Path, name: &str, args: &[&str]) -> RgbaImage {
    render_with_log(dir, name, args).0
}

/// [`render`], and what the run logged (stderr).
pub fn render_with_log(dir: &Path, name: &str, args: &[&str]) -> (RgbaImage, String) {
    render_sized(dir, name, (320, 240), args)
}

/// [`render_with_log`] at (width, height).
pub fn render_sized(
    dir: &Path,
    name: &str,
    (width, height): (u32, u32),
    args: &[&str],
) -> (RgbaImage, String) {
    let png = screenshot_path(dir, name);
    let png_arg = png.to_str().unwrap();
    let (width, height) = (width.to_string(), height.to_string());
    let mut all = vec![
        "--headless",
        "--width",
        &width,
        "--height",
        &height,
        "--screenshot",
        png_arg,
    ];
    all.extend_from_slice(args);
    let output = md5crowd_validated(&all);
    let image = image::open(&png)
        .unwrap_or_else(|e| panic!("{}: {e}", png.display()))
        .to_rgba8();
    (image, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Where [`render`] and the like write the picture `name` in `dir`.
pub fn screenshot_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.png"))
}

/// Pixels where any channel differs by more than `levels`.
pub fn differing_pixels(a: &RgbaImage, b: &RgbaImage, levels: u8) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > levels))
        .count()
}

/// Pixels that differ from the top-left one (the clear colour).
pub fn covered_pixels(image: &RgbaImage) -> usize {
    let background = *image.get_pixel(0, 0);
    image.pixels().filter(|&&p| p != background).count()
}

/// Writes a copy of the character in `mesh` and `anims` with every length
/// times `scale` into `dir`: the mesh as `mesh_file`, each clip under its
/// own file name. A scaled copy walks the same cycles at `scale` times the
/// speed: a second character whose gaits differ from the first's.
pub fn write_scaled_copy(
    dir: &Path,
    mesh: &Path,
    anims: &[PathBuf],
    scale: f32,
    mesh_file: &str,
) -> io::Result<many_joints::WrittenSubject> {
    let invalid = |e: Md5Error| io::Error::new(io::ErrorKind::InvalidData, e.to_string());
    let mut subject = many_joints::ManyJoints {
        mesh: read_mesh_file(mesh).map_err(invalid)?,
        clips: anims
            .iter()
            .map(|path| {
                let name = path.file_stem().unwrap_or_default().to_string_lossy();
                Ok((name.into_owned(), read_anim_file(path).map_err(invalid)?))
            })
            .collect::<io::Result<_>>()?,
    };
    many_joints::scale_subject(&mut subject, scale);
    many_joints::write_subject(dir, &subject, mesh_file)
}
