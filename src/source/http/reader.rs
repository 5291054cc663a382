//! The one HTTP Range reader, without I/O: what a remote file's reader knows (where reads go,
//! the file's size, the bytes kept from the first answer, whether the server ignores Range)
//! and every decision about a read — answer it from the first bytes, from the forward-only
//! body of a server that ignores Range, refuse it, or make one ranged GET, and where; ask the
//! Hub again when a signed CDN URL has expired; check each answer's status and
//! `Content-Range`. The transports (`ureq` in `crate::source::net`, `fetch` in the web
//! build's `source::fetch`) only send the requests this asks for and move the bytes, so the
//! CLI, the page, the element and the API treat every server the same way by construction.
//!
//! A read goes: [`RangeFile::plan`] → a [`Plan`]; for [`Plan::Get`] the transport sends it,
//! and on a failed status asks [`RangeFile::retry_at`] whether to try once more elsewhere;
//! then [`RangeFile::check_answer`] judges the answer before its body is read (exactly the
//! range's length: the transport's body reader, with [`super::range_len`]).

use super::{
    check_first_range, check_later_range, origin_of, size_from_answer, Problem, NO_RANGE_CAP,
};

/// What the first answer to a file's first ranged GET says, as the transport reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstAnswer<'a> {
    /// The HTTP status (206, or 200 from a server that ignores Range; the transport has
    /// already refused others).
    pub status: u16,
    /// The `Content-Range` header, empty when absent or not exposed to the page.
    pub content_range: &'a str,
    /// The `Content-Length` header, when present and a number.
    pub content_length: Option<u64>,
    /// The URL the answer finally came from, after redirects (empty when unknown).
    pub final_url: &'a str,
}

/// How to read the body of the first answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstBody {
    /// A 206: its body is exactly this inclusive range; then [`RangeFile::keep_first`].
    Range((u64, u64)),
    /// A 200: the whole file follows. Read its first `len` bytes from the body, keep the body
    /// open for later reads ([`Plan::Stream`]), then [`RangeFile::keep_first`].
    Stream {
        /// Bytes to read from the start of the body.
        len: u64,
    },
}

/// How to answer one read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// From the first answer's bytes kept: this range of [`RangeFile::first`].
    Held(std::ops::Range<usize>),
    /// From the forward-only body of a server that ignores Range: skip to `offset` (the bytes
    /// before it are dropped as they arrive), then read `len` bytes.
    Stream {
        /// First byte wanted.
        offset: u64,
        /// Bytes wanted.
        len: u64,
    },
    /// One ranged GET of `range` (inclusive) at `url`.
    Get {
        /// Where to send it: the final URL of the first answer's redirects (the CDN), or the
        /// URL as opened.
        url: String,
        /// The bytes asked, inclusive.
        range: (u64, u64),
    },
}

/// Where an opened remote file lives, to read more of it later (tensor previews) with a new
/// reader ([`RangeFile::at`]) without asking for its size again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The URL as opened (a Hub `resolve/` URL, or any URL).
    pub url: String,
    /// The final URL after the first answer's redirects (the CDN), where reads go.
    pub direct: String,
    /// The file's size, from the first answer (`u64::MAX` while unknown).
    pub size: u64,
    /// The server ignored Range (answered 200 with the whole body).
    pub no_range: bool,
}

impl Location {
    /// A file not asked anything yet: its size unknown, reads going to `url` itself.
    pub fn unread(url: &str) -> Location {
        Location {
            url: url.to_string(),
            direct: url.to_string(),
            size: u64::MAX,
            no_range: false,
        }
    }

