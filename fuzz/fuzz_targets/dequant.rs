#![no_main]
//! Dequantisation of arbitrary bytes as every ggml type (both byte orders) and safetensors dtype.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::dequant(data);
});
