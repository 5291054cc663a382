//! The summary card (figures with their test hooks) and the architecture card.

use crate::format::Model;
use crate::source::ReadStats;
use crate::summary::{ArchCard, Summary};
use crate::text;
use crate::view::facts;

use super::dom::{self, append, attr, el_class, el_text};

/// The summary card: file name, format, then every figure.
pub fn summary_card(name: &str, s: &Summary, model: &Model, stats: &ReadStats) -> web_sys::Element {
    let card = el_class("section", "card summary");
    attr(&card, "data-testid", "summary");
    let head = el_class("header", "card-head");
    let title = el_class("div", "file-title");
    append(
        &title,
        &el_text("h2", "file-name mono", &text::escape(name)),
    );
    let sub = facts::subtitle(s);
    append(&title, &el_text("p", "file-sub", &sub));
    append(&head, &title);
    append(
        &head,
        &el_text(
            "p",
            "read-note",
            &facts::read_note(stats, model.parts.len().max(1)),
        ),
    );
    append(&card, &head);

    let grid = el_class("dl", "facts");
    for f in facts::summary_facts(s, model) {
        let item = el_class("div", "fact");
        append(&item, &el_text("dt", "", f.label));
        let value = el_text("dd", "fact-value", &f.text);
        if let Some(id) = f.testid {
            attr(&value, "data-testid", id);
            if let Some(v) = &f.value {
                attr(&value, "data-value", v);
            }
        }
        append(&item, &value);
        if let Some(d) = &f.detail {
            append(&item, &el_text("dd", "fact-detail", d));
        }
        append(&grid, &item);
    }
    append(&card, &grid);
    card
}

/// The architecture card (GGUF models with `general.architecture`).
pub fn arch_card(card: &ArchCard) -> web_sys::Element {
    let (title, lines) = facts::arch_lines(card);
    let (section, body) = dom::card("Architecture", "arch");
    append(
        &dom::card_head(&section),
        &el_text("span", "badge mono", &title),
    );
    let dl = el_class("dl", "kv");
    for l in lines {
        let dt = el_text("dt", "", &l.label);
        attr(&dt, "title", &l.key);
        append(&dl, &dt);
        append(&dl, &el_text("dd", "mono", &l.value));
    }
    append(&body, &dl);
    section
}
