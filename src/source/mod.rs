//! Header-only reading: one driver loop over an async byte source.
//!
//! [`read_model`] asks a [`ByteSource`] for the first bytes, sniffs the format, and feeds the
//! format's parser a growing prefix of the file until the header is complete. Each read
//! continues exactly where the previous one ended (no byte is read twice), grows geometrically
//! (so a 24 MB header takes a handful of reads, not thousands), and is capped per read (so the
//! overshoot past the header stays small). The same loop serves a local `Blob` in the browser,
//! a local file in the CLI, HTTP Range requests, and the counting in-memory source of the tests.
//!
//! The sources: `file` (a local file) and `net` (HTTP Range with `ureq`) natively; `blob`
//! (a `Blob` by `slice`) and `fetch` (HTTP Range with `fetch`) in the web build; both remote
//! ones are thin [`http::Transport`]s of the one reader in [`http`].
#![forbid(unsafe_code)]

#[cfg(target_arch = "wasm32")]
pub mod blob;
pub mod boxed;
#[cfg(target_arch = "wasm32")]
pub mod fetch;
#[cfg(not(target_arch = "wasm32"))]
pub mod file;
pub mod http;
#[cfg(not(target_arch = "wasm32"))]
pub mod net;

use crate::format::reader::{Input, Step};
use crate::format::{self, sniff, Error, ErrorKind, Model, ReadFailure, SourceFailure};

/// A file that can be read by range: its size, and the bytes of any range.
#[allow(async_fn_in_trait)] // The sources are used single-threaded (wasm, block_on): no Send bound.
pub trait ByteSource {
    /// Total size of the file in bytes.
    fn size(&self) -> u64;
    /// Reads `len` bytes starting at `offset` (the range is inside the file): exactly `len`
    /// bytes, or an error saying what failed (I/O, HTTP status and range, out of bounds).
    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError>;
}

/// Why a read of a [`ByteSource`] failed. Its `Display` is the sentence shown to the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// A local file or `Blob` could not be read: the system's (or browser's) words.
    Io {
        /// First byte asked.
        offset: u64,
        /// Bytes asked.
        len: u64,
        /// What the system said.
        cause: String,
    },
    /// The range asked is not inside the file (or does not fit this machine's memory).
    OutOfBounds {
        /// First byte asked.
        offset: u64,
        /// Bytes asked.
        len: u64,
        /// The file's size.
        size: u64,
    },
    /// A remote read failed: the URL, the HTTP problem (status, byte range, cause) and its
    /// description for the person (headline and likely cause, as [`crate::view::errors::http_failure`]
    /// words it for the source's endpoint and token).
    Http {
        /// The URL read.
        url: String,
        /// What went wrong.
        problem: http::Problem,
        /// `headline: details`.
        text: String,
    },
    /// A whole-file read (an index, a config) of a file larger than the tool reads of it.
    TooLarge {
        /// The file's size, when known.
        size: Option<u64>,
        /// The most this tool reads of such a file.
        cap: u64,
    },
    /// The source cannot be read at all, and why (a part that was not opened, a server that
    /// ignores Range requests, a file that was not picked).
    Unavailable(String),
}

