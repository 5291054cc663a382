//! The page's "Scan all weights" card as [`Node`]s, one body per state ([`idle`], [`confirm`],
//! [`running`], [`failed`], [`finished`]; with the card's `data-scan` and what each button
//! does, a [`Screen`] of its [`Scope`]), and its decisions: the line after a scan
//! ([`finished_line`]), the results' sort on a header click ([`next_sort`], [`aria_sort`]),
//! the rows shown ([`visible`]) and the Checks card's class once the scan's findings are in
//! ([`checks_class`]). Texts come from [`crate::view::scan`]; the page renders these, runs the
//! Worker and wires the buttons by their `data-testid`. The Worker's messages are decoded here
//! ([`WorkerMessage`] into a [`ScanEvent`]), the results' sort and filter kept in [`Results`],
//! and the table drawn in chunks as [`chunk`] says.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::text;
use crate::view::node::{self, Node};
use crate::view::scan::{
    self, cancelled_text, confirm_text, done_text, intro_text, progress, FindingLine, ScanRow,
    COLUMNS, MAX_ROWS,
};

/// Rows of the results table drawn per task ([`chunk`]).
pub const CHUNK_ROWS: usize = 60;

/// A message of www/scan-worker.js as posted (`{type, done, row, lines, message}`; other
/// fields are not read). `row` and `lines` are JSON texts ([`ScanRow`], [`FindingLine`]s).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WorkerMessage {
    /// `progress`, `tensor`, `done` or `error` (others are ignored).
    #[serde(rename = "type")]
    pub kind: String,
    /// Bytes of tensor data scanned so far (`progress`).
    pub done: Option<f64>,
    /// One tensor's row as JSON (`tensor`).
    pub row: Option<String>,
    /// The scan's findings as JSON (`done`).
    pub lines: Option<String>,
    /// Why the scan stopped (`error`).
    pub message: Option<String>,
}

/// What a Worker message tells the card.
#[derive(Debug, Clone, PartialEq)]
pub enum ScanEvent {
    /// `done` bytes of tensor data scanned so far.
    Progress(u64),
    /// One tensor's result row.
    Tensor(Box<ScanRow>),
    /// The scan ended with these findings (none when the JSON does not read).
    Done(Vec<FindingLine>),
    /// The scan failed, saying this (possibly empty).
    Error(String),
}

impl WorkerMessage {
    /// The event this message carries: `None` for a type the card does not handle, or a
    /// `tensor` message whose row does not read. A `progress` without `done` says 0 bytes.
    pub fn event(self) -> Option<ScanEvent> {
        match self.kind.as_str() {
            // A JS number: saturating (negative and NaN are 0).
            "progress" => Some(ScanEvent::Progress(self.done.unwrap_or(0.0) as u64)),
            "tensor" => self
                .row
                .and_then(|r| serde_json::from_str(&r).ok())
                .map(|r| ScanEvent::Tensor(Box::new(r))),
            "done" => Some(ScanEvent::Done(
                self.lines
                    .and_then(|l| serde_json::from_str(&l).ok())
                    .unwrap_or_default(),
            )),
            "error" => Some(ScanEvent::Error(self.message.unwrap_or_default())),
            _ => None,
        }
    }
}

/// The options the Worker's `scan()` is given (those of the JS API): a local model's `name`
/// (one file alone), or a remote one's Hub `endpoint` and `token` (sent to the endpoint's
/// origin only). Serialised as a plain object without the absent ones.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct WorkerOptions {
    /// The one local file's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The Hub endpoint remote URLs are read with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The Hub token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl WorkerOptions {
    /// For local files named `names`: the name only when there is one file.
    pub fn local(names: &[&str]) -> WorkerOptions {
        WorkerOptions {
            name: match names {
                [one] => Some(one.to_string()),
                _ => None,
            },
            ..WorkerOptions::default()
        }
    }

    /// For remote files read with `endpoint` and `token`.
    pub fn remote(endpoint: &str, token: Option<&str>) -> WorkerOptions {
        WorkerOptions {
            endpoint: Some(endpoint.to_string()),
            token: token.map(str::to_string),
            ..WorkerOptions::default()
        }
    }
}

