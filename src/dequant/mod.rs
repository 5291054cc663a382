//! Dequantisation: turn the raw bytes of a tensor (or of a window of its rows) into `f32` values.
//!
//! Plain Rust, no I/O: the caller reads the bytes (see [`ggml_row_window`] /
//! [`safetensors_row_window`] for which bytes cover a row range) and hands them here.
//!
//! - GGUF: [`dequantize_ggml`] decodes every active ggml type following ggml's reference
//!   `dequantize_row_*` in ggml/src/ggml-quants.c and the block layouts in
//!   ggml/src/ggml-common.h, bit for bit (no fused multiply-add, same order of operations).
//! - safetensors: [`dequantize_safetensors`] decodes every dtype of
//!   [`crate::format::safetensors::ST_DTYPES`] except the two F6 types, whose bit packing no public
//!   reference fixes (see [`DequantError::Unsupported`]).
//!
//! No input panics: lengths are checked up front, blocks are walked with `chunks_exact`, and
//! every table index is masked to the table's size.

#![forbid(unsafe_code)]

mod exact;
mod fp4;
mod grids;
mod iquants;
mod kquants;
mod legacy;
mod plain;
mod safetensors;
mod ternary;

use std::fmt;
use std::ops::Range;

use crate::format::ggml_type::GgmlType;
use crate::format::safetensors::StDtype;

pub use exact::{decode_wide, element_at, ggml_kind, magnitude, st_kind, ElementKind, Exact};
pub use safetensors::st_elements;

/// Why bytes could not be dequantised, or a row window not computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DequantError {
    /// The ggml type id is removed or unknown, so its layout is not defined.
    UnknownGgmlType {
        /// The raw type id.
        id: u32,
        /// Its label, e.g. `type 4 (removed Q4_2)`.
        label: String,
    },
    /// A big-endian GGUF file with a block-quantised type: ggml defines these blocks only in
    /// little-endian order (its big-endian support byte-swaps plain types), so which of their
    /// fields were swapped is not defined and the values are not previewed.
    BigEndianQuantized {
        /// ggml type name, e.g. `Q4_K`.
        ty: &'static str,
    },
    /// The safetensors dtype name is not one of the known dtypes.
    UnknownDtype {
        /// The name as given.
        name: String,
    },
    /// A type or dtype whose values cannot be decoded, with the reason.
    Unsupported {
        /// Type or dtype name.
        ty: String,
        /// Why (shown to the user).
        why: &'static str,
    },
    /// The input is not a whole number of blocks (or elements).
    PartialBlock {
        /// Type or dtype name.
        ty: String,
        /// Bytes given.
        len: usize,
        /// Bytes per block (or per element group).
        block_bytes: usize,
    },
    /// The output slice does not have exactly one `f32` per decoded element.
    OutputLength {
        /// Elements the input decodes to.
        expected: usize,
        /// `out.len()`.
        got: usize,
    },
    /// A row range outside the tensor, or empty shape problems.
    Rows {
        /// What is wrong, e.g. `rows 5..9 past the 8 rows of the tensor`.
        why: String,
    },
    /// A byte or element count does not fit in 64 bits (or in `usize`).
    Overflow,
}

impl fmt::Display for DequantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DequantError::UnknownGgmlType { label, .. } => {
                write!(
                    f,
                    "cannot preview {label}: ggml defines no block layout for it"
                )
            }
            DequantError::BigEndianQuantized { ty } => write!(
                f,
                "cannot preview {ty} in a big-endian GGUF: ggml defines quantised blocks only in \
                 little-endian order, so the stored scales and bits are ambiguous"
            ),
            DequantError::UnknownDtype { name } => {
                write!(f, "cannot preview dtype {name}: not a safetensors dtype")
            }
            DequantError::Unsupported { ty, why } => write!(f, "cannot preview {ty}: {why}"),
            DequantError::PartialBlock {
                ty,
                len,
                block_bytes,
            } => write!(
                f,
                "cannot decode {len} bytes of {ty}: not a whole number of {block_bytes}-byte blocks"
            ),
            DequantError::OutputLength { expected, got } => write!(
                f,
                "output holds {got} values but the bytes decode to {expected}"
            ),
            DequantError::Rows { why } => write!(f, "bad row window: {why}"),
            DequantError::Overflow => write!(f, "size overflows 64 bits"),
        }
    }
}

impl std::error::Error for DequantError {}

