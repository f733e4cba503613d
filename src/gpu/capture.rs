//! Which frames RenderDoc captures: `--capture-frame N` and, in the window,
//! F12 for the next one. Each capture wraps one frame, from before its
//! command buffer is recorded until after its submission (and present), so
//! it works headless too, where no present delimits frames.

use crate::gpu::renderdoc::RenderDoc;
use crate::gpu::Context;

pub struct FrameCapture {
    renderdoc: Option<RenderDoc>,
    /// `--capture-frame`: the frame index (from 0) to capture.
    planned: Option<u64>,
    /// F12 was pressed: capture the next frame drawn.
    next: bool,
    capturing: bool,
    /// Captures whose path was already printed.
    reported: u32,
    /// Without RenderDoc, a request is answered with one warning per run.
    warned: bool,
}

impl FrameCapture {
    /// Connects to RenderDoc if this process runs under it. Call before the
    /// Vulkan instance exists, as RenderDoc asks.
    pub fn new(planned: Option<u32>) -> FrameCapture {
        let renderdoc = RenderDoc::connect();
        if let Some(renderdoc) = &renderdoc {
            // F12 is ours (see `request_next_frame`); RenderDoc's own key
            // would capture a second, present-to-present frame.
            renderdoc.disable_capture_keys();
            log::info!("running under RenderDoc: F12 or --capture-frame N capture a frame");
        }
        let mut capture = FrameCapture {
            renderdoc,
            planned: planned.map(u64::from),
            next: false,
            capturing: false,
            reported: 0,
            warned: false,
        };
        if let Some(frame) = planned {
            capture.warn_if_absent(&format!("--capture-frame {frame}"));
        }
        capture
    }

    /// A capture can be made: this process runs under RenderDoc.
    pub fn available(&self) -> bool {
        self.renderdoc.is_some()
    }

    /// F12: capture the next frame drawn.
    pub fn request_next_frame(&mut self) {
        self.next = true;
        self.warn_if_absent("F12");
    }

    fn warn_if_absent(&mut self, what: &str) {
        if self.renderdoc.is_none() && !std::mem::replace(&mut self.warned, true) {
            log::warn!(
                "{what}: not running under RenderDoc, so no capture is made (start with \
                 `renderdoccmd capture -w md5crowd ...` or launch from qrenderdoc)"
            );
        }
    }

    /// Call before recording frame `index`: starts its capture if one is due.
    pub fn begin_frame(&mut self, ctx: &Context, index: u64) {
        let due = std::mem::take(&mut self.next) || self.planned == Some(index);
        if let (true, Some(renderdoc)) = (due, &self.renderdoc) {
            renderdoc.start_frame_capture(&ctx.instance);
            self.capturing = true;
        }
    }

    /// Call after the frame's submission (and present): ends a capture
    /// begun for it and prints where RenderDoc saved it.
    pub fn end_frame(&mut self, ctx: &Context) {
        let Some(renderdoc) = &self.renderdoc else {
            return;
        };
        if std::mem::take(&mut self.capturing) && !renderdoc.end_frame_capture(&ctx.instance) {
            log::error!("RenderDoc could not write the capture");
        }
        // Also reports captures made from RenderDoc's own UI.
        let count = renderdoc.capture_count();
        for index in self.reported..count {
            match renderdoc.capture_path(index) {
                Some(path) => log::info!("RenderDoc capture: {}", path.display()),
                None => log::info!("RenderDoc capture {index} (path unknown)"),
            }
        }
        self.reported = count;
    }
}