/// The server a remote scan downloads from, as the confirmation names it: the first URL's
/// host with its port (`host:port`, the port only when not the scheme's default), or `the
/// server` when there is no URL or it does not parse as an absolute URL.
pub fn host_of(urls: &[String]) -> String {
    let Some(u) = urls.first().and_then(|u| url::Url::parse(u).ok()) else {
        return "the server".into();
    };
    let host = u.host_str().unwrap_or_default();
    match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// The results of a scan as the card keeps them: the rows in arrival order (sorted in place
/// when shown), the bytes scanned, when it started, the header sort (column, descending) and
/// the filter text. Times are the page clock's milliseconds (`Date.now()`).
#[derive(Debug, Default)]
pub struct Results {
    /// One row per tensor scanned so far.
    pub rows: Vec<ScanRow>,
    /// Bytes of tensor data scanned so far.
    pub done: u64,
    /// When the scan started (ms).
    pub started_ms: f64,
    /// The column sorted by and whether descending (`None`: the model's order).
    pub sort: Option<(usize, bool)>,
    /// The filter box's text.
    pub filter: String,
}

impl Results {
    /// A new scan started at `now_ms`: no rows, nothing scanned, unsorted and unfiltered (the
    /// new filter box is empty).
    pub fn restart(&mut self, now_ms: f64) {
        *self = Results {
            started_ms: now_ms,
            ..Results::default()
        };
    }

    /// Seconds since the scan started, at `now_ms`.
    pub fn seconds(&self, now_ms: f64) -> f64 {
        (now_ms - self.started_ms) / 1e3
    }

    /// `done` bytes of the `total` scanned at `now_ms`: records them and returns the progress
    /// line ([`progress`]: the share, the rate so far, the time left).
    pub fn progress(&mut self, done: u64, total: u64, now_ms: f64) -> String {
        self.done = done;
        progress(done, total, self.seconds(now_ms))
    }

    /// The line when the scan of `tensors` tensors ended (`ended`) or was cancelled at
    /// `now_ms` ([`finished_line`]).
    pub fn finished_line(&self, ended: bool, tensors: usize, now_ms: f64) -> String {
        finished_line(ended, &self.rows, tensors, self.done, self.seconds(now_ms))
    }

    /// A click on column `col`'s header ([`next_sort`]).
    pub fn click(&mut self, col: usize) {
        self.sort = next_sort(self.sort, col);
    }

    /// The rows to draw ([`visible`]).
    pub fn visible(&mut self) -> Vec<ScanRow> {
        visible(&mut self.rows, self.sort, &self.filter)
    }
}

/// One task's share of drawing `shown` result rows, from list position `from`: the rows to
/// draw now (at most [`CHUNK_ROWS`], none past [`MAX_ROWS`]), where the next task starts
/// (`None`: this is the last), and, in the last, how many rows are left out past
/// [`MAX_ROWS`] (a "more rows" line says so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// List positions drawn now.
    pub rows: Range<usize>,
    /// The next task's `from`.
    pub next: Option<usize>,
    /// Rows never drawn (0 until the last task).
    pub left_out: usize,
}

/// The chunk of `shown` rows starting at `from` ([`Chunk`]).
pub fn chunk(from: usize, shown: usize) -> Chunk {
    let last = shown.min(MAX_ROWS);
    let end = (from + CHUNK_ROWS).min(last);
    let next = (end < last).then_some(end);
    Chunk {
        rows: from.min(end)..end,
        next,
        left_out: if next.is_none() { shown - last } else { 0 },
    }
}

/// What one task appends to the results table ([`chunk_nodes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkNodes {
    /// The rows drawn now ([`scan::row_nodes`]), then, in the last chunk, the line saying how
    /// many are left out ([`scan::more_rows_node`]).
    pub nodes: Vec<Node>,
    /// The next task's `from` (`None`: this is the last).
    pub next: Option<usize>,
    /// In the last chunk, the rows drawn in all (the table's `data-drawn`).
    pub drawn: Option<usize>,
}

