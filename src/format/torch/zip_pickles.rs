//! Which pickles of a zip checkpoint a loader unpickles, and reading them.
//!
//! - **The main pickle** is chosen as PyTorch's reader chooses it
//!   (caffe2/serialize/inline_container.cc, `PyTorchStreamReader::init`): the archive's folder
//!   is the first member's name up to its first `/`, and `torch.load` reads
//!   `<folder>/data.pkl` (TorchScript's `torch.jit.load` also `<folder>/constants.pkl`),
//!   names compared without case as miniz does. A `data.pkl` elsewhere is not what PyTorch
//!   loads: it is judged like any other pickle, and the archive gets a warning.
//! - **Every other `.pkl` member** is read for its imports too (torch.package's importer and a
//!   program's own code unpickle them), up to [`MAX_OTHER_PICKLES`] of them and
//!   [`MAX_OTHER_PICKLE_BYTES`] in all; past that, and for a pickle that is compressed in a way
//!   not inflated here or larger than [`MAX_PICKLE_BYTES`], the pickle is listed as
//!   [`Unchecked`]: the file is *not fully checked*, never safe.
//!
//! All the bytes needed are asked for in one round ([`Stop::NeedRanges`]) before any pickle is
//! parsed, so each pickle is parsed once.

use super::{info, PickleInfo, Unchecked, MAX_PICKLE_BYTES};
use crate::format::error::{Error, ErrorKind, Warning};
use crate::format::held::Held;
use crate::format::pickle::{self, Limits, Pickle};
use crate::format::zip::{self, Entry, Need, Stop};

/// Pickles besides the main one and `constants.pkl` read for their imports. No loader has
/// such a limit (torch.package unpickles whichever pickle a program asks for); past it the
/// remaining pickles are [`Unchecked`], so the file is *not fully checked*.
pub const MAX_OTHER_PICKLES: usize = 256;

/// Bytes of those other pickles read in all (each also at most [`MAX_PICKLE_BYTES`]); past it
/// the remaining ones are [`Unchecked`]. No loader has such a limit.
pub const MAX_OTHER_PICKLE_BYTES: u64 = 64 << 20;

/// Slack read past a member's name for the local header's extra field (PyTorch's is at most
/// 4 + 63 bytes of padding, plus 28 of ZIP64).
const LOCAL_EXTRA_GUESS: u64 = 256;

/// The pickles of an archive a loader may unpickle.
pub(super) struct Chosen<'e> {
    /// The pickle `torch.load` reads (`<folder>/data.pkl`), or the shallowest `data.pkl` when
    /// PyTorch's reader would find none (with a warning).
    pub main: &'e Entry,
    /// `<folder>/constants.pkl` (TorchScript).
    pub constants: Option<&'e Entry>,
    /// The other `.pkl` members to read.
    pub others: Vec<&'e Entry>,
    /// Those not read.
    pub unchecked: Vec<Unchecked>,
    /// What a reader should know about the choice.
    pub warnings: Vec<Warning>,
}

/// The folder PyTorch's reader takes the archive's records from: the first member's name up
/// to its first `/`; `None` when the first member is not in a folder (PyTorch refuses the
/// archive: "file in archive is not in a subdirectory").
pub fn archive_folder(entries: &[Entry]) -> Option<&str> {
    entries
        .first()
        .and_then(|e| e.name.split_once('/'))
        .map(|(d, _)| d)
}

