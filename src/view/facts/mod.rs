//! The summary card's figures and the architecture card's lines, as text.

use crate::format::Endian;
use crate::open::OpenedModel;
use crate::source::ReadStats;
use crate::summary::{ArchCard, Summary};
use crate::text;
use crate::view::node::{self, Node};

/// One figure of the summary card.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// What it is ("parameters").
    pub label: &'static str,
    /// The figure as a person reads it ("268.1 M").
    pub text: String,
    /// A second line with the exact number or context ("268,098,176"), if any.
    pub detail: Option<String>,
    /// The `data-testid` of the figure, for the ones tests read.
    pub testid: Option<&'static str>,
    /// The raw number for `data-value` (integers as digits, floats as the full-precision
    /// shortest round-trip text of the `f64`).
    pub value: Option<String>,
    /// How the figure reads, for a verdict (`data-severity` and class `severity-…` of its
    /// `div.fact`): [`Severity::Danger`], [`Severity::Caution`] or [`Severity::Safe`].
    pub severity: Option<Severity>,
}

/// How a verdict figure reads (the pickle's): its words say it, the style only repeats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Loading the file can run code (`dangerous`).
    Danger,
    /// Not known to be safe: imports this tool does not know, or pickles not read whole.
    Caution,
    /// Every import a known rebuild, every pickle read whole.
    Safe,
}

impl Severity {
    /// `danger`, `caution`, `safe`: the `data-severity` value (and class `severity-…`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Danger => "danger",
            Severity::Caution => "caution",
            Severity::Safe => "safe",
        }
    }
}

impl Fact {
    fn new(label: &'static str, text: String, detail: Option<String>) -> Self {
        Fact {
            label,
            text,
            detail,
            testid: None,
            value: None,
            severity: None,
        }
    }

    fn hook(mut self, testid: &'static str, value: Option<String>) -> Self {
        self.testid = Some(testid);
        self.value = value;
        self
    }
}

/// The file's format as the page names it, in the summary card's format figure and under the
/// file name alike: `GGUF v3`, `safetensors`, `PyTorch (zip)`, `TorchScript (zip)`,
/// `PyTorch (legacy format)`, `Python pickle`, `NumPy`, `NumPy (.npz)`, `ONNX` (`model`: the
/// model `s` summarises, whose archive tells a TorchScript archive, a plain pickle and an
/// `.npz` apart).
pub fn format_name(s: &Summary, model: &OpenedModel) -> String {
    match model.archive().map(|a| a.kind) {
        Some("torchscript") => "TorchScript (zip)".to_string(),
        Some("pickle") => "Python pickle".to_string(),
        Some("npz") => "NumPy (.npz)".to_string(),
        _ => format_label(s),
    }
}

/// The format from the summary alone: `GGUF v3`, `safetensors`, `PyTorch (zip)`.
fn format_label(s: &Summary) -> String {
    match (s.format, s.version) {
        ("gguf", Some(v)) => format!("GGUF v{v}"),
        ("gguf", None) => "GGUF".into(),
        ("pytorch", _) => "PyTorch (zip)".into(),
        ("pytorch-legacy", _) => "PyTorch (legacy format)".into(),
        ("onnx", _) => "ONNX".into(),
        ("numpy", _) => "NumPy".into(),
        (other, _) => other.to_string(),
    }
}

/// ` · 5.3% of the file` (`files`: how many files `whole` is the size of; more than one:
/// `of the files`).
fn of(part: u64, whole: u64, files: usize) -> String {
    if whole == 0 {
        return String::new();
    }
    let what = if files > 1 { "the files" } else { "the file" };
    let pct = part as f64 * 100.0 / whole as f64;
    if pct > 0.0 && pct < 0.1 {
        format!(" · <0.1% of {what}")
    } else {
        format!(" · {pct:.1}% of {what}")
    }
}

/// Tensors whose values are not weights ([`crate::summary::counts_as_weights`]: NumPy
/// structured, text and object arrays), which bits per weight leaves out.
fn not_weights(model: &OpenedModel) -> usize {
    model
        .tensors
        .iter()
        .filter(|t| !crate::summary::counts_as_weights(model, t))
        .count()
}

