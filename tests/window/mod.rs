//! Real windows on a virtual X server of their own (Xvfb), driven by the
//! app's window hook and by xdotool: resizes, the overlay's controls, and
//! seeded soak runs.

mod render_overlay;
mod render_window;
mod window_soak;
