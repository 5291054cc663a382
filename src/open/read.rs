//! Reading what [`super::recognise::plan`] decided: the index first if there is one, then every
//! file's header through [`crate::source::read_model`] (at most [`POOL_SIZE`] at once), the
//! split keys of each GGUF part, the merge, the config a quantised safetensors layout needs,
//! and the [`SetInfo`] saying what was read, what is missing and what did not belong.
//!
//! The shell says how a name becomes bytes ([`Opener`]): the page and the element by the files
//! picked or by sibling URLs, the CLI by paths beside each other or by URLs.

use super::merge::{merge, parse_index, shard_first_read, PartError, ShardIndex};
use super::pool::{bounded, POOL_SIZE};
use super::recognise::{file_name, index_shards, normal, not_in_index, plan, Plan, Target};
use super::set::{OpenedModel, SetInfo, SplitKeys, Stray, MAX_CONFIG_BYTES};
use crate::format::{onnx, Format, Model, Value};
use crate::source::{read_model, ByteSource, ReadPolicy, ReadStats, SourceError};

/// Most bytes of a safetensors index read: 256 MiB (diffusers' indexes of models with
/// hundreds of experts reach 60 MB).
pub const MAX_INDEX_BYTES: u64 = crate::source::http::MAX_WHOLE_FILE;

/// How the shell turns a file name into bytes.
#[allow(async_fn_in_trait)] // single-threaded (wasm, the CLI): no Send bound wanted
pub trait Opener {
    /// The source of one file.
    type Source: ByteSource;
    /// How headers are read (local: doubling reads; remote: estimates).
    fn policy(&self) -> ReadPolicy;
    /// Whether a file of this name can be opened without being given: a sibling on disk or on
    /// the same server. For files that were only picked (the page), false.
    fn available(&self, name: &str) -> bool;
    /// Opens `name` for reads by range; `first_read` is the size of the first read the
    /// driver will make (an HTTP source fetches it at once).
    async fn open(&self, name: &str, first_read: u64) -> Result<Self::Source, SourceError>;
    /// The whole of a small file (an index, a config), at most `cap` bytes.
    async fn read_all(&self, name: &str, cap: u64) -> Result<Vec<u8>, SourceError>;
    /// Opens `name` and reads its header through the one driver ([`read_model`]). The
    /// default does it here; an opener whose reads block (the CLI's HTTP) runs it on a worker
    /// thread, so the pool's files are read in parallel.
    async fn read_header(
        &self,
        name: &str,
        first_read: u64,
    ) -> Result<(Model, ReadStats, Self::Source), OpenError> {
        read_one(self, name, first_read).await
    }
    /// Whether the person cancelled (the rest is then not read).
    fn cancelled(&self) -> bool {
        false
    }
    /// Opens `name` for reads of exact ranges without reading any of it: an ONNX model's side
    /// file of external data, of which only a preview's window is ever read. A local file or
    /// Blob knows its size; a remote one's is `u64::MAX` until its first answer (a range
    /// past its end is then refused by the server). The default: not available.
    async fn open_unread(&self, name: &str) -> Result<Self::Source, SourceError> {
        Err(SourceError::Unavailable(format!(
            "{name} cannot be opened here"
        )))
    }
}

/// The tensors whose data a model wants read with its header: (name, offset, length).
pub type TensorDataWanted = fn(&OpenedModel) -> Vec<(String, u64, u64)>;

/// What the shell may add to an opening.
#[derive(Clone, Copy, Default)]
pub struct Options {
    /// Whether the model wants its `config.json` (quantised safetensors layouts; the shell
    /// passes `summary::quant_st::wants_config`). `None`: never read a config.
    pub wants_config: Option<fn(&OpenedModel) -> bool>,
    /// The small tensors whose data describes the model (quantised layouts' logical shapes;
    /// the CLI passes `summary::quant_st::wanted_tensor_data`): (name, offset, length) in a
    /// single file, read into the model's sidecar. `None`: read no tensor data.
    pub tensor_data: Option<TensorDataWanted>,
}

/// A model that was opened.
pub struct Opened<S> {
    /// Display name: the file, the index, or `x.gguf (3 parts)`.
    pub name: String,
    /// The model, merged from its parts; its [`OpenedModel::set`] says how complete it is.
    pub model: OpenedModel,
    /// Reads and bytes of the header reading, over every file.
    pub stats: ReadStats,
    /// The source of each file read, in [`OpenedModel::parts`] order (one for a single file), for
    /// tensor previews.
    pub sources: Vec<S>,
}

