//! The scan of every weight (issue #22) as the page shows it: one row of text per tensor
//! ([`row`]), sorted and filtered as the tensor table is ([`sort`], [`fn@matches`]); the finding
//! lines for the Checks card ([`FindingLine`]); what the card says before, while and after a
//! scan ([`intro_text`], [`confirm_text`], [`progress`], [`done_text`]); the JSON document of a
//! scan ([`ScanDoc`], `weightpeek scan --json` and `scan()`). The worker makes the rows (it holds
//! the results) and the page draws them, so both sides share these types as JSON.

use serde::{Deserialize, Serialize};

use crate::check::Finding;
use crate::open::OpenedModel;
use crate::preview::{exact_text, value_text_f64};
use crate::scan::TensorScan;
use crate::text;
use crate::view::node::{self, Node};

/// Most rows drawn, and most findings listed (a model with tens of thousands of tensors is
/// filtered to narrow).
pub const MAX_ROWS: usize = 1000;

/// One tensor's scan as the page's table shows it. Text fields are plain text (drawn as text
/// nodes); the numbers beside them are the sort keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanRow {
    /// The tensor's index in the model (the table's default order).
    pub index: usize,
    /// The tensor's name.
    pub name: String,
    /// Its type (`Q4_K`, `F16`, …).
    pub dtype: String,
    /// Values scanned (0 when not scanned).
    pub count: u64,
    /// NaN values.
    pub nan: u64,
    /// Infinite values.
    pub inf: u64,
    /// Exact zeros.
    pub zeros: u64,
    /// Smallest, largest finite value, mean, standard deviation: text ([`short`] for the
    /// statistics, all digits for the extremes) or `-` when there are none.
    pub min: String,
    /// See `min`.
    pub max: String,
    /// See `min`.
    pub mean: String,
    /// See `min`.
    pub std: String,
    /// Sort keys of `min`, `max`, `mean`, `std` (`None` sorts last).
    pub keys: [Option<f64>; 4],
    /// The block scales judged: `"0 NaN, 0 Inf in 1,024 blocks"`, or `-`.
    pub scales: String,
    /// Sort keys of `scales`: NaN and infinite scales, and blocks judged.
    pub bad_scales: u64,
    /// See `bad_scales`.
    pub blocks: u64,
    /// Why it was not scanned, or where its read stopped (empty when it was read whole).
    pub note: String,
    /// `error` (NaN or infinite values or block scales, a failed read), `skipped` (not
    /// scanned: its type is not decoded) or `ok`: the row's colour.
    pub status: String,
}

/// The table's columns, in order: header text and whether it is numeric (right-aligned).
pub const COLUMNS: [(&str, bool); 11] = [
    ("Name", false),
    ("Type", false),
    ("Values", true),
    ("NaN", true),
    ("Inf", true),
    ("Zeros", true),
    ("Min", true),
    ("Max", true),
    ("Mean", true),
    ("Std", true),
    ("Block scales", false),
];

/// The row of tensor `index`'s result `t`.
pub fn row(index: usize, t: &TensorScan) -> ScanRow {
    let v = t.values.as_ref();
    let dash = || "-".to_string();
    let status = if t.failed || t.has_non_finite() {
        "error"
    } else if v.is_none() {
        "skipped"
    } else {
        "ok"
    };
    ScanRow {
        index,
        // File text, escaped as the tensor table escapes it (control and bidi characters).
        name: text::escape(&t.name),
        dtype: text::escape(&t.dtype),
        count: v.map_or(0, |v| v.count),
        nan: v.map_or(0, |v| v.nan),
        inf: v.map_or(0, |v| v.inf),
        zeros: v.map_or(0, |v| v.zeros),
        min: v.and_then(|v| v.min).map_or_else(dash, exact_text),
        max: v.and_then(|v| v.max).map_or_else(dash, exact_text),
        mean: v.and_then(|v| v.mean).map_or_else(dash, short),
        std: v.and_then(|v| v.std).map_or_else(dash, short),
        keys: [
            v.and_then(|v| v.min).map(|x| x.to_f64()),
            v.and_then(|v| v.max).map(|x| x.to_f64()),
            v.and_then(|v| v.mean),
            v.and_then(|v| v.std),
        ],
        scales: if t.blocks > 0 {
            format!(
                "{} NaN, {} Inf in {} blocks",
                text::thousands(t.scale_nan),
                text::thousands(t.scale_inf),
                text::thousands(t.blocks)
            )
        } else {
            dash()
        },
        bad_scales: t.scale_nan.saturating_add(t.scale_inf),
        blocks: t.blocks,
        note: t.skipped.as_deref().map(text::escape).unwrap_or_default(),
        status: status.into(),
    }
}