impl SourceError {
    /// The HTTP status of a remote read that got an answer other than 200/206.
    pub fn status(&self) -> Option<u16> {
        match self {
            SourceError::Http {
                problem: http::Problem::Status(s),
                ..
            } => Some(*s),
            _ => None,
        }
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::Io { offset, len, cause } => {
                write!(f, "reading {len} bytes at byte {offset} failed: {cause}")
            }
            SourceError::OutOfBounds { offset, len, size } => write!(
                f,
                "a read of {len} bytes at byte {offset} is past the end of the {size}-byte file"
            ),
            SourceError::Http { text, .. } => f.write_str(text),
            SourceError::TooLarge { size: Some(n), cap } => write!(
                f,
                "{n} bytes, more than the {cap} this tool reads of such a file"
            ),
            SourceError::TooLarge { size: None, cap } => {
                write!(
                    f,
                    "more than the {cap} bytes this tool reads of such a file"
                )
            }
            SourceError::Unavailable(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SourceError {}

impl From<SourceError> for ReadFailure {
    /// Held typed in a format error ([`ErrorKind::Source`]); [`SourceError::of`] gives it back.
    fn from(e: SourceError) -> ReadFailure {
        ReadFailure::Source(SourceFailure::new(e))
    }
}

impl From<SourceError> for ErrorKind {
    fn from(e: SourceError) -> ErrorKind {
        ErrorKind::Source(e.into())
    }
}

impl SourceError {
    /// The source error a format error holds, when a read of the byte source failed with one
    /// (not a short read, not a parse error).
    pub fn of(error: &Error) -> Option<&SourceError> {
        match &error.kind {
            ErrorKind::Source(ReadFailure::Source(f)) => f.downcast_ref::<SourceError>(),
            _ => None,
        }
    }
}

/// How the driver sizes its reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadPolicy {
    /// Size of the first read. Most headers are far smaller than 256 KiB (a safetensors header
    /// of 100 tensors is ~10 KB), so one read usually does it.
    pub first_read: u64,
    /// Largest single read: bounds how far past the header the last read can go.
    pub max_read: u64,
    /// Largest header the driver will fetch; past it the file is refused (a safety cap
    /// against reading a whole model by accident).
    pub max_header: u64,
    /// Size reads after the first from the GGUF parser's guess of the header's end
    /// ([`GgufParser::estimate_end`](crate::format::gguf::GgufParser::estimate_end)) instead of doubling: for remote files, where every read
    /// is a round trip. safetensors reads are exact either way (8 + N).
    pub estimate: bool,
}

/// Header bytes fetched at most for one file: 512 MiB. The largest real headers known are
/// ~130 MB (safetensors with thousands of experts) and ~30 MB (GGUF with big vocabularies).
pub const MAX_HEADER_BYTES: u64 = 512 << 20;

/// A local file of `size` bytes to be read whole by a reader taking at most `cap` of it (an
/// index, a config): its size. Errors: [`SourceError::TooLarge`] when it is larger (nothing
/// of it is read).
pub fn whole_within(size: u64, cap: u64) -> Result<u64, SourceError> {
    if size > cap {
        return Err(SourceError::TooLarge {
            size: Some(size),
            cap,
        });
    }
    Ok(size)
}

impl ReadPolicy {
    /// For local files: 256 KiB first, doubling, at most 1 MiB per read (so the bytes read stay
    /// under header + 1 MiB).
    pub const LOCAL: ReadPolicy = ReadPolicy {
        first_read: 256 << 10,
        max_read: 1 << 20,
        max_header: MAX_HEADER_BYTES,
        estimate: false,
    };

    /// For HTTP Range reads, where each read is a round trip and the byte budget is
    /// header × 1.25 + 256 KiB. The first read is 256 KiB: the whole header of nearly every
    /// safetensors file (MiniLM's is 7 KB; 100 tensors take ~10 KB) and of GGUF files without a
    /// vocabulary, and for GGUF files with one, ~20,000 vocabulary strings, enough to measure
    /// their average size, so the second read usually covers the rest of the header. Larger
    /// would break the budget for tiny headers; smaller would measure the vocabulary worse. Later
    /// reads follow the parser's estimate plus [`ESTIMATE_SLACK`], at most 64 MiB each.
    pub const REMOTE: ReadPolicy = ReadPolicy {
        first_read: 256 << 10,
        max_read: 64 << 20,
        max_header: MAX_HEADER_BYTES,
        estimate: true,
    };

    /// Size of the next read with an optional guess `estimate` of where the header ends
    /// (see [`ReadPolicy::estimate`]): up to the guess plus slack for its error, at least
    /// `needed_end`, and at least [`MIN_GROWTH`] or an eighth of what is present (no crawling).
    /// Without a guess, as [`ReadPolicy::next_len`]. Never re-reads: the read starts at `have`.
    pub fn planned_len(&self, have: u64, needed_end: u64, estimate: Option<u64>, size: u64) -> u64 {
        let Some(est) = estimate.filter(|_| self.estimate) else {
            return self.next_len(have, needed_end, size);
        };
        let unsure = est.saturating_sub(have);
        let target = est
            .saturating_add(unsure / ESTIMATE_SLACK_DIV)
            .saturating_add(ESTIMATE_SLACK);
        let floor = have.saturating_add(MIN_GROWTH.max(have / 8));
        let end = target
            .max(floor)
            .min(have.saturating_add(self.max_read))
            .min(self.max_header)
            .max(needed_end)
            .min(size);
        end.saturating_sub(have)
    }

    /// Size of the next read when `have` bytes are present and at least `needed_end` are
    /// needed, for a file of `size` bytes. Never re-reads: the read starts at `have`.
    pub fn next_len(&self, have: u64, needed_end: u64, size: u64) -> u64 {
        let grow = have.clamp(self.first_read, self.max_read);
        let end = needed_end.max(have.saturating_add(grow)).min(size);
        end.saturating_sub(have)
    }
}

/// Fixed slack added to a header-end estimate: covers a misjudged tail (tensor names longer
/// than guessed, a few extra pairs) without another round trip.
pub const ESTIMATE_SLACK: u64 = 64 << 10;

/// Proportional slack on the unread part of an estimate: 1/8 (12.5 %), so a vocabulary whose
/// later strings are up to 12 % longer than its first ones still takes one read, and the bytes
/// past the header stay under a quarter of it.
pub const ESTIMATE_SLACK_DIV: u64 = 8;

/// Smallest planned read after the first (64 KiB): a round trip for less is a waste.
pub const MIN_GROWTH: u64 = 64 << 10;

/// What the driver did, for tests and progress displays.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Number of reads made.
    pub reads: u32,
    /// Bytes read in total.
    pub bytes: u64,
}

/// Reads a model header from `src`. `Err` only when nothing could be parsed (the format is
/// not recognised, or the very first read failed); otherwise a [`Model`], whose `error` says
/// what stopped parsing early, with everything before it kept.
pub async fn read_model<S: ByteSource>(
    src: &mut S,
    policy: &ReadPolicy,
) -> Result<(Model, ReadStats), Error> {
    let size = src.size();
    let mut stats = ReadStats::default();
    let mut buf = Vec::new();
    let first = policy.first_read.min(size);
    fetch(src, &mut buf, first, &mut stats).await?;
    let format = sniff(&buf, size)?;
    // The registry's reader of the format; none in a build that leaves it to another module
    // (the lean web module reads GGUF and safetensors only).
    let Some(mut reader) = format::registry::reader(format) else {
        return Err(Error::new("file start", 0, ErrorKind::Lean(format)));
    };
    let mut held = format::held::Held::default();
    if reader.by_ranges() {
        held.add(0, buf.clone());
    }
    let mut rounds = 0u32;
    loop {
        let input = Input {
            prefix: &buf,
            held: &held,
            size,
        };
        let error = match reader.step(&input) {
            Step::Done => return Ok((reader.finish(buf, size, None), stats)),
            Step::Failed(e) => e,
            Step::NeedPrefix { end, estimate } => {
                match grow_prefix(src, policy, &mut buf, end, estimate, &mut stats).await {
                    Ok(()) => continue,
                    Err(e) => e,
                }
            }
            Step::NeedRanges(needs) => {
                rounds += 1;
                match read_ranges(src, policy, &mut held, needs, rounds, &mut stats).await {
                    Ok(()) => continue,
                    Err(e) => e,
                }
            }
        };
        return Ok((reader.finish(buf, size, Some(error)), stats));
    }
}

/// Grows the prefix read to reach `end` (with the reader's `estimate` of the header's end, as
/// [`ReadPolicy::planned_len`] plans it). Errors: past [`ReadPolicy::max_header`] or the
/// file's end, or the read failed.
async fn grow_prefix<S: ByteSource>(
    src: &mut S,
    policy: &ReadPolicy,
    buf: &mut Vec<u8>,
    end: u64,
    estimate: Option<u64>,
    stats: &mut ReadStats,
) -> Result<(), Error> {
    let size = src.size();
    let have = buf.len() as u64;
    if end > policy.max_header || have >= size {
        return Err(Error::new(
            "header",
            have,
            ErrorKind::Invalid(format!(
                "the header needs {end} bytes, over this tool's limit of {} bytes",
                policy.max_header
            )),
        ));
    }
    let len = policy.planned_len(have, end, estimate, size);
    fetch(src, buf, len, stats).await
}

/// Most rounds of reads a listing by ranges takes (a zip archive's start, its end, a central
/// directory or ZIP64 record outside those, each pickle; an `.npz`'s member headers are one
/// round): a hostile file cannot make it loop.
pub const MAX_ZIP_READS: u32 = 12;

/// Reads one round of ranges a reader asked for ([`Step::NeedRanges`]: a zip archive's end,
/// its central directory, its pickles; an ONNX protobuf's fields): each range once, joined
/// with those it touches, at most [`MAX_ZIP_READS`] rounds and [`ReadPolicy::max_header`]
/// bytes in all. Errors: a limit passed, a range past the file's end, a read that failed.
async fn read_ranges<S: ByteSource>(
    src: &mut S,
    policy: &ReadPolicy,
    held: &mut format::held::Held,
    needs: Vec<format::held::Need>,
    rounds: u32,
    stats: &mut ReadStats,
) -> Result<(), Error> {
    let size = src.size();
    for n in coalesce(needs) {
        let too_much = held.bytes().saturating_add(n.len) > policy.max_header;
        if rounds > MAX_ZIP_READS
            || too_much
            || n.offset.checked_add(n.len).is_none_or(|e| e > size)
        {
            return Err(Error::new(
                "file structure",
                n.offset.min(size),
                ErrorKind::Invalid(format!(
                    "listing it would need {} more bytes at byte {} after {} reads in {} \
                     rounds; this tool stops there",
                    n.len,
                    n.offset,
                    stats.reads,
                    rounds - 1
                )),
            ));
        }
        if held.get(n.offset, n.len).is_some() {
            continue;
        }
        match src.read(n.offset, n.len).await {
            Ok(b) if b.len() as u64 == n.len => {
                stats.reads += 1;
                stats.bytes += n.len;
                held.add(n.offset, b);
            }
            Ok(b) => {
                return Err(Error::new(
                    "read",
                    n.offset,
                    ErrorKind::Source(ReadFailure::Short {
                        asked: n.len,
                        got: b.len() as u64,
                    }),
                ))
            }
            Err(why) => return Err(Error::new("read", n.offset, why.into())),
        }
    }
    Ok(())
}

/// The ranges of one round of reads in file order, those that overlap or touch joined into
/// one: an `.npz` of many small members asks for each member's header with a guess that runs
/// into the next member, and each byte is then read (and held) once, not once per guess.
fn coalesce(mut needs: Vec<format::held::Need>) -> Vec<format::held::Need> {
    needs.sort_by_key(|n| n.offset);
    let mut out: Vec<format::held::Need> = Vec::with_capacity(needs.len());
    for n in needs {
        let end = n.offset.saturating_add(n.len);
        match out.last_mut() {
            Some(last) if n.offset <= last.offset.saturating_add(last.len) => {
                last.len = end.max(last.offset.saturating_add(last.len)) - last.offset;
            }
            _ => out.push(n),
        }
    }
    out
}

async fn fetch<S: ByteSource>(
    src: &mut S,
    buf: &mut Vec<u8>,
    len: u64,
    stats: &mut ReadStats,
) -> Result<(), Error> {
    let offset = buf.len() as u64;
    let chunk = src
        .read(offset, len)
        .await
        .map_err(|why| Error::new("read", offset, why.into()))?;
    if chunk.len() as u64 != len {
        return Err(Error::new(
            "read",
            offset,
            ErrorKind::Source(ReadFailure::ShortPrefix {
                asked: len,
                got: chunk.len() as u64,
            }),
        ));
    }
    stats.reads += 1;
    stats.bytes += len;
    buf.extend_from_slice(&chunk);
    Ok(())
}

/// An in-memory file that counts what is read from it; for tests and for bytes already held.
#[derive(Debug, Clone)]
pub struct MemSource<'a> {
    data: &'a [u8],
    /// Every read made, as (offset, len).
    pub reads: Vec<(u64, u64)>,
}

