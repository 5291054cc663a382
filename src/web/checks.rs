//! The Checks card: every validation finding with its severity, or "no problems found" and
//! what was checked. Text only.

use std::rc::Rc;

use gloo::timers::callback::Timeout;
use web_sys::Element;

use super::dom::{self, append, attr, el_class, el_text};
use crate::check::Finding;
use crate::format::{Format, Model};
use crate::view::checks;

/// Most findings listed; a damaged file can have one per tensor.
const MAX_LINES: usize = 500;

/// Runs the doctor on `model` in a task of its own (`setTimeout(0)`: the first view is painted
/// and input handled before it), then puts the card of `findings` (the model's
/// [`crate::summary::summarize_open`] findings) and the doctor's in place of `card`. `None`
/// (and `card` marked done) when the doctor has nothing to read: not a GGUF file. Until then
/// the card says `data-doctor="pending"`, then `"done"`.
pub fn later_doctor(
    card: Element,
    model: Rc<Model>,
    mut findings: Vec<Finding>,
) -> Option<Timeout> {
    if model.format != Format::Gguf {
        attr(&card, "data-doctor", "done");
        return None;
    }
    attr(&card, "data-doctor", "pending");
    Some(Timeout::new(0, move || {
        crate::check::add_doctor(&model, &mut findings);
        let done = checks_card(&findings);
        attr(&done, "data-doctor", "done");
        // The tab panel's or the page's card, wherever it was placed.
        let _ = card.replace_with_with_node_1(&done);
    }))
}

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
