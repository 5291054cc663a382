//! A panic-free byte cursor over a prefix of a file.
//!
//! The parsers see only the bytes read so far (`buf`, which starts at file offset 0) and the
//! file's total size. A read that runs past `buf` reports [`Short`] with the end offset it
//! needs; the caller turns that into "fetch more" when the file is long enough, or into a
//! [`ErrorKind::Truncated`] error when it is not. All offsets are `u64`; nothing here indexes
//! with an unchecked `usize` (wasm32 `usize` is 32 bits).

use super::error::{Error, ErrorKind};
use super::held::Need;

/// A read ran past the bytes available; `needed_end` is the absolute end offset it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short {
    /// Absolute offset one past the last byte the read needs.
    pub needed_end: u64,
}

/// Why a parse step stopped before finishing: the one answer of every parser inside
/// `format/` that needs more bytes (a prefix parser's end, a zip or ONNX parser's ranges), or
/// that failed. The readers turn it into their [`super::reader::Step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// More bytes of the file are needed: at least up to this absolute end offset.
    NeedMore(u64),
    /// Read this range, then call again (a zip archive's end record or a member's local
    /// header, an ONNX file's next field).
    NeedRange(Need),
    /// Read all these ranges (one round of reads), then call again.
    NeedRanges(Vec<Need>),
    /// The input is bad; parsing cannot go on.
    Fail(Error),
}

impl Stop {
    /// One past the last byte the parse needs (the furthest end of its ranges); `None` for a
    /// failure.
    pub fn needed_end(&self) -> Option<u64> {
        match self {
            Stop::NeedMore(end) => Some(*end),
            Stop::NeedRange(n) => Some(n.offset.saturating_add(n.len)),
            Stop::NeedRanges(v) => v.iter().map(|n| n.offset.saturating_add(n.len)).max(),
            Stop::Fail(_) => None,
        }
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Fail(e)
    }
}

impl Short {
    /// Turns a short read into [`Stop::NeedMore`] when the file holds the bytes, or into a
    /// truncation error naming `field` (which starts at `offset`) when it does not.
    pub fn stop(self, file_size: u64, field: impl FnOnce() -> String, offset: u64) -> Stop {
        if self.needed_end <= file_size {
            Stop::NeedMore(self.needed_end)
        } else {
            Stop::Fail(Error::new(
                field(),
                offset,
                ErrorKind::Truncated {
                    needed_end: self.needed_end,
                    file_size,
                },
            ))
        }
    }
}

/// Byte order of multi-byte numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    /// Least significant byte first (nearly every file).
    Little,
    /// Most significant byte first (GGUF files converted for s390x and other big-endian hosts).
    Big,
}

/// A cursor at absolute offset `pos` over `buf`, the first `buf.len()` bytes of a file.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: u64,
    endian: Endian,
}

macro_rules! read_num {
    ($name:ident, $t:ty, $n:expr) => {
        #[doc = concat!("Reads a `", stringify!($t), "` in the cursor's byte order.")]
        pub fn $name(&mut self) -> Result<$t, Short> {
            let b: [u8; $n] = self.array()?;
            Ok(match self.endian {
                Endian::Little => <$t>::from_le_bytes(b),
                Endian::Big => <$t>::from_be_bytes(b),
            })
        }
    };
}

impl<'a> Cursor<'a> {
    /// A cursor over `buf` (file offset 0 onwards) positioned at `pos`.
    pub fn new(buf: &'a [u8], pos: u64, endian: Endian) -> Self {
        Cursor { buf, pos, endian }
    }

    /// Current absolute offset.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Byte order used by the numeric reads.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Number of bytes available after the cursor.
    pub fn remaining(&self) -> u64 {
        (self.buf.len() as u64).saturating_sub(self.pos)
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: u64) -> Result<&'a [u8], Short> {
        let end = self.pos.checked_add(n).ok_or(Short {
            needed_end: u64::MAX,
        })?;
        if end > self.buf.len() as u64 {
            return Err(Short { needed_end: end });
        }
        // Both bounds are <= buf.len(), so they fit in usize.
        let s = &self.buf[self.pos as usize..end as usize];
        self.pos = end;
        Ok(s)
    }

    /// Skips `n` bytes (they must be present).
    pub fn skip(&mut self, n: u64) -> Result<(), Short> {
        self.take(n).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let s = self.take(N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads one signed byte.
    pub fn i8(&mut self) -> Result<i8, Short> {
        Ok(self.array::<1>()?[0] as i8)
    }

    read_num!(u16, u16, 2);
    read_num!(i16, i16, 2);
    read_num!(u32, u32, 4);
    read_num!(i32, i32, 4);
    read_num!(u64, u64, 8);
    read_num!(i64, i64, 8);
    read_num!(f32, f32, 4);
    read_num!(f64, f64, 8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders_and_reports_short_reads() {
        let buf = [1u8, 0, 0, 0, 0, 0, 0, 2];
        let mut le = Cursor::new(&buf, 0, Endian::Little);
        assert_eq!(le.u32(), Ok(1));
        assert_eq!(le.pos(), 4);
        let mut be = Cursor::new(&buf, 4, Endian::Big);
        assert_eq!(be.u32(), Ok(2));
        assert_eq!(be.u8(), Err(Short { needed_end: 9 }));
        let mut far = Cursor::new(&buf, 2, Endian::Little);
        assert_eq!(
            far.take(u64::MAX),
            Err(Short {
                needed_end: u64::MAX
            })
        );
        assert_eq!(far.pos(), 2);
    }

    #[test]
    fn short_becomes_need_more_or_truncated() {
        let s = Short { needed_end: 100 };
        assert_eq!(s.stop(200, || "x".into(), 10), Stop::NeedMore(100));
        match s.stop(50, || "x".into(), 10) {
            Stop::Fail(e) => {
                assert_eq!(e.offset, 10);
                assert_eq!(e.to_string(), "x at byte 10: the file ends at byte 50 but this field needs bytes up to 100 (truncated or damaged file)");
            }
            other => panic!("{other:?}"),
        }
    }
}
