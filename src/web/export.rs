//! The download buttons: "Download JSON" (the summary as the CLI's `--json` prints it),
//! "Download CSV" (the tensor table, `--csv`) and "Download Markdown" (the report,
//! `--markdown`), drawn by [`Kind::button`]. Each file is built on click (from the model the
//! report keeps, [`Kind::text`]), and the object URL of a button's last download is revoked
//! when its next one is made or the report goes away.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Element, HtmlAnchorElement, Url};

use super::dom;
use crate::open::OpenedModel;
pub use crate::view::export::Kind;

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
        self.save_parts(&Array::of1(&JsValue::from_str(text)), media, file);
    }

    /// Downloads `new Blob(parts)` (strings, byte arrays, Blobs; media type `media`) as a file
    /// named `file`; `false` when the browser makes no such Blob or gives it no URL.
    pub fn save_parts(&self, parts: &Array, media: &str, file: &str) -> bool {
        let opts = BlobPropertyBag::new();
        opts.set_type(media);
        let blob = Blob::new_with_blob_sequence_and_options(parts, &opts);
        let Ok(href) = blob.and_then(|b| Url::create_object_url_with_blob(&b)) else {
            return false;
        };
        if let Some(old) = self.last.borrow_mut().replace(href.clone()) {
            let _ = Url::revoke_object_url(&old);
        }
        let a: HtmlAnchorElement = dom::el("a").unchecked_into();
        a.set_href(&href);
        a.set_download(file);
        a.click();
        true
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        if let Some(u) = self.last.borrow_mut().take() {
            let _ = Url::revoke_object_url(&u);
        }
    }
}

/// The button of one export and what it keeps alive (its listener holds its [`Download`]).
pub struct ExportButton {
    /// What it exports.
    pub kind: Kind,
    /// The `<button>`.
    pub element: Element,
    _listener: EventListener,
}

impl ExportButton {
    /// A button that downloads `model`'s `kind` export as `<name>.weightpeek.<ext>`.
    pub fn new(model: Rc<OpenedModel>, name: &str, kind: Kind) -> ExportButton {
        let download = Download::default();
        let (file, shown) = (kind.file_name(name), name.to_string());
        ExportButton::with_click(kind, move || {
            download.save(&kind.text(&shown, &model), kind.media_type(), &file);
        })
    }

    /// A button for `kind` whose click calls `click`: [`ExportButton::new`]'s download, or, in
    /// the lean web module, which has no exports, an ask (the element loads the full module,
    /// which downloads the file).
    pub fn with_click(kind: Kind, click: impl Fn() + 'static) -> ExportButton {
        let element = dom::render(&kind.button());
        let _listener = EventListener::new(&element, "click", move |_| click());
        ExportButton {
            kind,
            element,
            _listener,
        }
    }
}
