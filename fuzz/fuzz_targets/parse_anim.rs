//! Any bytes: `parse_anim` returns without panicking, and an anim it accepts
//! comes back unchanged through the writer.

#![no_main]

use libfuzzer_sys::fuzz_target;
use md5crowd::md5::{parse_anim, write_anim};

fuzz_target!(|data: &[u8]| {
    // Decoded as the file reader does.
    let text = String::from_utf8_lossy(data);
    if let Ok(anim) = parse_anim(&text, "fuzz.md5anim") {
        let rewritten = write_anim(&anim);
        let reparsed = parse_anim(&rewritten, "rewritten.md5anim")
            .unwrap_or_else(|e| panic!("writer output does not parse: {e}\n{rewritten}"));
        assert_eq!(reparsed, anim);
    }
});