/// The nodes of the chunk of `shown` starting at `from` ([`chunk`]).
pub fn chunk_nodes(shown: &[ScanRow], from: usize) -> ChunkNodes {
    let c = chunk(from, shown.len());
    let mut nodes: Vec<Node> = shown[c.rows.clone()]
        .iter()
        .flat_map(scan::row_nodes)
        .collect();
    if c.next.is_none() && c.left_out > 0 {
        nodes.push(scan::more_rows_node(c.left_out));
    }
    ChunkNodes {
        nodes,
        next: c.next,
        drawn: c.next.is_none().then_some(c.rows.end),
    }
}

/// What a button of the card does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Ask before a remote scan ([`Scope::confirm`]).
    Confirm,
    /// Start the Worker.
    Start,
    /// Back to before a scan ([`Scope::idle`]), asking nothing.
    Idle,
    /// Stop the Worker: the rows so far are the results.
    Cancel,
}

/// One state of the card: its `data-scan` (`idle`, `confirm`, `running`, `done`,
/// `cancelled`, `error`), its body, and what each of its buttons (by `data-testid`) does.
#[derive(Debug, Clone, PartialEq)]
pub struct Screen {
    /// The card's `data-scan`.
    pub state: &'static str,
    /// The body.
    pub nodes: Vec<Node>,
    /// Each button's `data-testid` and its [`Step`].
    pub buttons: &'static [(&'static str, Step)],
}

/// What the card scans: the tensor data's `bytes` over `tensors` tensors, the `headers` a
/// remote scan reads again, and the server a remote scan downloads from (`host`; `None`:
/// local files). Each of its states is a [`Screen`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Bytes of tensor data.
    pub bytes: u64,
    /// Bytes of the headers.
    pub headers: u64,
    /// Tensors of the model.
    pub tensors: usize,
    /// The server of a remote scan.
    pub host: Option<String>,
}

impl Scope {
    /// "Scan" (`scan-start`) asks first for a remote model, else starts.
    fn ask_or_start(&self) -> &'static [(&'static str, Step)] {
        match self.host {
            Some(_) => &[("scan-start", Step::Confirm)],
            None => &[("scan-start", Step::Start)],
        }
    }

    /// Before a scan ([`idle`]).
    pub fn idle(&self) -> Screen {
        Screen {
            state: "idle",
            nodes: idle(self.bytes, self.headers, self.host.is_some()),
            buttons: self.ask_or_start(),
        }
    }

    /// The question before a remote scan ([`confirm`]).
    pub fn confirm(&self) -> Screen {
        let host = self.host.as_deref().unwrap_or("the server");
        Screen {
            state: "confirm",
            nodes: confirm(self.bytes, self.headers, host),
            buttons: &[("scan-go", Step::Start), ("scan-not-now", Step::Idle)],
        }
    }

    /// While the Worker scans ([`running`]).
    pub fn running(&self) -> Screen {
        Screen {
            state: "running",
            nodes: running(self.bytes),
            buttons: &[("scan-cancel", Step::Cancel)],
        }
    }

    /// A scan that could not run, saying `message` ([`failed`]).
    pub fn failed(&self, message: &str) -> Screen {
        Screen {
            state: "error",
            nodes: failed(message),
            buttons: &[("scan-start", Step::Start)],
        }
    }

    /// After a scan whose `results` are in at `now_ms`: ended with its `findings`, or
    /// cancelled (`None`) ([`finished`]).
    pub fn finished(
        &self,
        results: &Results,
        findings: Option<&[FindingLine]>,
        now_ms: f64,
    ) -> Screen {
        let ended = findings.is_some();
        let line = results.finished_line(ended, self.tensors, now_ms);
        Screen {
            state: if ended { "done" } else { "cancelled" },
            nodes: finished(&line, findings),
            buttons: self.ask_or_start(),
        }
    }
}

/// The card (`section.card.scan-card`, `data-testid="scan"`), its body empty.
pub fn card() -> Node {
    node::card("Scan all weights", "scan-card").testid("scan")
}

/// A `type=button` button (`button primary` or `button`).
fn button(label: &str, testid: &str, primary: bool) -> Node {
    node::text(
        "button",
        if primary { "button primary" } else { "button" },
        label,
    )
    .attr("type", "button")
    .testid(testid)
}