    /// Whether a tensor of this file can be previewed. Errors (why not, as a sentence's
    /// details): its server ignores Range, so a preview would download the file up to it.
    pub fn previewable(&self) -> Result<(), &'static str> {
        if self.no_range {
            return Err("this server ignores Range requests: previewing a tensor would download the file up to it");
        }
        Ok(())
    }

    /// The file holding part `part` of a model whose files live at `located` (in the merged
    /// model's part order), to preview a tensor of it. Errors: the file's size (0 when
    /// unknown) and why not, as a sentence's details: it was not read, or
    /// [`Location::previewable`] says no.
    pub fn of_part(located: &[Location], part: usize) -> Result<&Location, (u64, &'static str)> {
        let l = located
            .get(part)
            .ok_or((0, "the file holding this tensor was not read"))?;
        l.previewable().map(|()| l).map_err(|why| (l.size, why))
    }

    /// The file a reading of one file alone (`located`, a model of `parts` merged parts) can
    /// hand over with its first bytes to another reader: `None` for a set of files or parts,
    /// or a server that ignores Range (its download is gone).
    pub fn handover(located: &[Location], parts: usize) -> Option<&Location> {
        match located {
            [one] if !one.no_range && parts == 0 => Some(one),
            _ => None,
        }
    }

    /// Where a file handed over by another reader lives: `url` as opened, reads going to
    /// `direct`, its size as a JavaScript number (`size`) of which `held` bytes are handed
    /// over. `None` when that does not hold together: a size that is not an integer below
    /// 2^53 (a browser's sizes are), or smaller than the bytes held.
    pub fn handed_over(url: &str, direct: String, size: f64, held: u64) -> Option<Location> {
        let whole = size.is_finite() && size.fract() == 0.0;
        (whole && size >= held as f64 && size < 9.0e15).then(|| Location {
            url: url.to_string(),
            direct,
            size: size as u64,
            no_range: false,
        })
    }
}

/// What the reader of one remote file knows (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeFile {
    /// The URL as opened (a Hub `resolve/` URL, or any URL).
    url: String,
    /// Where later reads go: the final URL after the first answer's redirects when it is on
    /// another origin (a signed CDN URL), else the URL as opened.
    direct: String,
    /// The file's size in bytes; `u64::MAX` until an answer says it ([`RangeFile::unopened`]).
    size: u64,
    /// The bytes of the first answer, from offset 0.
    first: Vec<u8>,
    /// The server answered 200 to a Range request (it ignores Range).
    no_range: bool,
    /// The next file offset of the open forward-only body, while one is open.
    stream_at: Option<u64>,
}

impl RangeFile {
    /// The range of the first GET of a file when `first_len` bytes are wanted: `0..=first_len − 1`
    /// (at least one byte).
    pub fn first_range(first_len: u64) -> (u64, u64) {
        (0, first_len.max(1) - 1)
    }

    /// The reader after the first answer to the GET of [`RangeFile::first_range`]`(first_len)`
    /// at `url`, and how to read that answer's body. `cors_missing` words a 206 whose
    /// `Content-Range` cannot be read (in a browser: the server must expose it).
    ///
    /// Errors: a 206 for another range or without a readable `Content-Range`; a 200 without a
    /// `Content-Length`.
    pub fn opened(
        url: &str,
        first_len: u64,
        answer: &FirstAnswer<'_>,
        cors_missing: &str,
    ) -> Result<(RangeFile, FirstBody), Problem> {
        let (_, end) = Self::first_range(first_len);
        let direct =
            if !answer.final_url.is_empty() && origin_of(answer.final_url) != origin_of(url) {
                answer.final_url.to_string()
            } else {
                url.to_string()
            };
        let mut file = RangeFile {
            url: url.to_string(),
            direct,
            size: 0,
            first: Vec::new(),
            no_range: false,
            stream_at: None,
        };
        if answer.status == 206 {
            let (last, total) = check_first_range(answer.content_range, end, cors_missing)?;
            file.size = total;
            return Ok((file, FirstBody::Range((0, last))));
        }
        // 200: the whole file follows; its length says the size.
        let Some(size) = answer.content_length else {
            return Err(Problem::BadAnswer(
                "the server ignores Range requests and does not say the file's length (no Content-Length)".into(),
            ));
        };
        file.size = size;
        file.no_range = size > first_len;
        file.stream_at = Some(0);
        let len = first_len.min(size);
        Ok((file, FirstBody::Stream { len }))
    }

