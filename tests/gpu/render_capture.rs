//! RenderDoc captures: a headless run under `renderdoccmd capture` writes
//! the frame `--capture-frame` names, and that capture reads like the code:
//! pass labels, named resources and the instanced crowd draw. Replayed with
//! RenderDoc's own Python module (tests/rdc_inspect.py). Without RenderDoc
//! the flag warns once and changes nothing else.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assets, scratch_dir, vulkan_or_skip};
use serde_json::Value;

const INSTANCES: u64 = 4;

/// False (after printing why) when RenderDoc's command line tool or Python
/// module is missing; CI (`MD5CROWD_REQUIRE_VULKAN=1`) installs both, so
/// there a missing one fails the test.
fn renderdoc_or_skip() -> bool {
    let tool = Command::new("renderdoccmd")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    let module = Command::new("/usr/bin/python3")
        .args(["-c", "import renderdoc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if tool && module {
        return true;
    }
    let missing = if tool {
        "python3-renderdoc"
    } else {
        "renderdoccmd"
    };
    if std::env::var("MD5CROWD_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("MD5CROWD_REQUIRE_VULKAN=1 but {missing} is not installed");
    }
    println!("skipped: {missing} is not installed");
    false
}

/// Runs the headless demo under `renderdoccmd capture` and returns the
/// capture file md5crowd reported.
fn capture_headless(dir: &Path) -> PathBuf {
    let png = dir.join("frame.png");
    let instances = INSTANCES.to_string();
    let output = Command::new("renderdoccmd")
        .args(["capture", "--wait-for-exit", "--capture-file"])
        .arg(dir.join("cap"))
        .arg(env!("CARGO_BIN_EXE_md5crowd"))
        .arg(assets().join("crowdling.md5mesh"))
        .arg(assets().join("walk.md5anim"))
        .args(["--headless", "--width", "320", "--height", "240"])
        .args(["--frames", "3", "--capture-frame", "2"])
        // One culling phase and one draw per mesh, as checked below.
        .args(["--occlusion", "off", "--lod", "off", "--locomotion", "off"])
        // A CPU driver draws blob shadows unless asked.
        .args(["--shadows", "map"])
        .args([
            "--instances",
            &instances,
            "--skeleton",
            "--overlay",
            "--screenshot",
        ])
        .arg(&png)
        .env("RUST_LOG", "info")
        .output()
        .expect("run renderdoccmd");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(png.is_file(), "no screenshot:\n{stderr}");
    let reported: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split("RenderDoc capture: ").nth(1))
        .collect();
    assert_eq!(reported.len(), 1, "one capture expected:\n{stderr}");
    let capture = PathBuf::from(reported[0]);
    assert!(capture.starts_with(dir), "{}", capture.display());
    assert!(capture.is_file(), "{} was not written", capture.display());
    capture
}

fn inspect(capture: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rdc_inspect.py");
    let output = Command::new("/usr/bin/python3")
        .arg(script)
        .arg(capture)
        .output()
        .expect("run rdc_inspect.py");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("rdc_inspect.py prints JSON")
}

/// A JSON array of strings.
fn strings(value: &Value) -> Vec<&str> {
    value.as_array().map_or(Vec::new(), |items| {
        items.iter().filter_map(Value::as_str).collect()
    })
}

