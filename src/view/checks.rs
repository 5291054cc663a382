//! The Checks card: validation findings as the page lists them.

use crate::check::{Finding, Severity, CHECKS};
use crate::text;
use crate::view::node::{self, Node};

/// Most findings listed; a damaged file can have one per tensor.
pub const MAX_LINES: usize = 500;

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

/// The card (`data-testid="checks"`, class `checks-error`/`-warning`/`-clean` by the worst
/// finding, one `li` per finding with `data-severity` and `data-code`, at most [`MAX_LINES`]),
/// or "no problems found" and what was checked.
pub fn card(findings: &[Finding]) -> Node {
    let worst = findings
        .first()
        .map(|f| lines(std::slice::from_ref(f))[0].severity);
    let class = match worst {
        Some("error") => "checks checks-error",
        Some("warning") => "checks checks-warning",
        _ => "checks checks-clean",
    };
    let mut card = node::card(&title(findings), class).testid("checks");
    if findings.is_empty() {
        card.body().push(node::text("p", "muted", &checked_text()));
        return card;
    }
    let mut list = node::el("ul", "check-list");
    for line in lines(findings).into_iter().take(MAX_LINES) {
        list.push(
            node::el("li", &format!("check check-{}", line.severity))
                .attr("data-severity", line.severity)
                .attr("data-code", line.code)
                .child(node::text("span", "check-severity", line.severity))
                .child(node::text("span", "check-text", &line.text)),
        );
    }
    if findings.len() > MAX_LINES {
        list.push(node::text(
            "li",
            "muted",
            &crate::view::facts::more_text(findings.len() - MAX_LINES),
        ));
    }
    card.body().push(list);
    card
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

    #[test]
    fn the_card_lists_findings_worst_first_and_caps_them() {
        let sample = crate::open::OpenedModel::from(
            crate::source::parse_bytes(include_bytes!("../../www/sample.gguf")).unwrap(),
        );
        let clean = card(&crate::summary::summarize(&sample).findings);
        assert_eq!(clean.get_attr("data-testid"), Some("checks"));
        assert_eq!(clean.class, "card checks checks-clean");
        assert_eq!(
            clean.children[0].text_content(),
            "Checks: no problems found"
        );
        let p = &clean.children[1].children[0];
        assert_eq!((p.tag, p.class.as_str()), ("p", "muted"));
        assert_eq!(p.text, Some(checked_text()));

        let mut all = vec![f(Severity::Error, Some("a\u{202e}b"))];
        all.extend((0..MAX_LINES + 2).map(|_| f(Severity::Warning, None)));
        let c = card(&all);
        assert_eq!(c.class, "card checks checks-error");
        let items = c.find_class("check");
        assert_eq!(items.len(), MAX_LINES);
        assert_eq!(items[0].class, "check check-error");
        assert_eq!(items[0].get_attr("data-severity"), Some("error"));
        assert_eq!(items[0].get_attr("data-code"), Some("gap"));
        assert_eq!(
            items[0].children[1].text.as_deref(),
            Some("tensor \"a\\u{202e}b\": 12 unused\\nbytes (byte 123,456)")
        );
        let list = &c.find_class("check-list")[0];
        assert_eq!(list.children.len(), MAX_LINES + 1);
        assert_eq!(
            list.children[MAX_LINES].text,
            Some(crate::view::facts::more_text(3))
        );
    }
}