    /// Keeps the first answer's body (read as [`FirstBody`] said); a streamed one moves the
    /// body's position past it.
    pub fn keep_first(&mut self, bytes: Vec<u8>) {
        if let Some(at) = self.stream_at.as_mut() {
            *at = at.saturating_add(bytes.len() as u64);
        }
        self.first = bytes;
    }

    /// A reader of a file opened before, by another reader (its size and where reads go
    /// known): every read is one ranged GET, or refused when the server ignores Range.
    pub fn reopened(url: &str, direct: &str, size: u64, no_range: bool) -> RangeFile {
        RangeFile {
            url: url.to_string(),
            direct: direct.to_string(),
            size,
            first: Vec::new(),
            no_range,
            stream_at: None,
        }
    }

    /// Where this file lives ([`Location`]).
    pub fn location(&self) -> Location {
        Location {
            url: self.url.clone(),
            direct: self.direct.clone(),
            size: self.size,
            no_range: self.no_range,
        }
    }

    /// [`RangeFile::reopened`] at `at`.
    pub fn at(at: &Location) -> RangeFile {
        RangeFile::reopened(&at.url, &at.direct, at.size, at.no_range)
    }

    /// A reader of a file whose first bytes another reader already holds (the web build's
    /// lean module hands its header over): no request for them.
    pub fn with_first(url: &str, direct: &str, size: u64, first: Vec<u8>) -> RangeFile {
        RangeFile {
            first,
            ..RangeFile::reopened(url, direct, size, false)
        }
    }

    /// A reader of `url` that has asked nothing yet (an ONNX side file): its size is unknown
    /// (`u64::MAX`) until the first answer's `Content-Range` says it; every read is one ranged
    /// GET of exactly the bytes asked, which the server refuses past the file's end.
    pub fn unopened(url: &str) -> RangeFile {
        RangeFile::reopened(url, url, u64::MAX, false)
    }

    /// How to answer a read of `len` bytes at `offset`. A streamed read moves the body's
    /// position past it.
    ///
    /// Errors: the range overflows 64 bits; from a server that ignores Range, bytes before the
    /// ones already read, bytes past [`NO_RANGE_CAP`], or any byte once its body is closed
    /// (reading on would download the file up to it).
    pub fn plan(&mut self, offset: u64, len: u64) -> Result<Plan, Problem> {
        if len == 0 {
            return Ok(Plan::Held(0..0));
        }
        let end = offset
            .checked_add(len - 1)
            .ok_or(Problem::TooLarge(u64::MAX))?;
        if end < self.first.len() as u64 {
            // Both below first.len(), a usize.
            return Ok(Plan::Held(offset as usize..end as usize + 1));
        }
        if let Some(at) = self.stream_at {
            if end >= NO_RANGE_CAP {
                return Err(Problem::TooLarge(NO_RANGE_CAP));
            }
            if offset < at {
                return Err(Problem::BadAnswer("this server ignores Range requests, so bytes before the ones already read cannot be read again without downloading the file anew".into()));
            }
            self.stream_at = Some(end + 1);
            return Ok(Plan::Stream { offset, len });
        }
        if self.no_range {
            return Err(Problem::BadAnswer(
                "this server ignores Range requests: previewing a tensor would download the file up to it".into(),
            ));
        }
        Ok(Plan::Get {
            url: self.direct.clone(),
            range: (offset, end),
        })
    }

    /// After a GET of [`Plan::Get`] sent to `asked` failed with `problem`: the URL to try once
    /// more, if any. A signed CDN URL that has expired (403 or 410 from the redirect's final
    /// URL) is asked of the Hub again, which redirects anew; later reads go there too.
    pub fn retry_at(&mut self, problem: &Problem, asked: &str) -> Option<String> {
        match problem {
            Problem::Status(403 | 410) if asked != self.url => {
                self.direct = self.url.clone();
                Some(self.url.clone())
            }
            _ => None,
        }
    }

