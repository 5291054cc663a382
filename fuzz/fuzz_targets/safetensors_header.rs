#![no_main]
//! safetensors headers: an 8-byte length then arbitrary bytes (mostly JSON-ish via the corpus).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = (data.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(data);
    b.extend_from_slice(&[0u8; 64]);
    if let Ok(m) = weightpeek::source::parse_bytes(&b) {
        let _ = weightpeek::summary::summarize(&m);
        let _ = weightpeek::check::check(&m);
    }
    let _ = weightpeek::source::parse_bytes(data);
});
