//! Soak tests: the real window (`md5crowd --validate`) on a virtual X server
//! of its own, driven for a bounded time by seeded random input through
//! XTEST (xdotool): every control key but F12 and Esc, fly keys held
//! briefly, drags with each mouse button, wheel clicks, and window resizes
//! down to 1x1 and back. Then Esc: the app must quit within 20 s, exit 0,
//! and the validation layer must have stayed silent throughout.
//!
//! `MD5CROWD_SOAK_SECONDS` sets the input time of the shipped character's
//! soak (default 60; the many-joint subject gets half). `MD5CROWD_SOAK_SEED`
//! repeats a run's input (every run prints its seed; the timing of frames
//! against input still varies). Failures print the seed, the inputs sent
//! and the app's log; `MD5CROWD_SOAK_LOG=1` prints them on success too.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::{assets, many_joints, scratch_dir, window_or_skip, VirtualDisplay};
use md5crowd::crowd::SplitMix64;

/// Input time of the shipped character's soak unless `MD5CROWD_SOAK_SECONDS`.
const DEFAULT_SOAK_SECONDS: f64 = 60.0;
/// `+` is only pressed below this crowd: lavapipe frames grow with it.
const MAX_INSTANCES: u32 = 128;
/// How long the app may take to open its window and draw its first frames.
const STARTUP: Duration = Duration::from_secs(90);
/// How long a key may take to show up in the log (frames on a CPU driver
/// are slow, and a crowd resize waits for the GPU).
const KEY_RESPONSE: Duration = Duration::from_secs(30);
/// How long the app may take to quit after Esc.
const QUIT: Duration = Duration::from_secs(20);
/// Keys that each log one line (the view) when pressed, F12 and Esc aside.
const ACTION_KEYS: [&str; 18] = [
    "bracketleft",
    "bracketright",
    // The first layer's next clip.
    "n",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "k",
    "l",
    // Loads the model again and rebuilds the renderer's model resources.
    "i",
    "f",
    "r",
    "space",
];
const FLY_KEYS: [&str; 6] = ["w", "a", "s", "d", "q", "e"];

#[test]
fn the_shipped_character_survives_random_input() {
    // The directory: its mesh and every clip in it (idle, run, walk, wave),
    // a layer on its torso.
    let args = [
        path(&assets()),
        "--instances".into(),
        "64".into(),
        "--channel".into(),
        "torso=*spine_1".into(),
        "--layer".into(),
        "torso:wave,idle@0.8".into(),
    ];
    soak("crowdling", &args, soak_seconds(1.0));
}

#[test]
fn a_110_joint_character_with_8_influences_survives_random_input() {
    let dir = scratch_dir("soak_many_joints");
    let written = many_joints::write_many_joints(&dir, many_joints::DEFAULT_JOINTS)
        .expect("write the many-joint subject");
    let mut args = vec![path(&written.mesh)];
    args.extend(written.anims.iter().map(|anim| path(anim)));
    args.extend(
        [
            "--instances",
            "32",
            "--influences",
            "8",
            "--skinning",
            "dqs",
        ]
        .map(String::from),
    );
    soak("many_joints", &args, soak_seconds(0.5));
}

fn path(path: &Path) -> String {
    path.to_str().expect("a UTF-8 path").to_owned()
}

/// `share` of `MD5CROWD_SOAK_SECONDS` (default 60 s).
fn soak_seconds(share: f64) -> Duration {
    let seconds = match std::env::var("MD5CROWD_SOAK_SECONDS") {
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or_else(|| panic!("MD5CROWD_SOAK_SECONDS={text}: expected seconds")),
        Err(_) => DEFAULT_SOAK_SECONDS,
    };
    Duration::from_secs_f64(seconds * share)
}

/// `MD5CROWD_SOAK_SEED`, or one from the clock.
fn seed() -> u64 {
    match std::env::var("MD5CROWD_SOAK_SEED") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("MD5CROWD_SOAK_SEED={text}: expected a u64")),
        Err(_) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            // Mixed, so that two tests started together differ.
            SplitMix64(now.as_nanos() as u64 ^ u64::from(std::process::id()) << 32).next_u64()
        }
    }
}

