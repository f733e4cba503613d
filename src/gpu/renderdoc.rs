//! RenderDoc's in-application API: start and end a capture where the
//! program decides (a headless frame has no present to delimit it), and
//! learn where the capture was saved.
//!
//! Only a process that already runs under RenderDoc connects: the library
//! is looked up among those loaded (`RTLD_NOLOAD`), never loaded, because
//! loading it would inject RenderDoc's hooks into a normal run.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;

use ash::vk::Handle;
use libloading::Library;

/// The API version requested: 1.1.2 is the first with today's names, and
/// every function used here exists since 1.0.
const API_VERSION_1_1_2: c_int = 10102;

#[cfg(unix)]
const LIBRARY_NAME: &str = "librenderdoc.so";
#[cfg(windows)]
const LIBRARY_NAME: &str = "renderdoc.dll";

type GetApi = unsafe extern "C" fn(version: c_int, api: *mut *mut c_void) -> c_int;
type DevicePointer = *mut c_void;
type WindowHandle = *mut c_void;

/// The head of `RENDERDOC_API_1_1_2` (renderdoc_app.h). Later versions only
/// append, so this prefix is valid for every version RenderDoc returns.
/// Entries this program does not call are opaque pointers that keep the
/// offsets right.
#[repr(C)]
struct Api {
    get_api_version: *const c_void,
    set_capture_option_u32: *const c_void,
    set_capture_option_f32: *const c_void,
    get_capture_option_u32: *const c_void,
    get_capture_option_f32: *const c_void,
    set_focus_toggle_keys: *const c_void,
    set_capture_keys: unsafe extern "C" fn(keys: *const c_int, count: c_int),
    get_overlay_bits: *const c_void,
    mask_overlay_bits: *const c_void,
    remove_hooks: *const c_void,
    unload_crash_handler: *const c_void,
    set_capture_file_path_template: *const c_void,
    get_capture_file_path_template: *const c_void,
    get_num_captures: unsafe extern "C" fn() -> u32,
    get_capture: unsafe extern "C" fn(
        index: u32,
        path: *mut c_char,
        path_length: *mut u32,
        timestamp: *mut u64,
    ) -> u32,
    trigger_capture: *const c_void,
    is_target_control_connected: *const c_void,
    launch_replay_ui: *const c_void,
    set_active_window: *const c_void,
    start_frame_capture: unsafe extern "C" fn(DevicePointer, WindowHandle),
    is_frame_capturing: *const c_void,
    end_frame_capture: unsafe extern "C" fn(DevicePointer, WindowHandle) -> u32,
}

/// A connection to the RenderDoc this process runs under.
pub struct RenderDoc {
    api: *const Api,
    /// Keeps the function table's library mapped (it is never unloaded
    /// while the process runs anyway: RenderDoc hooks it).
    _library: Library,
}

impl RenderDoc {
    /// `None` when this process does not run under RenderDoc (or runs
    /// under one too old for the API).
    pub fn connect() -> Option<RenderDoc> {
        let library = open_if_loaded()?;
        // SAFETY: the symbol is RenderDoc's documented entry point with
        // this signature; it fills `api` with a pointer to a static table.
        let api = unsafe {
            let get_api = library.get::<GetApi>(b"RENDERDOC_GetAPI\0").ok()?;
            let mut api: *mut c_void = std::ptr::null_mut();
            if get_api(API_VERSION_1_1_2, &mut api) != 1 || api.is_null() {
                return None;
            }
            api as *const Api
        };
        Some(RenderDoc {
            api,
            _library: library,
        })
    }

    fn api(&self) -> &Api {
        // SAFETY: RenderDoc's table is static and lives as long as the
        // library, which `self` keeps loaded.
        unsafe { &*self.api }
    }

    /// Takes F12 and Print Screen away from RenderDoc, so a capture key
    /// the program handles itself does not capture twice.
    pub fn disable_capture_keys(&self) {
        unsafe { (self.api().set_capture_keys)(std::ptr::null(), 0) };
    }

    /// Starts capturing every call on `instance`'s devices, to any window
    /// or none. Must be paired with [`RenderDoc::end_frame_capture`].
    pub fn start_frame_capture(&self, instance: &ash::Instance) {
        unsafe { (self.api().start_frame_capture)(device_pointer(instance), std::ptr::null_mut()) };
    }

    /// Ends the capture and writes it; false when RenderDoc reports a failure.
    pub fn end_frame_capture(&self, instance: &ash::Instance) -> bool {
        unsafe {
            (self.api().end_frame_capture)(device_pointer(instance), std::ptr::null_mut()) == 1
        }
    }

    /// Captures written by this process so far (by any trigger).
    pub fn capture_count(&self) -> u32 {
        unsafe { (self.api().get_num_captures)() }
    }

    /// The file capture `index` was written to.
    pub fn capture_path(&self, index: u32) -> Option<PathBuf> {
        let get_capture = self.api().get_capture;
        let mut length = 0u32;
        // First the length (including the NUL), then the path itself.
        let found = unsafe {
            get_capture(
                index,
                std::ptr::null_mut(),
                &mut length,
                std::ptr::null_mut(),
            )
        };
        if found != 1 || length == 0 {
            return None;
        }
        let mut path = vec![0u8; length as usize];
        let written = unsafe {
            get_capture(
                index,
                path.as_mut_ptr().cast(),
                &mut length,
                std::ptr::null_mut(),
            )
        };
        if written != 1 {
            return None;
        }
        let path = CStr::from_bytes_until_nul(&path).ok()?;
        Some(PathBuf::from(path.to_string_lossy().into_owned()))
    }
}

/// RenderDoc's `RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE`: the dispatch
/// table pointer that a dispatchable Vulkan handle points to first.
fn device_pointer(instance: &ash::Instance) -> DevicePointer {
    let handle = instance.handle().as_raw() as *const DevicePointer;
    // SAFETY: a VkInstance is a pointer to the loader's instance object,
    // whose first field is its dispatch table pointer (loader ABI).
    unsafe { *handle }
}

#[cfg(unix)]
fn open_if_loaded() -> Option<Library> {
    let flags = libloading::os::unix::RTLD_NOW | libc::RTLD_NOLOAD;
    // SAFETY: with RTLD_NOLOAD nothing is loaded, so no initialiser runs.
    unsafe { libloading::os::unix::Library::open(Some(LIBRARY_NAME), flags) }
        .ok()
        .map(Library::from)
}

#[cfg(windows)]
fn open_if_loaded() -> Option<Library> {
    libloading::os::windows::Library::open_already_loaded(LIBRARY_NAME)
        .ok()
        .map(Library::from)
}
