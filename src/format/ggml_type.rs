//! The one table of ggml tensor types: ids, names, block sizes and bytes per block.
//!
//! Source: `enum ggml_type` in ggml/include/ggml.h and the `type_traits` table in ggml/src/ggml.c
//! (block sizes `QK*` and block structs in ggml/src/ggml-common.h), as of ids 0–42.
//! The parser, the labels, the byte sizes and bits per weight all come from this table; a Rust
//! test compares it with gguf-py's `GGML_QUANT_SIZES`.

/// Whether a type id is in use by ggml today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A type ggml reads and writes today.
    Active,
    /// An id ggml once used and removed; files with it cannot be loaded by llama.cpp.
    Removed,
}

/// One row of the type table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeInfo {
    /// The `ggml_type` id stored in GGUF tensor infos.
    pub id: u32,
    /// ggml's name without the `GGML_TYPE_` prefix, e.g. `Q4_K`.
    pub name: &'static str,
    /// Elements per block (1 for plain types).
    pub block_size: u32,
    /// Bytes per block (`sizeof(block_*)`); 0 for removed ids.
    pub type_size: u32,
    /// Active or removed.
    pub status: Status,
}

impl TypeInfo {
    /// Bits per weight of this type: `type_size * 8 / block_size` (e.g. 4.5 for Q4_K).
    pub fn bits_per_weight(&self) -> Option<f64> {
        (self.status == Status::Active)
            .then(|| f64::from(self.type_size) * 8.0 / f64::from(self.block_size))
    }
}

const fn active(id: u32, name: &'static str, block_size: u32, type_size: u32) -> TypeInfo {
    TypeInfo {
        id,
        name,
        block_size,
        type_size,
        status: Status::Active,
    }
}

const fn removed(id: u32, name: &'static str) -> TypeInfo {
    TypeInfo {
        id,
        name,
        block_size: 0,
        type_size: 0,
        status: Status::Removed,
    }
}

/// Every `ggml_type` id from 0 to 42, indexed by id.
///
/// Block layouts (ggml-common.h): `block_q4_0` = f16 d + 16 bytes (18 B / 32), `block_q8_1` =
/// 2 × f16 + 32 (36 B / 32; gguf-py's table says 40, ggml's `sizeof` is 36), `block_q4_K` =
/// 2 × f16 + 12 scale bytes + 128 (144 B / 256), `block_mxfp4` = e8m0 + 16 (17 B / 32),
/// `block_nvfp4` = 4 ue4m3 scales + 32 (36 B / 64), `block_q1_0` = f16 + 16 (18 B / 128),
/// `block_q2_0` = f16 + 16 (18 B / 64).
pub const GGML_TYPES: [TypeInfo; 43] = [
    active(0, "F32", 1, 4),
    active(1, "F16", 1, 2),
    active(2, "Q4_0", 32, 18),
    active(3, "Q4_1", 32, 20),
    removed(4, "Q4_2"),
    removed(5, "Q4_3"),
    active(6, "Q5_0", 32, 22),
    active(7, "Q5_1", 32, 24),
    active(8, "Q8_0", 32, 34),
    active(9, "Q8_1", 32, 36),
    active(10, "Q2_K", 256, 84),
    active(11, "Q3_K", 256, 110),
    active(12, "Q4_K", 256, 144),
    active(13, "Q5_K", 256, 176),
    active(14, "Q6_K", 256, 210),
    active(15, "Q8_K", 256, 292),
    active(16, "IQ2_XXS", 256, 66),
    active(17, "IQ2_XS", 256, 74),
    active(18, "IQ3_XXS", 256, 98),
    active(19, "IQ1_S", 256, 50),
    active(20, "IQ4_NL", 32, 18),
    active(21, "IQ3_S", 256, 110),
    active(22, "IQ2_S", 256, 82),
    active(23, "IQ4_XS", 256, 136),
    active(24, "I8", 1, 1),
    active(25, "I16", 1, 2),
    active(26, "I32", 1, 4),
    active(27, "I64", 1, 8),
    active(28, "F64", 1, 8),
    active(29, "IQ1_M", 256, 56),
    active(30, "BF16", 1, 2),
    removed(31, "Q4_0_4_4"),
    removed(32, "Q4_0_4_8"),
    removed(33, "Q4_0_8_8"),
    active(34, "TQ1_0", 256, 54),
    active(35, "TQ2_0", 256, 66),
    removed(36, "IQ4_NL_4_4"),
    removed(37, "IQ4_NL_4_8"),
    removed(38, "IQ4_NL_8_8"),
    active(39, "MXFP4", 32, 17),
    active(40, "NVFP4", 64, 36),
    active(41, "Q1_0", 128, 18),
    active(42, "Q2_0", 64, 18),
];