/// Choices over the library's seeded generator.
trait Choices {
    /// Uniform in `low..=high`.
    fn between(&mut self, low: i64, high: i64) -> i64;
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T;
    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool;
}

impl Choices for SplitMix64 {
    fn between(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next_u64() % (high - low + 1) as u64) as i64
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next_u64() as usize % items.len()]
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
}

/// What the app's log says, read as it is written.
struct Log {
    /// When the app was started: log lines and inputs are stamped with the
    /// seconds since, so that a message can be matched with what caused it.
    epoch: Instant,
    /// Each line as `SECONDSs LINE`.
    text: Mutex<String>,
    /// When the first line about a problem (validation, panic) came.
    first_problem: Mutex<Option<f64>>,
    /// Lines a key press logs: `clip X, N instances, LBS, ...`.
    views: AtomicUsize,
    instances: AtomicU32,
    max_instances: AtomicU32,
    swapchains: AtomicUsize,
}

/// Lines that fail the soak.
fn is_problem(line: &str) -> bool {
    line.contains("[ERROR vulkan]") || line.contains("[WARN  vulkan]") || line.contains("panicked")
}

impl Log {
    fn new() -> Log {
        Log {
            epoch: Instant::now(),
            text: Mutex::default(),
            first_problem: Mutex::default(),
            views: AtomicUsize::default(),
            instances: AtomicU32::default(),
            max_instances: AtomicU32::default(),
            swapchains: AtomicUsize::default(),
        }
    }

    fn seconds(&self) -> f64 {
        self.epoch.elapsed().as_secs_f64()
    }

    fn read(&self, line: &str) {
        let now = self.seconds();
        if is_problem(line) {
            self.first_problem.lock().unwrap().get_or_insert(now);
        }
        let mut text = self.text.lock().unwrap();
        text.push_str(&format!("{now:8.3}s {line}\n"));
        if line.contains("] clip ") && line.contains(" instances") {
            self.views.fetch_add(1, Ordering::SeqCst);
            let count = line
                .split(" instances")
                .next()
                .and_then(|head| head.rsplit(' ').next())
                .and_then(|n| n.parse().ok());
            if let Some(count) = count {
                self.instances.store(count, Ordering::SeqCst);
                self.max_instances.fetch_max(count, Ordering::SeqCst);
            }
        }
        if line.contains("swapchain: ") {
            self.swapchains.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn text(&self) -> String {
        self.text.lock().unwrap().clone()
    }
}

/// The app under test; killed if still running when dropped (a failed
/// assertion), and by a watchdog thread if it outlives its time.
struct RunningApp {
    child: Arc<Mutex<Child>>,
    log: Arc<Log>,
    reader: Option<JoinHandle<()>>,
    watchdog_disarmed: Arc<Mutex<bool>>,
}

impl RunningApp {
    fn start(x: &VirtualDisplay, args: &[String], lifetime: Duration) -> RunningApp {
        let log = Arc::new(Log::new());
        let mut child = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
            .arg("--validate")
            .args(args)
            .args(["--width", "640", "--height", "480"])
            // Lavapipe fills and rasterizes the shadow map on the CPU: a
            // small one keeps frames within the watchdog's reach as the
            // crowd doubles under the validation layer.
            .args(["--shadow-resolution", "512"])
            .env("DISPLAY", &x.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run md5crowd");
        let stderr = child.stderr.take().unwrap();
        let reader = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut stderr = BufReader::new(stderr);
                let mut line = Vec::new();
                while stderr.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                    log.read(String::from_utf8_lossy(&line).trim_end());
                    line.clear();
                }
            })
        };
        let child = Arc::new(Mutex::new(child));
        let watchdog_disarmed = Arc::new(Mutex::new(false));
        {
            let child = Arc::clone(&child);
            let disarmed = Arc::clone(&watchdog_disarmed);
            let deadline = Instant::now() + lifetime;
            std::thread::spawn(move || {
                while Instant::now() < deadline {
                    if *disarmed.lock().unwrap() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                if !*disarmed.lock().unwrap() {
                    eprintln!("watchdog: md5crowd outlived {lifetime:?}, killing it");
                    let _ = child.lock().unwrap().kill();
                }
            });
        }
        RunningApp {
            child,
            log,
            reader: Some(reader),
            watchdog_disarmed,
        }
    }

