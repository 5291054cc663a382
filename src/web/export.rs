//! The "Download JSON" button: the summary as the CLI's `--json` prints it, saved as a file.
//! The JSON is built on click (from the model the report keeps), and the object URL of the
//! last download is revoked when the next one is made or the report goes away.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Element, HtmlAnchorElement, Url};

use crate::format::Model;
use crate::summary::summarize;
use crate::view::export::{json_file_name, summary_json};

use super::dom::{self, attr, el_text};

/// The button and what it keeps alive.
pub struct ExportButton {
    url: Rc<RefCell<Option<String>>>,
    _listener: EventListener,
}

impl ExportButton {
    /// A button that downloads `model`'s summary as `<name>.weightpeek.json`.
    pub fn new(model: Rc<Model>, name: &str) -> (Element, ExportButton) {
        let button = el_text("button", "button small", "Download JSON");
        attr(&button, "type", "button");
        attr(
            &button,
            "title",
            "the summary, metadata and tensor list, as `weightpeek --json` prints them",
        );
        let url: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(None));
        let last = url.clone();
        let file = json_file_name(name);
        let listener = EventListener::new(&button, "click", move |_| {
            let json = summary_json(&model, &summarize(&model));
            let opts = BlobPropertyBag::new();
            opts.set_type("application/json");
            let parts = Array::of1(&JsValue::from_str(&json));
            let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &opts) else {
                return;
            };
            let Ok(href) = Url::create_object_url_with_blob(&blob) else {
                return;
            };
            if let Some(old) = last.borrow_mut().replace(href.clone()) {
                let _ = Url::revoke_object_url(&old);
            }
            let a: HtmlAnchorElement = dom::el("a").unchecked_into();
            a.set_href(&href);
            a.set_download(&file);
            a.click();
        });
        (
            button,
            ExportButton {
                url,
                _listener: listener,
            },
        )
    }
}

impl Drop for ExportButton {
    fn drop(&mut self) {
        if let Some(u) = self.url.borrow_mut().take() {
            let _ = Url::revoke_object_url(&u);
        }
    }
}
