//! Any bytes: `parse_mesh` returns without panicking, and a mesh it accepts
//! comes back unchanged through the writer.

#![no_main]

use libfuzzer_sys::fuzz_target;
use md5crowd::md5::{parse_mesh, write_mesh};

fuzz_target!(|data: &[u8]| {
    // Decoded as the file reader does.
    let text = String::from_utf8_lossy(data);
    if let Ok(mesh) = parse_mesh(&text, "fuzz.md5mesh") {
        let rewritten = write_mesh(&mesh);
        let reparsed = parse_mesh(&rewritten, "rewritten.md5mesh")
            .unwrap_or_else(|e| panic!("writer output does not parse: {e}\n{rewritten}"));
        assert_eq!(reparsed, mesh);
    }
});
