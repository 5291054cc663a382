//! The page's "Scan all weights" card as [`Node`]s, one body per state ([`idle`], [`confirm`],
//! [`running`], [`failed`], [`finished`]), and its decisions: the line after a scan
//! ([`finished_line`]), the results' sort on a header click ([`next_sort`], [`aria_sort`]),
//! the rows shown ([`visible`]) and the Checks card's class once the scan's findings are in
//! ([`checks_class`]). Texts come from [`crate::view::scan`]; the page renders these, runs the
//! Worker and wires the buttons by their `data-testid`.

use crate::text;
use crate::view::node::{self, Node};
use crate::view::scan::{
    self, cancelled_text, confirm_text, done_text, intro_text, progress, FindingLine, ScanRow,
    COLUMNS,
};

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
}
