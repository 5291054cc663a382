#![no_main]
//! Dequantisation of arbitrary bytes as every ggml type (both byte orders) and every
//! safetensors dtype.
use libfuzzer_sys::fuzz_target;
use weightpeek::dequant::{dequantize_ggml, dequantize_safetensors, ggml_elements};
use weightpeek::format::ggml_type::GgmlType;
use weightpeek::format::safetensors::ST_DTYPES;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let ty = GgmlType(u32::from(sel % 48));
    if let Some(n) = ggml_elements(ty, bytes.len()) {
        let mut out = vec![0f32; n];
        let _ = dequantize_ggml(ty, sel & 0x80 != 0, bytes, &mut out);
    }
    let mut wrong = vec![0f32; bytes.len() % 17];
    let _ = dequantize_ggml(ty, false, bytes, &mut wrong);
    let d = &ST_DTYPES[usize::from(sel) % ST_DTYPES.len()];
    for n in [bytes.len(), bytes.len() * 2, bytes.len() / 2] {
        let mut out = vec![0f32; n];
        let _ = dequantize_safetensors(d, bytes, &mut out);
    }
});
