//! The answers of an HTTP Range reader, without I/O: which answers are answers at all
//! ([`accept`]), and the bodies read from them chunk by chunk — a 206's exactly its range, a
//! small file's whole within a cap ([`Body`]), a server's that ignores Range forward only
//! ([`Forward`]). The transports (`fetch` in the web build, `ureq` in `crate::source::net`)
//! only hand each chunk over as it arrives and stop when these say so.

use super::{range_len, Problem};

/// Whether an answer with this `status` and `Content-Type` header (empty when absent) is one
/// to read. Errors: a status other than 200 and 206 ([`Problem::Status`]); an HTML page
/// (a login or error page served with 200, [`Problem::Html`]).
pub fn accept(status: u16, content_type: &str) -> Result<(), Problem> {
    if status != 200 && status != 206 {
        return Err(Problem::Status(status));
    }
    if content_type.to_ascii_lowercase().starts_with("text/html") {
        return Err(Problem::Html);
    }
    Ok(())
}

/// A `Content-Length` header's value as a number of bytes (`None` when absent or not one).
pub fn content_length(value: &str) -> Option<u64> {
    value.trim().parse().ok()
}

/// What a body must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Exactly this inclusive range's bytes (a 206).
    Range((u64, u64)),
    /// At most this many bytes (a whole small file).
    Whole(u64),
}

/// Most bytes reserved for a whole small file on its `Content-Length` alone (1 MiB): a server
/// may announce up to [`super::MAX_WHOLE_FILE`] and send nothing, so the rest of the declared
/// length is reserved (exactly, once) only when this many bytes have arrived.
pub const WHOLE_RESERVE_BYTES: u64 = 1 << 20;

/// A body being received: its bytes in one buffer reserved once, checked against what it
/// must be as each chunk arrives ([`Body::room`]), judged at its end ([`Body::finish`]).
#[derive(Debug)]
pub struct Body {
    want: Want,
    /// Most bytes taken (the range's length, or the cap).
    cap: usize,
    /// A whole file's `Content-Length` (within the cap): reserved in full once the first
    /// [`WHOLE_RESERVE_BYTES`] have arrived, so a large body is held once, not regrown.
    declared: Option<usize>,
    out: Vec<u8>,
}

impl Body {
    /// The body of a 206 answering `range` (inclusive) whose `Content-Encoding` header is
    /// `coding` (empty when absent). Errors: a compressed body ([`Problem::Encoded`]: its
    /// bytes would not be the file's); a range too long to hold ([`Problem::TooLarge`]).
    pub fn range(range: (u64, u64), coding: &str) -> Result<Body, Problem> {
        let expect = range_len(range).ok_or(Problem::TooLarge(u64::MAX))?;
        if !coding.trim().is_empty() && !coding.trim().eq_ignore_ascii_case("identity") {
            return Err(Problem::Encoded {
                range,
                coding: coding.to_string(),
            });
        }
        let cap = usize::try_from(expect).map_err(|_| Problem::TooLarge(expect))?;
        let mut out = Vec::new();
        out.try_reserve_exact(cap)
            .map_err(|_| Problem::TooLarge(expect))?;
        Ok(Body {
            want: Want::Range(range),
            cap,
            declared: None,
            out,
        })
    }

    /// The whole body of a small file, at most `cap` bytes, whose `Content-Length` said
    /// `declared` (up to [`WHOLE_RESERVE_BYTES`] of it reserved at once). Errors: `declared` over `cap`
    /// ([`Problem::TooLarge`]: nothing of it is read).
    pub fn whole(declared: Option<u64>, cap: u64) -> Result<Body, Problem> {
        if declared.is_some_and(|n| n > cap) {
            return Err(Problem::TooLarge(cap));
        }
        // The server's Content-Length is a claim, not bytes present: at most
        // WHOLE_RESERVE_BYTES is reserved on it, the rest once that much arrived (Body::room).
        let declared = declared.and_then(|n| usize::try_from(n).ok());
        let mut out = Vec::new();
        if let Some(n) = declared {
            let first = n.min(usize::try_from(WHOLE_RESERVE_BYTES).unwrap_or(usize::MAX));
            out.try_reserve_exact(first)
                .map_err(|_| Problem::TooLarge(cap))?;
        }
        Ok(Body {
            want: Want::Whole(cap),
            cap: usize::try_from(cap).unwrap_or(usize::MAX),
            declared,
            out,
        })
    }

