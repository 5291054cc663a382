//! The summary card (figures with their test hooks) and the architecture card, rendered from
//! [`crate::view::facts::summary_card`] and [`crate::view::facts::arch_card`].

use crate::open::OpenedModel;
use crate::source::ReadStats;
use crate::summary::{ArchCard, Summary};
use crate::view::facts;

use super::dom::render;

/// The summary card: file name, format, then every figure.
pub fn summary_card(
    name: &str,
    s: &Summary,
    model: &OpenedModel,
    stats: &ReadStats,
) -> web_sys::Element {
    render(&facts::summary_card(name, s, model, stats))
}

/// The architecture card (GGUF models with `general.architecture`).
pub fn arch_card(card: &ArchCard) -> web_sys::Element {
    render(&facts::arch_card(card))
}
