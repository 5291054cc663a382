//! `weightpeek scan`: one line per tensor (values, NaN, Inf, zeros, min, max, mean, std, and
//! the block scales judged), then the findings as `--check` prints them; the JSON document;
//! the progress line shown on a terminal.

use serde::Serialize;

use crate::check::Finding;
use crate::preview::exact_text;
use crate::scan::TensorScan;
use crate::text::{self, escape};
use crate::view::scan::short;

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

/// The text report.
pub fn text(name: &str, scans: &[TensorScan], findings: &[Finding]) -> String {
    let mut out = format!(
        "{}: {} tensors scanned, {} read\n",
        escape(name),
        scans.iter().filter(|t| t.values.is_some()).count(),
        text::bytes(scans.iter().map(|t| t.bytes_read).sum())
    );
    let width = scans
        .iter()
        .map(|t| escape(&t.name).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    out.push_str(&format!(
        "  {:<width$} {:<8} {:>12} {:>6} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12}  scales\n",
        "name", "type", "values", "nan", "inf", "zeros", "min", "max", "mean", "std"
    ));
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for t in scans {
        let name = escape(&t.name);
        let dtype = escape(&t.dtype);
        let Some(v) = &t.values else {
            let why = t.skipped.as_deref().unwrap_or("not scanned");
            out.push_str(&format!("  {name:<width$} {dtype:<8} {}\n", escape(why)));
            continue;
        };
        let scales = if t.blocks > 0 {
            format!(
                "{} NaN, {} Inf in {} blocks",
                t.scale_nan, t.scale_inf, t.blocks
            )
        } else {
            "-".into()
        };
        out.push_str(&format!(
            "  {name:<width$} {dtype:<8} {:>12} {:>6} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12}  {scales}\n",
            v.count,
            v.nan,
            v.inf,
            v.zeros,
            opt(v.min.map(exact_text)),
            opt(v.max.map(exact_text)),
            opt(v.mean.map(short)),
            opt(v.std.map(short)),
        ));
        if let Some(why) = &t.skipped {
            out.push_str(&format!("    {}\n", escape(why)));
        }
    }
    out.push_str(&if findings.is_empty() {
        "no NaN or infinite values or block scales, no all-zero or outlying tensors\n".to_string()
    } else {
        super::check::text(findings)
    });
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_how_far_how_fast_and_how_long() {
        assert_eq!(
            progress(512 << 20, 2048 << 20, 0.5),
            "scanned 512.0 MiB of 2.0 GiB (25%), 1.0 GiB/s, 2 s left"
        );
    }
}
