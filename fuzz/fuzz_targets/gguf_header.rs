#![no_main]
//! The whole GGUF header path on arbitrary bytes behind a GGUF magic (parse, summary, checks).
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::gguf_header(data);
});