/// Why nothing could be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// No model file among the names given (`ignored`: the sidecars given).
    NothingToOpen {
        /// Files given that are not models.
        ignored: Vec<String>,
    },
    /// A file could not be read at all.
    Source {
        /// The file.
        name: String,
        /// What failed.
        error: SourceError,
    },
    /// The file is not a model file, or its first bytes cannot be parsed.
    NotAModel {
        /// The file.
        name: String,
        /// The parser's error (what the bytes look like instead, with the byte offset).
        error: crate::format::Error,
    },
    /// The index could not be parsed.
    BadIndex {
        /// The index.
        name: String,
        /// Why.
        why: super::merge::IndexError,
    },
    /// An index was given without any of its shards, and none can be found beside it.
    IndexAlone {
        /// The index.
        name: String,
        /// The shard files it names, to add.
        shards: Vec<String>,
    },
    /// Parts of a set were named but none could be read.
    NoPart {
        /// Each part and why it could not be read.
        failures: Vec<(String, String)>,
    },
    /// The person cancelled.
    Cancelled,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::NothingToOpen { ignored } if ignored.is_empty() => {
                f.write_str("no file was given")
            }
            OpenError::NothingToOpen { ignored } => {
                write!(f, "none of these is a model file: {}", ignored.join(", "))
            }
            OpenError::Source { name, error } => write!(f, "{name}: {error}"),
            OpenError::NotAModel { name, error } => write!(f, "{name}: {error}"),
            OpenError::BadIndex { name, why } => write!(f, "{name}: {why}"),
            OpenError::IndexAlone { name, shards } => write!(
                f,
                "{name} is an index of {} shard{}; add the shard files with it: {}",
                shards.len(),
                if shards.len() == 1 { "" } else { "s" },
                shards.join(", ")
            ),
            OpenError::NoPart { failures } => {
                f.write_str("none of the parts could be read: ")?;
                let list: Vec<String> = failures.iter().map(|(n, w)| format!("{n}: {w}")).collect();
                f.write_str(&list.join("; "))
            }
            OpenError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for OpenError {}

impl OpenError {
    /// Whether the files are of a format this build leaves to the full module (the lean web
    /// module reads GGUF and safetensors only: [`crate::FULL`]).
    pub fn is_lean(&self) -> bool {
        matches!(self, OpenError::NotAModel { error, .. }
            if matches!(error.kind, crate::format::ErrorKind::Lean(_)))
    }
}

