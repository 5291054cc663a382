//! Exact element values for the types an `f32` cannot hold: 32- and 64-bit integers, F64 and
//! complex numbers, and the integer and boolean types whose values are not floats at all.
//!
//! [`ElementKind`] says how a type's values are exact: quantised ggml types and the float
//! dtypes of 32 bits or fewer decode to `f32` exactly ([`ElementKind::Float32`], see
//! [`super::dequantize_ggml`]); every other plain type is read element by element here, from
//! the bytes as stored (little-endian, or big-endian for a big-endian GGUF file).
//!
//! - [`element_at`] decodes one element to an [`Exact`] value (the integer as stored, the double
//!   as stored, `re` and `im` of a complex value, a boolean);
//! - [`decode_wide`] decodes a run of elements to `f64` for statistics and the heatmap: exact for
//!   F64 and 32-bit integers, the nearest double for 64-bit integers beyond 2^53 (numpy's
//!   `astype(float64)`), and `|z| = sqrt(re² + im²)` in `f64` for C64 and C32 (each square is
//!   exact, so the result is the correctly rounded magnitude on every platform), `hypot(re, im)`
//!   for C128 (numpy's `abs` of a `complex128`).

use crate::format::ggml_type::GgmlType;
use crate::format::safetensors::StDtype;

use super::DequantError;

/// How a type's values are represented exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    /// The decoded `f32` is the value (every quantised ggml type, F32, F16, BF16, the F8 family,
    /// F4).
    Float32,
    /// IEEE double (F64).
    Float64,
    /// Integer of `bytes` bytes, signed or not (I8 … I64, U8 … U64).
    Int {
        /// Bytes per element: 1, 2, 4 or 8.
        bytes: u8,
        /// Two's complement when true.
        signed: bool,
    },
    /// One byte, zero is false, anything else true (safetensors BOOL, as numpy reads it).
    Bool,
    /// Two little-endian `f32`, real then imaginary (safetensors C64, numpy `complex64`).
    Complex64,
    /// Two little-endian `f64`, real then imaginary (numpy `complex128`, ONNX `COMPLEX128`,
    /// torch `complex128`).
    Complex128,
    /// Two little-endian `f16`, real then imaginary (torch `complex32` / `ComplexHalf`).
    Complex32,
}

impl ElementKind {
    /// Whether the values are kept as `f64` (rather than `f32`) for statistics: the types an
    /// `f32` cannot hold (F64, 32- and 64-bit integers, C64's magnitude).
    pub fn is_wide(self) -> bool {
        match self {
            ElementKind::Float32 | ElementKind::Bool => false,
            ElementKind::Int { bytes, .. } => bytes > 2,
            ElementKind::Float64 | ElementKind::Complex64 => true,
            ElementKind::Complex128 | ElementKind::Complex32 => true,
        }
    }

    /// Whether the values are complex numbers (the statistics are then of `|z|`).
    pub fn is_complex(self) -> bool {
        matches!(
            self,
            ElementKind::Complex64 | ElementKind::Complex128 | ElementKind::Complex32
        )
    }

    /// Bytes per element for the element-wise kinds (`None` for [`ElementKind::Float32`], which
    /// may be block-quantised).
    pub fn width(self) -> Option<usize> {
        match self {
            ElementKind::Float32 => None,
            ElementKind::Float64 | ElementKind::Complex64 => Some(8),
            ElementKind::Complex128 => Some(16),
            ElementKind::Complex32 => Some(4),
            ElementKind::Int { bytes, .. } => Some(usize::from(bytes)),
            ElementKind::Bool => Some(1),
        }
    }

    /// One word for the kind: `float`, `integer`, `boolean` or `complex`.
    pub fn word(self) -> &'static str {
        match self {
            ElementKind::Float32 | ElementKind::Float64 => "float",
            ElementKind::Int { .. } => "integer",
            ElementKind::Bool => "boolean",
            ElementKind::Complex64 | ElementKind::Complex128 | ElementKind::Complex32 => "complex",
        }
    }
}