/// IEEE half → f32, exact. NaNs keep sign and payload (mantissa shifted up, quiet bit as
/// stored), which is what numpy's `float16 → float32` cast (and so gguf-py) does; the `half`
/// crate and x86 F16C would set the quiet bit instead.
///
/// Branch-free (it runs once per block scale, and vectorises in whole-tensor loops): normal
/// values rebias the exponent, subnormals are `(2⁻¹⁴ + m·2⁻²⁴) − 2⁻¹⁴` (exact), Inf/NaN keep
/// their payload. Checked against `half` + the NaN rule for all 65536 inputs (tests).
#[inline]
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let shifted = (h & 0x7FFF) << 13;
    let exp = shifted & 0x0F80_0000;
    let mask = |c: bool| 0u32.wrapping_sub(u32::from(c));
    // Rebias (+112 in the exponent); Inf/NaN get another +112 to reach 255.
    let o = shifted + 0x3800_0000 + (mask(exp == 0x0F80_0000) & 0x3800_0000);
    let sub = (f32::from_bits(o + 0x0080_0000) - f32::from_bits(0x3880_0000)).to_bits();
    let is_sub = mask(exp == 0);
    f32::from_bits(((sub & is_sub) | (o & !is_sub)) | sign)
}

/// The f16 stored little-endian at `b[i..i + 2]`.
#[inline]
pub(crate) fn f16_at<const N: usize>(b: &[u8; N], i: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([b[i], b[i + 1]]))
}

/// Pairs each `TS`-byte block of `bytes` with its `BS` output values.
#[inline]
pub(crate) fn blocks<'a, const TS: usize, const BS: usize>(
    bytes: &'a [u8],
    out: &'a mut [f32],
) -> impl Iterator<Item = (&'a [u8; TS], &'a mut [f32; BS])> {
    bytes
        .chunks_exact(TS)
        .zip(out.chunks_exact_mut(BS))
        .filter_map(|(b, o)| Some((b.try_into().ok()?, o.try_into().ok()?)))
}

/// A decoder for whole blocks: `bytes.len()` is a multiple of the type size and `out.len()` is
/// the matching element count (checked by the caller).
type BlockFn = fn(&[u8], &mut [f32]);

/// The little-endian decoder of an active ggml type id.
fn ggml_decoder(id: u32) -> Option<BlockFn> {
    Some(match id {
        0 => plain::f32_le,
        1 => plain::f16_le,
        2 => legacy::q4_0,
        3 => legacy::q4_1,
        6 => legacy::q5_0,
        7 => legacy::q5_1,
        8 => legacy::q8_0,
        9 => legacy::q8_1,
        10 => kquants::q2_k,
        11 => kquants::q3_k,
        12 => kquants::q4_k,
        13 => kquants::q5_k,
        14 => kquants::q6_k,
        15 => kquants::q8_k,
        16 => iquants::iq2_xxs,
        17 => iquants::iq2_xs,
        18 => iquants::iq3_xxs,
        19 => iquants::iq1_s,
        20 => iquants::iq4_nl,
        21 => iquants::iq3_s,
        22 => iquants::iq2_s,
        23 => iquants::iq4_xs,
        24 => plain::i8,
        25 => plain::i16_le,
        26 => plain::i32_le,
        27 => plain::i64_le,
        28 => plain::f64_le,
        29 => iquants::iq1_m,
        30 => plain::bf16_le,
        34 => ternary::tq1_0,
        35 => ternary::tq2_0,
        39 => fp4::mxfp4,
        40 => fp4::nvfp4,
        41 => ternary::q1_0,
        42 => ternary::q2_0,
        _ => return None,
    })
}

/// The big-endian decoder of a plain ggml type (`None` for block-quantised types).
fn ggml_decoder_be(id: u32) -> Option<BlockFn> {
    Some(match id {
        0 => plain::f32_be,
        1 => plain::f16_be,
        24 => plain::i8,
        25 => plain::i16_be,
        26 => plain::i32_be,
        27 => plain::i64_be,
        28 => plain::f64_be,
        30 => plain::bf16_be,
        _ => return None,
    })
}

