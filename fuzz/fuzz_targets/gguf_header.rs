#![no_main]
//! The whole header path on arbitrary bytes behind a GGUF magic: parse, summarise, check,
//! and decode every metadata array's first elements.
use libfuzzer_sys::fuzz_target;
use weightpeek::format::Value;

fuzz_target!(|data: &[u8]| {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(data);
    if let Ok(m) = weightpeek::source::parse_bytes(&b) {
        let _ = weightpeek::summary::summarize(&m);
        let _ = weightpeek::check::check(&m);
        for e in &m.metadata {
            if let Value::Array(a) = &e.value {
                let _ = a.values(&m.bytes, 0, 4);
                let _ = a.values(&m.bytes, a.len.saturating_sub(1), 1);
            }
        }
    }
});