/// The cells of `r`, one per [`COLUMNS`] entry.
pub fn cells(r: &ScanRow) -> [String; 11] {
    [
        r.name.clone(),
        r.dtype.clone(),
        text::thousands(r.count),
        text::thousands(r.nan),
        text::thousands(r.inf),
        text::thousands(r.zeros),
        r.min.clone(),
        r.max.clone(),
        r.mean.clone(),
        r.std.clone(),
        r.scales.clone(),
    ]
}

/// Sorts `rows` by column `col` ([`COLUMNS`] index; anything past them: the model's order),
/// descending when `desc`; ties keep the model's order, and missing statistics sort last
/// either way.
pub fn sort(rows: &mut [ScanRow], col: usize, desc: bool) {
    use std::cmp::Ordering;
    let num = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => {
            let o = a.total_cmp(&b);
            if desc {
                o.reverse()
            } else {
                o
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    let flip = |o: Ordering| if desc { o.reverse() } else { o };
    rows.sort_by(|a, b| {
        let o = match col {
            0 => flip(a.name.cmp(&b.name)),
            1 => flip(a.dtype.cmp(&b.dtype)),
            2 => flip(a.count.cmp(&b.count)),
            3 => flip(a.nan.cmp(&b.nan)),
            4 => flip(a.inf.cmp(&b.inf)),
            5 => flip(a.zeros.cmp(&b.zeros)),
            6..=9 => num(a.keys[col - 6], b.keys[col - 6]),
            // Block scales: by the bad scales in them, then by blocks judged.
            10 => flip(
                a.bad_scales
                    .cmp(&b.bad_scales)
                    .then(a.blocks.cmp(&b.blocks)),
            ),
            _ => Ordering::Equal,
        };
        o.then(a.index.cmp(&b.index))
    });
}

/// Whether `r` matches the filter text: every word is in its name or is its type
/// (case-insensitive), as the tensor table filters; `nan`, `inf`, `error` and `skipped` pick
/// the rows with such values or status.
pub fn matches(r: &ScanRow, filter: &str) -> bool {
    let name = r.name.to_lowercase();
    let dtype = r.dtype.to_lowercase();
    filter
        .split_whitespace()
        .map(str::to_lowercase)
        .all(|w| match w.as_str() {
            "nan" if r.nan > 0 => true,
            "inf" if r.inf > 0 => true,
            "error" | "skipped" if r.status == w => true,
            _ => name.contains(&w) || dtype == w,
        })
}

/// A finding as the Checks card lists it ([`crate::view::checks::lines`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingLine {
    /// `error`, `warning` or `note`.
    pub severity: String,
    /// The finding's code (`scan-non-finite-values`, …).
    pub code: String,
    /// Its text, escaped.
    pub text: String,
}

/// The scan's findings as the Checks card's lines.
pub fn finding_lines(findings: &[Finding]) -> Vec<FindingLine> {
    super::checks::lines(findings)
        .into_iter()
        .map(|l| FindingLine {
            severity: l.severity.into(),
            code: l.code.into(),
            text: l.text,
        })
        .collect()
}

/// What the card says before a scan: what it reads and what it looks for.
pub fn intro_text(bytes: u64, remote: bool) -> String {
    format!(
        "Reads every tensor's data ({}) and counts NaN, infinite and zero values and the block scales llama.cpp rejects, with each tensor's min, max, mean and standard deviation, and flags all-zero and outlying tensors. {}",
        text::bytes(bytes),
        if remote {
            "This downloads the data from the server."
        } else {
            "It runs in the background; the file never leaves your machine."
        }
    )
}

/// The question asked before a remote scan: it downloads `data` bytes of tensor data from
/// `host`, and the headers again (`header` bytes: the worker opens the model itself).
pub fn confirm_text(data: u64, header: u64, host: &str) -> String {
    format!(
        "Scanning downloads the tensor data, {} ({} bytes), from {}, and the header again ({}). Go on?",
        text::bytes(data),
        text::thousands(data),
        text::escape(host),
        text::bytes(header)
    )
}

/// The line after a scan: tensors scanned, bytes read, how long and how fast.
pub fn done_text(scanned: usize, tensors: usize, bytes: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        format!(", {}/s", text::bytes((bytes as f64 / seconds) as u64))
    } else {
        String::new()
    };
    format!(
        "Scanned {scanned} of {tensors} tensors: {} in {seconds:.1} s{rate}.",
        text::bytes(bytes)
    )
}

