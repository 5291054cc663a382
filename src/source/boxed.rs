//! Object-safe access to the opened file, so a view (the page's report) can hold "the model's
//! source" without knowing whether it is a local `Blob`, a file, or an HTTP Range reader.
//!
//! [`ByteSource`] has an `async fn` and so cannot be a trait object. [`DynByteSource`] is its
//! boxed-future twin, implemented for every `ByteSource`; a [`SourceFactory`] makes a fresh
//! source for each preview, so two previews in flight never share a `&mut` borrow (for a `Blob`
//! the factory clones the handle; for HTTP it makes a Range reader of the part's URL, whose size
//! is already known, so a preview costs exactly one request).

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use super::{ByteSource, SourceError};

/// A boxed, non-`Send` future (wasm and the CLI are single-threaded).
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// [`ByteSource`] as a trait object: the same contract, the future boxed.
pub trait DynByteSource {
    /// Total size of the file in bytes.
    fn size(&self) -> u64;
    /// Reads `len` bytes at `offset` (see [`ByteSource::read`]).
    fn read_boxed(
        &mut self,
        offset: u64,
        len: u64,
    ) -> LocalBoxFuture<'_, Result<Vec<u8>, SourceError>>;
}

impl<S: ByteSource> DynByteSource for S {
    fn size(&self) -> u64 {
        ByteSource::size(self)
    }

    fn read_boxed(
        &mut self,
        offset: u64,
        len: u64,
    ) -> LocalBoxFuture<'_, Result<Vec<u8>, SourceError>> {
        Box::pin(self.read(offset, len))
    }
}

/// A boxed dynamic source is a [`ByteSource`] again, so generic code (the preview's reader)
/// takes either.
pub struct BoxedSource(pub Box<dyn DynByteSource>);

impl ByteSource for BoxedSource {
    fn size(&self) -> u64 {
        self.0.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        self.0.read_boxed(offset, len).await
    }
}

/// Makes a new reader for each preview (cheap: a handle clone) of the file holding the tensor:
/// its argument is the 0-based part (`crate::open::OpenedModel::part_of`) of a model merged from
/// several files, 0 for a single file.
pub type SourceFactory = Rc<dyn Fn(usize) -> Box<dyn DynByteSource>>;

/// A source that cannot be read, saying why (a part that failed to open, a server without
/// Range support): every read fails with that text, without any I/O.
pub struct Unreadable {
    /// The size reported (the file's, when known, so planning errors stay about the tensor).
    pub size: u64,
    /// Why it cannot be read.
    pub why: String,
}

impl ByteSource for Unreadable {
    fn size(&self) -> u64 {
        self.size
    }

    async fn read(&mut self, _offset: u64, _len: u64) -> Result<Vec<u8>, SourceError> {
        Err(SourceError::Unavailable(self.why.clone()))
    }
}
