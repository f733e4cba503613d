//! VK_EXT_debug_utils: the messenger that routes validation messages to `log`
//! and counts the serious ones, object names, and command-buffer labels.

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicU32, Ordering};

use ash::vk;

use super::Context;

/// Warnings and errors reported by the layers. `--validate` turns a non-zero
/// total into a failing exit status, so a clean run is a checked property.
#[derive(Debug, Default)]
pub struct MessageCounts {
    warnings: AtomicU32,
    errors: AtomicU32,
}

impl MessageCounts {
    pub fn warnings(&self) -> u32 {
        self.warnings.load(Ordering::Relaxed)
    }

    pub fn errors(&self) -> u32 {
        self.errors.load(Ordering::Relaxed)
    }
}

/// The messenger description, used twice: chained into `VkInstanceCreateInfo`
/// (covers instance creation and destruction) and for the long-lived messenger.
/// `counts` must outlive both.
pub(crate) fn messenger_create_info(
    counts: &MessageCounts,
) -> vk::DebugUtilsMessengerCreateInfoEXT<'_> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::INFO
                | vk::DebugUtilsMessageSeverityFlagsEXT::VERBOSE,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
        .user_data(counts as *const MessageCounts as *mut c_void)
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layers pass valid callback data for the duration of the
    // call, and `user_data` is the `MessageCounts` given at creation.
    let (data, counts) = unsafe { (&*data, &*(user_data as *const MessageCounts)) };
    let id = unsafe { data.message_id_name_as_c_str() }.map_or("", |s| s.to_str().unwrap_or(""));
    let text = unsafe { data.message_as_c_str() }
        .map_or(std::borrow::Cow::Borrowed(""), CStr::to_string_lossy);
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        counts.errors.fetch_add(1, Ordering::Relaxed);
        log::Level::Error
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        counts.warnings.fetch_add(1, Ordering::Relaxed);
        log::Level::Warn
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::INFO) {
        log::Level::Debug
    } else {
        log::Level::Trace
    };
    log::log!(target: "vulkan", level, "[{kind:?}] {id}: {text}");
    // VK_FALSE: never abort the call that triggered the message.
    vk::FALSE
}

/// Names `handle` for validation messages and capture tools. A no-op when
/// VK_EXT_debug_utils is unavailable. Device-level objects only: the
/// loader (1.3.239) crashes naming instance-level ones (physical device,
/// surface) through this device function.
pub fn set_name<T: vk::Handle>(ctx: &Context, handle: T, name: &str) {
    name_with(ctx.debug_utils.as_ref(), handle, name);
}

/// [`set_name`] for code that holds the extension's functions rather
/// than the context (the overlay's allocator).
pub fn name_with<T: vk::Handle>(
    debug_utils: Option<&ash::ext::debug_utils::Device>,
    handle: T,
    name: &str,
) {
    let Some(debug_utils) = debug_utils else {
        return;
    };
    // Names are ours, never user text with interior NULs; if one slips
    // through, an unnamed object beats a failed frame.
    let Ok(name) = CString::new(name) else {
        return;
    };
    let info = vk::DebugUtilsObjectNameInfoEXT::default()
        .object_handle(handle)
        .object_name(&name);
    // Naming is diagnostics only: a failure must not stop rendering.
    let _ = unsafe { debug_utils.set_debug_utils_object_name(&info) };
}

/// A command-buffer label region, closed when dropped:
/// `let _pass = debug::label(ctx, cmd, "crowd draw");`
#[must_use = "the label closes when this guard drops"]
pub struct Label<'a> {
    /// Set only when the region was opened, so begin and end always pair.
    debug_utils: Option<&'a ash::ext::debug_utils::Device>,
    cmd: vk::CommandBuffer,
}

pub fn label<'a>(ctx: &'a Context, cmd: vk::CommandBuffer, name: &str) -> Label<'a> {
    let debug_utils = match (&ctx.debug_utils, CString::new(name)) {
        (Some(debug_utils), Ok(name)) => {
            let info = vk::DebugUtilsLabelEXT::default().label_name(&name);
            unsafe { debug_utils.cmd_begin_debug_utils_label(cmd, &info) };
            Some(debug_utils)
        }
        _ => None,
    };
    Label { debug_utils, cmd }
}

impl Drop for Label<'_> {
    fn drop(&mut self) {
        if let Some(debug_utils) = self.debug_utils {
            unsafe { debug_utils.cmd_end_debug_utils_label(self.cmd) };
        }
    }
}
