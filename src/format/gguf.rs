//! GGUF header parser: resumable, over a growing prefix of the file.
//!
//! Layout (ggml/docs/gguf.md): magic `GGUF` (always these 4 bytes), version u32, tensor count,
//! metadata count, then the key/value pairs, then the tensor infos (name, n_dims, dims ne0..,
//! ggml type u32, offset u64 relative to the data section), then padding up to
//! `general.alignment` (default 32), then the data section. v1 stores counts, string and array
//! lengths and dims as u32; v2 and v3 as u64. A big-endian file has the same magic bytes and its
//! version, read little-endian, has the low 16 bits zero.
//!
//! [`GgufParser::step`] parses as far as the bytes allow and says how many more it needs. Parsed
//! items are never parsed again: a large array interrupted by the end of the prefix resumes at
//! the element where it stopped.

use super::cursor::{Cursor, Endian, Short, Stop};
use super::error::{Error, ErrorKind, Warning};
use super::ggml_type::GgmlType;
use super::value::{
    check_fits, read_array_head, read_text, read_value, skip_some, ArrayHead, ArrayRef, Layout,
    MetadataEntry, ReadError, Value, ValueType,
};

/// Most dimensions a tensor may have: `GGML_MAX_DIMS` in ggml.h. llama.cpp refuses files with
/// more, so such a file is reported as damaged rather than shown with a guessed meaning.
pub const MAX_DIMS: u32 = 4;

/// Alignment of the data section when `general.alignment` is absent (`GGUF_DEFAULT_ALIGNMENT`).
pub const DEFAULT_ALIGNMENT: u64 = 32;

/// Largest `general.alignment` accepted. ggml writers use 32 or 64; anything past 1 MiB is a
/// damaged or hostile value that would place the data section far from the header.
pub const MAX_ALIGNMENT: u64 = 1 << 20;

/// Bytes guessed for a metadata pair not yet read (a key of ~30 characters and a small value).
pub const KV_GUESS: u64 = 64;

/// Bytes guessed for a tensor info not yet read, before any was: a 8-byte name length, a
/// ~24-character name (`blk.10.attn_k_norm.weight`), n_dims, two 8-byte dims, type, offset.
pub const TENSOR_INFO_GUESS: u64 = 64;

/// Bytes guessed for a string array element before any was read (length + ~8 characters).
pub const STRING_GUESS: u64 = 16;

/// One tensor info of the directory, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// Tensor name (lossy UTF-8).
    pub name: String,
    /// Absolute offset of this tensor info in the file.
    pub info_offset: u64,
    /// Dimensions in ggml order: ne0 (the contiguous one) first.
    pub shape: Vec<u64>,
    /// The ggml type id.
    pub ggml_type: GgmlType,
    /// Offset of the tensor's data relative to the start of the data section.
    pub rel_offset: u64,
}

/// Everything the GGUF header says, as far as it was parsed.
#[derive(Debug, Clone, Default)]
pub struct GgufHeader {
    /// Format version (1, 2 or 3).
    pub version: u32,
    /// Byte order of the file.
    pub big_endian: bool,
    /// Tensor count from the header.
    pub tensor_count: u64,
    /// Metadata pair count from the header.
    pub kv_count: u64,
    /// Metadata pairs parsed so far, in file order.
    pub metadata: Vec<MetadataEntry>,
    /// Tensor infos parsed so far, in file order.
    pub tensors: Vec<TensorInfo>,
    /// Offset one past the tensor directory (0 until it is complete).
    pub directory_end: u64,
    /// Data section alignment (from `general.alignment`, default 32).
    pub alignment: u64,
    /// Absolute offset of the data section (0 until the directory is complete).
    pub data_offset: u64,
    /// Non-fatal findings.
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone)]
enum Stage {
    Preamble,
    Metadata,
    Tensors,
    Done,
}

/// An array being indexed across several prefixes.
#[derive(Debug, Clone)]
struct PendingArray {
    key: String,
    offset: u64,
    head: ArrayHead,
    done: u64,
}