/// The tensor bytes' second line: `1,024 bytes · 5.3% of the file`; when tensors share
/// storages (tied weights, views), the share of the file is that of the storages, each
/// counted once: `2,560 bytes summed per tensor; 8 storages hold 1,280 bytes · 52.9% of the
/// file` (the per-tensor sum counts a shared storage again for each tensor).
fn tensor_bytes_detail(s: &Summary, model: &OpenedModel) -> String {
    let files = model.parts.len();
    match crate::summary::storage_totals(model).filter(|t| t.bytes != s.tensor_bytes) {
        Some(t) => format!(
            "{} bytes summed per tensor; {} storage{} hold{} {} bytes{}",
            text::thousands(s.tensor_bytes),
            text::thousands(t.storages),
            if t.storages == 1 { "" } else { "s" },
            if t.storages == 1 { "s" } else { "" },
            text::thousands(t.bytes),
            of(t.bytes, s.file_size, files)
        ),
        None => format!(
            "{} bytes{}",
            text::thousands(s.tensor_bytes),
            of(s.tensor_bytes, s.file_size, files)
        ),
    }
}

/// The summary card, in the CLI's order: format, file size, header size, metadata, tensors,
/// parameters, tensor bytes, bits per weight. `model` says how much was actually parsed.
pub fn summary_facts(s: &Summary, model: &OpenedModel) -> Vec<Fact> {
    let mut out = Vec::new();
    let partial = s
        .set
        .as_ref()
        .is_some_and(|set| !set.kind.is_empty() && !set.complete());
    // A part alone: its figures are this file's, not the model's.
    let one_file = s.set.as_ref().is_some_and(|set| set.files_read.len() <= 1);
    // (the whole model's label, one file's, several files')
    let label = |labels: (&'static str, &'static str, &'static str)| match (partial, one_file) {
        (false, _) => labels.0,
        (true, true) => labels.1,
        (true, false) => labels.2,
    };
    if let Some(f) = s.set.as_ref().and_then(|set| set_fact(set, s.tensor_count)) {
        out.push(f);
    }
    let mut fmt_detail = match s.endianness {
        Endian::Big => "big-endian".to_string(),
        Endian::Little => "little-endian".to_string(),
    };
    if let Some(a) = s.alignment {
        fmt_detail.push_str(&format!(" · alignment {a}"));
    }
    out.push(Fact::new("format", format_name(s, model), Some(fmt_detail)));
    out.push(Fact::new(
        "file size",
        text::bytes(s.file_size),
        Some(format!("{} bytes", text::thousands(s.file_size))),
    ));
    out.push(match &model.error {
        // The header's end is not known when parsing stopped early.
        Some(e) => Fact::new(
            "header size",
            "unknown".to_string(),
            Some(format!(
                "parsing stopped at byte {}",
                text::thousands(e.offset)
            )),
        ),
        None => Fact::new(
            "header size",
            text::bytes(s.header_size),
            Some(format!(
                "{} bytes{}",
                text::thousands(s.header_size),
                of(s.header_size, s.file_size, model.parts.len())
            )),
        ),
    });
    let read_meta = model.metadata.len() as u64;
    out.push(Fact::new(
        "metadata keys",
        text::thousands(s.metadata_count),
        (read_meta != s.metadata_count)
            .then(|| format!("{} read before the error", text::thousands(read_meta))),
    ));
    let read_tensors = s.tensors.len() as u64;
    out.push(
        Fact::new(
            label(("tensors", "tensors in this file", "tensors in these files")),
            text::thousands(s.tensor_count),
            (read_tensors != s.tensor_count)
                .then(|| format!("{} read before the error", text::thousands(read_tensors))),
        )
        .hook("tensor-count", Some(s.tensor_count.to_string())),
    );
    let q = s.quantization.as_ref();
    out.push(
        Fact::new(
            label((
                "parameters",
                "parameters in this file",
                "parameters in these files",
            )),
            text::params(s.parameter_count),
            Some(match q {
                Some(q) => format!(
                    "{} logical ({} values stored)",
                    text::thousands(s.parameter_count),
                    text::thousands(q.stored_elements)
                ),
                None => text::thousands(s.parameter_count),
            }),
        )
        .hook("parameter-count", Some(s.parameter_count.to_string())),
    );
    if let Some(o) = &s.optimizer_state {
        out.push(
            Fact::new(
                "optimizer state",
                format!(
                    "{} tensor{}, {} values",
                    text::thousands(o.tensors),
                    if o.tensors == 1 { "" } else { "s" },
                    text::thousands(o.values)
                ),
                Some(format!(
                    "{}: a training checkpoint's optimizer state, not counted in the parameters",
                    text::bytes(o.bytes)
                )),
            )
            .hook("optimizer-state", Some(o.values.to_string())),
        );
    }
    out.push(Fact::new(
        label((
            "tensor bytes",
            "tensor bytes in this file",
            "tensor bytes in these files",
        )),
        text::bytes(s.tensor_bytes),
        Some(tensor_bytes_detail(s, model)),
    ));
    out.push(
        Fact::new(
            "bits per weight",
            s.bits_per_weight.map_or("–".into(), |b| format!("{b:.3}")),
            Some(match (s.bits_per_weight, q, not_weights(model)) {
                (Some(_), Some(_), _) => {
                    "tensor bytes × 8 ÷ logical parameters (scales and zero points count as bytes)"
                        .into()
                }
                (Some(_), None, 0) => "tensor bytes × 8 ÷ parameters".into(),
                (Some(_), None, n) => format!(
                    "bytes × 8 ÷ elements of the arrays of numbers ({n} structured, text or \
                     object array{} apart: {} elements are not weights)",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "its" } else { "their" }
                ),
                (None, _, 0) => "no parameters".into(),
                (None, _, _) => {
                    "no arrays of numbers (structured, text or object arrays hold no weights)"
                        .into()
                }
            }),
        )
        .hook("bits-per-weight", s.bits_per_weight.map(|b| b.to_string())),
    );
    if let Some(q) = q {
        out.push(quant_fact(q));
    }
    if let Some(f) = model
        .archive()
        .filter(|a| !a.pickles.is_empty() || !a.unchecked.is_empty())
        .map(pickle_fact)
    {
        out.push(f);
    }
    out
}

