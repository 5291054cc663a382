//! The devices and plan options of a fit, read the same way from `weightpeek fit --gpu … --ram
//! … --ctx … --kv … --margin …`, the page's Fit boxes ([`crate::view::fit::Settings`]) and the
//! JavaScript API's `fit(source, {gpus, ram}, {context, kv, margin})`.
//!
//! One set of defaults (`weightpeek fit`'s): one 8 GiB GPU, 16 GiB of RAM, the model's own
//! context, an f16 KV cache, 1 GiB kept free on every GPU. GPUs of 0 bytes are left out (`--gpu
//! 0`: none); at most [`MAX_GPUS`].
//!
//! Errors name the input by its key: `gpus[1]: "x" is not a memory size (…)`, `ram: -1 is not a
//! whole number of bytes (0 to 2^53)`, `kv: "q5" is not f16, q8_0 or q4_0`, `context: must be a
//! whole number of tokens (at least 1)`. [`DeviceError::text_for`] puts the front end's own
//! name first instead (`--gpu`, `devices.gpus[1]`, the page's `GPU 1`).

use serde::{Deserialize, Deserializer};

use super::{whole, DeviceError, DeviceInput, Loose};
use crate::summary::fit::{default_devices, devices::gpu, parse_size, Devices, FitOptions, Gpu};
use crate::summary::memory::KvType;
use crate::view::memory::parse_context;

pub use crate::view::fit::MAX_GPUS;

/// A size as given: text (`24GiB`, `12 GB`, a card such as `rtx4090`: [`parse_size`]) or a
/// number of bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum SizeSpec {
    /// A size with its unit, or a card's name.
    Text(String),
    /// Bytes, as a number given (checked to be whole, 0 to 2^53).
    Bytes(f64),
    /// Anything else (an error when read).
    Other,
}

impl From<Loose> for SizeSpec {
    fn from(v: Loose) -> Self {
        match v {
            Loose::Text(t) => SizeSpec::Text(t),
            Loose::Number(x) => SizeSpec::Bytes(x),
            _ => SizeSpec::Other,
        }
    }
}

impl<'de> Deserialize<'de> for SizeSpec {
    /// Never fails on the value's shape (see [`SizeSpec::Other`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Loose::deserialize(d).map(SizeSpec::from)
    }
}

/// One GPU as given.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuSpec {
    /// Its free memory as text; a card's name (`rtx4090`) also names the GPU
    /// (`GPU 0: RTX 4090 (24 GiB)`), as `weightpeek fit --gpu` does.
    Text(String),
    /// Its free memory in bytes, as a number given.
    Bytes(f64),
    /// `{name?, bytes | size}`: exactly one of `bytes` (a number, or a size as text) and
    /// `size` (text, a card naming the GPU); `name` replaces the GPU's name.
    Entry {
        /// The name shown (blank: `GPU i`).
        name: Option<String>,
        /// Free memory as bytes.
        bytes: Option<SizeSpec>,
        /// Free memory as a size or a card.
        size: Option<SizeSpec>,
    },
    /// Anything else (an error when read).
    Other,
}

impl From<Loose> for GpuSpec {
    fn from(v: Loose) -> Self {
        let opt = |x: &Loose| (!matches!(x, Loose::Absent)).then(|| SizeSpec::from(x.clone()));
        match &v {
            Loose::Text(t) => GpuSpec::Text(t.clone()),
            Loose::Number(x) => GpuSpec::Bytes(*x),
            Loose::Map(_) => GpuSpec::Entry {
                name: match v.get("name") {
                    Loose::Text(n) if !n.trim().is_empty() => Some(n.trim().to_string()),
                    _ => None,
                },
                bytes: opt(v.get("bytes")),
                size: opt(v.get("size")),
            },
            _ => GpuSpec::Other,
        }
    }
}

impl<'de> Deserialize<'de> for GpuSpec {
    /// Never fails on the value's shape (see [`GpuSpec::Other`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Loose::deserialize(d).map(GpuSpec::from)
    }
}

