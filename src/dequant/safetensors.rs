//! safetensors dtypes → f32. Data is always little-endian (safetensors writes it so).
//!
//! The minifloats (F8 family, F4) decode through 256-entry tables built at compile time from
//! each format's definition, matching `ml_dtypes` 0.6 (`float8_e5m2`, `float8_e4m3fn`,
//! `float8_e8m0fnu`, `float8_e4m3fnuz`, `float8_e5m2fnuz`, `float4_e2m1fn`) value for value and
//! NaN for NaN (`ml_dtypes` gives the quiet NaN `0x7fc00000` with the input's sign).

use super::{plain, DequantError};
use crate::format::safetensors::StDtype;

/// How a minifloat encodes its special values.
#[derive(Clone, Copy)]
enum Special {
    /// IEEE-like: the all-ones exponent is ±Inf (mantissa 0) or NaN.
    Ieee,
    /// "fn": no Inf; only the all-ones exponent and mantissa (either sign) is NaN.
    FiniteAllOnesNan,
    /// "fnuz": no Inf, no −0; the pattern 0x80 (negative zero) is the only NaN.
    FiniteNegZeroNan,
    /// No Inf, no NaN (E2M1).
    Finite,
}

/// f32 bits of a sign/exponent/mantissa minifloat with `eb` exponent and `mb` mantissa bits.
const fn minifloat_bits(v: u8, eb: u32, mb: u32, bias: i32, special: Special) -> u32 {
    let total = 1 + eb + mb;
    let sign_bit = (v as u32 >> (total - 1)) & 1;
    let sign = sign_bit << 31;
    let e = (v as u32 >> mb) & ((1 << eb) - 1);
    let m = v as u32 & ((1 << mb) - 1);
    let emax = (1 << eb) - 1;
    let qnan = 0x7FC0_0000;
    match special {
        Special::Ieee if e == emax => {
            return if m == 0 {
                sign | 0x7F80_0000
            } else {
                sign | qnan
            };
        }
        Special::FiniteAllOnesNan if e == emax && m == (1 << mb) - 1 => return sign | qnan,
        Special::FiniteNegZeroNan if sign_bit == 1 && e == 0 && m == 0 => return sign | qnan,
        _ => {}
    }
    if e == 0 {
        if m == 0 {
            return sign;
        }
        // Subnormal: m · 2^(1 − bias − mb). Normalise on m's leading bit p.
        let p = 31 - m.leading_zeros();
        let exp = p as i32 + 1 - bias - mb as i32 + 127;
        let man = (m - (1 << p)) << (23 - p);
        return sign | ((exp as u32) << 23) | man;
    }
    let exp = e as i32 - bias + 127;
    sign | ((exp as u32) << 23) | (m << (23 - mb))
}

const fn minifloat_table(eb: u32, mb: u32, bias: i32, special: Special) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    let n = 1 << (1 + eb + mb);
    while i < 256 {
        // Bits above the format's width are ignored (F4 is looked up per nibble).
        t[i] = minifloat_bits((i % n) as u8, eb, mb, bias, special);
        i += 1;
    }
    t
}

/// E8M0 (`float8_e8m0fnu`): unsigned power of two 2^(v − 127); 0xFF is NaN; 0 is 2^-127.
const fn e8m0_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = if i == 255 {
            0x7FC0_0000
        } else if i == 0 {
            0x0040_0000
        } else {
            (i as u32) << 23
        };
        i += 1;
    }
    t
}

static F8_E5M2: [u32; 256] = minifloat_table(5, 2, 15, Special::Ieee);
static F8_E4M3FN: [u32; 256] = minifloat_table(4, 3, 7, Special::FiniteAllOnesNan);
static F8_E4M3FNUZ: [u32; 256] = minifloat_table(4, 3, 8, Special::FiniteNegZeroNan);
static F8_E5M2FNUZ: [u32; 256] = minifloat_table(5, 2, 16, Special::FiniteNegZeroNan);
static F8_E8M0: [u32; 256] = e8m0_table();
static F4_E2M1: [u32; 256] = minifloat_table(2, 1, 1, Special::Finite);

fn lut(table: &[u32; 256], bytes: &[u8], out: &mut [f32]) {
    for (o, &b) in out.iter_mut().zip(bytes) {
        *o = f32::from_bits(table[usize::from(b)]);
    }
}

/// Two E2M1 values per byte, the first in the low nibble.
fn f4(bytes: &[u8], out: &mut [f32]) {
    for (o, &b) in out.chunks_exact_mut(2).zip(bytes) {
        if let [lo, hi] = o {
            *lo = f32::from_bits(F4_E2M1[usize::from(b & 0x0F)]);
            *hi = f32::from_bits(F4_E2M1[usize::from(b >> 4)]);
        }
    }
}

fn each<const N: usize>(bytes: &[u8], out: &mut [f32], conv: impl Fn([u8; N]) -> f32) {
    for (b, o) in bytes.chunks_exact(N).zip(out.iter_mut()) {
        if let Ok(a) = <[u8; N]>::try_from(b) {
            *o = conv(a);
        }
    }
}