/// The line after a cancelled scan.
pub fn cancelled_text(scanned: usize, tensors: usize, bytes: u64) -> String {
    format!(
        "Cancelled after {scanned} of {tensors} tensors ({} read); the rows below are the tensors scanned.",
        text::bytes(bytes)
    )
}

/// The JSON document of a scan (`weightpeek scan --json`).
#[derive(Debug, Serialize)]
pub struct ScanDoc<'a> {
    /// What was scanned, as given.
    pub file: &'a str,
    /// Bytes of tensor data read.
    pub bytes_read: u64,
    /// Threads that read and decoded.
    pub threads: usize,
    /// Per tensor, in the model's order.
    pub tensors: &'a [TensorScan],
    /// As `--check` gives them (`severity`, `code`, `message`, `offset`, `tensor`).
    pub findings: &'a [Finding],
}

/// Tensors scanned at once from local files: one decoding while the next piece is read.
pub const LOCAL_LANES: usize = 2;
/// Tensors scanned at once from a server: Range requests in parallel (a browser opens at most
/// six connections per host; the first-bytes and listing requests keep the rest).
pub const REMOTE_LANES: usize = 4;
/// Least time between two progress calls of the browser's scan (milliseconds): a 16 MiB piece
/// can take under 10 ms.
pub const PROGRESS_MS: f64 = 100.0;

/// Tensors one browser scan reads at once: [`REMOTE_LANES`] from a server, else
/// [`LOCAL_LANES`], no more than the `tensors` it has (at least one).
pub fn lanes(remote: bool, tensors: usize) -> usize {
    let lanes = if remote { REMOTE_LANES } else { LOCAL_LANES };
    lanes.min(tensors).max(1)
}

/// What one Worker of a browser scan reads: share `share` of `shares` of a model
/// ([`crate::scan::shares`]; `0` of `1`: every tensor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Share {
    /// The tensors' indexes, in [`crate::scan::scan_order`].
    pub tensors: Vec<usize>,
    /// The tensor bytes the share reads in all ([`crate::scan::bytes_to_scan_of`]).
    pub bytes: u64,
    /// Tensors read at once ([`lanes`]).
    pub lanes: usize,
    /// The most bytes one lane reads and holds at once: all the Workers' lanes together hold
    /// at most [`crate::scan::PIECE_BYTES`] ([`crate::scan::piece_bytes_for`]).
    pub piece: u64,
}