fn actions(buttons: impl IntoIterator<Item = Node>) -> Node {
    node::el("div", "scan-actions").children(buttons)
}

/// Before a scan of `bytes` bytes of tensor data: what it reads, and the start button
/// (`scan-start`), which for a `remote` model says what it downloads (with the `headers`).
pub fn idle(bytes: u64, headers: u64, remote: bool) -> Vec<Node> {
    let label = if remote {
        format!(
            "Scan all weights (downloads {})",
            text::bytes(bytes.saturating_add(headers))
        )
    } else {
        "Scan all weights".to_string()
    };
    vec![
        node::text("p", "muted", &intro_text(bytes, remote)),
        actions([button(&label, "scan-start", true)]),
    ]
}

/// The question before a remote scan from `host` (`scan-question`), with "Download and scan"
/// (`scan-go`) and "Not now" (`scan-not-now`).
pub fn confirm(bytes: u64, headers: u64, host: &str) -> Vec<Node> {
    vec![
        node::text("p", "scan-question", &confirm_text(bytes, headers, host))
            .testid("scan-question"),
        actions([
            button("Download and scan", "scan-go", true),
            button("Not now", "scan-not-now", false),
        ]),
    ]
}

/// While scanning `bytes` bytes: the progress bar (`scan-progress`, max `bytes`, at least 1),
/// the progress line (`scan-status`) and Cancel (`scan-cancel`).
pub fn running(bytes: u64) -> Vec<Node> {
    vec![
        node::el("progress", "scan-bar")
            .testid("scan-progress")
            .attr("max", bytes.max(1).to_string())
            .attr("value", "0")
            .attr("aria-label", "Scan progress"),
        node::text("p", "scan-status", &progress(0, bytes, 0.0)).testid("scan-status"),
        actions([button("Cancel", "scan-cancel", false)]),
    ]
}

/// Why the scan's Worker could not start, from its `error` event's `message` (`None` or empty:
/// the script did not load).
pub fn worker_failed_text(message: Option<&str>) -> String {
    let msg = message.filter(|m| !m.is_empty());
    let msg = msg.unwrap_or("scan-worker.js did not load");
    format!("the scan's worker could not start: {msg}")
}

/// A scan that could not run, saying `message`, with "Try again" (`scan-start`).
pub fn failed(message: &str) -> Vec<Node> {
    vec![
        node::text(
            "p",
            "scan-error",
            &format!("The scan could not run: {}", text::escape(message)),
        )
        .testid("scan-status"),
        actions([button("Try again", "scan-start", false)]),
    ]
}

/// How many of `rows` were scanned (not skipped).
pub fn scanned(rows: &[ScanRow]) -> usize {
    rows.iter().filter(|r| r.status != "skipped").count()
}

/// The line after a scan of `tensors` tensors that read `bytes` in `seconds`: ended
/// (`ended`) or cancelled.
pub fn finished_line(
    ended: bool,
    rows: &[ScanRow],
    tensors: usize,
    bytes: u64,
    seconds: f64,
) -> String {
    if ended {
        done_text(scanned(rows), tensors, bytes, seconds)
    } else {
        cancelled_text(scanned(rows), tensors, bytes)
    }
}

/// Where the findings (not notes) of an ended scan are: `No problems found: …`, `1 finding, …`.
pub fn findings_words(lines: &[FindingLine]) -> String {
    match lines.iter().filter(|l| l.severity != "note").count() {
        0 => "No problems found: see the Checks card.".to_string(),
        1 => "1 finding, listed in the Checks card.".to_string(),
        n => format!("{n} findings, listed in the Checks card."),
    }
}

