//! The Vulkan driver is loaded once per process and stays loaded, however
//! many contexts come and go, one after another or at once (issue 37).
//! The NVIDIA driver crashed the test suite when the loader unloaded it at
//! every `vkDestroyInstance`; lavapipe shows the same unloading in
//! /proc/self/maps, so this runs wherever the tests run. It is the only
//! test of its binary: the thread and descriptor counts are the process's.

// Only what decides whether a Vulkan test runs: the rest of tests/common
// would load nothing here, and is compiled into tests/integration.rs.
#[path = "common/vulkan.rs"]
mod vulkan;

use std::collections::BTreeMap;
use std::fs;

use md5crowd::gpu::context::Validation;
use md5crowd::gpu::{Context, ContextDesc};

const ONE_AFTER_ANOTHER: usize = 200;
const THREADS: usize = 8;
const PER_THREAD: usize = 25;

/// Every shared library mapped into this process, with the lowest address
/// it is mapped at: a library unloaded and loaded again shows up missing,
/// or (if it lands elsewhere) at another address.
fn mapped_libraries() -> BTreeMap<String, u64> {
    let maps = fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    let mut libraries = BTreeMap::new();
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let range = fields.next().unwrap_or_default();
        let Some(path) = fields.nth(4) else { continue };
        if !path.contains(".so") {
            continue;
        }
        let start = u64::from_str_radix(range.split('-').next().unwrap_or_default(), 16)
            .expect("a hexadecimal address");
        libraries
            .entry(path.to_owned())
            .and_modify(|lowest: &mut u64| *lowest = (*lowest).min(start))
            .or_insert(start);
    }
    libraries
}

fn entries(dir: &str) -> usize {
    fs::read_dir(dir).expect(dir).count()
}

/// A validated context, made and destroyed, that said nothing.
fn cycle_context() {
    let ctx = Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .expect("a context");
    let counts = ctx.message_counts.clone();
    drop(ctx);
    assert_eq!(
        (counts.errors(), counts.warnings()),
        (0, 0),
        "validation spoke"
    );
}

/// The libraries of `before` that `now` lacks or maps elsewhere.
fn moved(before: &BTreeMap<String, u64>, now: &BTreeMap<String, u64>) -> Vec<String> {
    before
        .iter()
        .filter(|(path, start)| now.get(*path) != Some(start))
        .map(|(path, _)| path.clone())
        .collect()
}

#[test]
fn the_driver_is_loaded_once_and_stays_loaded_across_hundreds_of_contexts() {
    let without_vulkan = mapped_libraries();
    if !vulkan::vulkan_or_skip() {
        return;
    }
    // What the first context brought in: the loader, the driver and what
    // the driver links. Layers come and go with each instance, by design.
    let first = Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .expect("a context");
    let vulkan: BTreeMap<String, u64> = mapped_libraries()
        .into_iter()
        .filter(|(path, _)| !without_vulkan.contains_key(path) && !path.contains("VkLayer"))
        .collect();
    drop(first);
    assert!(
        vulkan.keys().any(|path| !path.contains("libvulkan.so")),
        "no driver library found among those the first context mapped: {vulkan:?}"
    );
    let after_first = moved(&vulkan, &mapped_libraries());
    assert!(
        after_first.is_empty(),
        "destroying the first context unmapped {after_first:?}"
    );
    let threads = entries("/proc/self/task");
    let descriptors = entries("/proc/self/fd");

    for made in 1..=ONE_AFTER_ANOTHER {
        cycle_context();
        let gone = moved(&vulkan, &mapped_libraries());
        assert!(
            gone.is_empty(),
            "after {made} contexts one after another, {gone:?} were unmapped or mapped again"
        );
    }

    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                scope.spawn(|| {
                    for _ in 0..PER_THREAD {
                        cycle_context();
                    }
                })
            })
            .collect();
        // Sample the maps while the workers make and destroy contexts.
        while workers.iter().any(|worker| !worker.is_finished()) {
            let gone = moved(&vulkan, &mapped_libraries());
            assert!(
                gone.is_empty(),
                "with {THREADS} threads making contexts, {gone:?} were unmapped or mapped again"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for worker in workers {
            worker.join().expect("a worker thread");
        }
    });
    let gone = moved(&vulkan, &mapped_libraries());
    assert!(gone.is_empty(), "at the end, {gone:?} were unmapped");
    assert!(
        entries("/proc/self/task") <= threads,
        "{} threads after {} contexts, {threads} after the first",
        entries("/proc/self/task"),
        1 + ONE_AFTER_ANOTHER + THREADS * PER_THREAD
    );
    assert!(
        entries("/proc/self/fd") <= descriptors,
        "{} open file descriptors after {} contexts, {descriptors} after the first",
        entries("/proc/self/fd"),
        1 + ONE_AFTER_ANOTHER + THREADS * PER_THREAD
    );
}
