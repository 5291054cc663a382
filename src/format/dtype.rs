//! The element types tensors are stored in, by the names safetensors headers write (`F32`,
//! `BF16`, `F8_E4M3`, …, safetensors 0.8's `Dtype`) and the few more the NumPy, ONNX and
//! PyTorch readers meet: one table every reader, the dequantisers and the views share, so that
//! no format module imports another's.

/// A safetensors dtype with its width in bits (safetensors 0.8 `Dtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StDtype {
    /// The name as written in headers, e.g. `BF16`.
    pub name: &'static str,
    /// Bits per element.
    pub bits: u32,
}

/// Every dtype of safetensors 0.8, with bit widths.
pub const ST_DTYPES: [StDtype; 22] = [
    StDtype {
        name: "BOOL",
        bits: 8,
    },
    StDtype {
        name: "F4",
        bits: 4,
    },
    StDtype {
        name: "F6_E2M3",
        bits: 6,
    },
    StDtype {
        name: "F6_E3M2",
        bits: 6,
    },
    StDtype {
        name: "U8",
        bits: 8,
    },
    StDtype {
        name: "I8",
        bits: 8,
    },
    StDtype {
        name: "F8_E5M2",
        bits: 8,
    },
    StDtype {
        name: "F8_E4M3",
        bits: 8,
    },
    StDtype {
        name: "F8_E8M0",
        bits: 8,
    },
    StDtype {
        name: "F8_E4M3FNUZ",
        bits: 8,
    },
    StDtype {
        name: "F8_E5M2FNUZ",
        bits: 8,
    },
    StDtype {
        name: "I16",
        bits: 16,
    },
    StDtype {
        name: "U16",
        bits: 16,
    },
    StDtype {
        name: "F16",
        bits: 16,
    },
    StDtype {
        name: "BF16",
        bits: 16,
    },
    StDtype {
        name: "I32",
        bits: 32,
    },
    StDtype {
        name: "U32",
        bits: 32,
    },
    StDtype {
        name: "F32",
        bits: 32,
    },
    StDtype {
        name: "C64",
        bits: 64,
    },
    StDtype {
        name: "F64",
        bits: 64,
    },
    StDtype {
        name: "I64",
        bits: 64,
    },
    StDtype {
        name: "U64",
        bits: 64,
    },
];

/// Looks a dtype name up in [`ST_DTYPES`].
pub fn st_dtype(name: &str) -> Option<StDtype> {
    ST_DTYPES.iter().copied().find(|d| d.name == name)
}

/// Element types that other formats store and safetensors does not define: `C128` (two
/// little-endian `f64`: NumPy `complex128`, ONNX `COMPLEX128`, torch `complex128`) and `C32`
/// (two `f16`: torch `complex32` / `ComplexHalf`). [`st_dtype`] does not find them, so a
/// safetensors header naming them stays an unknown dtype.
pub const OTHER_DTYPES: [StDtype; 2] = [
    StDtype {
        name: "C128",
        bits: 128,
    },
    StDtype {
        name: "C32",
        bits: 32,
    },
];

/// Looks a dtype name up in [`ST_DTYPES`], then [`OTHER_DTYPES`] (for the NumPy, ONNX and
/// PyTorch readers).
pub fn any_dtype(name: &str) -> Option<StDtype> {
    st_dtype(name).or_else(|| OTHER_DTYPES.iter().copied().find(|d| d.name == name))
}
