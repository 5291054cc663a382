//! The devices a person has: GPUs with their free memory and the system RAM, read from sizes
//! such as `24GiB`, `12 GB`, `8192MiB` or a card's name.

use serde::Serialize;

/// One GPU: a name for the plan and its free memory in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gpu {
    /// `GPU 0`, or the preset's name.
    pub name: String,
    /// Free memory in bytes.
    pub bytes: u64,
}

/// What the plan places onto.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Devices {
    /// GPUs in llama.cpp's device order (zero or more).
    pub gpus: Vec<Gpu>,
    /// System RAM in bytes.
    pub ram: u64,
}

const GIB: u64 = 1 << 30;

/// Default devices: one 8 GiB GPU and 16 GiB of RAM.
pub fn default_devices() -> Devices {
    Devices {
        gpus: vec![Gpu {
            name: "GPU 0".into(),
            bytes: 8 * GIB,
        }],
        ram: 16 * GIB,
    }
}

/// Common cards and their memory (GiB: a "24 GB" card has 24 × 2^30 bytes), from the vendors'
/// specifications. (option value, label, GiB)
pub const PRESETS: [(&str, &str, u64); 16] = [
    ("rtx3060", "RTX 3060 (12 GiB)", 12),
    ("rtx3080", "RTX 3080 (10 GiB)", 10),
    ("rtx3090", "RTX 3090 (24 GiB)", 24),
    ("rtx4060", "RTX 4060 (8 GiB)", 8),
    ("rtx4060ti16", "RTX 4060 Ti (16 GiB)", 16),
    ("rtx4070", "RTX 4070 (12 GiB)", 12),
    ("rtx4080", "RTX 4080 (16 GiB)", 16),
    ("rtx4090", "RTX 4090 (24 GiB)", 24),
    ("rtx5090", "RTX 5090 (32 GiB)", 32),
    ("rx7900xtx", "RX 7900 XTX (24 GiB)", 24),
    ("t4", "Tesla T4 (16 GiB)", 16),
    ("l4", "L4 (24 GiB)", 24),
    ("a10", "A10 (24 GiB)", 24),
    ("a100-40", "A100 40 GB", 40),
    ("a100-80", "A100 80 GB", 80),
    ("h100", "H100 80 GB", 80),
];

/// Why a size could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeError {
    /// Not a number with a unit, nor a preset name.
    NotASize(String),
    /// Larger than 2^64 bytes.
    TooLarge(String),
}

impl std::fmt::Display for SizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeError::NotASize(s) => write!(
                f,
                "\"{s}\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)"
            ),
            SizeError::TooLarge(s) => write!(f, "\"{s}\" is more than 2^64 bytes"),
        }
    }
}

impl std::error::Error for SizeError {}

/// Reads a memory size: a number (decimals allowed) and a unit — `B`, `KiB`/`MiB`/`GiB`/`TiB`
/// (powers of 1024), `KB`/`MB`/`GB`/`TB` (read as powers of 1024 too, as GPU and RAM sizes
/// are meant), `K`/`M`/`G`/`T` — or a preset's value (`rtx4090`). A bare number is GiB.
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    if let Some((_, _, gib)) = PRESETS.iter().find(|(v, _, _)| *v == lower) {
        return Ok(gib * GIB);
    }
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (number, unit) = lower.split_at(split);
    let shift = match unit.trim() {
        "" | "g" | "gb" | "gib" => 30,
        "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "t" | "tb" | "tib" => 40,
        _ => return Err(SizeError::NotASize(t.to_string())),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(SizeError::NotASize(t.to_string()));
    }
    let too_large = || SizeError::TooLarge(t.to_string());
    let w: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_large())?
    };
    let frac = frac.get(..frac.len().min(9)).unwrap_or("");
    let f: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse()
            .map_err(|_| SizeError::NotASize(t.to_string()))?
    };
    let scale = 10u128.pow(frac.len() as u32);
    let bytes = w
        .checked_shl(shift)
        .filter(|&b| b >> shift == w)
        .ok_or_else(too_large)?
        .checked_add((f << shift) / scale)
        .ok_or_else(too_large)?;
    u64::try_from(bytes).map_err(|_| too_large())
}

/// The name of a GPU given as a preset, else `GPU i`.
pub fn gpu(input: &str, index: usize) -> Result<Gpu, SizeError> {
    let bytes = parse_size(input)?;
    let lower = input.trim().to_ascii_lowercase();
    let name = PRESETS.iter().find(|(v, _, _)| *v == lower).map_or_else(
        || format!("GPU {index}"),
        |(_, label, _)| format!("GPU {index}: {label}"),
    );
    Ok(Gpu { name, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("24GiB"), Ok(24 << 30));
        assert_eq!(parse_size("24 GB"), Ok(24 << 30));
        assert_eq!(parse_size("8192MiB"), Ok(8 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("16"), Ok(16 << 30));
        assert_eq!(parse_size("rtx4090"), Ok(24 << 30));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(matches!(parse_size("abc"), Err(SizeError::NotASize(_))));
        assert!(matches!(parse_size("1.2.3G"), Err(SizeError::NotASize(_))));
        assert!(matches!(
            parse_size("99999999999T"),
            Err(SizeError::TooLarge(_))
        ));
        assert_eq!(gpu("rtx3090", 1).unwrap().name, "GPU 1: RTX 3090 (24 GiB)");
    }
}