/// The safety verdict of a PyTorch file's pickles: `dangerous`, `not fully checked` (a pickle
/// a loader may unpickle was not read to its end: [`crate::format::torch::Archive::fully_checked`]),
/// `unknown imports` or `safe` (every import a known tensor or container rebuild, every pickle
/// read whole), with what was imported.
pub fn pickle_fact(a: &crate::format::torch::Archive) -> Fact {
    use crate::format::pickle::Verdict;
    let count = |v: Verdict| a.imports().filter(|i| i.verdict == v).count();
    let (dangerous, unknown) = (count(Verdict::Dangerous), count(Verdict::Unknown));
    let names = |v: Verdict| {
        let mut n: Vec<String> = a
            .imports()
            .filter(|i| i.verdict == v)
            .map(|i| text::escape(&format!("{}.{}", i.module, i.name)))
            .collect();
        n.dedup();
        let more = n.len().saturating_sub(3);
        n.truncate(3);
        let mut s = n.join(", ");
        if more > 0 {
            s.push_str(&format!(" and {more} more"));
        }
        s
    };
    let total = a.imports().count();
    let imports = |n: usize| if n == 1 { "1 import" } else { "imports" };
    // A NumPy file's pickles are its object arrays: np.load runs them only when asked to.
    let numpy = matches!(a.kind, "npy" | "npz");
    let needs = if numpy {
        format!(
            "; object arrays: loading needs {}, which unpickles them",
            a.loader()
        )
    } else {
        String::new()
    };
    let (value, detail, hook, severity) = if dangerous > 0 {
        (
            "dangerous".to_string(),
            format!(
                "{dangerous} {} that can run code: {}; {} would run it (weightpeek only \
                 reads the file)",
                imports(dangerous).trim_start_matches("1 "),
                names(Verdict::Dangerous),
                a.loader()
            ),
            "dangerous",
            Severity::Danger,
        )
    } else if !a.fully_checked() {
        let stopped = a.pickles.iter().filter(|p| p.stopped.is_some()).count();
        let unread = a.unchecked.len();
        let what = match (stopped, unread) {
            (s, 0) => format!(
                "{s} pickle{} not read to its end",
                if s == 1 { "" } else { "s" }
            ),
            (0, u) => format!("{u} pickle{} not read", if u == 1 { "" } else { "s" }),
            (s, u) => format!(
                "{s} pickle{} not read to its end and {u} not read",
                if s == 1 { "" } else { "s" }
            ),
        };
        (
            "not fully checked".to_string(),
            format!(
                "{what}: what was not read may run code when loaded ({total} imports read, \
                 {unknown} not known to this tool)"
            ),
            "unchecked",
            Severity::Caution,
        )
    } else if unknown > 0 {
        (
            "unknown imports".to_string(),
            format!(
                "{unknown} {} not known to this tool: {}; {}",
                imports(unknown).trim_start_matches("1 "),
                names(Verdict::Unknown),
                if numpy {
                    "np.load(allow_pickle=True) imports them (without allow_pickle=True, \
                     np.load refuses object arrays)"
                } else {
                    "torch.load(weights_only=True) refuses them"
                }
            ),
            "unknown",
            Severity::Caution,
        )
    } else {
        (
            "safe".to_string(),
            format!("all {total} imports are known tensor and container rebuilds{needs}"),
            "safe",
            Severity::Safe,
        )
    };
    let mut f =
        Fact::new("pickle", value, Some(detail)).hook("pickle-verdict", Some(hook.to_string()));
    f.severity = Some(severity);
    f
}

