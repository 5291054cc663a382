//! The Quantisation recipe card: one row per tensor pattern with its types, the
//! `llama-quantize` command that reproduces them, and the provenance keys. Text only (every
//! string from the file is set as text, never HTML); drawn from [`crate::view::recipe`].

use web_sys::Element;

use super::dom::{self, append, attr, el_class, el_text};
use crate::summary::recipe::Recipe;
use crate::view::recipe::{view, NO_PROVENANCE, TITLE};

/// Builds the card (`data-testid="recipe"`; each pattern row has `data-pattern`).
pub fn recipe_card(r: &Recipe) -> Element {
    let v = view(r);
    let (card, body) = dom::card(TITLE, "recipe");
    attr(&card, "data-testid", "recipe");
    append(&body, &el_text("p", "muted", &v.title));

    let scroller = el_class("div", "table-scroll recipe-scroll");
    // Scrolls when the recipe is long: reachable by keyboard (axe scrollable-region-focusable).
    attr(&scroller, "tabindex", "0");
    attr(&scroller, "aria-label", "quantisation recipe table");
    let table = el_class("table", "type-table recipe-table");
    let thead = dom::el("thead");
    let tr = dom::el("tr");
    for h in ["pattern", "tensors", "types"] {
        append(&tr, &el_text("th", "", h));
    }
    append(&thead, &tr);
    append(&table, &thead);
    let tbody = dom::el("tbody");
    for l in &v.lines {
        let tr = el_class("tr", if l.mixed { "mixed" } else { "" });
        attr(&tr, "data-pattern", &l.pattern);
        append(&tr, &el_text("td", "mono", &l.pattern));
        append(
            &tr,
            &el_text("td", "num", if l.count.is_empty() { "1" } else { &l.count }),
        );
        append(&tr, &el_text("td", "mono recipe-types", &l.types));
        append(&tbody, &tr);
    }
    append(&table, &tbody);
    append(&scroller, &table);
    append(&body, &scroller);

    append(
        &body,
        &el_text("h3", "sub-head spaced", "Reproduce with llama-quantize"),
    );
    let pre = el_text(
        "pre",
        "template recipe-command",
        &v.command.join(" \\\n    "),
    );
    attr(&pre, "data-testid", "recipe-command");
    append(&body, &pre);
    if let Some(n) = &v.note {
        append(&body, &el_text("p", "note", n));
    }

    append(&body, &el_text("h3", "sub-head spaced", "Provenance"));
    if v.provenance.is_empty() {
        append(&body, &el_text("p", "muted", NO_PROVENANCE));
    } else {
        let dl = el_class("dl", "facts recipe-provenance");
        attr(&dl, "data-testid", "provenance");
        for (k, val) in &v.provenance {
            append(&dl, &el_text("dt", "mono", k));
            append(&dl, &el_text("dd", "mono", val));
        }
        append(&body, &dl);
    }
    card
}