/// Decodes whole blocks of a ggml type to `f32`.
///
/// - `bytes`: `n_blocks × type_size` bytes (type sizes from [`crate::format::ggml_type`], e.g.
///   144 per 256 values for Q4_K), as stored in the GGUF tensor data;
/// - `out`: exactly `n_blocks × block_size` values, written in storage order (ne0 fastest).
/// - `big_endian`: the GGUF file's byte order. Plain types (F32, F16, BF16, F64, I8–I64) are
///   byte-swapped; block-quantised types return [`DequantError::BigEndianQuantized`].
///
/// Every type decodes as ggml's reference `dequantize_row_*` in ggml/src/ggml-quants.c does
/// (layouts from ggml/src/ggml-common.h `block_*`), bit for bit. Q8_1 and the integer types
/// have no `dequantize_row_*` in ggml: Q8_1 decodes as `d × qs` (its `block_q8_1` fields, as in
/// Q8_0) and integers to the nearest `f32`. F16 NaNs keep their payload (numpy's conversion).
///
/// Errors: unknown/removed type, big-endian quantised, `bytes` not whole blocks, or `out` of the
/// wrong length. Never panics.
pub fn dequantize_ggml(
    ty: GgmlType,
    big_endian: bool,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    let info = ty.info().ok_or_else(|| DequantError::UnknownGgmlType {
        id: ty.0,
        label: ty.label(),
    })?;
    let decode = if big_endian {
        ggml_decoder_be(info.id).ok_or(DequantError::BigEndianQuantized { ty: info.name })?
    } else {
        ggml_decoder(info.id).ok_or_else(|| DequantError::Unsupported {
            ty: info.name.to_string(),
            why: "no dequantisation is defined for this type",
        })?
    };
    let ts = info.type_size as usize;
    let bs = info.block_size as usize;
    if ts == 0 || bytes.len() % ts != 0 {
        return Err(DequantError::PartialBlock {
            ty: info.name.to_string(),
            len: bytes.len(),
            block_bytes: ts,
        });
    }
    let expected = (bytes.len() / ts)
        .checked_mul(bs)
        .ok_or(DequantError::Overflow)?;
    if out.len() != expected {
        return Err(DequantError::OutputLength {
            expected,
            got: out.len(),
        });
    }
    decode(bytes, out);
    Ok(())
}

/// How many `f32` values [`dequantize_ggml`] writes for `n_bytes` of `ty` (`None` if the type is
/// unknown or the bytes are not whole blocks).
pub fn ggml_elements(ty: GgmlType, n_bytes: usize) -> Option<usize> {
    let info = ty.info()?;
    let ts = info.type_size as usize;
    if ts == 0 || n_bytes % ts != 0 {
        return None;
    }
    (n_bytes / ts).checked_mul(info.block_size as usize)
}

/// Decodes safetensors data of `dtype` (always little-endian) to `f32`.
///
/// - `bytes`: the tensor's bytes (or a window of whole elements of them);
/// - `out`: one value per element, or two per element for C64 (`re, im` pairs), see
///   [`st_elements`] for the count; F4 (E2M1) packs two elements per byte, the first in the low
///   nibble (PyTorch `float4_e2m1fn_x2`, which safetensors `F4` stores).
///
/// Floats decode exactly (F64 rounds to nearest); the F8 family follows `ml_dtypes`
/// (`float8_e5m2`, `float8_e4m3fn`, `float8_e8m0fnu`, `float8_e4m3fnuz`, `float8_e5m2fnuz`),
/// integers round to the nearest `f32`, BOOL is 0 or 1 (any non-zero byte is true).
///
/// Errors: F6_E2M3 / F6_E3M2 ([`DequantError::Unsupported`]: how four 6-bit values share three
/// bytes is not fixed by safetensors or any reference reader), an unknown dtype, `bytes` not whole
/// elements, or `out` of the wrong length. Never panics.
pub fn dequantize_safetensors(
    dtype: &StDtype,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    safetensors::dequantize(dtype, bytes, out)
}

/// The bytes of a tensor that hold a window of its rows, relative to the tensor's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteWindow {
    /// First byte (inclusive), from the start of the tensor's data.
    pub start: u64,
    /// End byte (exclusive).
    pub end: u64,
    /// Values per row (`ne0` for GGUF, the last dimension for safetensors).
    pub row_elements: u64,
    /// Rows in the window.
    pub rows: u64,
}

impl ByteWindow {
    /// Bytes in the window.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Whether the window holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// Values the window decodes to (`rows × row_elements`; C64 doubles this in `out`).
    pub fn elements(&self) -> Option<u64> {
        self.rows.checked_mul(self.row_elements)
    }
}

fn window(
    row_bytes: u64,
    row_elements: u64,
    n_rows: u64,
    rows: Range<u64>,
) -> Result<ByteWindow, DequantError> {
    if rows.start > rows.end || rows.end > n_rows {
        return Err(DequantError::Rows {
            why: format!(
                "rows {}..{} are not within the {} rows of the tensor",
                rows.start, rows.end, n_rows
            ),
        });
    }
    let start = rows
        .start
        .checked_mul(row_bytes)
        .ok_or(DequantError::Overflow)?;
    let end = rows
        .end
        .checked_mul(row_bytes)
        .ok_or(DequantError::Overflow)?;
    Ok(ByteWindow {
        start,
        end,
        row_elements,
        rows: rows.end - rows.start,
    })
}