    /// Every thread's stack, from gdb attached to the running app; or why
    /// there are none.
    fn stacks(&self) -> String {
        let pid = self.child.lock().unwrap().id().to_string();
        let gdb = Command::new("timeout")
            .args([
                "60",
                "gdb",
                "-p",
                &pid,
                "-batch",
                "-ex",
                "thread apply all bt",
            ])
            .stdin(Stdio::null())
            .output();
        match gdb {
            Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
            Ok(out) => format!(
                "gdb -p {pid} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => format!("gdb not run ({e}): install gdb for the app's threads"),
        }
    }

    fn exited(&self) -> Option<ExitStatus> {
        self.child
            .lock()
            .unwrap()
            .try_wait()
            .expect("poll md5crowd")
    }

    /// Waits up to `timeout` for the exit; the log is complete after it.
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exited() {
                *self.watchdog_disarmed.lock().unwrap() = true;
                if let Some(reader) = self.reader.take() {
                    reader.join().unwrap();
                }
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for RunningApp {
    fn drop(&mut self) {
        *self.watchdog_disarmed.lock().unwrap() = true;
        let mut child = self.child.lock().unwrap();
        if child.try_wait().ok().flatten().is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One soak run and what it did, for the messages.
struct Soak<'a> {
    name: &'a str,
    seed: u64,
    x: &'a VirtualDisplay,
    app: RunningApp,
    window: String,
    started: Instant,
    /// Every input sent, stamped like the log's lines.
    inputs: Vec<(f64, String)>,
    counts: BTreeMap<&'static str, usize>,
    /// View lines the log should hold once every key sent so far is handled.
    expected_views: usize,
    size: (i64, i64),
}

impl Soak<'_> {
    /// Fails the test with everything needed to repeat the run: the
    /// inputs sent in the 3 s before the first problem in the log (or the
    /// last 40), the log, and a file with every input and the log.
    fn fail(&mut self, why: &str) -> ! {
        // Where a hung app is stuck, read before it is killed.
        let stacks = self.app.stacks();
        // Whatever the app managed to log before it is killed.
        let _ = self.app.child.lock().unwrap().kill();
        let _ = self.app.wait_exit(Duration::from_secs(5));
        let log = self.app.log.text();
        let all = self.inputs_text();
        let record = scratch_dir(&format!("soak_{}_{}", self.name, self.seed)).join("soak.txt");
        let saved = std::fs::write(
            &record,
            format!(
                "seed {}\ninputs:\n{all}\nmd5crowd's log:\n{log}\nmd5crowd's threads:\n{stacks}",
                self.seed
            ),
        )
        .map_or_else(
            |e| format!("not saved: {e}"),
            |()| record.display().to_string(),
        );
        let first_problem = *self.app.log.first_problem.lock().unwrap();
        let (which, shown): (String, Vec<&(f64, String)>) = match first_problem {
            Some(at) => (
                format!("inputs in the 3 s before the first problem ({at:.3}s)"),
                self.inputs
                    .iter()
                    .filter(|(t, _)| (at - 3.0..=at).contains(t))
                    .collect(),
            ),
            None => (
                "last inputs".to_owned(),
                self.inputs[self.inputs.len().saturating_sub(40)..]
                    .iter()
                    .collect(),
            ),
        };
        let shown_text: String = shown
            .iter()
            .map(|(t, input)| format!("{t:8.3}s {input}\n"))
            .collect();
        panic!(
            "soak {}: {why}\nseed {} (MD5CROWD_SOAK_SEED={} repeats the input)\n\
             {which}, {} of {}:\n{shown_text}md5crowd's log (seconds since it started):\n\
             {log}\nmd5crowd's threads when it was stopped:\n{}\n\
             every input, the log and the threads: {saved}",
            self.name,
            self.seed,
            self.seed,
            shown.len(),
            self.inputs.len(),
            main_thread(&stacks),
        );
    }

    /// Every input, one a line.
    fn inputs_text(&self) -> String {
        self.inputs
            .iter()
            .map(|(t, input)| format!("{t:8.3}s {input}\n"))
            .collect()
    }

    fn record(&mut self, kind: &'static str, input: String) {
        *self.counts.entry(kind).or_default() += 1;
        self.inputs.push((self.app.log.seconds(), input));
    }

    /// Runs xdotool, failing the test when it fails or hangs.
    fn xdotool(&mut self, args: &[&str]) {
        if let Some(status) = self.app.exited() {
            self.fail(&format!(
                "md5crowd exited ({status}) in the middle of the soak"
            ));
        }
        let output = self.x.xdotool_within(args, Duration::from_secs(20));
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            self.fail(&format!("xdotool {args:?} failed: {stderr}"));
        }
    }

    /// A key whose action logs a line; waits for that line.
    fn action_key(&mut self, key: &str) {
        self.record("action key", format!("key {key}"));
        self.xdotool(&["key", key]);
        self.await_views(1, key);
    }

    /// Several action keys in one go, handled between the same frames.
    fn action_keys(&mut self, keys: &[&str]) {
        self.record("key burst", format!("key {}", keys.join(" ")));
        let mut args = vec!["key"];
        args.extend(keys);
        self.xdotool(&args);
        self.await_views(keys.len(), &keys.join(" "));
    }

    /// Waits for the log lines of `count` more action keys (`keys`).
    fn await_views(&mut self, count: usize, keys: &str) {
        self.expected_views += count;
        let deadline = Instant::now() + KEY_RESPONSE;
        while self.app.log.views.load(Ordering::SeqCst) < self.expected_views {
            if let Some(status) = self.app.exited() {
                self.fail(&format!("md5crowd exited ({status}) after key {keys}"));
            }
            if Instant::now() > deadline {
                let focus = self.x.xdotool(&["getwindowfocus"]);
                let focus = String::from_utf8_lossy(&focus.stdout).trim().to_owned();
                self.fail(&format!(
                    "hang? key {keys} not handled within {KEY_RESPONSE:?} \
                     (window {}, focus on {focus})",
                    self.window
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn random_input(&mut self, rng: &mut SplitMix64) {
        let instances = self.app.log.instances.load(Ordering::SeqCst);
        match rng.between(0, 99) {
            0..=33 => {
                let key = *rng.pick(&ACTION_KEYS);
                self.action_key(key);
            }
            34..=39 => {
                // 2-5 different keys at once, a crowd resize among them
                // now and then (no key twice in a row: a release and press
                // of one key at the same instant may read as auto-repeat).
                let mut keys: Vec<&str> = Vec::new();
                for _ in 0..rng.between(2, 5) {
                    let key = if rng.chance(0.2) {
                        if instances < MAX_INSTANCES / 2 && !keys.contains(&"plus") {
                            "plus"
                        } else {
                            "minus"
                        }
                    } else {
                        *rng.pick(&ACTION_KEYS)
                    };
                    if keys.last() != Some(&key) {
                        keys.push(key);
                    }
                }
                self.action_keys(&keys);
            }
            40..=47 => {
                // Grow the crowd only while it is small; halve it otherwise.
                if instances < MAX_INSTANCES && rng.chance(0.5) {
                    self.action_key("plus");
                } else {
                    self.action_key("minus");
                }
            }
            48..=57 => {
                // One or two fly keys held together for a moment.
                let mut keys = vec![*rng.pick(&FLY_KEYS)];
                if rng.chance(0.3) {
                    let second = *rng.pick(&FLY_KEYS);
                    if second != keys[0] {
                        keys.push(second);
                    }
                }
                let hold = format!("{:.3}", rng.between(50, 400) as f64 / 1000.0);
                let mut args: Vec<&str> = Vec::new();
                for &key in &keys {
                    args.extend(["keydown", key]);
                }
                args.extend(["sleep", hold.as_str()]);
                for &key in &keys {
                    args.extend(["keyup", key]);
                }
                self.record("fly keys", format!("hold {keys:?} for {hold} s"));
                self.xdotool(&args);
            }
            58..=73 => {
                // A drag; the pointer may leave the window on the way (xdotool
                // takes no negative coordinates: right and bottom only).
                let button = rng.between(1, 3).to_string();
                let (w, h) = self.size;
                let mut points = vec![(rng.between(0, w - 1), rng.between(0, h - 1))];
                for _ in 0..rng.between(2, 6) {
                    points.push((rng.between(0, w + 40), rng.between(0, h + 40)));
                }
                let points: Vec<(String, String)> = points
                    .iter()
                    .map(|(px, py)| (px.to_string(), py.to_string()))
                    .collect();
                let window = self.window.clone();
                let mut args: Vec<&str> = vec!["mousemove", "--window", &window];
                args.extend([points[0].0.as_str(), points[0].1.as_str()]);
                args.extend(["mousedown", button.as_str()]);
                for (px, py) in &points[1..] {
                    args.extend(["sleep", "0.03", "mousemove", "--window", &window]);
                    args.extend([px.as_str(), py.as_str()]);
                }
                args.extend(["mouseup", button.as_str()]);
                self.record(
                    "drag",
                    format!("drag button {button} through {points:?} (window {w}x{h})"),
                );
                self.xdotool(&args);
            }
            74..=83 => {
                let button = if rng.chance(0.5) { "4" } else { "5" };
                let clicks = rng.between(1, 5).to_string();
                self.record("wheel", format!("wheel button {button} x{clicks}"));
                self.xdotool(&["click", "--repeat", &clicks, "--delay", "30", button]);
            }
            84..=86 => {
                // A resize and a key (maybe a crowd resize) between frames.
                let key = match rng.between(0, 3) {
                    0 if instances < MAX_INSTANCES => "plus",
                    0 | 1 => "minus",
                    _ => *rng.pick(&ACTION_KEYS),
                };
                let (w, h) = (rng.between(1, 900), rng.between(1, 700));
                let (ws, hs) = (w.to_string(), h.to_string());
                let window = self.window.clone();
                self.record("resize and key", format!("windowsize {w}x{h}, key {key}"));
                self.xdotool(&["windowsize", &window, &ws, &hs, "key", key]);
                self.size = (w, h);
                self.await_views(1, key);
            }
            87..=91 => {
                let (w, h) = match rng.between(0, 9) {
                    0 | 1 => (1, 1),
                    2 => (1, rng.between(1, 600)),
                    3 => (rng.between(1, 800), 1),
                    _ => (rng.between(48, 1024), rng.between(48, 768)),
                };
                self.resize(w, h);
            }
            _ => {
                let ms = rng.between(20, 300);
                self.record("pause", format!("sleep {ms} ms"));
                std::thread::sleep(Duration::from_millis(ms as u64));
            }
        }
    }

    fn resize(&mut self, w: i64, h: i64) {
        self.record("resize", format!("windowsize {w}x{h}"));
        let window = self.window.clone();
        self.xdotool(&["windowsize", &window, &w.to_string(), &h.to_string()]);
        self.size = (w, h);
    }
}

fn soak(name: &str, model_args: &[String], input_time: Duration) {
    let Some(x) = window_or_skip(true) else {
        return;
    };
    let seed = seed();
    println!(
        "soak {name}: seed {seed} (MD5CROWD_SOAK_SEED={seed} repeats it), {:.0} s of input \
         on {}",
        input_time.as_secs_f64(),
        x.display
    );
    let mut rng = SplitMix64(seed);
    let lifetime = STARTUP + input_time + KEY_RESPONSE + QUIT + Duration::from_secs(30);
    let app = RunningApp::start(&x, model_args, lifetime);
    let mut soak = Soak {
        name,
        seed,
        x: &x,
        app,
        window: String::new(),
        started: Instant::now(),
        inputs: Vec::new(),
        counts: BTreeMap::new(),
        expected_views: 0,
        size: (640, 480),
    };

    // The window, then its first title update (the statistics replace the
    // file name): frames are being drawn.
    soak.window = find_window(&mut soak);
    let window = soak.window.clone();
    let deadline = Instant::now() + STARTUP;
    let mut first_title = None;
    loop {
        let title = soak.x.xdotool(&["getwindowname", &window]);
        let title = String::from_utf8_lossy(&title.stdout).trim().to_owned();
        if title.contains("fps") || first_title.as_ref().is_some_and(|first| *first != title) {
            break;
        }
        first_title.get_or_insert(title);
        if let Some(status) = soak.app.exited() {
            soak.fail(&format!(
                "md5crowd exited ({status}) before its first frames"
            ));
        }
        if Instant::now() > deadline {
            soak.fail("no frame drawn (the title never showed fps)");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let startup = soak.started.elapsed();
    // No window manager: the window gets the focus and keeps it (XTEST
    // input; winit ignores XSendEvent keys, so never `key --window`).
    soak.xdotool(&["windowfocus", "--sync", &window]);

    soak.started = Instant::now();
    let mut focused_at = Instant::now();
    let mut shrunk_to_a_pixel = false;
    while soak.started.elapsed() < input_time {
        if !shrunk_to_a_pixel && soak.started.elapsed() > input_time / 4 {
            // Once per run at least: 1x1, then back to a usable size.
            soak.resize(1, 1);
            std::thread::sleep(Duration::from_millis(rng.between(50, 500) as u64));
            let (w, h) = (rng.between(200, 900), rng.between(150, 700));
            soak.resize(w, h);
            shrunk_to_a_pixel = true;
        }
        if focused_at.elapsed() > Duration::from_secs(5) {
            soak.xdotool(&["windowfocus", "--sync", &window]);
            focused_at = Instant::now();
        }
        soak.random_input(&mut rng);
    }
    let input_phase = soak.started.elapsed();

    soak.record("quit", "key Escape".to_owned());
    soak.xdotool(&["key", "Escape"]);
    let quit_started = Instant::now();
    let Some(status) = soak.app.wait_exit(QUIT) else {
        soak.fail(&format!("md5crowd did not quit within {QUIT:?} of Esc"));
    };
    let quit_time = quit_started.elapsed();
    let log = soak.app.log.text();
    let problem = if !status.success() {
        Some(format!("md5crowd failed ({status})"))
    } else if !log.contains("validation: no warnings, no errors") {
        Some("validation did not run clean".to_owned())
    } else if log.contains("panicked") {
        Some("a thread panicked".to_owned())
    } else if log.contains("[ERROR vulkan]") || log.contains("[WARN  vulkan]") {
        Some("the validation layer spoke".to_owned())
    } else {
        None
    };
    if let Some(problem) = problem {
        soak.fail(&problem);
    }
    if std::env::var_os("MD5CROWD_SOAK_LOG").is_some() {
        println!(
            "soak {name}: inputs:\n{}md5crowd's log:\n{log}",
            soak.inputs_text()
        );
    }
    println!(
        "soak {name}: seed {seed}: startup {:.1} s, input {:.1} s, quit {:.1} s; {} inputs {:?}; \
         {} key lines logged, {} swapchains, crowd up to {} instances",
        startup.as_secs_f64(),
        input_phase.as_secs_f64(),
        quit_time.as_secs_f64(),
        soak.inputs.len(),
        soak.counts,
        soak.app.log.views.load(Ordering::SeqCst),
        soak.app.log.swapchains.load(Ordering::SeqCst),
        soak.app.log.max_instances.load(Ordering::SeqCst),
    );
}

/// `xdotool search --sync --name md5crowd`, given up on when the app exits
/// first or after [`STARTUP`].
fn find_window(soak: &mut Soak) -> String {
    let mut search = Command::new("xdotool")
        .args(["search", "--sync", "--name", "md5crowd"])
        .env("DISPLAY", &soak.x.display)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run xdotool");
    let deadline = Instant::now() + STARTUP;
    loop {
        if search.try_wait().expect("poll xdotool").is_some() {
            break;
        }
        let why = match soak.app.exited() {
            Some(status) => Some(format!("md5crowd exited ({status}) before its window")),
            None if Instant::now() > deadline => Some("no md5crowd window appeared".to_owned()),
            None => None,
        };
        if let Some(why) = why {
            let _ = search.kill();
            let _ = search.wait();
            soak.fail(&why);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = search.wait_with_output().expect("xdotool output");
    match String::from_utf8_lossy(&output.stdout).lines().next() {
        Some(window) => window.trim().to_owned(),
        None => soak.fail("xdotool search found no window"),
    }
}

/// The stack of gdb's thread 1 (the event loop, where a hang shows), from
/// `thread apply all bt`; all of it when there is no such thread.
fn main_thread(stacks: &str) -> &str {
    let Some(start) = stacks.find("\nThread 1 ") else {
        return stacks;
    };
    let rest = &stacks[start + 1..];
    rest.find("\n\nThread ").map_or(rest, |end| &rest[..end])
}