    /// The place for the next chunk of `n` bytes, to be filled by the caller. Errors: the
    /// chunk would go past a range's end ([`Problem::Excess`]: stop at once, never keep it)
    /// or past a whole file's cap ([`Problem::TooLarge`]).
    pub fn room(&mut self, n: usize) -> Result<&mut [u8], Problem> {
        let start = self.out.len();
        let Some(end) = start.checked_add(n).filter(|&e| e <= self.cap) else {
            return Err(self.over());
        };
        if end > self.out.capacity() {
            // Past the first reserve of a declared length: the server has sent that much, so
            // the rest of what it declared is reserved exactly, once (a regrown buffer would
            // hold a 10 MB index about three times over in wasm memory).
            match self.declared.filter(|&d| d >= end) {
                Some(d) => self.out.try_reserve_exact(d - start),
                None => self.out.try_reserve(n),
            }
            .map_err(|_| self.over())?;
        }
        self.out.resize(end, 0);
        Ok(&mut self.out[start..end])
    }

    /// Takes the chunk `bytes` ([`Body::room`], copied).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), Problem> {
        self.room(bytes.len())?.copy_from_slice(bytes);
        Ok(())
    }

    fn over(&self) -> Problem {
        match self.want {
            Want::Range(range) => Problem::Excess { range },
            Want::Whole(cap) => Problem::TooLarge(cap),
        }
    }

    fn range_asked(&self) -> Option<(u64, u64)> {
        match self.want {
            Want::Range(r) => Some(r),
            Want::Whole(_) => None,
        }
    }

    /// Bytes received so far.
    pub fn got(&self) -> u64 {
        self.out.len() as u64
    }

    /// The problem when no chunk came within the read timeout of `timeout_ms`.
    pub fn stalled(&self, timeout_ms: u32) -> Problem {
        Problem::Stalled {
            range: self.range_asked(),
            got: self.got(),
            timeout_ms,
        }
    }

    /// The problem when the connection failed mid-body (`why`: the transport's words;
    /// `offline`: the client reports no network): a range cut off ([`Problem::Cut`]), or a
    /// whole file's network failure ([`Problem::Offline`] or [`Problem::Network`]).
    pub fn cut(&self, why: String, offline: bool) -> Problem {
        match self.want {
            Want::Range(range) => Problem::Cut {
                range,
                got: self.got(),
                why,
            },
            Want::Whole(_) if offline => Problem::Offline,
            Want::Whole(_) => Problem::Network(why),
        }
    }

    /// The body once it ended. Errors: a range's body shorter than the range
    /// ([`Problem::Short`]).
    pub fn finish(self) -> Result<Vec<u8>, Problem> {
        match self.want {
            Want::Range(range) if self.out.len() != self.cap => Err(Problem::Short {
                range,
                got: self.got(),
            }),
            _ => Ok(self.out),
        }
    }
}

/// The one body of a server that ignores Range (the whole file from byte 0), read forward
/// only: [`Forward::ask`] a range at or after the bytes already passed, hand over chunks while
/// [`Forward::wants_more`], then [`Forward::take`]. Bytes before the range asked are dropped
/// as they arrive, so memory holds only what is asked (and the rest of the last chunk).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Forward {
    /// File offset of `pending[0]`.
    pos: u64,
    pending: Vec<u8>,
    /// The range asked: first byte, end (exclusive).
    asked: (u64, u64),
}

