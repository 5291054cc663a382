//! How runs of a tensor's whole decodable units turn into values (the previews' and the
//! scan's).

use super::*;

/// How runs of a tensor's whole decodable units turn into values: the dequantisers to `f32`,
/// or [`decode_wide`] to `f64` for the element-wise types an `f32` cannot hold. Shared by the
/// previews and the scan ([`crate::scan`]).
#[derive(Debug, Clone, Copy)]
pub enum Decoder {
    /// A ggml type (and whether the file is big-endian).
    Ggml(crate::format::GgmlType, bool),
    /// A safetensors dtype (little-endian).
    St(crate::format::safetensors::StDtype),
    /// Element-wise types an `f32` cannot hold, to `f64` ([`decode_wide`]).
    Wide(ElementKind, bool),
}

impl Decoder {
    /// The decoder of `t`'s type and its element kind; `big_endian` as the file stores
    /// numbers. Errors: a dtype this tool does not know.
    pub fn of(
        t: &crate::format::Tensor,
        big_endian: bool,
    ) -> Result<(Decoder, ElementKind), PreviewError> {
        let (decoder, kind) = match &t.dtype {
            DType::Ggml(g) => (Decoder::Ggml(*g, big_endian), ggml_kind(*g)),
            DType::St(d) => (Decoder::St(*d), st_kind(d)),
            DType::StUnknown(n) => {
                return Err(PreviewError::Dequant(DequantError::UnknownDtype {
                    name: n.clone(),
                }))
            }
        };
        Ok(if kind.is_wide() {
            (Decoder::Wide(kind, big_endian), kind)
        } else {
            (decoder, kind)
        })
    }

    /// Whether values decode to `f64` ([`Decoder::f64`]) rather than `f32` ([`Decoder::f32`]).
    pub fn is_wide(&self) -> bool {
        matches!(self, Decoder::Wide(..))
    }

    /// Decodes whole units to `f32` (`out`: one value per element). Errors: a wide type, or
    /// the dequantisers' (partial blocks, a wrong output length).
    pub fn f32(&self, bytes: &[u8], out: &mut [f32]) -> Result<(), DequantError> {
        match *self {
            Decoder::Ggml(t, be) => dequantize_ggml(t, be, bytes, out),
            Decoder::St(d) => dequantize_safetensors(&d, bytes, out),
            Decoder::Wide(..) => Err(DequantError::Unsupported {
                ty: "a wide type".into(),
                why: "it decodes to f64",
            }),
        }
    }

    /// Decodes whole elements of a wide type to `f64` ([`decode_wide`]). Errors: not a wide
    /// type, partial elements, a wrong output length.
    pub fn f64(&self, bytes: &[u8], out: &mut [f64]) -> Result<(), DequantError> {
        match *self {
            Decoder::Wide(kind, be) => decode_wide(kind, be, bytes, out),
            _ => Err(DequantError::Unsupported {
                ty: "a float type".into(),
                why: "it decodes to f32 through the dequantisers",
            }),
        }
    }
}
