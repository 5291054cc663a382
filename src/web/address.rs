//! The page's address: the remote model and tensor shown (`?url=…&tensor=…`), and its tabs:
//! a link opens the tab it was shared from. A remote model's
//! link carries the tab in its query (`?url=…&tab=tensors`); a local file, which no link can
//! reopen, keeps it in the fragment (`#tab=tensors`), so reloading or sharing the page and
//! dropping the file again shows the same tab. Summary, the default, is never written. What
//! the names mean and how they are read and written is [`crate::view::address`] (tested
//! natively); this only reads and writes `location` without a reload or a history entry.

use wasm_bindgen::JsValue;

use crate::view::address::{self, edited, Edit};
use crate::view::tabs::Tab;

/// The tab the address asks for (`None` when it names none, or no tab by that name).
pub(super) fn asked_tab() -> Option<Tab> {
    let loc = gloo::utils::window().location();
    let (search, hash) = (loc.search(), loc.hash());
    address::asked_tab(&search.unwrap_or_default(), &hash.unwrap_or_default())
}

/// The address's `name=` (`url`, `tensor`) as [`crate::view::address::param`] reads it.
pub(super) fn param(name: &str) -> Option<String> {
    address::param(&gloo::utils::window().location().search().ok()?, name)
}

/// Writes `tab` into the address: into the query when it names a remote model (`url=`),
/// else into the fragment; the other place loses its `tab`.
pub(super) fn set_tab(tab: Tab) {
    follow(Edit::Tab(tab));
}

/// Rewrites the page's address after `edit` ([`crate::view::address::edited`]), with no reload
/// and no history entry.
pub(super) fn follow(edit: Edit<'_>) {
    let w = gloo::utils::window();
    let Ok(href) = w.location().href() else {
        return;
    };
    if let (Some(out), Ok(h)) = (edited(&href, edit), w.history()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&out));
    }
}