impl Forward {
    /// A body at its first byte.
    pub fn new() -> Forward {
        Forward::default()
    }

    /// Asks for `len` bytes at `offset`. Errors: bytes before the ones already passed (they
    /// cannot be read again without downloading the file anew).
    pub fn ask(&mut self, offset: u64, len: u64) -> Result<(), Problem> {
        if offset < self.pos {
            return Err(Problem::BadAnswer("this server ignores Range requests, so bytes before the ones already read cannot be read again without downloading the file anew".into()));
        }
        self.asked = (offset, offset.saturating_add(len));
        Ok(())
    }

    /// The file offset just past the bytes received.
    fn have(&self) -> u64 {
        self.pos.saturating_add(self.pending.len() as u64)
    }

    /// Whether the range asked needs more of the body.
    pub fn wants_more(&self) -> bool {
        self.have() < self.asked.1
    }

    /// Takes the body's next chunk, dropping what lies before the range asked.
    pub fn push(&mut self, chunk: &[u8]) {
        let have = self.have();
        if self.pending.is_empty() {
            let skip = self.asked.0.saturating_sub(have).min(chunk.len() as u64) as usize;
            self.pos = have.saturating_add(skip as u64);
            self.pending.extend_from_slice(&chunk[skip..]);
        } else {
            self.pending.extend_from_slice(chunk);
        }
    }

    /// The problem when the body ended before the range asked.
    pub fn ended(&self) -> Problem {
        Problem::BadAnswer(format!(
            "the download ended at byte {}, before byte {}",
            self.have(),
            self.asked.1
        ))
    }

    /// The problem when no chunk came within the read timeout of `timeout_ms`.
    pub fn stalled(&self, timeout_ms: u32) -> Problem {
        Problem::Stalled {
            range: Some((self.asked.0, self.asked.1.saturating_sub(1))),
            got: self.have(),
            timeout_ms,
        }
    }

