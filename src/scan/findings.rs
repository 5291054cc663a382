//! What a scan's results mean, as findings of the kind `--check` gives ([`crate::check`]):
//!
//! - error `scan-non-finite-values`: NaN or infinite values, with the first offending block's
//!   (or element's) byte offset;
//! - error `scan-non-finite-scales`: NaN or infinite block scales (`ggml_validate_row_data`'s
//!   judgement, [`super::scales`]);
//! - error `scan-unreadable`: the tensor's bytes could not be read (past the end of the file: a
//!   download cut short; a failed read);
//! - warning `scan-all-zero`: a tensor of one or more values, every one zero;
//! - warning `scan-outlier`: a tensor whose root-mean-square value is more than
//!   [`OUTLIER_FACTOR`] times above or below the median of its siblings' — the tensors whose
//!   names differ only in their numbered parts (`blk.3.attn_q.weight` and `blk.17.attn_q.weight`),
//!   when there are at least [`MIN_SIBLINGS`] of them with finite values;
//! - note `scan-not-scanned`: a tensor this tool does not decode (its values elsewhere, an
//!   unknown type), with the reason.

use crate::check::{Finding, Severity};

use super::TensorScan;

/// How far (as a factor, either way) a tensor's RMS may lie from its siblings' median before
/// it is called an outlier: 1000. The same role's RMS varies by well under 100× across the
/// layers of trained models (norm gains grow with depth, projections stay within a few ×),
/// while a broken scale or a garbage block moves it by many orders of magnitude.
pub const OUTLIER_FACTOR: f64 = 1000.0;
/// Fewest siblings (the tensor included) whose median is trusted: 4.
pub const MIN_SIBLINGS: usize = 4;

/// The sibling key of a name: every `.`- or `/`-separated part that is all ASCII digits
/// replaced by `#` (`blk.12.attn_q.weight` → `blk.#.attn_q.weight`; the digits of `Q4_K` or
/// `layer12` stay).
pub fn sibling_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut part = String::new();
    let flush = |part: &mut String, out: &mut String| {
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            out.push('#');
        } else {
            out.push_str(part);
        }
        part.clear();
    };
    for c in name.chars() {
        if c == '.' || c == '/' {
            flush(&mut part, &mut out);
            out.push(c);
        } else {
            part.push(c);
        }
    }
    flush(&mut part, &mut out);
    out
}

/// Root mean square of a scan's finite values: `sqrt(mean² + std²)`.
pub fn rms(t: &TensorScan) -> Option<f64> {
    let v = t.values.as_ref()?;
    Some((v.mean? * v.mean? + v.std? * v.std?).sqrt())
}

fn finding(severity: Severity, code: &'static str, t: &TensorScan, message: String) -> Finding {
    Finding {
        severity,
        code,
        message,
        offset: t.first_bad_offset,
        tensor: Some(t.name.clone()),
    }
}

/// The findings of a scan's results, errors first, each group in tensor order.
pub fn findings(scans: &[TensorScan]) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in scans {
        let at = t
            .first_bad_offset
            // The offset itself is the finding's (every front end shows it as "byte N").
            .map(|_| "; the offset is the first such block's".to_string())
            .unwrap_or_default();
        if let Some(v) = &t.values {
            if v.nan + v.inf > 0 {
                out.push(finding(
                    Severity::Error,
                    "scan-non-finite-values",
                    t,
                    format!(
                        "{} NaN and {} infinite values among {}{at}",
                        v.nan, v.inf, v.count
                    ),
                ));
            }
        }
        if t.scale_nan + t.scale_inf > 0 {
            out.push(finding(
                Severity::Error,
                "scan-non-finite-scales",
                t,
                format!(
                    "{} NaN and {} infinite block scales in {} {} blocks{at} (llama.cpp's --check-tensors refuses it)",
                    t.scale_nan, t.scale_inf, t.blocks, t.dtype
                ),
            ));
        }
        if let (true, Some(why)) = (t.failed, &t.skipped) {
            out.push(Finding {
                offset: None,
                ..finding(Severity::Error, "scan-unreadable", t, why.clone())
            });
        }
    }
    for t in scans {
        if let Some(v) = &t.values {
            if v.count > 0 && v.zeros == v.count && !t.failed {
                out.push(Finding {
                    offset: None,
                    ..finding(
                        Severity::Warning,
                        "scan-all-zero",
                        t,
                        format!("all {} values are zero", v.count),
                    )
                });
            }
        }
    }
    out.extend(outliers(scans));
    for t in scans {
        if let (false, Some(why)) = (t.failed, &t.skipped) {
            out.push(Finding {
                offset: None,
                ..finding(
                    Severity::Info,
                    "scan-not-scanned",
                    t,
                    format!("not scanned: {why}"),
                )
            });
        }
    }
    out
}

/// `scan-outlier` warnings ([`OUTLIER_FACTOR`], [`MIN_SIBLINGS`]).
fn outliers(scans: &[TensorScan]) -> Vec<Finding> {
    let mut groups: std::collections::BTreeMap<String, Vec<(usize, f64)>> = Default::default();
    for (i, t) in scans.iter().enumerate() {
        if let Some(r) = rms(t).filter(|r| r.is_finite()) {
            groups.entry(sibling_key(&t.name)).or_default().push((i, r));
        }
    }
    let mut flagged = Vec::new();
    for members in groups.values().filter(|m| m.len() >= MIN_SIBLINGS) {
        let mut sorted: Vec<f64> = members.iter().map(|m| m.1).collect();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        let median = if sorted.len() % 2 == 0 {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        } else {
            sorted[mid]
        };
        if median <= 0.0 {
            continue;
        }
        for &(i, r) in members {
            // An all-zero tensor is warned about as such.
            if r > median * OUTLIER_FACTOR || (r > 0.0 && r < median / OUTLIER_FACTOR) {
                flagged.push((i, r, median, members.len()));
            }
        }
    }
    flagged.sort_by_key(|f| f.0);
    flagged
        .into_iter()
        .map(|(i, r, median, n)| {
            let t = &scans[i];
            Finding {
                offset: None,
                ..finding(
                    Severity::Warning,
                    "scan-outlier",
                    t,
                    format!(
                        "its root-mean-square value {r:.3e} is {:.0}× {} the median {median:.3e} of the {n} tensors named like it",
                        if r > median { r / median } else { median / r },
                        if r > median { "above" } else { "below" }
                    ),
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_differ_only_in_numbers() {
        assert_eq!(sibling_key("blk.12.attn_q.weight"), "blk.#.attn_q.weight");
        assert_eq!(
            sibling_key("model.layers.3.mlp.up_proj"),
            "model.layers.#.mlp.up_proj"
        );
        assert_eq!(sibling_key("token_embd.weight"), "token_embd.weight");
        assert_eq!(sibling_key("t.Q4_K"), "t.Q4_K");
        assert_eq!(sibling_key("a/0/b.12"), "a/#/b.#");
    }
}