impl Share {
    /// Share `share` of `shares` (at least 1; a share past the last is the last) of `model`,
    /// read from a server (`remote`) or from local files.
    pub fn of(model: &OpenedModel, remote: bool, share: usize, shares: usize) -> Share {
        let shares = shares.max(1);
        // Shares past one per tensor are empty: they are not made (a caller's count is
        // untrusted, and each share is a list).
        let made = shares.min(model.tensors.len().max(1));
        let tensors = match share.min(shares - 1) {
            k if k < made => crate::scan::shares(model, made).swap_remove(k),
            _ => Vec::new(),
        };
        let lanes = lanes(remote, tensors.len());
        Share {
            bytes: crate::scan::bytes_to_scan_of(model, &tensors),
            piece: crate::scan::piece_bytes_for(lanes.saturating_mul(shares)),
            tensors,
            lanes,
        }
    }
}

/// A browser scan's progress: the tensor bytes read so far of the bytes it reads in all,
/// told at most every [`PROGRESS_MS`] and whenever forced (the first call and the last).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Bytes read so far.
    pub done: u64,
    /// Bytes the scan reads in all ([`Share::bytes`]).
    pub total: u64,
    /// When progress was last told (milliseconds; none yet: minus infinity).
    told: f64,
}

impl Progress {
    /// Nothing read yet of `total` bytes.
    pub fn new(total: u64) -> Progress {
        Progress {
            done: 0,
            total,
            told: f64::NEG_INFINITY,
        }
    }

    /// `read` more bytes are done at `now` (milliseconds): `(done, total)` when progress is
    /// told now (then `now` is when it last was), else `None`.
    pub fn step(&mut self, read: u64, now: f64, force: bool) -> Option<(u64, u64)> {
        self.done = self.done.saturating_add(read);
        let due = force || now - self.told >= PROGRESS_MS;
        if due {
            self.told = now;
        }
        due.then_some((self.done, self.total))
    }
}

/// The browser scan's result, `[doc, lines]`: the JSON of the [`ScanDoc`] of `scans` (every
/// tensor's result, in the model's order) of the model `file`, read on `threads` lanes in
/// all, with the findings over all of them, and the JSON of those findings' lines for the
/// Checks card ([`FindingLine`]).
pub fn document_json(
    file: &str,
    scans: &[TensorScan],
    threads: usize,
) -> serde_json::Result<[String; 2]> {
    let findings = crate::scan::findings(scans);
    let doc = ScanDoc {
        file,
        bytes_read: scans.iter().map(|t| t.bytes_read).sum(),
        threads,
        tensors: scans,
        findings: &findings,
    };
    Ok([
        serde_json::to_string(&doc)?,
        serde_json::to_string(&finding_lines(&findings))?,
    ])
}

/// The progress line: bytes done of the total, the rate so far and the time left.
pub fn progress(done: u64, total: u64, seconds: f64) -> String {
    let pct = if total == 0 {
        100.0
    } else {
        done as f64 * 100.0 / total as f64
    };
    let rate = if seconds > 0.0 {
        done as f64 / seconds
    } else {
        0.0
    };
    let left = if rate > 0.0 {
        format!("{:.0} s left", (total.saturating_sub(done)) as f64 / rate)
    } else {
        "…".into()
    };
    format!(
        "scanned {} of {} ({pct:.0}%), {}/s, {left}",
        text::bytes(done),
        text::bytes(total),
        text::bytes(rate as u64)
    )
}

/// A statistic in 6 significant digits: fixed from 0.001 up to a million, else `1.23456e-4`.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return value_text_f64(v);
    }
    let e = v.abs().log10().floor() as i32;
    if (-3..6).contains(&e) {
        let decimals = (5 - e).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.5e}")
    }
}

/// The table's row for `r` (`tr.scan-<status>` with `data-tensor`, a cell per column, numbers
/// right-aligned), then, when it has one, its note on a row of its own (`tr.scan-note`).
pub fn row_nodes(r: &ScanRow) -> Vec<Node> {
    let cells = cells(r)
        .into_iter()
        .zip(COLUMNS)
        .map(|(cell, (_, numeric))| node::text("td", if numeric { "num" } else { "" }, &cell));
    let mut out = vec![node::el("tr", &format!("scan-{}", r.status))
        .attr("data-tensor", r.name.as_str())
        .children(cells)];
    if !r.note.is_empty() {
        out.push(note_row(&r.note));
    }
    out
}