/// The GPU list as given.
#[derive(Debug, Clone, PartialEq)]
pub enum Gpus {
    /// GPUs in llama.cpp's device order (empty: none).
    List(Vec<GpuSpec>),
    /// Not a list (an error when read).
    Other,
}

impl<'de> Deserialize<'de> for Gpus {
    /// Never fails on the value's shape (see [`Gpus::Other`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Loose::deserialize(d)? {
            Loose::List(l) => Gpus::List(l.into_iter().map(GpuSpec::from).collect()),
            _ => Gpus::Other,
        })
    }
}

/// Text as given (the KV cache type).
#[derive(Debug, Clone, PartialEq)]
pub enum TextSpec {
    /// A string.
    Text(String),
    /// Anything else (an error when read).
    Other,
}

impl<'de> Deserialize<'de> for TextSpec {
    /// Never fails on the value's shape (see [`TextSpec::Other`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Loose::deserialize(d)? {
            Loose::Text(t) => TextSpec::Text(t),
            _ => TextSpec::Other,
        })
    }
}

/// A context length as given.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextSpec {
    /// Tokens (at least 1): the CLI's `--ctx`, a whole JSON or JavaScript number (to 2^53).
    Tokens(u64),
    /// A box's text (the page's): read by [`parse_context`] (`4096`, `32,768`, `8k`), clamped
    /// to 1 to its maximum; text that is not a number means the model's own context. Never an
    /// error: [`OptionsSpec::context_note`] says what was done.
    Typed(String),
    /// Anything else, including a string given to the API (an error when read).
    Other,
}

impl<'de> Deserialize<'de> for ContextSpec {
    /// Never fails on the value's shape: a whole number from 1 to 2^53 is
    /// [`ContextSpec::Tokens`], anything else [`ContextSpec::Other`].
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Loose::deserialize(d)? {
            Loose::Number(x) => whole(x, 1.0).map_or(ContextSpec::Other, ContextSpec::Tokens),
            _ => ContextSpec::Other,
        })
    }
}

/// The devices a plan places onto, as given. Absent fields take `weightpeek fit`'s defaults.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DeviceSpec {
    /// The GPUs in device order; absent: one 8 GiB GPU; empty: none.
    pub gpus: Option<Gpus>,
    /// System RAM; absent: 16 GiB.
    pub ram: Option<SizeSpec>,
}

/// The plan's options, as given. Absent fields take `weightpeek fit`'s defaults.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct OptionsSpec {
    /// Context in tokens; absent: the model's own.
    pub context: Option<ContextSpec>,
    /// KV cache type, `f16`, `q8_0` or `q4_0` (any case); absent: `f16`.
    pub kv: Option<TextSpec>,
    /// Memory kept free on every GPU; absent: 1 GiB (llama.cpp's `--fit` margin).
    pub margin: Option<SizeSpec>,
}

impl SizeSpec {
    /// The bytes. Errors: not a size, not a whole number of bytes (0 to 2^53), neither.
    fn bytes(&self, input: DeviceInput) -> Result<u64, DeviceError> {
        match self {
            SizeSpec::Text(t) => parse_size(t).map_err(|error| DeviceError::Size { input, error }),
            SizeSpec::Bytes(x) => whole(*x, 0.0).ok_or(DeviceError::NotBytes { input, value: *x }),
            SizeSpec::Other => Err(DeviceError::NotASize { input }),
        }
    }
}

impl GpuSpec {
    /// GPU `i`: named `GPU i` (`GPU i: <card>` for a card's name) unless an entry names it.
    fn gpu(&self, i: usize) -> Result<Gpu, DeviceError> {
        let plain = |bytes| Gpu {
            name: format!("GPU {i}"),
            bytes,
        };
        let size_err = |input| move |error| DeviceError::Size { input, error };
        match self {
            GpuSpec::Text(t) => gpu(t, i).map_err(size_err(DeviceInput::Gpu(i))),
            GpuSpec::Bytes(x) => SizeSpec::Bytes(*x).bytes(DeviceInput::Gpu(i)).map(plain),
            GpuSpec::Entry { name, bytes, size } => {
                let mut one = match (bytes, size) {
                    (Some(b), None) => plain(b.bytes(DeviceInput::GpuBytes(i))?),
                    (None, Some(SizeSpec::Text(t))) => {
                        gpu(t, i).map_err(size_err(DeviceInput::GpuSize(i)))?
                    }
                    (None, Some(_)) => return Err(DeviceError::SizeNotText { index: i }),
                    _ => return Err(DeviceError::BytesOrSize { index: i }),
                };
                if let Some(n) = name {
                    one.name = n.clone();
                }
                Ok(one)
            }
            GpuSpec::Other => Err(DeviceError::GpuShape { index: i }),
        }
    }
}

