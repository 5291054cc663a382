#![no_main]
//! The zip reader alone (end records, ZIP64, central directory, local headers) on any bytes.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::zip_reader(data);
});
