#![no_main]
//! safetensors headers: an 8-byte length then arbitrary bytes (mostly JSON-ish via the corpus).
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::safetensors_header(data);
});
