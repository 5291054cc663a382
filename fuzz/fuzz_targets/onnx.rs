#![no_main]
//! The ONNX protobuf reader on any bytes, then the summary, checks and previews.
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::onnx_model(data);
});