/// Opens the model that the files `names` (given together, in order) make: one file, a set
/// by its parts (the other parts are looked for beside the first with
/// [`Opener::available`]), or an index and its shards. Errors: see [`OpenError`]; a set
/// with missing or unreadable parts opens with what could be read, and says so in
/// [`OpenedModel::set`].
pub async fn open<O: Opener>(
    opener: &O,
    names: &[String],
    options: Options,
) -> Result<Opened<O::Source>, OpenError> {
    let plan: Plan = plan(names);
    let mut strays = plan.strays.clone();
    let (files, index, name): (Vec<String>, Option<(String, ShardIndex)>, String) =
        match &plan.target {
            Target::Nothing => {
                return Err(OpenError::NothingToOpen {
                    ignored: plan.ignored.iter().chain(&plan.config).cloned().collect(),
                })
            }
            Target::Single(n) => (vec![n.clone()], None, n.clone()),
            Target::Parts { names: parts, .. } => {
                let name = format!(
                    "{} ({} parts)",
                    parts.first().map(String::as_str).unwrap_or(""),
                    parts.len()
                );
                (parts.clone(), None, name)
            }
            Target::Index(ix) => {
                let bytes = opener
                    .read_all(ix, MAX_INDEX_BYTES)
                    .await
                    .map_err(|error| OpenError::Source {
                        name: ix.clone(),
                        error,
                    })?;
                let parsed = parse_index(&bytes).map_err(|why| OpenError::BadIndex {
                    name: ix.clone(),
                    why,
                })?;
                let shards = index_shards(ix, &parsed.files_in_order());
                strays.extend(not_in_index(names, ix, &shards));
                (shards, Some((ix.clone(), parsed)), ix.clone())
            }
        };
    // Which files of the set can be read: given, or found beside the others.
    let (present, missing): (Vec<String>, Vec<String>) = files
        .iter()
        .cloned()
        .partition(|f| given_as(names, f).is_some() || opener.available(f));
    let present: Vec<String> = present
        .into_iter()
        .map(|f| given_as(names, &f).map_or(f, str::to_string))
        .collect();
    if present.is_empty() {
        if let Some((ix, parsed)) = &index {
            return Err(OpenError::IndexAlone {
                name: ix.clone(),
                shards: parsed.files_in_order(),
            });
        }
    }
    let set_kind = match &plan.target {
        Target::Parts { ext: ".gguf", .. } => Some("gguf-split"),
        Target::Parts { ext: ".bin", .. } => Some("pytorch-shards"),
        Target::Index(i) if i.ends_with(".bin.index.json") => Some("pytorch-shards"),
        Target::Index(_) | Target::Parts { .. } => Some("safetensors-shards"),
        _ => None,
    };
    let jobs: Vec<(String, u64)> = present
        .iter()
        .map(|f| {
            let first = match &index {
                Some((_, ix)) => shard_first_read(ix.tensors_in(file_name(f))),
                None => opener.policy().first_read,
            };
            (f.clone(), first)
        })
        .collect();
    let mut missing = missing;
    let results = bounded(jobs, POOL_SIZE, |_, (file, first)| async move {
        let r = opener.read_header(&file, first).await;
        (file, r)
    })
    .await;
    if opener.cancelled() {
        return Err(OpenError::Cancelled);
    }
    let mut stats = ReadStats::default();
    let mut parts = Vec::new();
    let mut sources = Vec::new();
    let mut unreadable = Vec::new();
    let single = set_kind.is_none();
    for (file, r) in results {
        match r {
            Ok((model, s, src)) => {
                stats.reads += s.reads;
                stats.bytes += s.bytes;
                let keys = SplitKeys::of(&model);
                if set_kind == Some("gguf-split")
                    && model.format == Format::Gguf
                    && keys.no.is_none()
                    && keys.count.is_none()
                {
                    // Named as a part, but its header says nothing of a split set: another
                    // model under that name. Not merged; that part of the set is missing.
                    strays.push(Stray {
                        name: file.clone(),
                        why: "named as a part of the set, but its header has no split.* keys: another model".into(),
                    });
                    missing.push(file);
                    continue;
                }
                sources.push(src);
                parts.push((file, Ok(model)));
            }
            Err(e) if single => return Err(e),
            // The lean web module leaves a set of another format to the full one, whole.
            Err(e) if e.is_lean() => return Err(e),
            // A sibling that was not given and is not there: missing, not damaged.
            Err(OpenError::Source { error, .. })
                if error.status() == Some(404) && given_as(names, &file).is_none() =>
            {
                missing.push(file);
            }
            Err(e) => {
                let why = match e {
                    OpenError::Source { error, .. } => PartError::Source(error),
                    OpenError::NotAModel { error, .. } => PartError::Parse(error),
                    other => PartError::Other(other.to_string()),
                };
                unreadable.push((file.clone(), why.to_string()));
                parts.push((file, Err(why)));
            }
        }
    }
    let mut model = if single {
        match parts.pop() {
            Some((_, Ok(m))) => OpenedModel::from(m),
            _ => {
                return Err(OpenError::NothingToOpen {
                    ignored: Vec::new(),
                })
            }
        }
    } else if parts.is_empty() && unreadable.is_empty() {
        // Every file of the set is missing (a server without the shards its index names).
        return Err(match &index {
            Some((ix, parsed)) => OpenError::IndexAlone {
                name: ix.clone(),
                shards: parsed.files_in_order(),
            },
            None => OpenError::NoPart {
                failures: missing
                    .iter()
                    .map(|m| (m.clone(), "not found".to_string()))
                    .collect(),
            },
        });
    } else if parts.iter().all(|(_, r)| r.is_err()) {
        return Err(OpenError::NoPart {
            failures: unreadable,
        });
    } else if parts.len() == 1 && missing.len() + 1 == files.len() {
        // One part alone: shown as that file (its own offsets, its own totals), with the set
        // it belongs to described in `set`.
        match parts.pop() {
            Some((_, Ok(m))) => OpenedModel::from(m),
            // Excluded above (the one part read is not an error); no panic either way.
            _ => {
                return Err(OpenError::NoPart {
                    failures: unreadable,
                })
            }
        }
    } else {
        let missing_names: Vec<String> = missing.iter().map(|m| file_name(m).to_string()).collect();
        merge(parts, index.as_ref().map(|(_, ix)| ix), &missing_names).map_err(|why| {
            OpenError::NoPart {
                failures: vec![(name.clone(), why.to_string())],
            }
        })?
    };
    // (The lean web module reads no ONNX: a `cfg`, as an unreachable `.await` stays linked.)
    #[cfg(feature = "full")]
    if single && model.onnx().is_some_and(|o| !o.external.is_empty()) {
        let model_name = present.first().map_or("", String::as_str);
        let used = open_side_files(opener, &mut model, model_name, names, &mut sources).await;
        strays.retain(|s| !used.iter().any(|u| normal(u) == normal(&s.name)));
    }
    model.set = match model.set.take() {
        // Merged: what merge recorded, with the strays and the index's name.
        Some(mut set) => {
            let split_count = model.parts.first().and_then(|p| p.split.count);
            let expected = split_count.unwrap_or(0).max(u64::from(set.files_expected));
            set.files_expected = u32::try_from(expected).unwrap_or(u32::MAX);
            set.missing = missing.clone();
            set.strays = strays;
            set.index = index.as_ref().map(|(n, _)| n.clone());
            Some(set)
        }
        None => set_info(&model, set_kind, &files, &missing, strays, index.as_ref()),
    };
    if let Some(wants) = options.wants_config {
        if wants(&model) {
            read_config(opener, &mut model, plan.config.as_deref(), &present).await;
        }
    }
    if let (Some(wanted), true) = (options.tensor_data, model.parts.is_empty()) {
        if let Some(src) = sources.first_mut() {
            for (tensor, offset, len) in wanted(&model) {
                if let Ok(b) = src.read(offset, len).await {
                    model.sidecar.tensor_data.insert(tensor, b);
                }
            }
        }
    }
    let name = match &model.set {
        Some(s) if s.files_read.len() == 1 && !s.complete() => s.files_read[0].clone(),
        // Some of a set: the title says how many of its files were read.
        Some(s) if !s.kind.is_empty() && !s.complete() => format!(
            "{} ({} of {} files)",
            files.first().map(String::as_str).unwrap_or(""),
            s.files_read.len(),
            s.files_expected
        ),
        _ => name,
    };
    Ok(Opened {
        name,
        model,
        stats,
        sources,
    })
}