/// Chooses the pickles of `entries` (`by_name`: a member by name, compared without case).
/// Error: no `data.pkl` at all (not a PyTorch checkpoint).
pub(super) fn choose<'e>(
    entries: &'e [Entry],
    by_name: &dyn Fn(&str) -> Option<&'e Entry>,
    cd_offset: u64,
) -> Result<Chosen<'e>, Error> {
    let mut warnings = Vec::new();
    let folder = archive_folder(entries);
    let torch_main = folder.and_then(|d| by_name(&format!("{d}/data.pkl")));
    let main = match torch_main {
        Some(m) => m,
        None => {
            let is_data = |e: &&Entry| {
                let l = e.name.to_lowercase();
                l == "data.pkl" || l.ends_with("/data.pkl")
            };
            let depth = |e: &Entry| e.name.matches('/').count();
            let shallowest = entries.iter().filter(is_data).map(depth).min();
            let fallback = shallowest.and_then(|d| {
                by_name(&entries.iter().rfind(|e| is_data(e) && depth(e) == d)?.name)
            });
            let Some(m) = fallback else {
                let names: Vec<&str> = entries.iter().take(5).map(|e| e.name.as_str()).collect();
                return Err(Error::new(
                    "zip central directory",
                    cd_offset,
                    ErrorKind::NotAModel(format!(
                        "a zip archive without data.pkl, so not a PyTorch checkpoint (its first \
                         members: {})",
                        names.join(", ")
                    )),
                ));
            };
            let why = match folder {
                Some(d) => format!(
                    "PyTorch's reader takes the archive's folder from the first member \
                     (\"{d}/\") and finds no {d}/data.pkl there: torch.load refuses this archive"
                ),
                None => "the first member is not in a folder, so PyTorch's reader refuses this \
                         archive"
                    .to_string(),
            };
            warnings.push(Warning {
                field: format!("zip member \"{}\"", m.name),
                offset: m.central_offset,
                message: format!("{why}; this data.pkl is listed and every pickle is judged"),
            });
            m
        }
    };
    let root = main.name.rsplit_once('/').map_or("", |(d, _)| d);
    let slash = if root.is_empty() { "" } else { "/" };
    let constants = by_name(&format!("{root}{slash}constants.pkl"));
    let mut others = Vec::new();
    let mut unchecked = Vec::new();
    let mut bytes = 0u64;
    for e in entries
        .iter()
        .filter(|e| e.name.to_lowercase().ends_with(".pkl"))
    {
        if std::ptr::eq(e, main) || constants.is_some_and(|c| std::ptr::eq(e, c)) {
            continue;
        }
        let cost = e.size.max(e.compressed);
        let next = bytes.saturating_add(cost);
        if others.len() >= MAX_OTHER_PICKLES || next > MAX_OTHER_PICKLE_BYTES {
            unchecked.push(Unchecked {
                name: e.name.clone(),
                offset: e.local_header,
                why: format!(
                    "a pickle past the {MAX_OTHER_PICKLES} other pickles or \
                     {MAX_OTHER_PICKLE_BYTES} bytes this tool reads besides data.pkl"
                ),
            });
            continue;
        }
        bytes = next;
        others.push(e);
    }
    Ok(Chosen {
        main,
        constants,
        others,
        unchecked,
        warnings,
    })
}

/// Why a member's pickle bytes are not at hand.
enum Missing {
    /// Read these bytes first.
    Need(Need),
    /// It cannot be read.
    Not(NotRead),
}

/// Why a member's pickle bytes cannot be read (kept as text in [`Unchecked::why`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum NotRead {
    /// The member is larger than [`MAX_PICKLE_BYTES`]: its compressed or its uncompressed size
    /// in bytes, whichever is larger.
    TooLarge(u64),
    /// Its local header is bad.
    Header(Error),
    /// Its local header could not be read.
    UnreadableHeader,
    /// Deflated, it inflates to more than [`MAX_PICKLE_BYTES`].
    InflatesTooLarge,
    /// Deflated, its bytes are not a deflate stream.
    DoesNotInflate,
    /// A compression method other than stored and deflate (the method's number), or encryption.
    Method(u16),
}

impl std::fmt::Display for NotRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRead::TooLarge(bytes) => write!(
                f,
                "a {bytes}-byte pickle, more than this tool reads ({MAX_PICKLE_BYTES})"
            ),
            NotRead::Header(e) => write!(f, "{e}"),
            NotRead::UnreadableHeader => write!(f, "unreadable local header"),
            NotRead::InflatesTooLarge => write!(
                f,
                "a deflated pickle that inflates to more than the {MAX_PICKLE_BYTES} bytes \
                 this tool reads"
            ),
            NotRead::DoesNotInflate => write!(f, "a deflated pickle that does not inflate"),
            NotRead::Method(m) => write!(
                f,
                "compression method {m} (or encryption): this pickle cannot be read"
            ),
        }
    }
}

impl std::error::Error for NotRead {}