/// Resumable GGUF header parser. Feed it the growing prefix of the file.
#[derive(Debug, Clone)]
pub struct GgufParser {
    stage: Stage,
    pos: u64,
    layout: Layout,
    header: GgufHeader,
    pending: Option<PendingArray>,
}

impl Default for GgufParser {
    fn default() -> Self {
        Self::new()
    }
}

impl GgufParser {
    /// A parser at the start of the file.
    pub fn new() -> Self {
        GgufParser {
            stage: Stage::Preamble,
            pos: 0,
            layout: Layout {
                endian: Endian::Little,
                len_width: 8,
            },
            header: GgufHeader {
                alignment: DEFAULT_ALIGNMENT,
                ..GgufHeader::default()
            },
            pending: None,
        }
    }

    /// What has been parsed so far.
    pub fn header(&self) -> &GgufHeader {
        &self.header
    }

    /// Takes the parsed header out of the parser.
    pub fn into_header(self) -> GgufHeader {
        self.header
    }

    /// A guess of the absolute offset where the tensor directory ends, from what has been
    /// parsed so far; `None` before the counts are known and once the header is complete.
    ///
    /// Used to size the next remote read so that it usually covers the rest of the header:
    /// - an array being indexed: fixed-size elements are exact; strings and nested arrays are
    ///   extrapolated from the average size of the elements indexed so far;
    /// - the vocabulary's companion arrays (llama.cpp writes `tokenizer.ggml.scores` (not for
    ///   `gpt2` BPE vocabularies) and `tokenizer.ggml.token_type`, one 4-byte number per token,
    ///   right after `tokenizer.ggml.tokens`): counted once the token count is known, for as many
    ///   pairs as remain;
    /// - other pairs not yet read: [`KV_GUESS`] bytes each; tensor infos not yet read: the
    ///   average of those read, or [`TENSOR_INFO_GUESS`] bytes each.
    ///
    /// Arrays not yet seen (BPE `tokenizer.ggml.merges`) are not guessed: they are measured as
    /// soon as their first elements arrive. All arithmetic saturates (a guess, not a bound).
    pub fn estimate_end(&self) -> Option<u64> {
        let h = &self.header;
        let tensor_rest =
            |done: u64, avg: u64| h.tensor_count.saturating_sub(done).saturating_mul(avg);
        match self.stage {
            Stage::Preamble | Stage::Done => None,
            Stage::Tensors => {
                let done = h.tensors.len() as u64;
                let avg = match h.tensors.first() {
                    Some(first) if done > 0 => {
                        self.pos.saturating_sub(first.info_offset).div_ceil(done)
                    }
                    _ => TENSOR_INFO_GUESS,
                };
                Some(self.pos.saturating_add(tensor_rest(done, avg)))
            }
            Stage::Metadata => {
                let mut end = self.pos;
                let mut pairs_left = h.kv_count.saturating_sub(h.metadata.len() as u64);
                let mut tokens = h
                    .metadata
                    .iter()
                    .find(|e| e.key == "tokenizer.ggml.tokens")
                    .and_then(|e| match &e.value {
                        Value::Array(a) => Some(a.len),
                        _ => None,
                    });
                if let Some(p) = &self.pending {
                    pairs_left = pairs_left.saturating_sub(1);
                    let rest = p.head.len.saturating_sub(p.done);
                    let avg = match p.head.elem.fixed_size() {
                        Some(size) => size,
                        None if p.done > 0 => {
                            self.pos.saturating_sub(p.head.start).div_ceil(p.done)
                        }
                        None => STRING_GUESS,
                    };
                    end = end.saturating_add(rest.saturating_mul(avg));
                    if p.key == "tokenizer.ggml.tokens" {
                        tokens = Some(p.head.len);
                    }
                }
                if let Some(n) = tokens {
                    let bpe = h.metadata.iter().any(|e| {
                        e.key == "tokenizer.ggml.model" && e.value.as_str() == Some("gpt2")
                    });
                    let companions: &[&str] = if bpe {
                        &["tokenizer.ggml.token_type"]
                    } else {
                        &["tokenizer.ggml.scores", "tokenizer.ggml.token_type"]
                    };
                    for key in companions {
                        let seen = h.metadata.iter().any(|e| e.key == *key)
                            || self.pending.as_ref().is_some_and(|p| p.key == *key);
                        if !seen && pairs_left > 0 {
                            pairs_left -= 1;
                            end = end.saturating_add(n.saturating_mul(4).saturating_add(KV_GUESS));
                        }
                    }
                }
                end = end.saturating_add(pairs_left.saturating_mul(KV_GUESS));
                Some(end.saturating_add(tensor_rest(0, TENSOR_INFO_GUESS)))
            }
        }
    }