/// The given name whose file name is `f`'s (`./dir/x.gguf` given for `dir/x.gguf`).
/// The given name that is the path `f` (`./dir/x.gguf` given for `dir/x.gguf`). A file of
/// the same name in another folder is not it.
fn given_as<'a>(names: &'a [String], f: &str) -> Option<&'a str> {
    let f = normal(f);
    names.iter().find(|g| normal(g) == f).map(String::as_str)
}

/// The set of one file read alone: a part of a set (by its name, or by its `split.count`), or
/// a single file with strays given beside it; `None` for a single file and nothing else.
fn set_info(
    m: &Model,
    kind: Option<&'static str>,
    files: &[String],
    missing: &[String],
    strays: Vec<Stray>,
    index: Option<&(String, ShardIndex)>,
) -> Option<SetInfo> {
    let split_count = m
        .get("split.count")
        .and_then(Value::as_u64)
        .filter(|&c| c > 1);
    let kind = match kind {
        Some(k) => k,
        // A single file that says it is one part of a split set (renamed, or named by URL).
        None if split_count.is_some() && m.format == Format::Gguf => "gguf-split",
        None if strays.is_empty() => return None,
        None => "",
    };
    let files_expected = if kind.is_empty() {
        1
    } else {
        u32::try_from(
            split_count
                .unwrap_or(files.len() as u64)
                .max(files.len() as u64),
        )
        .unwrap_or(u32::MAX)
    };
    let position = files.iter().position(|f| !missing.contains(f));
    let read: Vec<String> = position.map(|p| files[p].clone()).into_iter().collect();
    // The part's number: its place in the set's names, else (a renamed part) its split.no.
    let part = match (kind, files.len()) {
        ("", _) => None,
        (_, 1) => m
            .get("split.no")
            .and_then(Value::as_u64)
            .map(|n| n.saturating_add(1)),
        _ => position.map(|p| p as u64 + 1),
    };
    Some(SetInfo {
        kind,
        files_expected,
        files_read: read,
        missing: missing.to_vec(),
        model_tensors: match index {
            Some((_, ix)) => Some(ix.weight_map.len() as u64),
            None => m.get("split.tensors.count").and_then(Value::as_u64),
        },
        index: index.map(|(n, _)| n.clone()),
        strays,
        part,
        shard_index: index.map(|(_, ix)| ix.clone()),
        ..SetInfo::default()
    })
}