impl<'a> MemSource<'a> {
    /// Wraps bytes as a source.
    pub fn new(data: &'a [u8]) -> Self {
        MemSource {
            data,
            reads: Vec::new(),
        }
    }
}

impl ByteSource for MemSource<'_> {
    fn size(&self) -> u64 {
        self.data.len() as u64
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        self.reads.push((offset, len));
        let past = || SourceError::OutOfBounds {
            offset,
            len,
            size: self.data.len() as u64,
        };
        let start = usize::try_from(offset).map_err(|_| past())?;
        let end = offset
            .checked_add(len)
            .and_then(|e| usize::try_from(e).ok())
            .filter(|&e| e <= self.data.len())
            .ok_or_else(past)?;
        Ok(self.data[start..end].to_vec())
    }
}

/// Parses a whole file held in memory (the sample, tests). Drives [`read_model`] to
/// completion without an executor: a [`MemSource`] never waits.
pub fn parse_bytes(data: &[u8]) -> Result<Model, Error> {
    let mut src = MemSource::new(data);
    let fut = read_model(&mut src, &ReadPolicy::LOCAL);
    block_on_ready(fut).map(|(m, _)| m)
}

/// Polls a future that never waits (all its awaits are immediately ready) to completion.
pub fn block_on_ready<F: std::future::Future>(fut: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Runs a future to completion on this thread, sleeping while it waits (its waker unparks the
/// thread): the CLI's executor, whose remote reads run on worker threads ([`on_thread`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Runs blocking work `f` on a new thread; the future resolves with its result, or `Err` with
/// the panic's payload if it panicked (the waker is called either way, so nothing hangs).
#[cfg(not(target_arch = "wasm32"))]
pub fn on_thread<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> impl std::future::Future<Output = std::thread::Result<T>> {
    use std::sync::{Arc, Mutex};
    use std::task::{Poll, Waker};
    type Slot<T> = Arc<Mutex<(Option<std::thread::Result<T>>, Option<Waker>)>>;
    let slot: Slot<T> = Arc::new(Mutex::new((None, None)));
    let theirs = slot.clone();
    /// Wakes the waiting future when the thread ends, even by a panic.
    struct Done<T>(Slot<T>);
    impl<T> Drop for Done<T> {
        fn drop(&mut self) {
            let waker = match self.0.lock() {
                Ok(mut g) => g.1.take(),
                Err(p) => p.into_inner().1.take(),
            };
            if let Some(w) = waker {
                w.wake();
            }
        }
    }
    std::thread::spawn(move || {
        let done = Done(theirs);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        if let Ok(mut g) = done.0.lock() {
            g.0 = Some(r);
        }
        drop(done);
    });
    std::future::poll_fn(move |cx| {
        let mut g = match slot.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        match g.0.take() {
            Some(r) => Poll::Ready(r),
            None => {
                g.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::test_sources::Failing;
    use super::*;

    #[test]
    fn reads_grow_geometrically_and_never_overlap() {
        let p = ReadPolicy::LOCAL;
        assert_eq!(p.next_len(256 << 10, 300 << 10, 10 << 20), 256 << 10);
        assert_eq!(p.next_len(4 << 20, (4 << 20) + 1, 10 << 20), 1 << 20);
        assert_eq!(p.next_len(4 << 20, 7 << 20, 10 << 20), 3 << 20);
        assert_eq!(p.next_len(9 << 20, (9 << 20) + 5, (9 << 20) + 10), 10);
    }

    /// A source whose every read after the first returns one byte less than asked.
    struct Short<'a>(MemSource<'a>);

    impl ByteSource for Short<'_> {
        fn size(&self) -> u64 {
            self.0.size()
        }
        async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
            let mut b = self.0.read(offset, len).await?;
            if offset > 0 {
                b.pop();
            }
            Ok(b)
        }
    }

    /// The texts are those the read loop gave when `ErrorKind::Source` held a `String`.
    #[test]
    fn a_whole_file_is_read_only_within_its_cap() {
        assert_eq!(whole_within(10, 10), Ok(10));
        assert_eq!(
            whole_within(11, 10),
            Err(SourceError::TooLarge {
                size: Some(11),
                cap: 10
            })
        );
    }

    #[test]
    fn a_failed_read_stays_typed_and_reads_as_before() {
        let policy = ReadPolicy {
            first_read: 64,
            ..ReadPolicy::LOCAL
        };
        let e = block_on_ready(read_model(&mut Failing(1000), &policy)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "read at byte 0: reading the file failed: reading 64 bytes at byte 0 failed: Input/output error (os error 5)"
        );
        let io = SourceError::Io {
            offset: 0,
            len: 64,
            cause: "Input/output error (os error 5)".into(),
        };
        assert_eq!(SourceError::of(&e), Some(&io));
        assert_eq!(e.clone(), e);
        assert_eq!(e.kind, ErrorKind::from(io));

        const SAMPLE: &[u8] = include_bytes!("../../www/sample.gguf");
        let (m, _) =
            block_on_ready(read_model(&mut Short(MemSource::new(SAMPLE)), &policy)).unwrap();
        let e = m.error.unwrap();
        assert_eq!(
            e.to_string(),
            "read at byte 64: reading the file failed: asked for 64 bytes, got 63 (did the file change while it was read?)"
        );
        assert_eq!(SourceError::of(&e), None);
        // A zip's ranges read short (a stored zip of 3 MiB read with this policy).
        let short = Error::new(
            "read",
            2883824,
            ErrorKind::Source(ReadFailure::Short {
                asked: 262144,
                got: 262143,
            }),
        );
        assert_eq!(
            short.to_string(),
            "read at byte 2883824: reading the file failed: asked for 262144 bytes, got 262143"
        );
    }
}

/// Byte sources for tests of the layers above.
#[cfg(test)]
pub(crate) mod test_sources {
    use super::{ByteSource, SourceError};

    /// A source of `.0` bytes whose reads fail as a disk does.
    pub(crate) struct Failing(pub u64);

    impl ByteSource for Failing {
        fn size(&self) -> u64 {
            self.0
        }
        async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
            Err(SourceError::Io {
                offset,
                len,
                cause: "Input/output error (os error 5)".into(),
            })
        }
    }
}