/// After a scan: `line` ([`finished_line`], `scan-status`, a status region), where the
/// findings are when it ended (`findings`), the filter box (`scan-filter`) and "Scan again"
/// (`scan-start`), and the results table (`scan-table`: a sort button per [`COLUMNS`] header,
/// an empty body for [`scan::row_nodes`]).
pub fn finished(line: &str, findings: Option<&[FindingLine]>) -> Vec<Node> {
    let mut out = vec![node::text("p", "scan-status", line)
        .testid("scan-status")
        // Said once the scan ends (the running line is not a live region: it changes 10×/s).
        .attr("role", "status")];
    if let Some(lines) = findings {
        out.push(node::text("p", "muted", &findings_words(lines)));
    }
    out.push(actions([
        node::search_input(
            "Filter: name, type, nan, inf, error",
            "Filter the scan's rows",
        )
        .testid("scan-filter"),
        button("Scan again", "scan-start", false),
    ]));
    let heads = COLUMNS.iter().map(|(name, numeric)| {
        node::el("th", if *numeric { "num" } else { "" })
            .attr("scope", "col")
            .child(node::text("button", "sort", name).attr("type", "button"))
    });
    out.push(
        node::el("div", "table-scroll scan-scroll").child(
            node::el("table", "scan-table")
                .testid("scan-table")
                .child(node::el("thead", "").child(node::el("tr", "").children(heads)))
                .child(node::el("tbody", "")),
        ),
    );
    out
}

/// The sort after a click on column `col`'s header, from `current` (column, descending): the
/// same column flips; another starts from the largest for numbers, from A for names.
pub fn next_sort(current: Option<(usize, bool)>, col: usize) -> Option<(usize, bool)> {
    match current {
        Some((c, d)) if c == col => Some((col, !d)),
        _ => Some((col, COLUMNS.get(col).is_some_and(|c| c.1))),
    }
}

/// Column `col`'s `aria-sort` under `sort`: `ascending`, `descending` or `none`.
pub fn aria_sort(sort: Option<(usize, bool)>, col: usize) -> &'static str {
    match sort {
        Some((c, true)) if c == col => "descending",
        Some((c, false)) if c == col => "ascending",
        _ => "none",
    }
}

/// The rows to draw: `rows` sorted by `sort` in place (none: the model's order), those that
/// match `filter` ([`scan::matches`]).
pub fn visible(rows: &mut [ScanRow], sort: Option<(usize, bool)>, filter: &str) -> Vec<ScanRow> {
    let (col, desc) = sort.unwrap_or((usize::MAX, false));
    scan::sort(rows, col, desc);
    rows.iter()
        .filter(|r| scan::matches(r, filter))
        .cloned()
        .collect()
}

