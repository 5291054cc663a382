//! A `Blob` (a dropped or picked `File`, or the fetched sample) as a [`ByteSource`]: every read
//! is `blob.slice(start, end).arrayBuffer()`, so only the requested range is ever read.

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use crate::source::{ByteSource, SourceError};

/// A Blob read by range. `progress` is told the bytes read so far after every read (the page
/// shows it while a large header is read).
pub struct BlobSource {
    blob: Blob,
    read: u64,
    progress: Box<dyn Fn(u64)>,
}

impl BlobSource {
    /// A reader of `blob`, telling `progress` the bytes read so far.
    pub fn new(blob: Blob, progress: Box<dyn Fn(u64)>) -> Self {
        BlobSource {
            blob,
            read: 0,
            progress,
        }
    }

    /// The Blob read (previews read it again through a handle of their own).
    pub fn blob(&self) -> &Blob {
        &self.blob
    }
}

/// Plain words from a JS exception (`NotReadableError: ...`).
pub fn js_error_text(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    if let Some(d) = e.dyn_ref::<web_sys::DomException>() {
        return format!("{}: {}", d.name(), d.message());
    }
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return format!(
            "{}: {}",
            String::from(err.name()),
            String::from(err.message())
        );
    }
    format!("{e:?}")
}

impl ByteSource for BlobSource {
    fn size(&self) -> u64 {
        // Blob sizes are integers below 2^53.
        self.blob.size() as u64
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let size = ByteSource::size(self);
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= size)
            .ok_or(SourceError::OutOfBounds { offset, len, size })?;
        let io = |e: JsValue| SourceError::Io {
            offset,
            len,
            cause: js_error_text(&e),
        };
        let part = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(io)?;
        let buf = JsFuture::from(part.array_buffer()).await.map_err(io)?;
        let bytes = Uint8Array::new(&buf).to_vec();
        self.read += bytes.len() as u64;
        (self.progress)(self.read);
        Ok(bytes)
    }
}
