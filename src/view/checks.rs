//! The Checks card: validation findings as the page lists them.

use crate::check::{Finding, Severity, CHECKS};
use crate::text;

/// One line of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLine {
    /// `error`, `warning` or `note` (also the CSS class and `data-severity`).
    pub severity: &'static str,
    /// The finding's stable code (`data-code`).
    pub code: &'static str,
    /// What to show: the tensor (if any), the message and the byte offset, control characters
    /// escaped.
    pub text: String,
}

/// Title of the card: `Checks: no problems found`, or the counts (`Checks: 2 errors, 1 warning`).
pub fn title(findings: &[Finding]) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    title_of_counts([
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    ])
}

/// The card's title for `[errors, warnings, notes]` findings (the page's card once the scan's
/// findings joined the header's).
pub fn title_of_counts(counts: [usize; 3]) -> String {
    let mut parts = Vec::new();
    for (n, word) in counts.into_iter().zip(["error", "warning", "note"]) {
        if n > 0 {
            parts.push(format!(
                "{} {word}{}",
                text::thousands(n as u64),
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    if parts.is_empty() {
        "Checks: no problems found".into()
    } else {
        format!("Checks: {}", parts.join(", "))
    }
}

/// What a clean file was checked for.
pub fn checked_text() -> String {
    format!("Checked: {}.", CHECKS.join("; "))
}

/// The lines of the card, in the findings' order (errors first).
pub fn lines(findings: &[Finding]) -> Vec<CheckLine> {
    findings
        .iter()
        .map(|f| {
            let mut text = String::new();
            if let Some(t) = &f.tensor {
                text.push_str(&format!("tensor \"{}\": ", text::escape(t)));
            }
            text.push_str(&text::escape(&f.message));
            if let Some(o) = f.offset {
                text.push_str(&format!(" (byte {})", text::thousands(o)));
            }
            CheckLine {
                severity: f.severity.word(),
                code: f.code,
                text,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(severity: Severity, tensor: Option<&str>) -> Finding {
        Finding {
            severity,
            code: "gap",
            message: "12 unused\nbytes".into(),
            offset: Some(123456),
            tensor: tensor.map(str::to_string),
        }
    }

    #[test]
    fn titles_and_lines() {
        assert_eq!(title(&[]), "Checks: no problems found");
        let all = [
            f(Severity::Error, Some("a\u{202e}b")),
            f(Severity::Error, None),
            f(Severity::Info, None),
        ];
        assert_eq!(title(&all), "Checks: 2 errors, 1 note");
        let l = lines(&all);
        assert_eq!(l[0].severity, "error");
        assert_eq!(
            l[0].text,
            "tensor \"a\\u{202e}b\": 12 unused\\nbytes (byte 123,456)"
        );
        assert_eq!(l[2].severity, "note");
        assert!(checked_text().starts_with("Checked: the header parses to the end;"));
    }
}