/// Looks up a type id; `None` for ids past the table.
pub fn lookup(id: u32) -> Option<&'static TypeInfo> {
    GGML_TYPES.get(id as usize)
}

/// Looks up a type by its ggml name (e.g. `"Q4_K"`).
pub fn by_name(name: &str) -> Option<&'static TypeInfo> {
    GGML_TYPES.iter().find(|t| t.name == name)
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The tooltip of a tensor type name as the page shows it ([`crate::format::DType::label`]):
/// elements per block, bytes per block and bits per weight, from [`GGML_TYPES`] for ggml types
/// (e.g. `Q4_K: 256 weights per block, 144 bytes per block, 4.5 bits per weight`) and from the
/// bit widths of [`super::safetensors::ST_DTYPES`] for safetensors-only dtypes (no blocks, e.g.
/// `F8_E4M3: 8 bits per weight (1 byte per weight, no blocks)`). Names both formats share
/// (`F16`, `BF16`, `F32`, ...) have one layout, so one text. Removed and unknown ggml ids say
/// so; any other label gives `None`.
pub fn type_tooltip(label: &str) -> Option<String> {
    if let Some(t) = by_name(label).filter(|t| t.status == Status::Active) {
        let bpw = t.bits_per_weight()?;
        return Some(format!(
            "{}: {} per block, {} per block, {bpw} bits per weight",
            t.name,
            plural(t.block_size, "weight", "weights"),
            plural(t.type_size, "byte", "bytes"),
        ));
    }
    if let Some(d) = super::safetensors::st_dtype(label) {
        let layout = if d.bits % 8 == 0 {
            format!("{} per weight", plural(d.bits / 8, "byte", "bytes"))
        } else {
            // F4: 2 weights per byte; F6: 4 weights per 3 bytes.
            let g = gcd(d.bits, 8);
            format!(
                "{} per {}",
                plural(8 / g, "weight", "weights"),
                plural(d.bits / g, "byte", "bytes")
            )
        };
        return Some(format!(
            "{}: {} bits per weight ({layout}, no blocks)",
            d.name, d.bits
        ));
    }
    // `type 4 (removed Q4_2)` / `type 99 (unknown)`, as GgmlType::label writes them.
    let rest = label.strip_prefix("type ")?;
    let (id, _) = rest.split_once(' ')?;
    let id: u32 = id.parse().ok()?;
    if GgmlType(id).label() != label {
        return None;
    }
    Some(match lookup(id) {
        Some(t) => format!(
            "{}: ggml type {id}, removed from ggml; no block layout, llama.cpp cannot load it",
            t.name
        ),
        None => format!(
            "type {id}: not in ggml's type table (ids 0–{}), so its block size is unknown",
            GGML_TYPES.len() - 1
        ),
    })
}

const fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A ggml tensor type as stored in a GGUF file: any u32, known or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GgmlType(pub u32);

