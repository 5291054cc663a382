//! `weightpeek scan`: one line per tensor (values, NaN, Inf, zeros, min, max, mean, std, and
//! the block scales judged), then the findings as `--check` prints them. The JSON document
//! and the progress line are the page's too ([`crate::view::scan`]).

use crate::check::Finding;
use crate::preview::exact_text;
use crate::scan::TensorScan;
use crate::text::{self, escape};
use crate::view::scan::short;
pub use crate::view::scan::{progress, ScanDoc};

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