#[test]
fn a_headless_capture_holds_labels_names_and_the_instanced_draw() {
    if !vulkan_or_skip() || !renderdoc_or_skip() {
        return;
    }
    let dir = scratch_dir("renderdoc_capture");
    let contents = inspect(&capture_headless(&dir));

    let markers = strings(&contents["markers"]);
    for expected in [
        "reset counts",
        "cull",
        "animate",
        "scene",
        "scene/crowd: crowdling: textures/crowdling_body",
        "scene/crowd: crowdling: textures/crowdling_head",
        "scene/skeleton overlay",
        // The default shadow maps: each cascade's cull and casters.
        "shadow cull 0",
        "shadow cull 2",
        "shadow cascade 0/crowd: crowdling: textures/crowdling_body",
        "shadow cascade 2",
        "ui overlay",
        "readback",
    ] {
        assert!(
            markers.contains(&expected),
            "no \"{expected}\" in {markers:?}"
        );
    }

    let resources = contents["resources"].as_array().expect("resources");
    let named = |kind: &str, name: &dyn Fn(&str) -> bool| {
        resources
            .iter()
            .any(|r| r["type"] == kind && r["name"].as_str().is_some_and(name))
    };
    let buffers = ["skinning transforms", "crowd instances", "frame uniforms"];
    for buffer in buffers {
        assert!(
            named("Buffer", &|n| n.starts_with(buffer)),
            "no {buffer} buffer"
        );
    }
    assert!(named("Buffer", &|n| n.starts_with("vertices: crowdling")));
    assert!(named("Buffer", &|n| n == "indices: crowdling"));
    for map in ["diffuse", "normal", "specular"] {
        let prefix = format!("{map} map: ");
        assert!(
            named("Texture", &|n| n.starts_with(&prefix)),
            "no {map} map"
        );
    }
    // --msaa 4 (the default): the targets drawn into, and the picture
    // their colour is resolved into at the end of the scene.
    for target in [
        "color target (4 samples)",
        "depth target (4 samples)",
        "picture (color resolve)",
        "shadow map (3 cascades of 2048x2048)",
    ] {
        assert!(named("Texture", &|n| n == target), "no {target}");
    }
    assert!(named("Buffer", &|n| n
        .starts_with("shadow visible instances, frame ")));
    assert!(named("ShaderBinding", &|n| n
        .ends_with("shadow cascade 1 scene set")));
    // egui-ash-renderer's own, named by the allocator the overlay hands it.
    assert!(named("Texture", &|n| n.starts_with("ui overlay texture ")));
    assert!(named("Buffer", &|n| n.starts_with("ui overlay vertices")));
    // One pipeline per influence count a level keeps, in the capture where a
    // draw used it: close up, the body skins with 4 and the head, on one
    // joint, with 1.
    for influences in [1, 4] {
        let name = format!("crowd draw ({influences} of 4 influences)");
        assert!(named("PipelineState", &|n| n == name), "no {name}");
    }
    assert!(named("PipelineState", &|n| n == "skeleton overlay"));
    assert!(named("PipelineState", &|n| n.ends_with(", shadow depth")));
    assert!(named("Shader", &|n| n == "crowd.vert"));
    assert!(named("ShaderBinding", &|n| n.ends_with("scene set")));
    assert!(named("CommandBuffer", &|n| n.ends_with(" commands")));
    assert!(named("Query", &|n| n.ends_with("pass timestamps")));

    // Each mesh is one instanced draw of the whole crowd, under its label,
    // in the scene (the shadow cascades draw it too).
    let draws = contents["draws"].as_array().expect("draws");
    let crowd_draws: Vec<&Value> = draws
        .iter()
        .filter(|d| {
            let labels = strings(&d["labels"]);
            labels.iter().any(|l| l.starts_with("crowd: "))
                && !labels.iter().any(|l| l.starts_with("shadow cascade "))
        })
        .collect();
    assert_eq!(crowd_draws.len(), 2, "{draws:?}");
    for draw in crowd_draws {
        assert_eq!(draw["instances"], INSTANCES, "{draw}");
        assert!(draw["indices"].as_u64().is_some_and(|n| n > 0), "{draw}");
    }
}

#[test]
fn without_renderdoc_a_capture_request_warns_once_and_renders() {
    if !vulkan_or_skip() {
        return;
    }
    let dir = scratch_dir("capture_without_renderdoc");
    let png = dir.join("frame.png");
    let output = common::md5crowd_validated(&[
        "--headless",
        "--width",
        "64",
        "--height",
        "48",
        "--frames",
        "2",
        "--capture-frame",
        "1",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings = stderr.matches("not running under RenderDoc").count();
    assert_eq!(warnings, 1, "{stderr}");
    assert!(png.is_file());
    assert!(!stderr.contains("RenderDoc capture:"), "{stderr}");
}

#[test]
fn a_capture_frame_past_the_last_frame_is_bad_input() {
    let output = Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .arg(assets().join("crowdling.md5mesh"))
        .args(["--headless", "--frames", "3", "--capture-frame", "3"])
        .output()
        .expect("run md5crowd");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--capture-frame 3: only frames 0 to 2 are drawn"),
        "{stderr}"
    );
}