    /// The bytes of the range asked, once [`Forward::wants_more`] is false (fewer if not);
    /// the body's position moves past them.
    pub fn take(&mut self) -> Vec<u8> {
        let (offset, end) = self.asked;
        // Offsets past the bytes held (more than a wasm32 usize, too) clamp to their end.
        let held = |at: u64| {
            usize::try_from(at.saturating_sub(self.pos))
                .map_or(self.pending.len(), |n| n.min(self.pending.len()))
        };
        let (from, to) = (held(offset), held(end));
        let out = self.pending[from..to].to_vec();
        self.pending.drain(..to);
        self.pos = self.pos.saturating_add(to as u64);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_200_and_206_that_are_no_html_page_are_answers() {
        assert_eq!(accept(206, "application/octet-stream"), Ok(()));
        assert_eq!(accept(200, ""), Ok(()));
        assert_eq!(accept(404, ""), Err(Problem::Status(404)));
        assert_eq!(accept(302, ""), Err(Problem::Status(302)));
        assert_eq!(accept(200, "Text/HTML; charset=utf-8"), Err(Problem::Html));
        assert_eq!(content_length(" 42 "), Some(42));
        assert_eq!(content_length(""), None);
        assert_eq!(content_length("x"), None);
    }

    #[test]
    fn a_range_body_is_exactly_its_range() {
        let mut b = Body::range((10, 19), "").unwrap();
        b.push(&[1; 4]).unwrap();
        assert_eq!(b.got(), 4);
        b.room(6).unwrap().copy_from_slice(&[2; 6]);
        assert_eq!(b.finish().unwrap(), [1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
        // One byte more: stopped at once.
        let mut b = Body::range((0, 3), "identity").unwrap();
        b.push(&[0; 3]).unwrap();
        assert_eq!(b.push(&[0; 2]), Err(Problem::Excess { range: (0, 3) }));
        // Fewer: short, with what came.
        let mut b = Body::range((0, 3), "").unwrap();
        b.push(&[0; 3]).unwrap();
        assert_eq!(
            b.finish(),
            Err(Problem::Short {
                range: (0, 3),
                got: 3
            })
        );
    }

    #[test]
    fn a_range_body_names_its_failures_with_the_bytes_received() {
        assert_eq!(
            Body::range((0, 3), "gzip").unwrap_err(),
            Problem::Encoded {
                range: (0, 3),
                coding: "gzip".into()
            }
        );
        assert_eq!(
            Body::range((5, 4), "").unwrap_err(),
            Problem::TooLarge(u64::MAX)
        );
        let mut b = Body::range((0, 99), "").unwrap();
        b.push(&[0; 7]).unwrap();
        assert_eq!(
            b.stalled(200),
            Problem::Stalled {
                range: Some((0, 99)),
                got: 7,
                timeout_ms: 200
            }
        );
        assert_eq!(
            b.cut("reset".into(), true),
            Problem::Cut {
                range: (0, 99),
                got: 7,
                why: "reset".into()
            }
        );
    }

    #[test]
    fn a_whole_body_stops_at_its_cap() {
        assert_eq!(
            Body::whole(Some(11), 10).unwrap_err(),
            Problem::TooLarge(10)
        );
        let mut b = Body::whole(Some(10), 10).unwrap();
        b.push(&[3; 10]).unwrap();
        assert_eq!(b.push(&[3]), Err(Problem::TooLarge(10)));
        assert_eq!(b.finish().unwrap(), [3; 10]);
        // A large announced length reserves 1 MiB, not what the server claims.
        let cap = super::super::MAX_WHOLE_FILE;
        let b = Body::whole(Some(cap), cap).unwrap();
        assert!(
            b.out.capacity() as u64 <= 2 * WHOLE_RESERVE_BYTES,
            "{}",
            b.out.capacity()
        );
        // Once the first MiB arrived, the rest of the declared length is reserved exactly.
        let declared = 3 * WHOLE_RESERVE_BYTES + 5;
        let mut b = Body::whole(Some(declared), cap).unwrap();
        let chunk = vec![7u8; 65_536];
        while b.got() + 65_536 <= declared {
            b.push(&chunk).unwrap();
        }
        assert_eq!(b.out.capacity() as u64, declared);
        // No length given: whatever comes under the cap, even nothing.
        let mut b = Body::whole(None, 10).unwrap();
        assert_eq!(
            b.stalled(5),
            Problem::Stalled {
                range: None,
                got: 0,
                timeout_ms: 5
            }
        );
        assert_eq!(b.cut("gone".into(), false), Problem::Network("gone".into()));
        assert_eq!(b.cut("gone".into(), true), Problem::Offline);
        b.push(&[1, 2]).unwrap();
        assert_eq!(b.finish().unwrap(), [1, 2]);
    }

    #[test]
    fn a_forward_body_skips_to_the_range_and_never_goes_back() {
        let mut f = Forward::new();
        f.ask(3, 4).unwrap();
        assert!(f.wants_more());
        f.push(&[0, 1]);
        f.push(&[2, 3, 4]);
        assert!(f.wants_more());
        f.push(&[5, 6, 7, 8]);
        assert!(!f.wants_more());
        assert_eq!(f.take(), [3, 4, 5, 6]);
        // The rest of the last chunk serves the next read.
        f.ask(8, 1).unwrap();
        assert!(!f.wants_more());
        assert_eq!(f.take(), [8]);
        assert!(matches!(f.ask(5, 1), Err(Problem::BadAnswer(_))));
        f.ask(20, 2).unwrap();
        f.push(&[9; 5]);
        assert_eq!(
            f.ended(),
            Problem::BadAnswer("the download ended at byte 14, before byte 22".into())
        );
        assert_eq!(
            f.stalled(9),
            Problem::Stalled {
                range: Some((20, 21)),
                got: 14,
                timeout_ms: 9
            }
        );
    }
}