/// The Checks card's class for its `[errors, warnings, notes]` counts once the scan's findings
/// are in: `checks-error`, `checks-warning` or `checks-clean`.
pub fn checks_class(counts: [usize; 3]) -> &'static str {
    match counts {
        [e, ..] if e > 0 => "checks-error",
        [_, w, _] if w > 0 => "checks-warning",
        _ => "checks-clean",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_that_does_not_start_says_why() {
        assert_eq!(
            worker_failed_text(Some("SyntaxError: bad")),
            "the scan's worker could not start: SyntaxError: bad"
        );
        let unloaded = "the scan's worker could not start: scan-worker.js did not load";
        assert_eq!(worker_failed_text(Some("")), unloaded);
        assert_eq!(worker_failed_text(None), unloaded);
    }

    fn row(index: usize, name: &str, status: &str, nan: u64) -> ScanRow {
        let mut r = scan::row(
            index,
            &crate::scan::TensorScan {
                name: name.into(),
                dtype: "F32".into(),
                ..Default::default()
            },
        );
        r.status = status.into();
        r.nan = nan;
        r
    }

    fn line(sev: &str) -> FindingLine {
        FindingLine {
            severity: sev.into(),
            code: "c".into(),
            text: "t".into(),
        }
    }

    #[test]
    fn each_state_has_its_buttons() {
        let ids = |nodes: &[Node]| -> Vec<String> {
            nodes
                .iter()
                .flat_map(|n| n.descendants())
                .filter(|n| n.tag == "button" || n.tag == "input")
                .filter_map(|n| n.get_attr("data-testid").map(str::to_string))
                .collect()
        };
        let local = idle(2048, 10, false);
        assert_eq!(ids(&local), ["scan-start"]);
        assert_eq!(local[1].text_content(), "Scan all weights");
        assert_eq!(
            idle(2048, 1024, true)[1].text_content(),
            "Scan all weights (downloads 3.0 KiB)"
        );
        assert!(local[1].children[0].has_class("primary"));
        assert_eq!(ids(&confirm(1, 1, "hf.co")), ["scan-go", "scan-not-now"]);
        let run = running(0);
        assert_eq!(run[0].get_attr("max"), Some("1"));
        assert_eq!(ids(&run), ["scan-cancel"]);
        let f = failed("<boom>");
        assert_eq!(ids(&f), ["scan-start"]);
        assert!(f[0].text_content().starts_with("The scan could not run: "));
        let done = finished("Scanned", Some(&[line("note")]));
        assert_eq!(ids(&done), ["scan-filter", "scan-start"]);
        assert_eq!(
            done[1].text_content(),
            "No problems found: see the Checks card."
        );
        assert_eq!(done[0].get_attr("role"), Some("status"));
        let table = done[3].find_testid("scan-table").unwrap();
        let ths = table.children[0].children[0].children.clone();
        assert_eq!(ths.len(), COLUMNS.len());
        assert_eq!((ths[2].class.as_str(), ths[0].class.as_str()), ("num", ""));
        // Cancelled: no findings line.
        assert_eq!(finished("x", None).len(), 3);
    }

    #[test]
    fn each_screen_says_its_state_and_what_its_buttons_do() {
        let local = Scope {
            bytes: 2048,
            headers: 10,
            tensors: 2,
            host: None,
        };
        let remote = Scope {
            host: Some("hf.co".into()),
            ..local.clone()
        };
        assert_eq!(
            (local.idle().state, local.idle().buttons),
            ("idle", &[("scan-start", Step::Start)][..])
        );
        assert_eq!(local.idle().nodes, idle(2048, 10, false));
        assert_eq!(remote.idle().buttons, [("scan-start", Step::Confirm)]);
        assert_eq!(remote.idle().nodes, idle(2048, 10, true));
        let ask = remote.confirm();
        assert_eq!(ask.state, "confirm");
        assert_eq!(
            ask.buttons,
            [("scan-go", Step::Start), ("scan-not-now", Step::Idle)]
        );
        assert_eq!(ask.nodes, confirm(2048, 10, "hf.co"));
        assert_eq!(local.confirm().nodes, confirm(2048, 10, "the server"));
        let run = local.running();
        assert_eq!(
            (run.state, run.buttons),
            ("running", &[("scan-cancel", Step::Cancel)][..])
        );
        let f = local.failed("boom");
        assert_eq!((f.state, f.nodes), ("error", failed("boom")));
        assert_eq!(f.buttons, [("scan-start", Step::Start)]);

        let mut results = Results::default();
        results.restart(1000.0);
        results.rows = vec![row(0, "a", "ok", 0), row(1, "b", "skipped", 0)];
        results.progress(2048, 2048, 2000.0);
        let done = remote.finished(&results, Some(&[line("warning")]), 3000.0);
        assert_eq!(done.state, "done");
        assert_eq!(done.buttons, [("scan-start", Step::Confirm)]);
        let line_text = results.finished_line(true, 2, 3000.0);
        assert_eq!(done.nodes, finished(&line_text, Some(&[line("warning")])));
        let stopped = local.finished(&results, None, 3000.0);
        assert_eq!(stopped.state, "cancelled");
        assert_eq!(stopped.buttons, [("scan-start", Step::Start)]);
        assert_eq!(
            stopped.nodes[0].text.as_deref(),
            Some(results.finished_line(false, 2, 3000.0).as_str())
        );
    }

    #[test]
    fn lines_words_sorts_and_class() {
        let rows = vec![row(0, "a", "ok", 0), row(1, "b", "skipped", 0)];
        assert_eq!(scanned(&rows), 1);
        assert!(finished_line(true, &rows, 2, 0, 0.0).starts_with("Scanned 1 of 2 tensors"));
        assert!(finished_line(false, &rows, 2, 0, 0.0).starts_with("Cancelled after 1 of 2"));
        assert_eq!(
            findings_words(&[line("error"), line("note")]),
            "1 finding, listed in the Checks card."
        );
        assert_eq!(
            findings_words(&[line("error"), line("warning")]),
            "2 findings, listed in the Checks card."
        );
        // Numbers start from the largest, names from A; a second click flips.
        assert_eq!(next_sort(None, 0), Some((0, false)));
        assert_eq!(next_sort(None, 3), Some((3, true)));
        assert_eq!(next_sort(Some((3, true)), 3), Some((3, false)));
        assert_eq!(next_sort(Some((3, true)), 0), Some((0, false)));
        assert_eq!(aria_sort(Some((3, true)), 3), "descending");
        assert_eq!(aria_sort(Some((3, false)), 3), "ascending");
        assert_eq!(aria_sort(Some((3, false)), 2), "none");
        let mut rows = vec![
            row(0, "b", "ok", 0),
            row(1, "a", "ok", 2),
            row(2, "c", "ok", 0),
        ];
        let names = |v: &[ScanRow]| v.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&visible(&mut rows, Some((0, false)), "")),
            ["a", "b", "c"]
        );
        assert_eq!(names(&visible(&mut rows, None, "nan")), ["a"]);
        assert_eq!(names(&rows), ["b", "a", "c"]);
        assert_eq!(checks_class([0, 0, 3]), "checks-clean");
        assert_eq!(checks_class([0, 1, 0]), "checks-warning");
        assert_eq!(checks_class([2, 1, 0]), "checks-error");
    }

    /// Decodes a message as the page does, from its JSON form.
    fn event(json: &str) -> Option<ScanEvent> {
        serde_json::from_str::<WorkerMessage>(json).unwrap().event()
    }

    #[test]
    fn worker_messages_become_events() {
        assert_eq!(
            event(r#"{"type":"progress","done":1048576,"total":4194304}"#),
            Some(ScanEvent::Progress(1 << 20))
        );
        assert_eq!(
            event(r#"{"type":"progress"}"#),
            Some(ScanEvent::Progress(0))
        );
        let r = row(4, "blk.0.w", "ok", 3);
        let msg = serde_json::json!({
            "type": "tensor",
            "json": "{}",
            "row": serde_json::to_string(&r).unwrap(),
            "index": 4,
        });
        assert_eq!(
            event(&msg.to_string()),
            Some(ScanEvent::Tensor(Box::new(r)))
        );
        // A row that does not read is dropped, not a failure.
        assert_eq!(event(r#"{"type":"tensor","row":"{"}"#), None);
        let lines = [line("warning"), line("note")];
        let msg = serde_json::json!({
            "type": "done",
            "doc": "{}",
            "lines": serde_json::to_string(&lines).unwrap(),
        });
        assert_eq!(
            event(&msg.to_string()),
            Some(ScanEvent::Done(lines.to_vec()))
        );
        assert_eq!(event(r#"{"type":"done"}"#), Some(ScanEvent::Done(vec![])));
        assert_eq!(
            event(r#"{"type":"error","message":"HTTP 403"}"#),
            Some(ScanEvent::Error("HTTP 403".into()))
        );
        assert_eq!(
            event(r#"{"type":"error"}"#),
            Some(ScanEvent::Error(String::new()))
        );
        assert_eq!(event(r#"{"type":"share-done"}"#), None);
    }

    #[test]
    fn the_host_a_remote_scan_names() {
        let one = |u: &str| host_of(&[u.to_string(), "https://other.org/b".into()]);
        assert_eq!(
            one("https://huggingface.co/a/b/resolve/main/m.gguf"),
            "huggingface.co"
        );
        assert_eq!(one("http://127.0.0.1:8080/m.gguf"), "127.0.0.1:8080");
        assert_eq!(one("https://example.com:443/m.gguf"), "example.com");
        assert_eq!(one("m.gguf"), "the server");
        assert_eq!(host_of(&[]), "the server");
    }

    #[test]
    fn results_sort_filter_and_restart() {
        let mut res = Results {
            rows: vec![row(0, "b", "ok", 0), row(1, "a", "ok", 2)],
            done: 10,
            ..Results::default()
        };
        res.click(0);
        res.filter = "a".into();
        let names: Vec<_> = res.visible().into_iter().map(|r| r.name).collect();
        assert_eq!(names, ["a"]);
        res.click(0);
        assert_eq!(res.sort, Some((0, true)));
        res.restart(5.0);
        assert!(res.rows.is_empty() && res.filter.is_empty());
        assert_eq!((res.done, res.sort, res.started_ms), (0, None, 5.0));
    }

    #[test]
    fn the_table_is_drawn_in_chunks_up_to_the_limit() {
        // 130 rows: 60, 60, then the last 10.
        assert_eq!(
            chunk(0, 130),
            Chunk {
                rows: 0..60,
                next: Some(60),
                left_out: 0
            }
        );
        assert_eq!(chunk(120, 130).rows, 120..130);
        assert_eq!(chunk(120, 130).next, None);
        // No rows: one empty, last chunk.
        assert_eq!(
            chunk(0, 0),
            Chunk {
                rows: 0..0,
                next: None,
                left_out: 0
            }
        );
        // Past the limit: the chunks stop at MAX_ROWS and the last says how many are left out.
        let total = MAX_ROWS + 25;
        let mut from = 0;
        let mut drawn = 0;
        let last = loop {
            let c = chunk(from, total);
            assert!(c.rows.len() <= CHUNK_ROWS);
            drawn += c.rows.len();
            match c.next {
                Some(n) => from = n,
                None => break c,
            }
        };
        assert_eq!(drawn, MAX_ROWS);
        assert_eq!(last.rows.end, MAX_ROWS);
        assert_eq!(last.left_out, 25);

        // As nodes: each row's, then the line of the rows left out; the last says how many.
        let rows: Vec<ScanRow> = (0..total).map(|i| row(i, "t", "ok", 0)).collect();
        let first = chunk_nodes(&rows, 0);
        let per_row = scan::row_nodes(&rows[0]).len();
        assert_eq!(first.nodes.len(), CHUNK_ROWS * per_row);
        assert_eq!(first.nodes[0], scan::row_nodes(&rows[0])[0]);
        assert_eq!((first.next, first.drawn), (Some(CHUNK_ROWS), None));
        let end = chunk_nodes(&rows, last.rows.start);
        assert_eq!((end.next, end.drawn), (None, Some(MAX_ROWS)));
        assert_eq!(end.nodes.last(), Some(&scan::more_rows_node(25)));
        let few = chunk_nodes(&rows[..3], 0);
        assert_eq!((few.nodes.len(), few.drawn), (3 * per_row, Some(3)));
        assert_eq!(chunk_nodes(&[], 0).drawn, Some(0));
    }

    #[test]
    fn the_worker_is_given_only_the_options_that_apply() {
        let json = |o: &WorkerOptions| serde_json::to_value(o).unwrap();
        assert_eq!(
            json(&WorkerOptions::local(&["m.gguf"])),
            serde_json::json!({"name": "m.gguf"})
        );
        assert_eq!(
            json(&WorkerOptions::local(&["a.safetensors", "b.safetensors"])),
            serde_json::json!({})
        );
        assert_eq!(
            json(&WorkerOptions::remote("https://hf.co", Some("hf_x"))),
            serde_json::json!({"endpoint": "https://hf.co", "token": "hf_x"})
        );
        assert_eq!(
            json(&WorkerOptions::remote("https://hf.co", None)),
            serde_json::json!({"endpoint": "https://hf.co"})
        );
    }

    #[test]
    fn results_time_the_scan() {
        let mut res = Results::default();
        res.restart(10_000.0);
        // 1 GiB of 4 GiB after 2 s.
        let line = res.progress(1 << 30, 4 << 30, 12_000.0);
        assert_eq!(res.done, 1 << 30);
        assert_eq!(res.seconds(12_000.0), 2.0);
        assert_eq!(line, progress(1 << 30, 4 << 30, 2.0));
        res.rows.push(row(0, "a", "ok", 0));
        assert_eq!(
            res.finished_line(true, 3, 14_000.0),
            done_text(1, 3, 1 << 30, 4.0)
        );
        assert_eq!(
            res.finished_line(false, 3, 14_000.0),
            cancelled_text(1, 3, 1 << 30)
        );
    }
}
