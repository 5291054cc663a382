//! The Quantisation recipe card: one row per tensor pattern with its types, the
//! `llama-quantize` command that reproduces them, and the provenance keys; rendered from
//! [`crate::view::recipe::card`].

use web_sys::Element;

use crate::summary::recipe::Recipe;

/// Builds the card (`data-testid="recipe"`; each pattern row has `data-pattern`).
pub fn recipe_card(r: &Recipe) -> Element {
    super::dom::render(&crate::view::recipe::card(r))
}