    /// Parses as far as `buf` (the file's first `buf.len()` bytes) allows. `Ok` when the header
    /// is complete; `Stop::NeedMore(end)` when bytes up to `end` are needed to go on;
    /// `Stop::Fail` on bad input (what was parsed before stays in [`Self::header`]).
    pub fn step(&mut self, buf: &[u8], file_size: u64) -> Result<(), Stop> {
        loop {
            match self.stage {
                Stage::Preamble => self.preamble(buf, file_size)?,
                Stage::Metadata => self.metadata(buf, file_size)?,
                Stage::Tensors => self.tensors(buf, file_size)?,
                Stage::Done => return Ok(()),
            }
        }
    }

    fn stop(&self, e: ReadError, file_size: u64, field: impl FnOnce() -> String) -> Stop {
        match e {
            ReadError::Short(s) => s.stop(file_size, field, self.pos),
            ReadError::Fail(e) => Stop::Fail(self.contextual(e, field)),
        }
    }

    /// Prefixes a low-level error's field with the item being read.
    fn contextual(&self, mut e: Error, field: impl FnOnce() -> String) -> Error {
        e.field = format!("{}: {}", field(), e.field);
        e
    }

    fn preamble(&mut self, buf: &[u8], file_size: u64) -> Result<(), Stop> {
        let short = |s: Short| s.stop(file_size, || "GGUF header".into(), 0);
        let mut c = Cursor::new(buf, 0, Endian::Little);
        let magic = c.take(4).map_err(short)?;
        if magic != b"GGUF" {
            return Err(Error::new(
                "magic",
                0,
                ErrorKind::NotAModel("not a GGUF file (magic is not \"GGUF\")".into()),
            )
            .into());
        }
        let raw = c.u32().map_err(short)?;
        let (version, endian) = if raw & 0xFFFF == 0 && raw != 0 {
            (raw.swap_bytes(), Endian::Big)
        } else {
            (raw, Endian::Little)
        };
        if !(1..=3).contains(&version) {
            return Err(Error::new("version", 4, ErrorKind::UnsupportedVersion(version)).into());
        }
        self.layout = Layout {
            endian,
            len_width: if version == 1 { 4 } else { 8 },
        };
        // Known from here on, even if the counts below are refused.
        self.header.version = version;
        self.header.big_endian = endian == Endian::Big;
        let mut c = Cursor::new(buf, 8, endian);
        let (tensor_count, kv_count) = if version == 1 {
            let t = c.u32().map_err(short)?;
            let k = c.u32().map_err(short)?;
            (u64::from(t), u64::from(k))
        } else {
            let t = c.u64().map_err(short)?;
            let k = c.u64().map_err(short)?;
            (t, k)
        };
        let w = u64::from(self.layout.len_width);
        // A pair is at least a key length, a type and one byte; a tensor info at least a name
        // length, n_dims, a type and an offset.
        check_fits(
            kv_count,
            w + 4 + 1,
            c.pos(),
            file_size,
            "metadata count",
            8 + w,
        )?;
        check_fits(
            tensor_count,
            w + 4 + 4 + 8,
            c.pos(),
            file_size,
            "tensor count",
            8,
        )?;
        let h = &mut self.header;
        h.tensor_count = tensor_count;
        h.kv_count = kv_count;
        // Reserve only what is sure to be needed; counts are bounded by the file size above,
        // but a small reservation cap keeps a hostile count from a large file cheap.
        h.metadata.reserve(kv_count.min(1024) as usize);
        h.tensors.reserve(tensor_count.min(4096) as usize);
        self.pos = c.pos();
        self.stage = Stage::Metadata;
        Ok(())
    }

