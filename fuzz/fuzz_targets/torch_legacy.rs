#![no_main]
//! A legacy (pre-1.6) PyTorch checkpoint read, summarised, checked and previewed.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::torch_legacy(data);
});