/// Opens the side files of an ONNX model's external data ([`Opener::open_unread`]: none of
/// their bytes is read) and records them in the model ([`onnx::attach_side_file`]); their
/// sources follow the model file's in `sources`. A side file is the location beside the model
/// file (`dir/` + location), a file given with the model under that name, or one given whose
/// file name is the location's (files dropped together on the page); a location outside the
/// model's folder is never opened ([`onnx::location_problem`]). Returns the names opened.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
async fn open_side_files<O: Opener>(
    opener: &O,
    model: &mut Model,
    model_name: &str,
    names: &[String],
    sources: &mut Vec<O::Source>,
) -> Vec<String> {
    let Some(mut info) = model.detail.take_onnx() else {
        return Vec::new();
    };
    let dir = super::recognise::dir_prefix(model_name);
    let mut used = Vec::new();
    for location in onnx::side_locations(&info) {
        let rel = onnx::side_path(&location);
        let beside = format!("{dir}{rel}");
        let name = given_as(names, &beside)
            .map(str::to_string)
            .or_else(|| {
                names
                    .iter()
                    .find(|n| file_name(n) == file_name(&rel) && normal(n) != normal(model_name))
                    .cloned()
            })
            .or_else(|| opener.available(&beside).then(|| beside.clone()));
        let Some(name) = name else {
            onnx::side_file_missing(
                &mut info,
                &location,
                &format!(
                    "\"{rel}\" was not given with the model and is not beside it: give it too \
                     (drop both files together, or keep it beside the .onnx)"
                ),
            );
            continue;
        };
        match opener.open_unread(&name).await {
            Ok(src) => {
                let size = src.size();
                let known = (size != u64::MAX).then_some(size);
                onnx::attach_side_file(
                    &mut info,
                    &model.tensors,
                    &location,
                    &name,
                    known,
                    sources.len(),
                );
                sources.push(src);
                used.push(name);
            }
            Err(e) => onnx::side_file_missing(
                &mut info,
                &location,
                &format!("\"{rel}\" could not be opened ({name}: {e})"),
            ),
        }
    }
    model.detail = crate::format::Detail::Onnx(info);
    used
}

/// Opens one file and reads its header (the default [`Opener::read_header`]).
pub async fn read_one<O: Opener + ?Sized>(
    opener: &O,
    name: &str,
    first: u64,
) -> Result<(Model, ReadStats, O::Source), OpenError> {
    let mut src = opener
        .open(name, first)
        .await
        .map_err(|error| OpenError::Source {
            name: name.to_string(),
            error,
        })?;
    let policy = ReadPolicy {
        first_read: first,
        ..opener.policy()
    };
    match read_model(&mut src, &policy).await {
        Ok((m, s)) => Ok((m, s, src)),
        Err(error) => Err(OpenError::NotAModel {
            name: name.to_string(),
            error,
        }),
    }
}

/// Reads the config a quantised layout needs: the one given, else `config.json` beside the
/// first file (or AutoGPTQ's `quantize_config.json` when `config.json` has no quantisation
/// section); attached to the model's sidecar, or the reason it could not be used.
async fn read_config<O: Opener>(
    opener: &O,
    m: &mut OpenedModel,
    given: Option<&str>,
    files: &[String],
) {
    let dir = files
        .first()
        .map_or("", |f| super::recognise::dir_prefix(f));
    let candidates: Vec<String> = match given {
        Some(g) => vec![g.to_string()],
        None => ["config.json", "quantize_config.json"]
            .iter()
            .map(|c| format!("{dir}{c}"))
            .filter(|c| opener.available(c))
            .collect(),
    };
    let mut chosen: Option<(String, Result<Vec<u8>, SourceError>)> = None;
    for c in candidates {
        let r = opener.read_all(&c, MAX_CONFIG_BYTES).await;
        if r.as_ref().is_err_and(|e| e.status() == Some(404)) {
            // Not there after all (a server's sibling): as if absent.
            continue;
        }
        let has_section = r.as_ref().is_ok_and(|b| {
            serde_json::from_slice::<serde_json::Value>(b).is_ok_and(|v| {
                ["quantization_config", "quantization", "compression_config"]
                    .iter()
                    .any(|k| v.get(k).is_some())
            })
        });
        let quantize_config = file_name(&c) == "quantize_config.json";
        let keep = chosen.is_none() || quantize_config;
        if keep {
            chosen = Some((c, r));
        }
        if has_section {
            break;
        }
    }
    let Some((name, r)) = chosen else {
        return;
    };
    match r {
        Ok(bytes) => m.sidecar.attach_config(&bytes, &name),
        Err(e) => {
            m.sidecar.attach_config(&[], &name);
            m.sidecar.config_error = Some(format!("{name}: {e}"));
        }
    }
}
