//! The Checks card: every validation finding with its severity, or "no problems found" and
//! what was checked. Text only.

use std::rc::Rc;

use gloo::timers::callback::Timeout;
use web_sys::Element;

use super::dom::{self, attr};
use crate::check::Finding;
use crate::format::Format;
use crate::open::OpenedModel;
use crate::view::checks;

/// Runs the doctor on `model` in a task of its own (`setTimeout(0)`: the first view is painted
/// and input handled before it), then puts the card of `findings` (the model's
/// [`crate::summary::summarize_open`] findings) and the doctor's in place of `card`. `None`
/// (and `card` marked done) when the doctor has nothing to read: not a GGUF file. Until then
/// the card says `data-doctor="pending"`, then `"done"`.
pub fn later_doctor(
    card: Element,
    model: Rc<OpenedModel>,
    mut findings: Vec<Finding>,
) -> Option<Timeout> {
    if model.format != Format::Gguf {
        attr(&card, "data-doctor", "done");
        return None;
    }
    attr(&card, "data-doctor", "pending");
    Some(Timeout::new(0, move || {
        crate::open::findings::add_doctor(&model, &mut findings);
        let done = checks_card(&findings);
        attr(&done, "data-doctor", "done");
        // The tab panel's or the page's card, wherever it was placed.
        let _ = card.replace_with_with_node_1(&done);
    }))
}

/// Renders the card of `findings` ([`checks::card`]).
pub fn checks_card(findings: &[Finding]) -> Element {
    dom::render(&checks::card(findings))
}