/// The row that says `hidden` more rows were not drawn ([`MAX_ROWS`]).
pub fn more_rows_node(hidden: usize) -> Node {
    note_row(&format!(
        "{} more rows: filter to narrow",
        text::thousands(hidden as u64)
    ))
}

fn note_row(text: &str) -> Node {
    node::el("tr", "scan-note")
        .child(node::text("td", "muted", text).attr("colspan", COLUMNS.len().to_string()))
}

/// The scan's findings as a section of the Checks card (`div.scan-findings`,
/// `data-source="scan"`): a heading, "no … values" when there are none, and a `li` per finding
/// (at most [`MAX_ROWS`]) like the card's own, with `data-severity` and `data-code`.
pub fn findings_node(lines: &[FindingLine]) -> Node {
    let mut section = node::el("div", "scan-findings")
        .attr("data-source", "scan")
        .child(node::text("h3", "", "From the scan of every weight"));
    if lines.is_empty() {
        section.push(node::text(
            "p",
            "muted",
            "no NaN or infinite values or block scales, no all-zero or outlying tensors",
        ));
    }
    let items = lines.iter().take(MAX_ROWS).map(|l| {
        node::el("li", &format!("check check-{}", l.severity))
            .attr("data-severity", l.severity.as_str())
            .attr("data-code", l.code.as_str())
            .child(node::text("span", "check-severity", &l.severity))
            .child(node::text("span", "check-text", &l.text))
    });
    section.child(node::el("ul", "check-list").children(items))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dequant::Exact;
    use crate::scan::ValueStats;

    fn scan(name: &str, mean: Option<f64>, nan: u64) -> TensorScan {
        TensorScan {
            name: name.into(),
            dtype: "F32".into(),
            bytes_read: 16,
            values: Some(ValueStats {
                count: 4,
                nan,
                inf: 0,
                zeros: 1,
                min: Some(Exact::F32(-1.5)),
                max: Some(Exact::F32(2.0)),
                mean,
                std: mean.map(|_| 0.000123456),
                magnitudes: Vec::new(),
            }),
            ..TensorScan::default()
        }
    }

    #[test]
    fn lanes_and_the_document_of_a_browser_scan() {
        assert_eq!(lanes(true, 100), 4);
        assert_eq!(lanes(false, 100), 2);
        assert_eq!(lanes(true, 3), 3);
        assert_eq!(lanes(false, 0), 1);
        let scans = [scan("a.weight", Some(0.5), 0), scan("b.weight", None, 3)];
        let [doc, lines] = document_json("m.gguf", &scans, 4).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(doc["file"], "m.gguf");
        assert_eq!(doc["threads"], 4);
        let read: u64 = scans.iter().map(|t| t.bytes_read).sum();
        assert_eq!(doc["bytes_read"], read);
        assert_eq!(doc["tensors"].as_array().unwrap().len(), 2);
        assert_eq!(doc["tensors"][1]["name"], "b.weight");
        let findings = crate::scan::findings(&scans);
        assert_eq!(doc["findings"].as_array().unwrap().len(), findings.len());
        let lines: serde_json::Value = serde_json::from_str(&lines).unwrap();
        assert_eq!(
            lines.as_array().unwrap().len(),
            finding_lines(&findings).len()
        );
    }

    #[test]
    fn a_workers_share_and_when_it_tells_its_progress() {
        let t = |name, bytes| (name, 0u32, vec![bytes / 4], bytes);
        let b = crate::view::testutil::gguf(&[], &[t("a", 64), t("b", 32), t("c", 32)]);
        let model = OpenedModel::from(crate::source::parse_bytes(&b).unwrap());
        let all = Share::of(&model, false, 0, 1);
        assert_eq!(all.tensors, crate::scan::scan_order(&model));
        assert_eq!((all.bytes, all.lanes), (128, lanes(false, 3)));
        assert_eq!(all.piece, crate::scan::piece_bytes_for(lanes(false, 3)));
        // Two Workers: the shares hold every tensor once, about equal bytes.
        let (one, two) = (Share::of(&model, true, 0, 2), Share::of(&model, true, 1, 2));
        assert_eq!((one.bytes, two.bytes), (64, 64));
        let mut both = [one.tensors.clone(), two.tensors.clone()].concat();
        both.sort_unstable();
        assert_eq!(both, [0, 1, 2]);
        let lanes_of = |s: &Share| lanes(true, s.tensors.len());
        assert_eq!((one.lanes, two.lanes), (lanes_of(&one), lanes_of(&two)));
        assert_eq!(two.piece, crate::scan::piece_bytes_for(2 * two.lanes));
        // A share past the last is the last; no shares is one.
        assert_eq!(Share::of(&model, true, 5, 2), two);
        assert_eq!(Share::of(&model, false, 0, 0), all);
        // More shares than tensors: one per tensor, as many as asked made, the rest empty.
        let many = crate::scan::shares(&model, 5);
        for (k, want) in many.iter().enumerate() {
            assert_eq!(&Share::of(&model, true, k, 5).tensors, want);
        }
        assert!(many[3].is_empty() && many[4].is_empty());
        let huge = Share::of(&model, true, usize::MAX - 1, usize::MAX);
        assert_eq!((huge.tensors.len(), huge.bytes), (0, 0));
        let mut pr = Progress::new(1000);
        let p = PROGRESS_MS;
        let told: Vec<Option<(u64, u64)>> = [
            (0, 0.0, false),
            (10, p / 2.0, false),
            (20, p - 1.0, true),
            (30, p * 1.5, false),
        ]
        .iter()
        .map(|&(read, now, force)| pr.step(read, now, force))
        .collect();
        assert_eq!(told, [Some((0, 1000)), None, Some((30, 1000)), None]);
        assert_eq!(
            pr.step(u64::MAX, p - 1.0 + p, false),
            Some((u64::MAX, 1000))
        );
    }

    #[test]
    fn a_row_holds_the_texts_and_keys() {
        let r = row(3, &scan("blk.0.w", Some(0.25), 0));
        assert_eq!(r.index, 3);
        assert_eq!((r.min.as_str(), r.max.as_str()), ("-1.5", "2"));
        assert_eq!(
            (r.mean.as_str(), r.std.as_str()),
            ("0.250000", "1.23456e-4")
        );
        assert_eq!(
            r.keys,
            [Some(-1.5), Some(2.0), Some(0.25), Some(0.000123456)]
        );
        assert_eq!((r.scales.as_str(), r.status.as_str()), ("-", "ok"));
        assert_eq!(row(0, &scan("x", None, 1)).status, "error");
        let c = cells(&r);
        assert_eq!(c[0], "blk.0.w");
        assert_eq!(c[2], "4");
    }

    #[test]
    fn file_text_is_escaped() {
        let r = row(0, &scan("evil\u{202e}name\n", None, 0));
        assert!(
            !r.name.contains('\u{202e}') && !r.name.contains('\n'),
            "{}",
            r.name
        );
    }

    #[test]
    fn sorting_puts_missing_statistics_last_and_keeps_the_model_order_on_ties() {
        let mut rows = vec![
            row(0, &scan("c", Some(1.0), 0)),
            row(1, &scan("a", None, 0)),
            row(2, &scan("b", Some(-3.0), 0)),
            row(3, &scan("d", Some(1.0), 0)),
        ];
        sort(&mut rows, 8, false);
        let order: Vec<usize> = rows.iter().map(|r| r.index).collect();
        assert_eq!(order, [2, 0, 3, 1]);
        sort(&mut rows, 8, true);
        let order: Vec<usize> = rows.iter().map(|r| r.index).collect();
        assert_eq!(order, [0, 3, 2, 1]);
        sort(&mut rows, 0, false);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        sort(&mut rows, 99, false);
        let order: Vec<usize> = rows.iter().map(|r| r.index).collect();
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn the_filter_matches_names_types_and_problems() {
        let bad = row(0, &scan("blk.1.attn_q.weight", Some(0.0), 2));
        let good = row(1, &scan("blk.1.ffn_up.weight", Some(0.0), 0));
        assert!(matches(&bad, "attn"));
        assert!(matches(&bad, "blk.1 F32"));
        assert!(!matches(&good, "attn"));
        assert!(matches(&bad, "nan"));
        assert!(!matches(&good, "nan"));
        assert!(matches(&bad, "error"));
        assert!(matches(&good, ""));
    }

    #[test]
    fn progress_says_how_far_how_fast_and_how_long() {
        assert_eq!(
            progress(512 << 20, 2048 << 20, 0.5),
            "scanned 512.0 MiB of 2.0 GiB (25%), 1.0 GiB/s, 2 s left"
        );
    }

    #[test]
    fn the_texts_say_how_much_and_where() {
        assert_eq!(
            confirm_text(253 << 20, 7 << 20, "huggingface.co"),
            "Scanning downloads the tensor data, 253.0 MiB (265,289,728 bytes), from huggingface.co, and the header again (7.0 MiB). Go on?"
        );
        assert_eq!(
            done_text(236, 236, 1 << 30, 2.0),
            "Scanned 236 of 236 tensors: 1.0 GiB in 2.0 s, 512.0 MiB/s."
        );
        assert!(intro_text(1 << 20, false).contains("(1.0 MiB)"));
        assert!(intro_text(1 << 20, true).contains("downloads"));
        assert_eq!(short(0.000123456), "1.23456e-4");
        assert_eq!(short(-2.5), "-2.50000");
        assert_eq!(short(1234.5678), "1234.57");
        assert_eq!(short(0.0), "0");
    }

    #[test]
    fn rows_notes_and_findings_as_nodes() {
        let r = row(3, &scan("blk.0.w\u{202e}", Some(0.25), 1));
        let nodes = row_nodes(&r);
        assert_eq!(nodes.len(), 1);
        let tr = &nodes[0];
        assert_eq!(tr.class, "scan-error");
        assert_eq!(tr.get_attr("data-tensor"), Some(r.name.as_str()));
        assert_eq!(tr.children.len(), COLUMNS.len());
        assert_eq!(tr.children[0].class, "");
        assert_eq!(tr.children[2].class, "num");
        assert_eq!(tr.children[2].text.as_deref(), Some("4"));
        let texts: Vec<String> = tr.children.iter().map(|c| c.text_content()).collect();
        assert_eq!(texts, cells(&r));

        let mut noted = r.clone();
        noted.note = "not decoded: IQ2_XXS".into();
        let nodes = row_nodes(&noted);
        assert_eq!(nodes[1].class, "scan-note");
        assert_eq!(nodes[1].children[0].get_attr("colspan"), Some("11"));
        assert_eq!(nodes[1].text_content(), "not decoded: IQ2_XXS");
        assert_eq!(
            more_rows_node(2345).text_content(),
            "2,345 more rows: filter to narrow"
        );

        let none = findings_node(&[]);
        assert_eq!(none.get_attr("data-source"), Some("scan"));
        assert_eq!(
            none.children[0].text_content(),
            "From the scan of every weight"
        );
        assert!(none.children[1].text_content().starts_with("no NaN"));
        assert!(none.children[2].children.is_empty());
        let f = Finding {
            severity: crate::check::Severity::Error,
            code: "scan-non-finite-values",
            message: "1 NaN".into(),
            offset: None,
            tensor: Some("blk.0.w".into()),
        };
        let lines = finding_lines(&[f]);
        let some = findings_node(&lines);
        assert_eq!(some.children.len(), 2);
        let li = &some.find_class("check")[0];
        assert_eq!(li.class, "check check-error");
        assert_eq!(li.get_attr("data-code"), Some("scan-non-finite-values"));
        assert_eq!(li.children[1].text, Some(lines[0].text.clone()));
    }
}