/// The summary card's first figure for a model opened from a set of files, or from one file of
/// a set (`tensors_read`: the tensors in the files read): `part 1 of 3` with "6 of the
/// model's 18 tensors are in this file; …; missing: …", or
/// `3 parts` for a whole set. `None` for a single file with nothing given beside it.
pub fn set_fact(set: &crate::open::SetInfo, tensors_read: u64) -> Option<Fact> {
    let names = |v: &[String]| {
        let shown: Vec<String> = v
            .iter()
            .take(8)
            .map(|n| text::escape(crate::open::recognise::file_name(n)))
            .collect();
        let more = v.len().saturating_sub(shown.len());
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    // At most 3 named here; the Checks card lists every one.
    let strays = (!set.strays.is_empty()).then(|| {
        let more = set.strays.len().saturating_sub(3);
        let mut list: Vec<String> = set
            .strays
            .iter()
            .take(3)
            .map(|s| {
                format!(
                    "{} ({})",
                    text::escape(crate::open::recognise::file_name(&s.name)),
                    text::escape(&s.why)
                )
            })
            .collect();
        if more > 0 {
            list.push(format!("and {more} more"));
        }
        format!("not merged: {}", list.join("; "))
    });
    if set.kind.is_empty() {
        return strays.map(|d| {
            Fact::new(
                "other files",
                format!("{} not merged", set.strays.len()),
                Some(d),
            )
            .hook("set", Some("strays".into()))
        });
    }
    let word = crate::open::findings::member_word(set);
    let read = set.files_read.len() as u64;
    let expected = u64::from(set.files_expected);
    let (text, value) = if set.complete() {
        (format!("{expected} {word}s"), "complete")
    } else if read == 1 {
        let n = set.part.map_or_else(|| "1".to_string(), text::thousands);
        (format!("{word} {n} of {expected}"), "partial")
    } else {
        (format!("{read} of {expected} {word}s"), "partial")
    };
    let mut detail = Vec::new();
    if !set.complete() {
        let (here, whose) = if read == 1 {
            ("this file", "this file's")
        } else {
            ("these files", "these files'")
        };
        match set.model_tensors {
            Some(t) => detail.push(format!(
                "{} of the model's {} tensors are in {here}; the figures below are {whose}",
                text::thousands(tensors_read),
                text::thousands(t)
            )),
            None => detail.push(format!(
                "the figures below are {whose}, not the whole model's"
            )),
        }
        if !set.missing.is_empty() {
            detail.push(format!("missing: {}", names(&set.missing)));
        }
        if !set.unreadable.is_empty() {
            let u: Vec<String> = set.unreadable.iter().map(|s| s.name.clone()).collect();
            detail.push(format!("unreadable (see the checks): {}", names(&u)));
        }
    }
    if let Some(st) = strays {
        detail.push(st);
    }
    Some(
        Fact::new("set", text, (!detail.is_empty()).then(|| detail.join("; ")))
            .hook("set", Some(value.into())),
    )
}

/// The summary card's quantisation figure: the layout line, and where bits and group size
/// came from.
pub fn quant_fact(q: &crate::summary::quant_st::QuantReport) -> Fact {
    let weights = q.weights.len() as u64;
    let detail = format!(
        "{} quantised weight{}; {}",
        text::thousands(weights),
        if weights == 1 { "" } else { "s" },
        match &q.config_source {
            Some(c) if !c.is_empty() => format!("config: {}", text::escape(c)),
            Some(_) => "with config.json".into(),
            None => "no config.json (bits and group size from the shapes or defaults; see checks)"
                .into(),
        }
    );
    Fact::new("quantisation", q.layout.clone(), Some(detail))
        .hook("quant-layout", Some(q.layout.clone()))
}

/// A line of the architecture card.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchLine {
    /// What it is ("layers").
    pub label: String,
    /// Its value as text.
    pub value: String,
    /// The metadata key it came from (for a tooltip).
    pub key: String,
}

