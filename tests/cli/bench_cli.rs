//! `md5crowd bench` end to end on a tiny workload: every size and mode is
//! measured and reported in the JSON and the SVG the README shows.

use crate::common;

use common::bench_report;

#[test]
fn bench_reports_every_size_and_mode() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("bench");
    let (json, plot) = (dir.join("bench.json"), dir.join("bench.svg"));
    let report = bench_report(
        &[
            "--instances",
            "3,12",
            "--frames",
            "3",
            "--width",
            "96",
            "--height",
            "54",
            // One culling phase: the passes below (gpu/render_culling.rs
            // checks the two-phase frame).
            "--occlusion",
            "off",
            "--plot",
            plot.to_str().unwrap(),
        ],
        &json,
    );
    assert!(!report["device"].as_str().unwrap().is_empty());
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6, "2 sizes x 3 modes");
    for (run, (instances, mode)) in runs.iter().zip(
        [3, 12]
            .iter()
            .flat_map(|n| ["gpu", "cpu", "static"].map(|m| (*n, m))),
    ) {
        assert_eq!(run["instances"], instances);
        assert_eq!(run["mode"], mode);
        // The camera frames the whole crowd, so culling keeps everyone.
        assert_eq!(run["visible"], instances, "{run}");
        let passes: Vec<&str> = run["gpu_ms"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // The static yardstick stands unanimated (no impostors) and casts
        // the shadows the other modes do, so it stays a fair baseline: the
        // default's 3 cascades, a cull and a draw each.
        let shadows = [
            "shadow cascade 0",
            "shadow cascade 1",
            "shadow cascade 2",
            "shadow cull 0",
            "shadow cull 1",
            "shadow cull 2",
        ];
        // The crowd stands on the ground in every mode.
        let expected: Vec<&str> = match mode {
            "gpu" => [
                &["animate", "cull", "draw", "ground", "impostors"][..],
                &shadows,
            ]
            .concat(),
            "cpu" => [&["cull", "draw", "ground", "impostors"][..], &shadows].concat(),
            _ => [&["cull", "draw", "ground"][..], &shadows].concat(),
        };
        assert_eq!(passes, expected, "{run}");
        for key in ["cpu_ms", "frame_ms", "vertices_per_s"] {
            let value = run[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{key} in {run}"));
            assert!(value > 0.0 && value.is_finite(), "{key} = {value}");
        }
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<polyline").count(), 3, "one line per mode");
}

#[test]
fn compute_only_times_the_compute_passes_alone() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("bench_compute_only");
    let json = dir.join("bench.json");
    let report = bench_report(
        &[
            "--instances",
            "40",
            "--frames",
            "3",
            "--compute-only",
            "--modes",
            "gpu,cpu",
            "--anim-lod",
            "off",
            "--animate-kernel",
            "device,lane-per-joint",
        ],
        &json,
    );
    let runs = report["runs"].as_array().unwrap();
    // CPU animation has no kernel: measured once.
    let kernels: Vec<(&str, &serde_json::Value)> = runs
        .iter()
        .map(|run| (run["mode"].as_str().unwrap(), &run["animate_kernel"]))
        .collect();
    assert_eq!(kernels.len(), 3, "{kernels:?}");
    assert!(
        ["lane-per-instance", "lane-per-joint"].contains(&kernels[0].1.as_str().unwrap()),
        "the device's kernel: {kernels:?}"
    );
    assert_eq!(kernels[1], ("cpu", &serde_json::Value::Null));
    assert_eq!(kernels[2], ("gpu", &serde_json::json!("lane-per-joint")));
    for run in runs {
        assert_eq!(run["compute_only"], true, "{run}");
        assert_eq!(run["anim_lod"], "off", "{run}");
        assert_eq!(run["visible"], 40, "{run}");
        let passes: Vec<&str> = run["gpu_ms"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let expected: &[&str] = match run["mode"].as_str() {
            Some("gpu") => &["animate", "cull"],
            _ => &["cull"],
        };
        assert_eq!(passes, expected, "nothing is drawn: {run}");
    }
}

#[test]
fn one_timed_frame_a_round_still_reports_what_it_drew_for_each_influence_and_draw_switch() {
    if !common::vulkan_or_skip() {
        return;
    }
    let dir = common::scratch_dir("bench_lod_influences");
    let json = dir.join("bench.json");
    let report = bench_report(
        &[
            "--instances",
            "5",
            "--frames",
            "1",
            "--modes",
            "gpu",
            "--lod-influences",
            "on,off",
            "--multi-draw",
            "on,off",
            "--rounds",
            "2",
            "--width",
            "96",
            "--height",
            "54",
        ],
        &json,
    );
    assert_eq!(report["rounds"], 2);
    // One row per combination, whatever the rounds.
    let runs = report["runs"].as_array().unwrap();
    let switches: Vec<(&str, &str)> = runs
        .iter()
        .map(|run| {
            let switch = |key: &str| run[key].as_str().unwrap();
            (switch("lod_influences"), switch("multi_draw"))
        })
        .collect();
    // lavapipe and every desktop GPU have multiDrawIndirect.
    let (on, off) = ("on", "off");
    assert_eq!(switches, [(on, on), (on, off), (off, on), (off, off)]);
    for run in runs {
        assert_eq!(run["visible"], 5, "{run}");
        for key in ["cpu_ms", "frame_ms", "triangles"] {
            let value = run[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{key} in {run}"));
            assert!(value > 0.0 && value.is_finite(), "{key} = {value}");
        }
    }
}

/// `bench --suite`: every case of the GPU figures, each run tagged with
/// its case in the JSON and a row in the markdown table on stdout. The
/// crowds are 1024 times smaller than a GPU's (the test hook
/// `--suite-divisor`), so it ends in seconds on a CPU driver; the device
/// plays one with 49 MiB in all: the shipped character's 47.5 MiB at
/// 1920x1080 (its impostor atlas and bake targets, textures and targets)
/// leave room for some 600 of it, and the mixed case's models take 78 MiB
/// alone, so the largest crowd and the mixed case are skipped and the rest
/// still run.
#[test]
fn the_suite_runs_every_case_and_reports_it_as_markdown_and_json() {
    if !common::vulkan_or_skip() {
        return;
    }
    let json = common::scratch_dir("bench_suite").join("suite.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args(["bench", "--suite", "--suite-divisor", "1024"])
        .args(["--memory-budget-mib", "49", "--json"])
        .arg(&json)
        .output()
        .expect("run md5crowd bench --suite");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["instances_divided_by"], 1024);
    assert_eq!(
        (&report["width"], &report["height"]),
        (&1920.into(), &1080.into())
    );
    let skipped = report["skipped"].as_array().unwrap();
    let skipped_cases: Vec<_> = skipped
        .iter()
        .map(|s| (s["case"].clone(), s["instances"].clone()))
        .collect();
    assert_eq!(
        skipped_cases,
        // The msaa case's 4-sample targets at 1920x1080 alone are over 49 MiB
        // (bench_cli's --msaa test runs both counts).
        [
            ("scale".into(), 976.into()),
            ("mixed".into(), 64.into()),
            ("msaa".into(), 4.into()),
            ("msaa".into(), 64.into()),
            // So are the shadows case's three 2048x2048 cascades (48 MiB;
            // bench_cli's --shadows test runs the three kinds).
            ("shadows".into(), 4.into()),
            ("shadows".into(), 64.into()),
        ],
        "{skipped:?}"
    );
    for skip in skipped {
        assert!(
            skip["reason"].as_str().unwrap().contains("does not fit"),
            "{skipped:?}"
        );
    }
    let runs = report["runs"].as_array().unwrap();
    let of_case = |case: &str| -> Vec<&serde_json::Value> {
        runs.iter().filter(|run| run["case"] == case).collect()
    };
    let field = |runs: &[&serde_json::Value], key: &str| -> Vec<serde_json::Value> {
        runs.iter().map(|run| run[key].clone()).collect()
    };
    // 1024, 16,384, 65,536, 100,000 and 250,000, over 1024.
    let scale = of_case("scale");
    assert_eq!(
        field(&scale, "instances"),
        [1, 16, 64, 97, 244].map(serde_json::Value::from)
    );
    assert_eq!(field(&of_case("skinning"), "mode"), ["gpu", "static"]);
    assert_eq!(field(&of_case("lod"), "lod"), ["on", "off"]);
    let occlusion = of_case("occlusion");
    assert_eq!(field(&occlusion, "occlusion"), ["on", "off"]);
    assert_eq!(field(&occlusion, "view"), ["street", "street"]);
    let animate = of_case("animate");
    assert_eq!(
        field(&animate, "animate_kernel"),
        [
            "lane-per-instance",
            "lane-per-joint",
            "lane-per-instance",
            "lane-per-joint"
        ]
    );
    assert!(animate.iter().all(|run| run["compute_only"] == true));
    assert!(of_case("mixed").is_empty());
    assert_eq!(runs.len(), 5 + 2 + 2 + 2 + 4);

    assert!(stdout.contains("| case | instances |"), "{stdout}");
    assert!(stdout.contains("1024 times smaller"), "{stdout}");
    assert!(
        stdout.contains("skipped: scale at 976 instances: a crowd of 976 instances does not fit"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped: mixed at 64 instances: a crowd of 64 instances does not fit"),
        "{stdout}"
    );
    for case in ["scale", "skinning", "lod", "occlusion", "animate", "mixed"] {
        let rows = stdout
            .lines()
            .filter(|line| line.starts_with(&format!("| {case} |")))
            .count();
        assert_eq!(rows, of_case(case).len(), "{case} in\n{stdout}");
    }
}

/// `--impostors on,off`: a run for each, the JSON saying which and how
/// many instances were drawn as impostors, the log line too.
#[test]
fn impostors_on_and_off_are_a_run_each() {
    if !common::vulkan_or_skip() {
        return;
    }
    let json = common::scratch_dir("bench_impostors").join("bench.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([
            "bench",
            "--instances",
            "64",
            "--frames",
            "2",
            "--modes",
            "gpu",
        ])
        .args(["--width", "96", "--height", "54", "--impostors", "on,off"])
        .arg("--json")
        .arg(&json)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd bench");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    let impostors: Vec<&serde_json::Value> = runs.iter().map(|run| &run["impostors"]).collect();
    assert_eq!(impostors, [true, false], "{runs:?}");
    for run in runs {
        let drawn = run["impostor_instances"]
            .as_u64()
            .unwrap_or_else(|| panic!("impostor_instances in {run}"));
        assert!(drawn <= run["visible"].as_u64().unwrap(), "{run}");
        // The other switches are still there, as before.
        assert_eq!(run["occlusion"], "on", "{run}");
    }
    assert_eq!(runs[1]["impostor_instances"], 0, "{}", runs[1]);
    // 54 pixels high, every character is a few pixels tall: past its
    // chain, an impostor, and a quad is fewer triangles than any level.
    assert_eq!(runs[0]["impostor_instances"], 64, "{}", runs[0]);
    let triangles = |run: &serde_json::Value| run["triangles"].as_f64().unwrap();
    assert!(triangles(&runs[0]) < triangles(&runs[1]), "{runs:?}");
    for switch in ["on", "off"] {
        assert!(
            stderr
                .lines()
                .any(|line| line.contains(&format!("impostors {switch} "))
                    && line.contains(" impostors, ")),
            "no run with impostors {switch} in\n{stderr}"
        );
    }
}

/// `--msaa 1,4,8`: a run for each, the JSON's "msaa" saying how many
/// samples a pixel were drawn (8 clamped to the device's most), the log
/// line too.
#[test]
fn msaa_counts_are_a_run_each_and_say_what_was_drawn() {
    if !common::vulkan_or_skip() {
        return;
    }
    let json = common::scratch_dir("bench_msaa").join("bench.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([
            "bench",
            "--instances",
            "16",
            "--frames",
            "2",
            "--modes",
            "gpu",
        ])
        .args(["--width", "96", "--height", "54", "--msaa", "1,4,8"])
        .arg("--json")
        .arg(&json)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd bench");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    let drawn: Vec<u64> = runs
        .iter()
        .map(|run| run["msaa"].as_u64().unwrap())
        .collect();
    assert_eq!(&drawn[..2], [1, 4], "{runs:?}");
    // Every device offers 4; 8 where it can.
    assert!(drawn[2] == 4 || drawn[2] == 8, "{runs:?}");
    for samples in [1, 4] {
        assert!(
            stderr
                .lines()
                .any(|line| line.contains(&format!(" MSAA {samples}x: cpu "))),
            "no run at {samples}x in\n{stderr}"
        );
    }
}

/// `--shadows map,blob,off`: a run for each, the JSON's "shadows" saying
/// which; shadow maps time each cascade's cull and casters, the others
/// none.
#[test]
fn shadow_kinds_are_a_run_each_and_say_which() {
    if !common::vulkan_or_skip() {
        return;
    }
    let json = common::scratch_dir("bench_shadows").join("bench.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_md5crowd"))
        .args([
            "bench",
            "--instances",
            "16",
            "--frames",
            "2",
            "--modes",
            "gpu",
        ])
        .args([
            "--width",
            "96",
            "--height",
            "54",
            "--shadows",
            "map,blob,off",
        ])
        .args(["--shadow-cascades", "2", "--shadow-resolution", "256"])
        .arg("--json")
        .arg(&json)
        .env("RUST_LOG", "info")
        .output()
        .expect("run md5crowd bench");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    let kinds: Vec<&str> = runs
        .iter()
        .map(|r| r["shadows"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["map", "blob", "off"], "{runs:?}");
    for run in runs {
        let cascades = run["gpu_ms"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|pass| pass.starts_with("shadow "))
            .count();
        let expected = if run["shadows"] == "map" { 4 } else { 0 };
        assert_eq!(cascades, expected, "{run}");
    }
    for kind in ["map ", "blob", "off "] {
        assert!(
            stderr
                .lines()
                .any(|line| line.contains(&format!(" shadows {kind} MSAA "))),
            "no run with shadows {kind} in\n{stderr}"
        );
    }
}

/// The benchmark takes its model as the render command does (one
/// definition of the options): a directory of two meshes needs `--mesh`,
/// which picks one.
#[test]
fn bench_picks_a_mesh_from_a_directory_with_mesh() {
    let dir = common::scratch_dir("bench_mesh");
    for mesh in ["crowdling.md5mesh", "twin.md5mesh"] {
        std::fs::copy(common::shipped_mesh(), dir.join(mesh)).unwrap();
    }
    let walk = common::assets().join("walk.md5anim");
    std::fs::copy(walk, dir.join("walk.md5anim")).unwrap();
    common::assert_bad_input(
        &common::md5crowd_as_typed(&["bench", common::arg(&dir)]),
        &["holds several meshes: crowdling.md5mesh, twin.md5mesh; pick one with --mesh NAME"],
    );
    if !common::vulkan_or_skip() {
        return;
    }
    let report = bench_report(
        &[
            common::arg(&dir),
            "--mesh",
            "twin",
            "--instances",
            "2",
            "--frames",
            "1",
            "--modes",
            "gpu",
            "--width",
            "64",
            "--height",
            "36",
        ],
        &dir.join("bench.json"),
    );
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{report}");
    assert_eq!(runs[0]["models"], serde_json::json!(["twin"]), "{report}");
}

/// `--layers 0,1,2`: a run for each count of the layers given, the JSON's
/// "layers" saying which; more than were given is bad input.
#[test]
fn layer_counts_are_a_run_each() {
    if !common::vulkan_or_skip() {
        return;
    }
    let json = common::scratch_dir("bench_layers").join("bench.json");
    let report = common::bench_report(
        &[
            "--instances",
            "16",
            "--frames",
            "1",
            "--modes",
            "gpu",
            "--width",
            "96",
            "--height",
            "54",
            "--channel",
            "torso=*spine_1",
            "--layer",
            "torso:wave,run@0.8",
            "--additive",
            "idle@0.5",
            "--layers",
            "0,1,2",
        ],
        &json,
    );
    let layers: Vec<u64> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["layers"].as_u64().unwrap())
        .collect();
    assert_eq!(layers, [0, 1, 2]);
    let output = common::md5crowd_as_typed(&["bench", "--layers", "1", "--frames", "1"]);
    common::assert_bad_input(&output, &["--layers 1: 0 layer(s) given"]);
}
