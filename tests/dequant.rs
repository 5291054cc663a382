//! Dequantisation, bit for bit against the reference vectors written by
//! tests/reference/dequant_vectors.py (gguf-py `quants.dequantize`, numpy, ml_dtypes, and ggml
//! definitions transcribed to numpy for the types gguf-py cannot decode), plus hand-derived
//! blocks from ggml's C definitions, the row-window helper on the real files, and a property test
//! that no bytes of any type panic.
//!
//! Bit patterns are compared (`f32::to_bits`), so NaNs, signed zeros and subnormals count.

mod common;

use std::path::{Path, PathBuf};

use common::{data_dir, real_file, reference};
use proptest::prelude::*;
use serde_json::Value as J;
use weightpeek::dequant::{
    dequantize_ggml, dequantize_safetensors, ggml_elements, ggml_row_window,
    safetensors_row_window, st_elements, DequantError,
};
use weightpeek::format::ggml_type::{by_name, GgmlType, Status, GGML_TYPES};
use weightpeek::format::safetensors::{st_dtype, ST_DTYPES};
use weightpeek::format::{DType, Model};

fn reference_dir() -> PathBuf {
    common::reference_dir().join("dequant")
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn ggml(name: &str) -> GgmlType {
    GgmlType(
        by_name(name)
            .unwrap_or_else(|| panic!("no ggml type {name}"))
            .id,
    )
}

/// Decodes one reference case; `Err` describes the first mismatches.
fn check_case(dir: &Path, case: &J) -> Result<usize, String> {
    let name = case["name"].as_str().unwrap();
    let ty = case["type"].as_str().unwrap();
    let input = std::fs::read(dir.join(case["input"].as_str().unwrap())).unwrap();
    let expected = f32s(&std::fs::read(dir.join(case["expected"].as_str().unwrap())).unwrap());
    let mut got = vec![f32::from_bits(0xDEAD_BEEF); expected.len()];
    let r = match case["kind"].as_str().unwrap() {
        "ggml" => dequantize_ggml(
            ggml(ty),
            case["big_endian"].as_bool().unwrap(),
            &input,
            &mut got,
        ),
        "safetensors" => dequantize_safetensors(&st_dtype(ty).unwrap(), &input, &mut got),
        k => panic!("unknown kind {k}"),
    };
    r.map_err(|e| format!("{name}: {e}"))?;
    let bad: Vec<usize> = (0..expected.len())
        .filter(|&i| got[i].to_bits() != expected[i].to_bits())
        .collect();
    if bad.is_empty() {
        return Ok(expected.len());
    }
    let show: Vec<String> = bad
        .iter()
        .take(4)
        .map(|&i| {
            format!(
                "[{i}] got {:e} ({:#010x}) want {:e} ({:#010x})",
                got[i],
                got[i].to_bits(),
                expected[i],
                expected[i].to_bits()
            )
        })
        .collect();
    Err(format!(
        "{name} ({}): {} of {} values differ: {}",
        case["source"].as_str().unwrap_or(""),
        bad.len(),
        expected.len(),
        show.join("; ")
    ))
}

#[test]
fn reference_vectors_bit_for_bit() {
    let Some(index) = reference("dequant/index") else {
        return;
    };
    let dir = reference_dir();
    let cases = index["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut values = 0;
    for case in cases {
        match check_case(&dir, case) {
            Ok(n) => values += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!("{} cases, {values} values equal bit for bit", cases.len());

    // Every active ggml type and every decodable safetensors dtype has vectors.
    let has = |kind: &str, ty: &str| {
        cases
            .iter()
            .any(|c| c["kind"].as_str() == Some(kind) && c["type"].as_str() == Some(ty))
    };
    for t in GGML_TYPES.iter().filter(|t| t.status == Status::Active) {
        assert!(
            has("ggml", t.name),
            "no reference vectors for ggml {}",
            t.name
        );
    }
    for d in ST_DTYPES.iter().filter(|d| !d.name.starts_with("F6")) {
        assert!(
            has("safetensors", d.name),
            "no reference vectors for {}",
            d.name
        );
    }
}

// --- Hand-derived from ggml's C definitions (gguf-py has no decoder for these) --------------

/// ggml-common.h `block_q8_K` {float d; int8_t qs[256]; int16_t bsums[16]} and ggml-quants.c
/// `dequantize_row_q8_K`: y[j] = d * qs[j].
#[test]
fn q8_k_is_d_times_qs() {
    let mut b = vec![0u8; 292];
    b[..4].copy_from_slice(&0.25f32.to_le_bytes());
    for j in 0..256 {
        b[4 + j] = (j as i32 - 128) as i8 as u8;
    }
    b[260..].fill(0xAB); // bsums: not used for decoding
    let mut y = vec![0f32; 256];
    dequantize_ggml(ggml("Q8_K"), false, &b, &mut y).unwrap();
    for (j, v) in y.iter().enumerate() {
        assert_eq!(*v, 0.25 * (j as f32 - 128.0), "{j}");
    }
}

/// ggml-common.h `block_q8_1` {ggml_half d; ggml_half s; int8_t qs[32]}: d is the delta, s =
/// d·Σqs (an aid for dot products); ggml has no `dequantize_row_q8_1`, so y = d·qs as Q8_0.
#[test]
fn q8_1_is_d_times_qs() {
    let mut b = vec![0u8; 36];
    b[..2].copy_from_slice(&0x3800u16.to_le_bytes()); // 0.5
    b[2..4].copy_from_slice(&0x7C00u16.to_le_bytes()); // s = Inf: must not matter
    for j in 0..32 {
        b[4 + j] = (j as i8 - 16) as u8;
    }
    let mut y = vec![0f32; 32];
    dequantize_ggml(ggml("Q8_1"), false, &b, &mut y).unwrap();
    for (j, v) in y.iter().enumerate() {
        assert_eq!(*v, 0.5 * (j as f32 - 16.0), "{j}");
    }
}

/// ggml-common.h `block_q1_0` {ggml_half d; uint8_t qs[16]} (128 values) and ggml-quants.c
/// `dequantize_row_q1_0`: bit j%8 of byte j/8 set → +d, clear → −d.
#[test]
fn q1_0_bits_pick_plus_or_minus_d() {
    let mut b = vec![0u8; 18];
    b[..2].copy_from_slice(&0x4200u16.to_le_bytes()); // 3.0
    b[2] = 0b0000_0101; // values 0 and 2 positive
    b[17] = 0x80; // value 127 positive
    let mut y = vec![0f32; 128];
    dequantize_ggml(ggml("Q1_0"), false, &b, &mut y).unwrap();
    for (j, v) in y.iter().enumerate() {
        let want = if [0, 2, 127].contains(&j) { 3.0 } else { -3.0 };
        assert_eq!(*v, want, "{j}");
    }
}

/// ggml-common.h `block_q2_0` {ggml_half d; uint8_t qs[16]} (64 values) and ggml-quants.c
/// `dequantize_row_q2_0`: 2-bit code j%4 of byte j/4 (lowest bits first); 00=−1 01=0 10=+1 11=+2.
#[test]
fn q2_0_codes_are_minus_one_to_two() {
    let mut b = vec![0u8; 18];
    b[..2].copy_from_slice(&0xC000u16.to_le_bytes()); // −2.0
    b[2] = 0b11_10_01_00; // values 0..4: codes 0, 1, 2, 3
    let mut y = vec![0f32; 64];
    dequantize_ggml(ggml("Q2_0"), false, &b, &mut y).unwrap();
    assert_eq!(&y[..4], &[2.0, -0.0, -2.0, -4.0]);
    assert!(y[4..].iter().all(|v| *v == 2.0)); // code 0 → −1 · −2
    assert_eq!(y[1].to_bits(), (-0.0f32).to_bits()); // 0 · −2 is −0 in C too
}

/// ggml.h `GGML_TYPE_I8/I16/I32/I64`: plain two's-complement integers (ggml has no `to_float`
/// for them); decoded to the nearest f32, in the file's byte order.
#[test]
fn integers_round_to_nearest_f32() {
    let mut y = [0f32; 2];
    dequantize_ggml(ggml("I8"), false, &[0x80, 0x7F], &mut y).unwrap();
    assert_eq!(y, [-128.0, 127.0]);
    dequantize_ggml(ggml("I16"), true, &[0x80, 0x00, 0x01, 0x02], &mut y).unwrap();
    assert_eq!(y, [-32768.0, 258.0]);
    let mut b = Vec::new();
    b.extend_from_slice(&16_777_217i32.to_le_bytes()); // 2^24 + 1: ties to even → 2^24
    b.extend_from_slice(&16_777_219i32.to_le_bytes()); // 2^24 + 3 → 2^24 + 4
    dequantize_ggml(ggml("I32"), false, &b, &mut y).unwrap();
    assert_eq!(y, [16_777_216.0, 16_777_220.0]);
    let mut b = Vec::new();
    b.extend_from_slice(&i64::MIN.to_be_bytes());
    b.extend_from_slice(&(-1i64).to_be_bytes());
    dequantize_ggml(ggml("I64"), true, &b, &mut y).unwrap();
    assert_eq!(y, [-9.223_372e18, -1.0]);
}

// --- Errors -------------------------------------------------------------------------------

#[test]
fn quantised_big_endian_and_f6_say_why() {
    for t in GGML_TYPES.iter().filter(|t| t.status == Status::Active) {
        let bytes = vec![0u8; t.type_size as usize];
        let mut y = vec![0f32; t.block_size as usize];
        let r = dequantize_ggml(GgmlType(t.id), true, &bytes, &mut y);
        let plain = t.block_size == 1;
        match r {
            Ok(()) => assert!(plain, "{} decoded big-endian", t.name),
            Err(DequantError::BigEndianQuantized { ty }) => {
                assert!(!plain, "{ty}");
                assert_eq!(ty, t.name);
            }
            Err(e) => panic!("{}: {e}", t.name),
        }
    }
    for name in ["F6_E2M3", "F6_E3M2"] {
        let e =
            dequantize_safetensors(&st_dtype(name).unwrap(), &[0; 3], &mut [0.0; 4]).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(name) && msg.contains("packed"), "{msg}");
        assert!(st_elements(&st_dtype(name).unwrap(), 3).is_err());
    }
}

// --- Row windows on the real files --------------------------------------------------------

fn open(p: &Path) -> Model {
    common::open_model(p).0.model
}

fn read_range(p: &Path, start: u64, len: u64) -> Vec<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(p).unwrap();
    f.seek(SeekFrom::Start(start)).unwrap();
    let mut b = vec![0u8; len as usize];
    f.read_exact(&mut b).unwrap();
    b
}

/// Rows 0..2 of the first Q4_K / Q5_0 / Q6_K / Q8_0 tensor of the Gemma file, located with the
/// parser and [`ggml_row_window`], are exactly the bytes gguf-py's GGUFReader gave the
/// reference script, and decode to its values.
#[test]
fn gemma_row_windows_match_reference_rows() {
    let Some(index) = reference("dequant/index") else {
        return;
    };
    let Some(p) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let m = open(&p);
    let dir = reference_dir();
    for ty in ["Q4_K", "Q5_0", "Q6_K", "Q8_0"] {
        let t = m
            .tensors
            .iter()
            .find(|t| t.dtype == DType::Ggml(ggml(ty)))
            .unwrap();
        let w = ggml_row_window(ggml(ty), &t.shape, 0..2).unwrap();
        let bytes = read_range(&p, t.offset + w.start, w.len());
        let case = index["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"].as_str() == Some(&format!("{ty}.gemma")))
            .unwrap();
        let want_in = std::fs::read(dir.join(case["input"].as_str().unwrap())).unwrap();
        assert_eq!(bytes, want_in, "{ty} {}: window bytes", t.name);
        let n = usize::try_from(w.elements().unwrap()).unwrap();
        assert_eq!(Some(n), ggml_elements(ggml(ty), bytes.len()));
        let mut y = vec![0f32; n];
        dequantize_ggml(ggml(ty), false, &bytes, &mut y).unwrap();
        let want = f32s(&std::fs::read(dir.join(case["expected"].as_str().unwrap())).unwrap());
        assert!(
            y.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{ty}"
        );
        // Later rows come from later bytes of the same tensor.
        let w2 = ggml_row_window(ggml(ty), &t.shape, 1..3).unwrap();
        assert_eq!(w2.start, w.len() / 2);
    }
}

/// Rows 0..2 of MiniLM's first query weight, located with [`safetensors_row_window`].
#[test]
fn minilm_row_window_matches_reference_rows() {
    let Some(index) = reference("dequant/index") else {
        return;
    };
    let Some(p) = real_file(data_dir().join("all-MiniLM-L6-v2/model.safetensors")) else {
        return;
    };
    let m = open(&p);
    let t = m
        .tensors
        .iter()
        .find(|t| t.name == "encoder.layer.0.attention.self.query.weight")
        .unwrap();
    let DType::St(dt) = &t.dtype else {
        panic!("{:?}", t.dtype)
    };
    let w = safetensors_row_window(dt, &t.shape, 0..2).unwrap();
    assert_eq!((w.start, w.end, w.rows, w.row_elements), (0, 3072, 2, 384));
    let bytes = read_range(&p, t.offset + w.start, w.len());
    let mut y = vec![0f32; st_elements(dt, bytes.len()).unwrap()];
    dequantize_safetensors(dt, &bytes, &mut y).unwrap();
    let case = index["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str() == Some("st.F32"))
        .unwrap();
    let want =
        f32s(&std::fs::read(reference_dir().join(case["expected"].as_str().unwrap())).unwrap());
    assert_eq!(y.len(), want.len());
    assert!(y.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()));
}

// --- No panics ----------------------------------------------------------------------------

fn all_ggml_ids() -> Vec<u32> {
    (0..GGML_TYPES.len() as u32 + 3).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random bytes of every ggml type (whole blocks or not, right output length or not, either
    /// byte order) return Ok or an error, never panic.
    #[test]
    fn random_ggml_bytes_never_panic(
        id_pick in 0usize..46,
        blocks in 0usize..4,
        extra in 0usize..3,
        out_delta in -1i64..2,
        big_endian in any::<bool>(),
        seed in proptest::collection::vec(any::<u8>(), 0..1200),
    ) {
        let ids = all_ggml_ids();
        let id = ids[id_pick % ids.len()];
        let ty = GgmlType(id);
        let (ts, bs) = ty
            .info()
            .map(|i| (i.type_size as usize, i.block_size as usize))
            .unwrap_or((1, 1));
        let len = ts * blocks + extra;
        let bytes: Vec<u8> = (0..len).map(|i| seed.get(i % seed.len().max(1)).copied().unwrap_or(0x5a) ^ (i as u8)).collect();
        let n = (bs * blocks) as i64 + out_delta;
        let mut out = vec![0f32; n.max(0) as usize];
        let r = dequantize_ggml(ty, big_endian, &bytes, &mut out);
        if extra == 0 && out_delta == 0 && ty.info().is_some() && (!big_endian || bs == 1) {
            prop_assert!(r.is_ok(), "{}: {:?}", ty.label(), r);
        } else if let Err(e) = r {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    /// Random bytes of every safetensors dtype never panic either.
    #[test]
    fn random_safetensors_bytes_never_panic(
        pick in 0usize..22,
        bytes in proptest::collection::vec(any::<u8>(), 0..200),
        out_len in 0usize..420,
    ) {
        let dt = ST_DTYPES[pick % ST_DTYPES.len()];
        let mut out = vec![0f32; out_len];
        let _ = dequantize_safetensors(&dt, &bytes, &mut out);
        if let Ok(n) = st_elements(&dt, bytes.len()) {
            let mut out = vec![0f32; n];
            prop_assert!(dequantize_safetensors(&dt, &bytes, &mut out).is_ok());
        }
    }

    /// Row windows never panic or overflow silently.
    #[test]
    fn row_windows_never_panic(
        id in 0u32..46,
        shape in proptest::collection::vec(any::<u64>(), 0..4),
        a in any::<u64>(),
        b in any::<u64>(),
        pick in 0usize..22,
    ) {
        if let Ok(w) = ggml_row_window(GgmlType(id), &shape, a..b) {
            prop_assert!(w.start <= w.end);
        }
        if let Ok(w) = safetensors_row_window(&ST_DTYPES[pick % ST_DTYPES.len()], &shape, a..b) {
            prop_assert!(w.start <= w.end);
        }
    }
}