    /// After the GET [`RangeFile::retry_at`] asked for answered from `final_url` (the end of
    /// the Hub's redirect: a newly signed CDN URL): later reads go there, as after the first
    /// answer; a final URL of the opened URL's own origin leaves them at the URL as opened.
    pub fn redirected(&mut self, final_url: &str) {
        if !final_url.is_empty() && origin_of(final_url) != origin_of(&self.url) {
            self.direct = final_url.to_string();
        }
    }

    /// Judges the answer to a GET of `range` (inclusive) before its body is read: a 206 of
    /// exactly that range; for a file of unknown size, the size it gives.
    ///
    /// Errors: a 200 (the server stopped honouring Range), another range, or a range past
    /// the end of the file.
    pub fn check_answer(
        &mut self,
        status: u16,
        content_range: &str,
        range: (u64, u64),
    ) -> Result<(), Problem> {
        if self.size == u64::MAX {
            if let Some(total) = size_from_answer(content_range, range)? {
                self.size = total;
            }
        }
        check_later_range(status, content_range, range)
    }

    /// Closes the forward-only body of a server that ignores Range (once the header is read):
    /// later reads past the first bytes are refused rather than downloading the file up to them.
    pub fn end_stream(&mut self) {
        self.stream_at = None;
    }

    /// The URL as opened.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Where reads go (see [`RangeFile::retry_at`]).
    pub fn direct(&self) -> &str {
        &self.direct
    }

    /// The file's size in bytes (`u64::MAX` while unknown).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The first answer's bytes, from offset 0.
    pub fn first(&self) -> &[u8] {
        &self.first
    }

    /// Whether the server ignores Range (answered 200 with a file longer than the first read).
    pub fn no_range(&self) -> bool {
        self.no_range
    }

