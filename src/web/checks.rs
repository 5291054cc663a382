//! The Checks card: every validation finding with its severity, or "no problems found" and
//! what was checked. Text only.

use web_sys::Element;

use super::dom::{self, append, attr, el_class, el_text};
use crate::check::Finding;
use crate::view::checks;

/// Most findings listed; a damaged file can have one per tensor.
const MAX_LINES: usize = 500;

/// Builds the card (`data-testid="checks"`, one `li` per finding with `data-severity` and
/// `data-code`).
pub fn checks_card(findings: &[Finding]) -> Element {
    let worst = findings
        .first()
        .map(|f| checks::lines(std::slice::from_ref(f))[0].severity);
    let class = match worst {
        Some("error") => "checks checks-error",
        Some("warning") => "checks checks-warning",
        _ => "checks checks-clean",
    };
    let (card, body) = dom::card(&checks::title(findings), class);
    attr(&card, "data-testid", "checks");
    if findings.is_empty() {
        append(&body, &el_text("p", "muted", &checks::checked_text()));
        return card;
    }
    let list = el_class("ul", "check-list");
    for line in checks::lines(findings).into_iter().take(MAX_LINES) {
        let li = el_class("li", &format!("check check-{}", line.severity));
        attr(&li, "data-severity", line.severity);
        attr(&li, "data-code", line.code);
        append(&li, &el_text("span", "check-severity", line.severity));
        append(&li, &el_text("span", "check-text", &line.text));
        append(&list, &li);
    }
    if findings.len() > MAX_LINES {
        append(
            &list,
            &el_text(
                "li",
                "muted",
                &crate::view::facts::more_text(findings.len() - MAX_LINES),
            ),
        );
    }
    append(&body, &list);
    card
}