/// The bytes of pickle member `e` from `held`: their absolute start and the bytes (inflated
/// when deflated; offsets in the pickle are then within the inflated bytes, from `start`).
fn member_bytes<'h>(
    held: &'h Held,
    e: &Entry,
    cd_offset: u64,
) -> Result<(u64, std::borrow::Cow<'h, [u8]>), Missing> {
    if e.compressed > MAX_PICKLE_BYTES || e.size > MAX_PICKLE_BYTES {
        return Err(Missing::Not(NotRead::TooLarge(e.compressed.max(e.size))));
    }
    let local = held.from(e.local_header).unwrap_or(&[]);
    let start = match zip::data_offset(local, e, cd_offset) {
        Ok(s) => s,
        Err(Stop::NeedRange(_) | Stop::NeedMore(_)) => {
            let len = (zip::LOCAL_LEN + e.name.len() as u64 + LOCAL_EXTRA_GUESS)
                .saturating_add(e.compressed)
                .min(cd_offset.saturating_sub(e.local_header));
            return Err(Missing::Need(Need {
                offset: e.local_header,
                len,
            }));
        }
        Err(Stop::Fail(f)) => return Err(Missing::Not(NotRead::Header(f))),
        Err(Stop::NeedRanges(_)) => return Err(Missing::Not(NotRead::UnreadableHeader)),
    };
    let Some(b) = held.get(start, e.compressed) else {
        return Err(Missing::Need(Need {
            offset: e.local_header,
            len: start - e.local_header + e.compressed,
        }));
    };
    if e.is_stored() {
        return Ok((start, std::borrow::Cow::Borrowed(b)));
    }
    if e.method == zip::METHOD_DEFLATE && e.flags & 1 == 0 {
        // PyTorch's reader inflates a deflated pickle: so do we, to judge it, never past
        // MAX_PICKLE_BYTES whatever the directory says its size is.
        return match miniz_oxide::inflate::decompress_to_vec_with_limit(
            b,
            MAX_PICKLE_BYTES as usize,
        ) {
            Ok(v) => Ok((start, std::borrow::Cow::Owned(v))),
            Err(d) if d.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                Err(Missing::Not(NotRead::InflatesTooLarge))
            }
            Err(_) => Err(Missing::Not(NotRead::DoesNotInflate)),
        };
    }
    Err(Missing::Not(NotRead::Method(e.method)))
}

/// A pickle read whole, its tree kept (the main pickle and `constants.pkl` list tensors).
pub(super) struct Tree<'e> {
    pub entry: &'e Entry,
    pub start: u64,
    pub pickle: Pickle,
    pub error: Option<Error>,
}

/// What [`read`] gives.
pub(super) struct Read<'e> {
    /// The main pickle and `constants.pkl`, when they could be read.
    pub trees: Vec<Tree<'e>>,
    /// The reports of the other pickles (their trees dropped once judged).
    pub others: Vec<PickleInfo>,
    /// Pickles not read, with [`Chosen::unchecked`].
    pub unchecked: Vec<Unchecked>,
}

/// Reads the chosen pickles from `held`, or asks for every byte range still missing at once.
pub(super) fn read<'e>(held: &Held, cd_offset: u64, chosen: Chosen<'e>) -> Result<Read<'e>, Stop> {
    let all = || {
        std::iter::once(chosen.main)
            .chain(chosen.constants)
            .chain(chosen.others.iter().copied())
    };
    let needs: Vec<Need> = all()
        .filter_map(|e| match member_bytes(held, e, cd_offset) {
            Err(Missing::Need(n)) => Some(n),
            _ => None,
        })
        .collect();
    if !needs.is_empty() {
        return Err(Stop::NeedRanges(needs));
    }
    let mut out = Read {
        trees: Vec::new(),
        others: Vec::new(),
        unchecked: chosen.unchecked,
    };
    for (k, e) in all().enumerate() {
        let (start, b) = match member_bytes(held, e, cd_offset) {
            Ok(x) => x,
            Err(stop) => {
                let why = match stop {
                    Missing::Not(why) => why.to_string(),
                    Missing::Need(n) => format!("its bytes at {} were not read", n.offset),
                };
                out.unchecked.push(Unchecked {
                    name: e.name.clone(),
                    offset: e.local_header,
                    why,
                });
                continue;
            }
        };
        let (p, mut err) = pickle::parse_partial(&b, start, &Limits::DEFAULT);
        if let Some(err) = err.as_mut() {
            err.field = format!("{}: {}", e.name, err.field);
        }
        if k < 1 + usize::from(chosen.constants.is_some()) {
            out.trees.push(Tree {
                entry: e,
                start,
                pickle: p,
                error: err,
            });
        } else {
            out.others
                .push(info(e.name.clone(), &p, start, err.as_ref()));
        }
    }
    Ok(out)
}