/// The element kind of a ggml type (ggml.h: I8, I16, I32, I64 are integers, F64 a double; every
/// other type decodes to `f32`).
pub fn ggml_kind(ty: GgmlType) -> ElementKind {
    let int = |bytes| ElementKind::Int {
        bytes,
        signed: true,
    };
    match ty.info().map(|i| i.name) {
        Some("I8") => int(1),
        Some("I16") => int(2),
        Some("I32") => int(4),
        Some("I64") => int(8),
        Some("F64") => ElementKind::Float64,
        _ => ElementKind::Float32,
    }
}

/// The element kind of a safetensors dtype.
pub fn st_kind(dtype: &StDtype) -> ElementKind {
    let int = |bytes, signed| ElementKind::Int { bytes, signed };
    match dtype.name {
        "BOOL" => ElementKind::Bool,
        "U8" => int(1, false),
        "I8" => int(1, true),
        "U16" => int(2, false),
        "I16" => int(2, true),
        "U32" => int(4, false),
        "I32" => int(4, true),
        "U64" => int(8, false),
        "I64" => int(8, true),
        "F64" => ElementKind::Float64,
        "C64" => ElementKind::Complex64,
        "C128" => ElementKind::Complex128,
        "C32" => ElementKind::Complex32,
        _ => ElementKind::Float32,
    }
}

/// One element's exact value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exact {
    /// A value of an [`ElementKind::Float32`] type.
    F32(f32),
    /// An F64 value (or a statistic computed in `f64`).
    F64(f64),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A boolean.
    Bool(bool),
    /// A complex value of `f32` parts (C64; C32's `f16` parts, exact in `f32`): real and
    /// imaginary part.
    Complex(f32, f32),
    /// A complex value of `f64` parts (C128).
    Complex128(f64, f64),
}

impl Exact {
    /// The value as the nearest `f64` (the magnitude for a complex value; 0 or 1 for a boolean).
    pub fn to_f64(self) -> f64 {
        match self {
            Exact::F32(v) => f64::from(v),
            Exact::F64(v) => v,
            Exact::Int(v) => v as f64,
            Exact::UInt(v) => v as f64,
            Exact::Bool(b) => f64::from(u8::from(b)),
            Exact::Complex(re, im) => magnitude(re, im),
            Exact::Complex128(re, im) => re.hypot(im),
        }
    }
}

/// JSON: a number (`null` when NaN or infinite), an integer number with every digit, `true` /
/// `false`, or `[re, im]` for a complex value.
impl serde::Serialize for Exact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        match *self {
            Exact::F32(v) if v.is_finite() => s.serialize_f32(v),
            Exact::F64(v) if v.is_finite() => s.serialize_f64(v),
            Exact::F32(_) | Exact::F64(_) => s.serialize_none(),
            Exact::Int(v) => s.serialize_i64(v),
            Exact::UInt(v) => s.serialize_u64(v),
            Exact::Bool(b) => s.serialize_bool(b),
            Exact::Complex(re, im) => {
                let mut t = s.serialize_tuple(2)?;
                t.serialize_element(&Exact::F32(re))?;
                t.serialize_element(&Exact::F32(im))?;
                t.end()
            }
            Exact::Complex128(re, im) => {
                let mut t = s.serialize_tuple(2)?;
                t.serialize_element(&Exact::F64(re))?;
                t.serialize_element(&Exact::F64(im))?;
                t.end()
            }
        }
    }
}

