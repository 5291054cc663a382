//! The download buttons: "Download JSON" (the summary as the CLI's `--json` prints it),
//! "Download CSV" (the tensor table, `--csv`) and "Download Markdown" (the report,
//! `--markdown`). Each file is built on click (from the model the report keeps), and the object
//! URL of a button's last download is revoked when its next one is made or the report goes away.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Element, HtmlAnchorElement, Url};

use crate::format::Model;
use crate::summary::summarize;
use crate::view::export::{
    csv_file_name, json_file_name, markdown, markdown_file_name, summary_json, tensors_csv,
};

/// What a button downloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The summary and metadata as JSON.
    Json,
    /// The tensor table as CSV.
    Csv,
    /// The Markdown report.
    Markdown,
}

impl Kind {
    /// (label, tooltip, test id, media type).
    fn parts(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Kind::Json => (
                "Download JSON",
                "the summary, metadata and tensor list, as `weightpeek --json` prints them",
                "export-json",
                "application/json",
            ),
            Kind::Csv => (
                "Download CSV",
                "the tensor table as CSV, as `weightpeek --csv` prints it",
                "export-csv",
                "text/csv",
            ),
            Kind::Markdown => (
                "Download Markdown",
                "a Markdown report (summary, types, per-layer map), as `weightpeek --markdown` prints it",
                "export-markdown",
                "text/markdown",
            ),
        }
    }

    fn file_name(self, name: &str) -> String {
        match self {
            Kind::Json => json_file_name(name),
            Kind::Csv => csv_file_name(name),
            Kind::Markdown => markdown_file_name(name),
        }
    }
}

use super::dom::{self, attr, el_text};

/// Saves text as a downloaded file, keeping the object URL of the last download until the
/// next one or until it is dropped (then revoked). Used by the export buttons and the Compare
/// card's "Download JSON".
#[derive(Default)]
pub struct Download {
    last: RefCell<Option<String>>,
}

impl Download {
    /// Downloads `text` (media type `media`) as a file named `file`.
    pub fn save(&self, text: &str, media: &str, file: &str) {
        let opts = BlobPropertyBag::new();
        opts.set_type(media);
        let parts = Array::of1(&JsValue::from_str(text));
        let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &opts) else {
            return;
        };
        let Ok(href) = Url::create_object_url_with_blob(&blob) else {
            return;
        };
        if let Some(old) = self.last.borrow_mut().replace(href.clone()) {
            let _ = Url::revoke_object_url(&old);
        }
        let a: HtmlAnchorElement = dom::el("a").unchecked_into();
        a.set_href(&href);
        a.set_download(file);
        a.click();
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        if let Some(u) = self.last.borrow_mut().take() {
            let _ = Url::revoke_object_url(&u);
        }
    }
}

/// The button and what it keeps alive (its listener holds its [`Download`]).
pub struct ExportButton {
    _listener: EventListener,
}

impl ExportButton {
    /// A button that downloads `model`'s `kind` export as `<name>.weightpeek.<ext>`.
    pub fn new(model: Rc<Model>, name: &str, kind: Kind) -> (Element, ExportButton) {
        let (label, tip, testid, media) = kind.parts();
        let button = el_text("button", "button small", label);
        attr(&button, "type", "button");
        attr(&button, "title", tip);
        attr(&button, "data-testid", testid);
        let download = Download::default();
        let file = kind.file_name(name);
        let shown = name.to_string();
        let listener = EventListener::new(&button, "click", move |_| {
            let s = summarize(&model);
            let text = match kind {
                Kind::Json => summary_json(&model, &s),
                Kind::Csv => tensors_csv(&s),
                Kind::Markdown => markdown(&shown, &s, &model),
            };
            download.save(&text, media, &file);
        });
        (
            button,
            ExportButton {
                _listener: listener,
            },
        )
    }

    /// The same button in the lean web module, which has no exports: a click calls `ask`
    /// (the element loads the full module, which downloads the file).
    pub fn asking(kind: Kind, ask: Rc<dyn Fn()>) -> (Element, ExportButton) {
        let (label, tip, testid, _) = kind.parts();
        let button = el_text("button", "button small", label);
        attr(&button, "type", "button");
        attr(&button, "title", tip);
        attr(&button, "data-testid", testid);
        let listener = EventListener::new(&button, "click", move |_| ask());
        (
            button,
            ExportButton {
                _listener: listener,
            },
        )
    }
}

impl Kind {
    /// The export's name in the element's `weightpeek-need-full` event and
    /// `Widget::export` (`json`, `csv`, `markdown`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Json => "json",
            Kind::Csv => "csv",
            Kind::Markdown => "markdown",
        }
    }

    /// The kind named `name` ([`Kind::name`]).
    pub fn parse(name: &str) -> Option<Kind> {
        [Kind::Json, Kind::Csv, Kind::Markdown]
            .into_iter()
            .find(|k| k.name() == name)
    }
}