/// The architecture card's title and lines: name, file type, then the hyper-parameters.
pub fn arch_lines(card: &ArchCard) -> (String, Vec<ArchLine>) {
    let mut lines = Vec::new();
    if let Some(n) = &card.name {
        lines.push(ArchLine {
            label: "name".into(),
            value: text::escape(n),
            key: "general.name".into(),
        });
    }
    if let Some(ft) = &card.file_type {
        lines.push(ArchLine {
            label: "file type".into(),
            value: ft.clone(),
            key: "general.file_type".into(),
        });
    }
    for r in &card.rows {
        lines.push(ArchLine {
            label: r.label.to_string(),
            value: r.value.clone(),
            key: r.key.clone(),
        });
    }
    (text::escape(&card.architecture), lines)
}

/// The line under the file name: `GGUF v3 · gemma3 · Gemma 3 270m` (the format as
/// [`format_name`] names it in the format figure).
pub fn subtitle(s: &Summary, model: &OpenedModel) -> String {
    let mut sub = format_name(s, model);
    if let Some(a) = &s.architecture {
        sub.push_str(" · ");
        sub.push_str(&text::escape(&a.architecture));
        if let Some(n) = &a.name {
            sub.push_str(" · ");
            sub.push_str(&text::escape(n));
        }
    }
    sub
}

/// How much the page read of the `files` files (one, or a set's parts):
/// `read 6.5 MiB of the file in 8 slices`, `read 147.5 KiB of the 3 files in 3 slices`.
pub fn read_note(stats: &ReadStats, files: usize) -> String {
    let what = if files > 1 {
        format!("the {files} files")
    } else {
        "the file".into()
    };
    format!(
        "read {} of {what} in {} slice{}",
        text::bytes(stats.bytes),
        stats.reads,
        if stats.reads == 1 { "" } else { "s" }
    )
}

