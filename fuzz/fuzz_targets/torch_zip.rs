#![no_main]
//! A PyTorch zip checkpoint (or .npz) read, summarised, checked and previewed as the page does.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::torch_zip(data);
});