impl GgmlType {
    /// The table row for an active type; `None` for removed and unknown ids.
    pub fn info(self) -> Option<&'static TypeInfo> {
        lookup(self.0).filter(|t| t.status == Status::Active)
    }

    /// Display label: `Q4_K`, or `type 4 (removed Q4_2)`, or `type 99 (unknown)`.
    pub fn label(self) -> String {
        match lookup(self.0) {
            Some(t) if t.status == Status::Active => t.name.to_string(),
            Some(t) => format!("type {} (removed {})", self.0, t.name),
            None => format!("type {} (unknown)", self.0),
        }
    }

    /// Byte size of a tensor of this type with `shape` (ggml order, ne0 first), following
    /// `ggml_row_size`: `ne0` must be a multiple of the block size. `Err` says why not.
    pub fn byte_size(self, shape: &[u64]) -> Result<u64, SizeError> {
        let info = self.info().ok_or(SizeError::UnknownType)?;
        let ne0 = shape.first().copied().unwrap_or(1);
        let bs = u64::from(info.block_size);
        if ne0 % bs != 0 {
            return Err(SizeError::PartialBlock {
                ne0,
                block_size: info.block_size,
            });
        }
        let mut n = (ne0 / bs)
            .checked_mul(u64::from(info.type_size))
            .ok_or(SizeError::Overflow)?;
        for &d in shape.iter().skip(1) {
            n = n.checked_mul(d).ok_or(SizeError::Overflow)?;
        }
        Ok(n)
    }
}

/// Why a tensor's byte size cannot be computed from its type and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// Removed or unknown type id: the size is not defined by the table.
    UnknownType,
    /// The first dimension does not fill whole blocks.
    PartialBlock {
        /// The first dimension.
        ne0: u64,
        /// The type's values per block.
        block_size: u32,
    },
    /// The size does not fit in 64 bits.
    Overflow,
}

impl std::fmt::Display for SizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeError::UnknownType => write!(f, "type has no defined block size"),
            SizeError::PartialBlock { ne0, block_size } => write!(
                f,
                "ne0 = {ne0} is not a multiple of the block size {block_size}"
            ),
            SizeError::Overflow => write!(f, "byte size overflows 64 bits"),
        }
    }
}