    fn metadata(&mut self, buf: &[u8], file_size: u64) -> Result<(), Stop> {
        let layout = self.layout;
        while (self.header.metadata.len() as u64) < self.header.kv_count {
            let index = self.header.metadata.len();
            if let Some(p) = self.pending.as_mut() {
                let mut c = Cursor::new(buf, self.pos, layout.endian);
                let res = skip_some(&mut c, &p.head, &mut p.done, layout, file_size, 1);
                self.pos = c.pos();
                if let Err(e) = res {
                    let key = p.key.clone();
                    return Err(self.stop(e, file_size, || {
                        format!("metadata[{index}] \"{key}\" array element")
                    }));
                }
                let p = self.pending.take().expect("pending array");
                let value = Value::Array(ArrayRef {
                    elem: p.head.elem,
                    len: p.head.len,
                    start: p.head.start,
                    end: self.pos,
                    layout,
                });
                self.push_entry(p.key, p.offset, value)?;
                continue;
            }
            let start = self.pos;
            let mut c = Cursor::new(buf, start, layout.endian);
            let key = read_text(&mut c, layout, file_size)
                .map_err(|e| self.stop(e, file_size, || format!("metadata[{index}] key")))?;
            if key.lossy {
                self.header.warnings.push(Warning {
                    field: format!("metadata[{index}] key"),
                    offset: start,
                    message: "key is not valid UTF-8; shown with replacement characters".into(),
                });
            }
            let key = key.text;
            let type_at = c.pos();
            let type_id = c.u32().map_err(|s| {
                self.stop(s.into(), file_size, || {
                    format!("metadata[{index}] \"{key}\" value type")
                })
            })?;
            let Some(vt) = ValueType::from_id(type_id) else {
                return Err(Error::new(
                    format!("metadata[{index}] \"{key}\" value type"),
                    type_at,
                    ErrorKind::UnknownValueType(type_id),
                )
                .into());
            };
            if vt == ValueType::Array {
                let head = read_array_head(&mut c, layout, file_size, 1).map_err(|e| {
                    self.stop(e, file_size, || {
                        format!("metadata[{index}] \"{key}\" array")
                    })
                })?;
                // The array's type and length are consumed; its elements are indexed next,
                // resumably.
                self.pos = c.pos();
                self.pending = Some(PendingArray {
                    key,
                    offset: start,
                    head,
                    done: 0,
                });
                continue;
            }
            let value = read_value(&mut c, vt, layout, file_size, 0).map_err(|e| {
                self.stop(e, file_size, || {
                    format!("metadata[{index}] \"{key}\" value")
                })
            })?;
            if let Value::String(t) = &value {
                if t.lossy {
                    self.header.warnings.push(Warning {
                        field: format!("metadata[{index}] \"{key}\""),
                        offset: start,
                        message: "string is not valid UTF-8; shown with replacement characters"
                            .into(),
                    });
                }
            }
            if vt == ValueType::Bool {
                let raw = buf.get(type_at as usize + 4).copied().unwrap_or(0);
                if raw > 1 {
                    self.header.warnings.push(Warning {
                        field: format!("metadata[{index}] \"{key}\""),
                        offset: type_at + 4,
                        message: format!("BOOL byte is {raw}, not 0 or 1; read as true"),
                    });
                }
            }
            self.pos = c.pos();
            self.push_entry(key, start, value)?;
        }
        self.stage = Stage::Tensors;
        Ok(())
    }

    fn push_entry(&mut self, key: String, offset: u64, value: Value) -> Result<(), Stop> {
        if key == "general.alignment" {
            self.header.alignment = alignment_from(&value, offset)?;
        }
        self.header
            .metadata
            .push(MetadataEntry { key, offset, value });
        Ok(())
    }

