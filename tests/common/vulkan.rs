//! Whether a test that needs Vulkan runs, and what it does when Vulkan is
//! missing: with `MD5CROWD_REQUIRE_VULKAN=1` (CI) it fails, otherwise it
//! skips. Its own file because tests/driver_lifetime.rs, a binary of its
//! own, needs this and nothing else of tests/common.

use md5crowd::gpu::context::Validation;
use md5crowd::gpu::{Context, ContextDesc};

/// Whether CI asked for every Vulkan, window and device-feature test to
/// run: `MD5CROWD_REQUIRE_VULKAN=1`.
fn vulkan_required() -> bool {
    std::env::var("MD5CROWD_REQUIRE_VULKAN").as_deref() == Ok("1")
}

/// The one place that decides what a test does when something it needs is
/// missing (`what` completes "MD5CROWD_REQUIRE_VULKAN=1 but ..." and
/// "skipped: ..."): with `MD5CROWD_REQUIRE_VULKAN=1` (CI) it fails the test,
/// otherwise it prints why and returns false, so that callers write
/// `if !required_or_skip(..) { return; }` or use the `*_or_skip` helpers.
pub fn required_or_skip(what: &str) -> bool {
    if vulkan_required() {
        panic!("MD5CROWD_REQUIRE_VULKAN=1 but {what}");
    }
    println!("skipped: {what}");
    false
}

/// False (after printing why) when the test should skip: no Vulkan loader
/// or no usable device. With `MD5CROWD_REQUIRE_VULKAN=1` (CI) a missing
/// device fails the test instead.
pub fn vulkan_or_skip() -> bool {
    let probe = Context::new(&ContextDesc {
        validation: Validation::Off,
        gpu_index: None,
        window: None,
    });
    match probe {
        Ok(_) => true,
        Err(error) => required_or_skip(&format!("no Vulkan device ({error})")),
    }
}