/// `general.file_type` names (`enum llama_ftype` in llama.h, `LlamaFileType` in gguf-py),
/// without the `LLAMA_FTYPE_` prefix. Removed ids are absent.
pub fn file_type_name(id: u64) -> Option<&'static str> {
    Some(match id {
        0 => "ALL_F32",
        1 => "MOSTLY_F16",
        2 => "MOSTLY_Q4_0",
        3 => "MOSTLY_Q4_1",
        7 => "MOSTLY_Q8_0",
        8 => "MOSTLY_Q5_0",
        9 => "MOSTLY_Q5_1",
        10 => "MOSTLY_Q2_K",
        11 => "MOSTLY_Q3_K_S",
        12 => "MOSTLY_Q3_K_M",
        13 => "MOSTLY_Q3_K_L",
        14 => "MOSTLY_Q4_K_S",
        15 => "MOSTLY_Q4_K_M",
        16 => "MOSTLY_Q5_K_S",
        17 => "MOSTLY_Q5_K_M",
        18 => "MOSTLY_Q6_K",
        19 => "MOSTLY_IQ2_XXS",
        20 => "MOSTLY_IQ2_XS",
        21 => "MOSTLY_Q2_K_S",
        22 => "MOSTLY_IQ3_XS",
        23 => "MOSTLY_IQ3_XXS",
        24 => "MOSTLY_IQ1_S",
        25 => "MOSTLY_IQ4_NL",
        26 => "MOSTLY_IQ3_S",
        27 => "MOSTLY_IQ3_M",
        28 => "MOSTLY_IQ2_S",
        29 => "MOSTLY_IQ2_M",
        30 => "MOSTLY_IQ4_XS",
        31 => "MOSTLY_IQ1_M",
        32 => "MOSTLY_BF16",
        36 => "MOSTLY_TQ1_0",
        37 => "MOSTLY_TQ2_0",
        38 => "MOSTLY_MXFP4_MOE",
        39 => "MOSTLY_NVFP4",
        40 => "MOSTLY_Q1_0",
        1024 => "GUESSED",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_id() {
        for (i, t) in GGML_TYPES.iter().enumerate() {
            assert_eq!(t.id as usize, i, "{}", t.name);
        }
    }

    #[test]
    fn sizes_follow_ggml_row_size() {
        let q4k = GgmlType(12);
        assert_eq!(q4k.byte_size(&[512, 1024]), Ok(2 * 144 * 1024));
        assert_eq!(
            q4k.byte_size(&[100]),
            Err(SizeError::PartialBlock {
                ne0: 100,
                block_size: 256
            })
        );
        assert_eq!(
            GgmlType(0).byte_size(&[1 << 32, 1 << 32, 1 << 32, 1 << 32]),
            Err(SizeError::Overflow)
        );
        assert_eq!(GgmlType(4).byte_size(&[32]), Err(SizeError::UnknownType));
        assert_eq!(GgmlType(4).label(), "type 4 (removed Q4_2)");
        assert_eq!(GgmlType(77).label(), "type 77 (unknown)");
        assert_eq!(lookup(12).unwrap().bits_per_weight(), Some(4.5));
    }

    #[test]
    fn tooltips_come_from_the_tables() {
        assert_eq!(
            type_tooltip("Q4_K").as_deref(),
            Some("Q4_K: 256 weights per block, 144 bytes per block, 4.5 bits per weight")
        );
        assert_eq!(
            type_tooltip("F32").as_deref(),
            Some("F32: 1 weight per block, 4 bytes per block, 32 bits per weight")
        );
        assert_eq!(
            type_tooltip("Q6_K").as_deref(),
            Some("Q6_K: 256 weights per block, 210 bytes per block, 6.5625 bits per weight")
        );
        assert_eq!(
            type_tooltip("I8").as_deref(),
            Some("I8: 1 weight per block, 1 byte per block, 8 bits per weight")
        );
        // Every active ggml type: its own block size, type size and bits per weight.
        for t in GGML_TYPES.iter().filter(|t| t.status == Status::Active) {
            let tip = type_tooltip(t.name).unwrap();
            let bpw = f64::from(t.type_size) * 8.0 / f64::from(t.block_size);
            assert!(
                tip.starts_with(&format!("{}: {} weight", t.name, t.block_size)),
                "{tip}"
            );
            assert!(tip.contains(&format!(", {} byte", t.type_size)), "{tip}");
            assert!(tip.ends_with(&format!(", {bpw} bits per weight")), "{tip}");
        }
        // Safetensors-only dtypes: their bit widths.
        assert_eq!(
            type_tooltip("F8_E4M3").as_deref(),
            Some("F8_E4M3: 8 bits per weight (1 byte per weight, no blocks)")
        );
        assert_eq!(
            type_tooltip("F4").as_deref(),
            Some("F4: 4 bits per weight (2 weights per 1 byte, no blocks)")
        );
        assert_eq!(
            type_tooltip("F6_E2M3").as_deref(),
            Some("F6_E2M3: 6 bits per weight (4 weights per 3 bytes, no blocks)")
        );
        assert_eq!(
            type_tooltip("U64").as_deref(),
            Some("U64: 64 bits per weight (8 bytes per weight, no blocks)")
        );
        for d in crate::format::safetensors::ST_DTYPES {
            let tip = type_tooltip(d.name).unwrap();
            assert!(
                tip.contains(&format!("{} bits per weight", d.bits)),
                "{tip}"
            );
        }
        // Removed and unknown ids, as labelled.
        let removed = type_tooltip(&GgmlType(4).label()).unwrap();
        assert!(
            removed.starts_with("Q4_2: ggml type 4, removed"),
            "{removed}"
        );
        let unknown = type_tooltip(&GgmlType(99).label()).unwrap();
        assert!(unknown.starts_with("type 99: not in ggml's type table (ids 0–42)"));
        assert_eq!(type_tooltip("type 12 (unknown)"), None);
        assert_eq!(type_tooltip("X9 (unknown)"), None);
        assert_eq!(type_tooltip(""), None);
    }
}