fn count_rows(dims: &[u64]) -> Result<u64, DequantError> {
    crate::format::element_count(dims).ok_or(DequantError::Overflow)
}

/// The bytes of a GGUF tensor covering rows `rows` (a row = `ne0` values; rows count over all
/// further dimensions, so for `[ne0, ne1, ne2]` row `r` is `(r % ne1, r / ne1)`).
///
/// `shape` is in ggml order (ne0 first, as stored in GGUF). The row size is
/// `ne0 / block_size × type_size` from the type table (`ggml_row_size`), so the window is
/// always whole blocks. Errors: unknown type, `ne0` not a multiple of the block size, rows out
/// of range, or a size past 64 bits. A scalar (empty shape) has one row of one value.
pub fn ggml_row_window(
    ty: GgmlType,
    shape: &[u64],
    rows: Range<u64>,
) -> Result<ByteWindow, DequantError> {
    let info = ty.info().ok_or_else(|| DequantError::UnknownGgmlType {
        id: ty.0,
        label: ty.label(),
    })?;
    let ne0 = shape.first().copied().unwrap_or(1);
    let bs = u64::from(info.block_size);
    if bs == 0 || ne0 % bs != 0 {
        return Err(DequantError::Rows {
            why: format!(
                "a row of {ne0} values is not a whole number of {}-value {} blocks",
                info.block_size, info.name
            ),
        });
    }
    let row_bytes = (ne0 / bs)
        .checked_mul(u64::from(info.type_size))
        .ok_or(DequantError::Overflow)?;
    let n_rows = count_rows(shape.get(1..).unwrap_or(&[]))?;
    window(row_bytes, ne0, n_rows, rows)
}