impl DeviceSpec {
    /// The devices of text flags (`weightpeek fit`'s): each `--gpu` (none given: the default
    /// GPU) and `--ram` (`None`: the default).
    pub fn from_text(gpus: &[String], ram: Option<&str>) -> DeviceSpec {
        DeviceSpec {
            gpus: (!gpus.is_empty())
                .then(|| Gpus::List(gpus.iter().map(|g| GpuSpec::Text(g.clone())).collect())),
            ram: ram.map(|r| SizeSpec::Text(r.to_string())),
        }
    }

    /// The devices: the GPUs given (0-byte ones left out; none given: one 8 GiB GPU) and the
    /// RAM (16 GiB when not given). Errors: the first GPU, then the RAM, that cannot be read;
    /// more than [`MAX_GPUS`] GPUs.
    pub fn to_devices(&self) -> Result<Devices, DeviceError> {
        let mut out = default_devices();
        match &self.gpus {
            None => {}
            Some(Gpus::Other) => return Err(DeviceError::GpusNotAList),
            Some(Gpus::List(list)) if list.len() > MAX_GPUS => {
                return Err(DeviceError::TooManyGpus)
            }
            Some(Gpus::List(list)) => {
                out.gpus.clear();
                for (i, g) in list.iter().enumerate() {
                    let one = g.gpu(i)?;
                    if one.bytes > 0 {
                        out.gpus.push(one);
                    }
                }
            }
        }
        if let Some(r) = &self.ram {
            out.ram = r.bytes(DeviceInput::Ram)?;
        }
        Ok(out)
    }
}

impl OptionsSpec {
    /// The options of text flags (`weightpeek fit`'s `--ctx`, `--kv`, `--margin`; `None`: the
    /// default).
    pub fn from_text(context: Option<u64>, kv: Option<&str>, margin: Option<&str>) -> OptionsSpec {
        OptionsSpec {
            context: context.map(ContextSpec::Tokens),
            kv: kv.map(|k| TextSpec::Text(k.to_string())),
            margin: margin.map(|m| SizeSpec::Text(m.to_string())),
        }
    }

    /// The plan's options: context (absent: the model's own), KV type (absent: f16; any case,
    /// spaces around ignored), margin (absent: 1 GiB). Errors, in this order: a context of 0
    /// tokens or not a whole number (a box's text is never one), an unknown KV type, a margin
    /// that is not a size.
    pub fn to_options(&self) -> Result<FitOptions, DeviceError> {
        let mut out = FitOptions::default();
        match &self.context {
            None => {}
            Some(ContextSpec::Tokens(0) | ContextSpec::Other) => return Err(DeviceError::Context),
            Some(ContextSpec::Tokens(n)) => out.context = Some(*n),
            Some(ContextSpec::Typed(t)) => out.context = parse_context(t).tokens,
        }
        match &self.kv {
            None => {}
            Some(TextSpec::Text(t)) => {
                out.kv = KvType::parse(t.trim()).ok_or_else(|| DeviceError::Kv(Some(t.clone())))?
            }
            Some(TextSpec::Other) => return Err(DeviceError::Kv(None)),
        }
        if let Some(m) = &self.margin {
            out.margin = m.bytes(DeviceInput::Margin)?;
        }
        Ok(out)
    }

    /// What was done with a box's context text (clamped, or not a number so the model's own
    /// is used), said under the box; `None` for any other context.
    pub fn context_note(&self) -> Option<String> {
        match &self.context {
            Some(ContextSpec::Typed(t)) => parse_context(t).note,
            _ => None,
        }
    }
}
