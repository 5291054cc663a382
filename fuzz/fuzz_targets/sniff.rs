#![no_main]
//! Format sniffing on arbitrary first bytes and sizes.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::sniff_any(data);
});