    fn tensors(&mut self, buf: &[u8], file_size: u64) -> Result<(), Stop> {
        let layout = self.layout;
        while (self.header.tensors.len() as u64) < self.header.tensor_count {
            let index = self.header.tensors.len();
            let start = self.pos;
            let mut c = Cursor::new(buf, start, layout.endian);
            let name = read_text(&mut c, layout, file_size)
                .map_err(|e| self.stop(e, file_size, || format!("tensor[{index}] name")))?
                .text;
            let field = |what: &str| format!("tensor[{index}] \"{name}\" {what}");
            let dims_at = c.pos();
            let n_dims = c
                .u32()
                .map_err(|s| self.stop(s.into(), file_size, || field("n_dims")))?;
            if n_dims > MAX_DIMS {
                return Err(Error::new(
                    field("n_dims"),
                    dims_at,
                    ErrorKind::Invalid(format!(
                        "n_dims is {n_dims}; ggml tensors have at most {MAX_DIMS} dimensions"
                    )),
                )
                .into());
            }
            let mut shape = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                let d = if layout.len_width == 4 {
                    c.u32().map(u64::from)
                } else {
                    c.u64()
                };
                shape.push(d.map_err(|s| self.stop(s.into(), file_size, || field("dims")))?);
            }
            let type_id = c
                .u32()
                .map_err(|s| self.stop(s.into(), file_size, || field("type")))?;
            let rel_offset = c
                .u64()
                .map_err(|s| self.stop(s.into(), file_size, || field("offset")))?;
            self.header.tensors.push(TensorInfo {
                name,
                info_offset: start,
                shape,
                ggml_type: GgmlType(type_id),
                rel_offset,
            });
            self.pos = c.pos();
        }
        let h = &mut self.header;
        h.directory_end = self.pos;
        h.data_offset = align_up(self.pos, h.alignment).ok_or_else(|| {
            Error::new(
                "data section offset",
                self.pos,
                ErrorKind::Overflow("aligned data offset"),
            )
        })?;
        self.stage = Stage::Done;
        Ok(())
    }
}

/// Rounds `x` up to a multiple of `align` (a power of two); `None` on overflow.
pub fn align_up(x: u64, align: u64) -> Option<u64> {
    let mask = align.checked_sub(1)?;
    x.checked_add(mask).map(|v| v & !mask)
}

fn alignment_from(value: &Value, offset: u64) -> Result<u64, Stop> {
    let field = "metadata \"general.alignment\"";
    let a = value.as_u64().ok_or_else(|| {
        Error::new(
            field,
            offset,
            ErrorKind::Invalid(format!(
                "alignment is a {}, not an unsigned integer",
                value.value_type().name()
            )),
        )
    })?;
    if a == 0 || !a.is_power_of_two() || a > MAX_ALIGNMENT {
        return Err(Error::new(
            field,
            offset,
            ErrorKind::Invalid(format!(
                "alignment is {a}; it must be a power of two between 1 and {MAX_ALIGNMENT}"
            )),
        )
        .into());
    }
    Ok(a)
}

/// The GGUF header reader ([`super::reader::Reader`]): [`GgufParser`] over a growing prefix,
/// with its guess of where the header ends.
pub struct GgufReader(GgufParser);

impl GgufReader {
    /// A reader at the file's start.
    pub fn boxed() -> Box<dyn super::reader::Reader> {
        Box::new(GgufReader(GgufParser::new()))
    }
}

impl super::reader::Reader for GgufReader {
    fn step(&mut self, input: &super::reader::Input<'_>) -> super::reader::Step {
        use super::reader::Step;
        match self.0.step(input.prefix, input.size) {
            Ok(()) => Step::Done,
            Err(stop) => Step::from_stop(stop, self.0.estimate_end()),
        }
    }

    fn finish(self: Box<Self>, prefix: Vec<u8>, size: u64, error: Option<Error>) -> super::Model {
        super::model_from_gguf(self.0.into_header(), prefix, size, error)
    }
}
