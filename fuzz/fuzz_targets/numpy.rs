#![no_main]
//! A NumPy .npy or .npz file (object arrays' pickles too) read, summarised, checked and previewed.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::numpy(data);
});