/// The bytes of a safetensors tensor covering rows `rows` (a row = the last dimension; rows
/// count over all leading dimensions in row-major order).
///
/// `shape` is as in the header (row-major, last dimension contiguous). Errors: unknown dtype, a
/// row that does not end on a byte boundary (F4 with an odd last dimension, F6), rows out of
/// range, or a size past 64 bits. A scalar (empty shape) has one row of one value.
pub fn safetensors_row_window(
    dtype: &StDtype,
    shape: &[u64],
    rows: Range<u64>,
) -> Result<ByteWindow, DequantError> {
    let known = crate::format::safetensors::st_dtype(dtype.name).ok_or_else(|| {
        DequantError::UnknownDtype {
            name: dtype.name.to_string(),
        }
    })?;
    let (lead, last) = match shape.split_last() {
        Some((last, lead)) => (lead, *last),
        None => (&[][..], 1),
    };
    let row_bits = last
        .checked_mul(u64::from(known.bits))
        .ok_or(DequantError::Overflow)?;
    if row_bits % 8 != 0 {
        return Err(DequantError::Rows {
            why: format!(
                "a row of {last} {} values is {row_bits} bits, not whole bytes",
                known.name
            ),
        });
    }
    let n_rows = count_rows(lead)?;
    window(row_bits / 8, last, n_rows, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::safetensors::st_dtype;

    #[test]
    fn windows_are_whole_rows() {
        // Q4_K: 144 bytes per 256 values; [512, 10] has rows of 288 bytes.
        let w = ggml_row_window(GgmlType(12), &[512, 10], 2..5).unwrap();
        assert_eq!(
            (w.start, w.end, w.rows, w.row_elements),
            (576, 1440, 3, 512)
        );
        assert_eq!(w.elements(), Some(1536));
        assert!(ggml_row_window(GgmlType(12), &[100, 10], 0..1).is_err());
        assert!(ggml_row_window(GgmlType(12), &[256, 10], 9..11).is_err());
        assert!(ggml_row_window(GgmlType(4), &[256], 0..1).is_err());
        assert_eq!(
            ggml_row_window(GgmlType(0), &[u64::MAX, 2], 0..2),
            Err(DequantError::Overflow)
        );
        // 3-D: rows count over ne1 × ne2.
        let w = ggml_row_window(GgmlType(0), &[4, 3, 2], 5..6).unwrap();
        assert_eq!((w.start, w.end), (80, 96));
        let bf16 = st_dtype("BF16").unwrap();
        let w = safetensors_row_window(&bf16, &[3, 384], 1..3).unwrap();
        assert_eq!((w.start, w.end), (768, 2304));
        let f4 = st_dtype("F4").unwrap();
        assert!(safetensors_row_window(&f4, &[2, 3], 0..1).is_err());
        assert_eq!(safetensors_row_window(&f4, &[2, 4], 1..2).unwrap().start, 2);
        let w = safetensors_row_window(&bf16, &[], 0..1).unwrap();
        assert_eq!((w.start, w.end), (0, 2));
    }

    #[test]
    fn errors_say_why() {
        let mut out = [0f32; 32];
        let e = dequantize_ggml(GgmlType(2), true, &[0; 18], &mut out).unwrap_err();
        assert!(e.to_string().contains("big-endian"), "{e}");
        let e = dequantize_ggml(GgmlType(2), false, &[0; 17], &mut out).unwrap_err();
        assert!(matches!(e, DequantError::PartialBlock { .. }), "{e}");
        let e = dequantize_ggml(GgmlType(2), false, &[0; 36], &mut out).unwrap_err();
        assert_eq!(
            e,
            DequantError::OutputLength {
                expected: 64,
                got: 32
            }
        );
        let e = dequantize_ggml(GgmlType(31), false, &[], &mut []).unwrap_err();
        assert!(e.to_string().contains("removed Q4_0_4_4"), "{e}");
        let f6 = st_dtype("F6_E2M3").unwrap();
        let e = dequantize_safetensors(&f6, &[0; 3], &mut out[..4]).unwrap_err();
        assert!(e.to_string().contains("F6_E2M3"), "{e}");
    }

    fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> u64 {
        bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// The generated tables still hash to what tools/gen_grids.py recorded when it wrote them
    /// from gguf-py (and, with `--ggml-common`, checked them against ggml's C tables).
    #[test]
    fn grids_match_generator_checksums() {
        use grids::*;
        let le64 = |t: &[u64]| fnv1a64(t.iter().flat_map(|v| v.to_le_bytes()));
        let le32 = |t: &[u32]| fnv1a64(t.iter().flat_map(|v| v.to_le_bytes()));
        let got = [
            ("IQ2XXS_GRID", le64(&IQ2XXS_GRID)),
            ("IQ2XS_GRID", le64(&IQ2XS_GRID)),
            ("IQ2S_GRID", le64(&IQ2S_GRID)),
            ("IQ3XXS_GRID", le32(&IQ3XXS_GRID)),
            ("IQ3S_GRID", le32(&IQ3S_GRID)),
            ("IQ1S_GRID", le64(&IQ1S_GRID)),
            ("KSIGNS_IQ2XS", fnv1a64(KSIGNS_IQ2XS)),
            ("KVALUES_IQ4NL", fnv1a64(KVALUES_IQ4NL.map(|v| v as u8))),
            ("KVALUES_MXFP4", fnv1a64(KVALUES_MXFP4.map(|v| v as u8))),
        ];
        assert_eq!(got, CHECKSUMS);
        // ksigns: the eighth bit makes every entry's popcount even (ggml's definition).
        for (i, s) in KSIGNS_IQ2XS.iter().enumerate() {
            assert_eq!(usize::from(s & 0x7f), i);
            assert_eq!(s.count_ones() % 2, 0);
        }
    }

    #[test]
    fn f16_matches_half_with_numpy_nans_for_every_pattern() {
        for h in 0..=u16::MAX {
            let want = if h & 0x7C00 == 0x7C00 && h & 0x03FF != 0 {
                // numpy: sign, all-ones exponent, the 10 payload bits shifted up, quiet bit as stored
                (u32::from(h & 0x8000) << 16) | 0x7F80_0000 | (u32::from(h & 0x03FF) << 13)
            } else {
                half::f16::from_bits(h).to_f32().to_bits()
            };
            assert_eq!(f16_to_f32(h).to_bits(), want, "{h:#06x}");
        }
        // Signalling NaN 0x7c01 widens to 0x7f802000 (numpy), not 0x7fc02000 (quieted).
        assert_eq!(f16_to_f32(0x7c01).to_bits(), 0x7f80_2000);
        assert_eq!(f16_to_f32(0xfe00).to_bits(), 0xffc0_0000);
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    }

    #[test]
    fn every_active_type_has_a_decoder() {
        for t in crate::format::ggml_type::GGML_TYPES.iter() {
            let active = t.status == crate::format::ggml_type::Status::Active;
            assert_eq!(ggml_decoder(t.id).is_some(), active, "{}", t.name);
        }
    }
}