/// The summary card (`data-testid="summary"`): the file `name` and [`subtitle`], the
/// [`read_note`], then every figure of [`summary_facts`] as a `div.fact` of `dt` and
/// `dd.fact-value` (with its `data-testid` and `data-value`) and `dd.fact-detail`.
pub fn summary_card(name: &str, s: &Summary, model: &OpenedModel, stats: &ReadStats) -> Node {
    let title = node::el("div", "file-title")
        .child(node::text("h2", "file-name mono", &text::escape(name)))
        .child(node::text("p", "file-sub", &subtitle(s, model)));
    let head = node::el("header", "card-head")
        .child(title)
        .child(node::text(
            "p",
            "read-note",
            &read_note(stats, model.parts.len().max(1)),
        ));
    let mut grid = node::el("dl", "facts");
    for f in summary_facts(s, model) {
        let mut value = node::text("dd", "fact-value", &f.text);
        if let Some(id) = f.testid {
            value = value.testid(id);
            if let Some(v) = &f.value {
                value = value.attr("data-value", v.as_str());
            }
        }
        let mut item = match f.severity {
            Some(sev) => node::el("div", &format!("fact severity-{}", sev.name()))
                .attr("data-severity", sev.name()),
            None => node::el("div", "fact"),
        }
        .child(node::text("dt", "", f.label))
        .child(value);
        if let Some(d) = &f.detail {
            item.push(node::text("dd", "fact-detail", d));
        }
        grid.push(item);
    }
    node::el("section", "card summary")
        .testid("summary")
        .child(head)
        .child(grid)
}

/// The architecture card (GGUF models with `general.architecture`): the architecture as a badge
/// next to the title, then [`arch_lines`] as `dt` (the key as its tooltip) and `dd.mono`.
pub fn arch_card(card: &ArchCard) -> Node {
    let (title, lines) = arch_lines(card);
    let mut section = node::card("Architecture", "arch");
    section
        .head()
        .push(node::text("span", "badge mono", &title));
    let mut dl = node::el("dl", "kv");
    for l in lines {
        dl.push(node::text("dt", "", &l.label).attr("title", l.key));
        dl.push(node::text("dd", "mono", &l.value));
    }
    section.body().push(dl);
    section
}

/// `Reading the header of model.gguf (241.4 MiB)…`
pub fn loading_text(name: &str, size: u64) -> String {
    format!(
        "Reading the header of {} ({})…",
        text::escape(name),
        text::bytes(size)
    )
}

/// `Reading the header of model.gguf (241.4 MiB)… 6.0 MiB read`.
pub fn progress_text(name: &str, size: u64, read: u64) -> String {
    format!("{} {} read", loading_text(name, size), text::bytes(read))
}

/// ` (it was read only up to a problem: …)` after "has no tensor X" when the file was read only
/// in part (a damaged file, a read that failed: the tensors before the problem are listed, so
/// the problem is the answer, not a missing name); empty for a file read whole.
pub fn read_in_part_note(error: Option<&crate::format::Error>) -> String {
    error.map_or(String::new(), |e| {
        format!(
            " (it was read only up to a problem: {})",
            text::escape(&e.to_string())
        )
    })
}

/// The document title: `model.gguf · weightpeek`, or the app's own title with no file.
pub fn page_title(file: Option<&str>) -> String {
    match file {
        Some(f) => format!("{} · weightpeek", text::escape(f)),
        None => format!(
            "weightpeek: see inside {} model files",
            crate::format::registry::labels_text("and")
        ),
    }
}

/// `… and 12 more`.
pub fn more_text(n: usize) -> String {
    format!("… and {} more", text::thousands(n as u64))
}

/// What the header of the tensor table says about the shape column.
pub fn shape_order_note(format: &str, reversed: bool) -> &'static str {
    match (format == "gguf", reversed) {
        (true, false) => {
            "shape in ggml order ne0…neN (fastest-varying dimension first, the reverse of PyTorch)"
        }
        (true, true) => "shape reversed to PyTorch order (…, ne1, ne0), as model code writes it",
        (false, _) => "shape row-major, as written in the file",
    }
}

/// The label of the button that flips the shape order (GGUF only: safetensors shapes are
/// already in PyTorch order).
pub fn shape_toggle_label(format: &str, reversed: bool) -> Option<&'static str> {
    match (format == "gguf", reversed) {
        (true, false) => Some("show PyTorch order"),
        (true, true) => Some("show ggml order"),
        (false, _) => None,
    }
}

#[cfg(test)]
mod tests;