/// Reads what [`Exact`]'s `Serialize` writes back: an integer number as `Int`/`UInt`, any other
/// number as `F64` (an `f32` written as its shortest text reads as the `f64` of that text,
/// which writes the same text again), `true`/`false`, `[re, im]` as `Complex128`. A JSON
/// `null` is no value (`Option<Exact>`). For results that cross from a Worker to the one
/// that merges them (the scan).
impl<'de> serde::Deserialize<'de> for Exact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Exact, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Exact;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number, a boolean or [re, im]")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Exact, E> {
                Ok(Exact::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Exact, E> {
                Ok(Exact::UInt(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Exact, E> {
                Ok(Exact::F64(v))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Exact, E> {
                Ok(Exact::Bool(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Exact, A::Error> {
                let re: f64 = a.next_element()?.unwrap_or(f64::NAN);
                let im: f64 = a.next_element()?.unwrap_or(f64::NAN);
                Ok(Exact::Complex128(re, im))
            }
        }
        d.deserialize_any(V)
    }
}

/// `|z| = sqrt(re² + im²)` in `f64`: both squares of `f32` values are exact in `f64`, so this is
/// one rounding of the sum and one of the square root (numpy:
/// `np.sqrt(re.astype(f8)**2 + im.astype(f8)**2)`).
pub fn magnitude(re: f32, im: f32) -> f64 {
    let (re, im) = (f64::from(re), f64::from(im));
    (re * re + im * im).sqrt()
}

fn word<const N: usize>(b: &[u8], big_endian: bool) -> Option<[u8; N]> {
    let mut a: [u8; N] = b.get(..N)?.try_into().ok()?;
    if big_endian {
        a.reverse();
    }
    Some(a)
}

/// Decodes the element at the start of `bytes` (at least [`ElementKind::width`] bytes) of an
/// element-wise kind; `None` for [`ElementKind::Float32`] or too few bytes. `big_endian` only for
/// a big-endian GGUF file (safetensors is always little-endian).
pub fn element_at(kind: ElementKind, big_endian: bool, bytes: &[u8]) -> Option<Exact> {
    Some(match kind {
        ElementKind::Float32 => return None,
        ElementKind::Float64 => Exact::F64(f64::from_le_bytes(word(bytes, big_endian)?)),
        ElementKind::Bool => Exact::Bool(*bytes.first()? != 0),
        ElementKind::Complex64 => {
            let re = f32::from_le_bytes(word(bytes, big_endian)?);
            let im = f32::from_le_bytes(word(bytes.get(4..)?, big_endian)?);
            Exact::Complex(re, im)
        }
        ElementKind::Complex128 => {
            let re = f64::from_le_bytes(word(bytes, big_endian)?);
            let im = f64::from_le_bytes(word(bytes.get(8..)?, big_endian)?);
            Exact::Complex128(re, im)
        }
        ElementKind::Complex32 => {
            let re = super::f16_to_f32(u16::from_le_bytes(word(bytes, big_endian)?));
            let im = super::f16_to_f32(u16::from_le_bytes(word(bytes.get(2..)?, big_endian)?));
            Exact::Complex(re, im)
        }
        ElementKind::Int { bytes: n, signed } => {
            let u = match n {
                1 => u64::from(*bytes.first()?),
                2 => u64::from(u16::from_le_bytes(word(bytes, big_endian)?)),
                4 => u64::from(u32::from_le_bytes(word(bytes, big_endian)?)),
                8 => u64::from_le_bytes(word(bytes, big_endian)?),
                _ => return None,
            };
            if signed {
                // Sign-extend from n bytes.
                let shift = 64 - 8 * u32::from(n);
                Exact::Int(((u << shift) as i64) >> shift)
            } else {
                Exact::UInt(u)
            }
        }
    })
}

/// Decodes `bytes` (whole elements of an element-wise kind) to one `f64` per element into `out`:
/// the value, the nearest double of a 64-bit integer, `|z|` of a complex value ([`magnitude`]),
/// 0 or 1 for a boolean.
///
/// Errors: [`ElementKind::Float32`] (decode those with [`super::dequantize_ggml`] or
/// [`super::dequantize_safetensors`]), bytes that are not whole elements, or `out` of another
/// length. Never panics.
pub fn decode_wide(
    kind: ElementKind,
    big_endian: bool,
    bytes: &[u8],
    out: &mut [f64],
) -> Result<(), DequantError> {
    let width = kind.width().ok_or(DequantError::Unsupported {
        ty: "a float type".into(),
        why: "it decodes to f32 through the dequantisers",
    })?;
    if bytes.len() % width != 0 {
        return Err(DequantError::PartialBlock {
            ty: kind.word().into(),
            len: bytes.len(),
            block_bytes: width,
        });
    }
    let expected = bytes.len() / width;
    if out.len() != expected {
        return Err(DequantError::OutputLength {
            expected,
            got: out.len(),
        });
    }
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(width)) {
        *o = element_at(kind, big_endian, b).map_or(f64::NAN, Exact::to_f64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_keep_every_bit() {
        let k = |bytes, signed| ElementKind::Int { bytes, signed };
        let max = u64::MAX.to_le_bytes();
        assert_eq!(
            element_at(k(8, false), false, &max),
            Some(Exact::UInt(u64::MAX))
        );
        assert_eq!(element_at(k(8, true), false, &max), Some(Exact::Int(-1)));
        let v = (-(1i64 << 62) - 3).to_be_bytes();
        assert_eq!(
            element_at(k(8, true), true, &v),
            Some(Exact::Int(-(1i64 << 62) - 3))
        );
        assert_eq!(
            element_at(k(2, true), false, &[0x00, 0x80]),
            Some(Exact::Int(-32768))
        );
        assert_eq!(element_at(k(1, true), false, &[0xff]), Some(Exact::Int(-1)));
        assert_eq!(
            element_at(k(4, false), false, &[0xff; 4]),
            Some(Exact::UInt(u32::MAX.into()))
        );
        assert_eq!(element_at(k(4, true), false, &[0xff]), None);
        let mut out = [0f64; 2];
        let two = [(1u64 << 53) + 1, u64::MAX].map(u64::to_le_bytes).concat();
        decode_wide(k(8, false), false, &two, &mut out).unwrap();
        assert_eq!(out, [(1u64 << 53) as f64, u64::MAX as f64]);
    }

    #[test]
    fn complex_and_doubles() {
        let z = [3f32.to_le_bytes(), (-4f32).to_le_bytes()].concat();
        assert_eq!(
            element_at(ElementKind::Complex64, false, &z),
            Some(Exact::Complex(3.0, -4.0))
        );
        let mut out = [0f64; 1];
        decode_wide(ElementKind::Complex64, false, &z, &mut out).unwrap();
        assert_eq!(out, [5.0]);
        let d = 0.1f64.to_be_bytes();
        assert_eq!(
            element_at(ElementKind::Float64, true, &d),
            Some(Exact::F64(0.1))
        );
        assert!(decode_wide(ElementKind::Float32, false, &[], &mut []).is_err());
        // C128: f64 parts, |z| as numpy's hypot; C32: f16 parts.
        let z = [0.1f64.to_le_bytes(), (-1e300f64).to_le_bytes()].concat();
        assert_eq!(
            element_at(ElementKind::Complex128, false, &z),
            Some(Exact::Complex128(0.1, -1e300))
        );
        decode_wide(ElementKind::Complex128, false, &z, &mut out).unwrap();
        assert_eq!(out, [1e300]);
        let h = [0x3e00u16.to_le_bytes(), 0xc400u16.to_le_bytes()].concat(); // 1.5, -4
        assert_eq!(
            element_at(ElementKind::Complex32, false, &h),
            Some(Exact::Complex(1.5, -4.0))
        );
        assert_eq!(ElementKind::Complex32.width(), Some(4));
        assert!(decode_wide(ElementKind::Float64, false, &[0; 9], &mut [0.0]).is_err());
    }
}
