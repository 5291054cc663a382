#![no_main]
//! Format sniffing on arbitrary first bytes and sizes.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let size = data.len() as u64;
    let _ = weightpeek::format::sniff(data, size);
    let _ = weightpeek::format::sniff(data, size.wrapping_mul(3));
});
