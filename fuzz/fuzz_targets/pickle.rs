#![no_main]
//! The pickle machine on any bytes: tree, imports and verdicts, PyTorch's summary of it.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::pickle_machine(data);
});