/// (bytes per group, values per group) of a decodable dtype; `Err` says why a dtype is not.
fn geometry(name: &str) -> Result<(usize, usize), DequantError> {
    Ok(match name {
        "BOOL" | "U8" | "I8" | "F8_E5M2" | "F8_E4M3" | "F8_E8M0" | "F8_E4M3FNUZ"
        | "F8_E5M2FNUZ" => (1, 1),
        "F4" => (1, 2),
        "I16" | "U16" | "F16" | "BF16" => (2, 1),
        "I32" | "U32" | "F32" => (4, 1),
        "F64" | "I64" | "U64" => (8, 1),
        "C64" => (8, 2),
        // Decoded element-wise to f64 (their |z|) by `decode_wide`, never to f32 here.
        "C128" => (16, 2),
        "C32" => (4, 2),
        "F6_E2M3" | "F6_E3M2" => {
            return Err(DequantError::Unsupported {
                ty: name.to_string(),
                why: "safetensors does not define how 6-bit values are packed into bytes, and no \
                      reference reader (PyTorch, ml_dtypes) stores them packed",
            })
        }
        _ => {
            return Err(DequantError::UnknownDtype {
                name: name.to_string(),
            })
        }
    })
}

/// How many `f32` values [`super::dequantize_safetensors`] writes for `n_bytes` of `dtype`:
/// one per element, two per F4 byte, two per C64 element (`re, im`). `Err` for F6, unknown
/// dtypes and byte counts that are not whole elements.
pub fn st_elements(dtype: &StDtype, n_bytes: usize) -> Result<usize, DequantError> {
    let (group_bytes, group_values) = geometry(dtype.name)?;
    if n_bytes % group_bytes != 0 {
        return Err(DequantError::PartialBlock {
            ty: dtype.name.to_string(),
            len: n_bytes,
            block_bytes: group_bytes,
        });
    }
    (n_bytes / group_bytes)
        .checked_mul(group_values)
        .ok_or(DequantError::Overflow)
}

pub(super) fn dequantize(
    dtype: &StDtype,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    let expected = st_elements(dtype, bytes.len())?;
    if out.len() != expected {
        return Err(DequantError::OutputLength {
            expected,
            got: out.len(),
        });
    }
    match dtype.name {
        "BOOL" => {
            for (o, &b) in out.iter_mut().zip(bytes) {
                *o = if b != 0 { 1.0 } else { 0.0 };
            }
        }
        "U8" => {
            for (o, &b) in out.iter_mut().zip(bytes) {
                *o = f32::from(b);
            }
        }
        "I8" => plain::i8(bytes, out),
        "F8_E5M2" => lut(&F8_E5M2, bytes, out),
        "F8_E4M3" => lut(&F8_E4M3FN, bytes, out),
        "F8_E8M0" => lut(&F8_E8M0, bytes, out),
        "F8_E4M3FNUZ" => lut(&F8_E4M3FNUZ, bytes, out),
        "F8_E5M2FNUZ" => lut(&F8_E5M2FNUZ, bytes, out),
        "F4" => f4(bytes, out),
        "I16" => plain::i16_le(bytes, out),
        "U16" => each(bytes, out, |b| f32::from(u16::from_le_bytes(b))),
        "F16" => plain::f16_le(bytes, out),
        "BF16" => plain::bf16_le(bytes, out),
        "I32" => plain::i32_le(bytes, out),
        "U32" => each(bytes, out, |b| u32::from_le_bytes(b) as f32),
        "F32" | "C64" => plain::f32_le(bytes, out),
        "F64" => plain::f64_le(bytes, out),
        "I64" => plain::i64_le(bytes, out),
        "U64" => each(bytes, out, |b| u64::from_le_bytes(b) as f32),
        // geometry() has rejected everything else.
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minifloat_landmarks() {
        let v = |t: &[u32; 256], b: u8| f32::from_bits(t[usize::from(b)]);
        assert_eq!(v(&F8_E4M3FN, 0x7E), 448.0);
        assert!(v(&F8_E4M3FN, 0xFF).is_nan());
        assert_eq!(v(&F8_E4M3FN, 0x01), 2f32.powi(-9));
        assert_eq!(v(&F8_E5M2, 0x7C), f32::INFINITY);
        assert_eq!(v(&F8_E5M2, 0x7B), 57344.0);
        assert_eq!(v(&F8_E4M3FNUZ, 0x7F), 240.0);
        assert!(v(&F8_E4M3FNUZ, 0x80).is_nan());
        assert_eq!(v(&F8_E5M2FNUZ, 0x7F), 57344.0);
        assert_eq!(v(&F8_E8M0, 127), 1.0);
        assert_eq!(F8_E8M0[0], 0x0040_0000);
        let f4: Vec<f32> = (0..16).map(|b| v(&F4_E2M1, b)).collect();
        assert_eq!(
            f4,
            [
                0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0,
                -6.0
            ]
        );
    }
}