    /// Whether a forward-only body is open.
    pub fn streaming(&self) -> bool {
        self.stream_at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUB: &str = "https://huggingface.co/o/m/resolve/main/m.gguf";
    const CDN: &str = "https://cdn-lfs.hf.co/repos/ab/cd?X-Amz-Signature=1";

    fn answer<'a>(
        status: u16,
        cr: &'a str,
        len: Option<u64>,
        final_url: &'a str,
    ) -> FirstAnswer<'a> {
        FirstAnswer {
            status,
            content_range: cr,
            content_length: len,
            final_url,
        }
    }

    /// A file opened with a 206 of its first 100 bytes, redirected to the CDN.
    fn opened_206() -> RangeFile {
        let a = answer(206, "bytes 0-99/5000", Some(100), CDN);
        let (mut f, body) = RangeFile::opened(HUB, 100, &a, "no header").unwrap();
        assert_eq!(body, FirstBody::Range((0, 99)));
        f.keep_first((0..100).collect());
        f
    }

    #[test]
    fn range_honoured_reads_come_from_the_first_bytes_then_one_get_at_the_cdn() {
        let mut f = opened_206();
        assert_eq!((f.size(), f.direct(), f.no_range()), (5000, CDN, false));
        assert_eq!(f.plan(10, 20), Ok(Plan::Held(10..30)));
        assert_eq!(f.plan(0, 100), Ok(Plan::Held(0..100)));
        assert_eq!(f.plan(7, 0), Ok(Plan::Held(0..0)));
        assert_eq!(
            f.plan(90, 20),
            Ok(Plan::Get {
                url: CDN.into(),
                range: (90, 109)
            })
        );
        assert_eq!(f.check_answer(206, "bytes 90-109/5000", (90, 109)), Ok(()));
        assert_eq!(f.plan(u64::MAX, 2), Err(Problem::TooLarge(u64::MAX)));
    }

    #[test]
    fn a_same_origin_redirect_keeps_the_url_as_opened() {
        let a = answer(
            206,
            "bytes 0-99/5000",
            None,
            "https://huggingface.co/elsewhere",
        );
        let (f, _) = RangeFile::opened(HUB, 100, &a, "").unwrap();
        assert_eq!(f.direct(), HUB);
        let (f, _) =
            RangeFile::opened(HUB, 100, &answer(206, "bytes 0-99/5000", None, ""), "").unwrap();
        assert_eq!(f.direct(), HUB);
    }

    #[test]
    fn a_short_file_ends_the_first_range_sooner() {
        let a = answer(206, "bytes 0-9/10", Some(10), "");
        let (f, body) = RangeFile::opened(HUB, 100, &a, "").unwrap();
        assert_eq!((f.size(), body), (10, FirstBody::Range((0, 9))));
    }

    #[test]
    fn a_206_without_its_range_or_for_another_is_refused() {
        let missing = "expose Content-Range";
        assert_eq!(
            RangeFile::opened(HUB, 100, &answer(206, "", None, ""), missing),
            Err(Problem::BadAnswer(missing.into()))
        );
        assert!(matches!(
            RangeFile::opened(HUB, 100, &answer(206, "bytes 5-99/500", None, ""), missing),
            Err(Problem::RangeMismatch { asked: (0, 99), .. })
        ));
    }

    #[test]
    fn range_ignored_reads_stream_forward_only_then_are_refused_once_closed() {
        let (mut f, body) =
            RangeFile::opened(HUB, 100, &answer(200, "", Some(5000), ""), "").unwrap();
        assert_eq!(body, FirstBody::Stream { len: 100 });
        f.keep_first(vec![0; 100]);
        assert!(f.no_range() && f.streaming());
        assert_eq!(f.plan(50, 10), Ok(Plan::Held(50..60)));
        assert_eq!(
            f.plan(200, 50),
            Ok(Plan::Stream {
                offset: 200,
                len: 50
            })
        );
        // Behind the body's position: gone.
        assert!(matches!(f.plan(120, 10), Err(Problem::BadAnswer(_))));
        assert_eq!(
            f.plan(250, 10),
            Ok(Plan::Stream {
                offset: 250,
                len: 10
            })
        );
        // Never past the header cap.
        assert_eq!(
            f.plan(NO_RANGE_CAP - 1, 2),
            Err(Problem::TooLarge(NO_RANGE_CAP))
        );
        f.end_stream();
        assert_eq!(f.plan(10, 10), Ok(Plan::Held(10..20)));
        let Err(Problem::BadAnswer(why)) = f.plan(300, 10) else {
            panic!("a closed no-Range body must refuse reads")
        };
        assert!(why.contains("ignores Range"), "{why}");
    }

    #[test]
    fn range_ignored_for_a_file_shorter_than_the_first_read_is_whole() {
        let (mut f, body) =
            RangeFile::opened(HUB, 100, &answer(200, "", Some(40), ""), "").unwrap();
        assert_eq!(body, FirstBody::Stream { len: 40 });
        f.keep_first(vec![1; 40]);
        f.end_stream();
        assert!(!f.no_range());
        assert_eq!(f.plan(0, 40), Ok(Plan::Held(0..40)));
    }

    #[test]
    fn a_200_without_a_length_is_refused() {
        assert!(matches!(
            RangeFile::opened(HUB, 100, &answer(200, "", None, ""), ""),
            Err(Problem::BadAnswer(w)) if w.contains("Content-Length")
        ));
    }

    #[test]
    fn an_expired_cdn_url_is_asked_of_the_hub_again_once() {
        let mut f = opened_206();
        assert_eq!(
            f.retry_at(&Problem::Status(403), CDN),
            Some(HUB.to_string())
        );
        assert_eq!(f.direct(), HUB);
        // The Hub itself refusing is final; so is any other failure.
        assert_eq!(f.retry_at(&Problem::Status(403), HUB), None);
        let mut g = opened_206();
        assert_eq!(
            g.retry_at(&Problem::Status(410), CDN),
            Some(HUB.to_string())
        );
        // The Hub's new redirect is where later reads go.
        f.redirected("https://cdn-lfs.hf.co/repos/ab/cd?X-Amz-Signature=2");
        assert_eq!(
            f.direct(),
            "https://cdn-lfs.hf.co/repos/ab/cd?X-Amz-Signature=2"
        );
        let mut h = opened_206();
        assert_eq!(h.retry_at(&Problem::Status(404), CDN), None);
        assert_eq!(h.retry_at(&Problem::Status(500), CDN), None);
        assert_eq!(h.direct(), CDN);
    }

    #[test]
    fn later_answers_must_be_the_range_asked() {
        let mut f = opened_206();
        assert!(matches!(
            f.check_answer(200, "", (100, 199)),
            Err(Problem::BadAnswer(w)) if w.contains("stopped honouring")
        ));
        assert!(matches!(
            f.check_answer(206, "bytes 100-150/5000", (100, 199)),
            Err(Problem::RangeMismatch { .. })
        ));
    }

    #[test]
    fn an_unopened_file_learns_its_size_from_the_first_answer() {
        let mut f = RangeFile::unopened("https://h/x.onnx_data");
        assert_eq!(f.size(), u64::MAX);
        assert_eq!(
            f.plan(0, 10),
            Ok(Plan::Get {
                url: "https://h/x.onnx_data".into(),
                range: (0, 9)
            })
        );
        assert_eq!(f.check_answer(206, "bytes 0-9/64", (0, 9)), Ok(()));
        assert_eq!(f.size(), 64);
        // Past the end of a file of unknown size: refused, its bytes never used.
        let mut g = RangeFile::unopened("https://h/y");
        assert!(matches!(
            g.check_answer(206, "bytes 60-63/64", (60, 69)),
            Err(Problem::BadAnswer(w)) if w.contains("past the end")
        ));
    }

    #[test]
    fn a_reopened_file_gets_or_refuses_as_its_server_allows() {
        let mut f = RangeFile::reopened(HUB, CDN, 5000, false);
        assert_eq!(
            f.plan(0, 4),
            Ok(Plan::Get {
                url: CDN.into(),
                range: (0, 3)
            })
        );
        let mut g = RangeFile::reopened(HUB, HUB, 5000, true);
        assert!(matches!(g.plan(0, 4), Err(Problem::BadAnswer(_))));
        let at = f.location();
        assert_eq!(
            (at.direct.as_str(), at.size, at.no_range),
            (CDN, 5000, false)
        );
        assert_eq!(RangeFile::at(&at), f);
        assert_eq!(g.location().previewable(), Err("this server ignores Range requests: previewing a tensor would download the file up to it"));
        assert_eq!(at.previewable(), Ok(()));
        let u = Location::unread("https://h/x");
        assert_eq!(RangeFile::at(&u), RangeFile::unopened("https://h/x"));
        // Previews: the part's file, unless it was not read or its server ignores Range.
        let located = [at.clone(), g.location()];
        assert_eq!(Location::of_part(&located, 0), Ok(&at));
        assert_eq!(
            Location::of_part(&located, 1),
            Err((5000, "this server ignores Range requests: previewing a tensor would download the file up to it"))
        );
        assert_eq!(
            Location::of_part(&located, 2),
            Err((0, "the file holding this tensor was not read"))
        );
        // Handed over: one file alone, its server honouring Range; the size a whole number.
        assert_eq!(Location::handover(&located[..1], 0), Some(&at));
        assert_eq!(Location::handover(&located[..1], 2), None);
        assert_eq!(Location::handover(&located[1..], 0), None);
        assert_eq!(Location::handover(&located, 0), None);
        let h = Location::handed_over(HUB, CDN.into(), 5000.0, 100).unwrap();
        assert_eq!(
            (h.url.as_str(), h.direct.as_str(), h.size, h.no_range),
            (HUB, CDN, 5000, false)
        );
        for bad in [99.0, 5000.5, f64::NAN, f64::INFINITY, 9.1e15, -1.0] {
            assert_eq!(
                Location::handed_over(HUB, CDN.into(), bad, 100),
                None,
                "{bad}"
            );
        }
        let mut h = RangeFile::with_first(HUB, CDN, 5000, vec![7; 8]);
        assert_eq!(h.plan(2, 4), Ok(Plan::Held(2..6)));
        assert_eq!(h.first(), &[7; 8]);
    }
}
