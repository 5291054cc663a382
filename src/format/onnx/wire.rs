//! The protobuf wire format (protobuf.dev, "Encoding"), read from the byte ranges of a file
//! held so far ([`Held`]): varints, 64- and 32-bit fixed-width values, length-delimited fields.
//! Every read is at an absolute offset and bounded by the end of the message it is in; a byte
//! that is not held yet is reported as missing (with its offset), never guessed. Nothing here
//! allocates more than the bytes asked for, which the caller checks against the message first.

use std::borrow::Cow;

use crate::format::held::Held;

/// Longest varint: 10 bytes hold 64 bits (7 per byte).
pub const MAX_VARINT_LEN: u64 = 10;

/// A field's wire type (the low 3 bits of its tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireType {
    /// 0: a varint (int32, int64, uint64, bool, enum).
    Varint,
    /// 1: 8 little-endian bytes (fixed64, double).
    I64,
    /// 2: a varint length, then that many bytes (string, bytes, message, packed repeated).
    Len,
    /// 5: 4 little-endian bytes (fixed32, float).
    I32,
}

impl WireType {
    /// Bytes of a fixed-width value (`None` for varints and length-delimited fields).
    pub fn fixed_len(self) -> Option<u64> {
        match self {
            WireType::I64 => Some(8),
            WireType::I32 => Some(4),
            WireType::Varint | WireType::Len => None,
        }
    }
}

/// Why a wire-format read stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// The byte at this absolute offset is not held yet: read it, then parse again.
    Missing(u64),
    /// The value would run past `end` (the end of its message, or of the file).
    PastEnd {
        /// Absolute offset one past the last byte the value needs (at least).
        needed: u64,
        /// Where the enclosing message ends.
        end: u64,
    },
    /// A varint with a continuation bit on its 10th byte.
    VarintTooLong,
    /// A tag whose field number is 0.
    FieldZero,
    /// Wire types 3 and 4 (groups, deprecated and not used by ONNX), 6 and 7 (undefined).
    BadWireType(u8),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Missing(at) => write!(f, "byte {at} is not read yet"),
            WireError::PastEnd { needed, end } => write!(
                f,
                "it needs bytes up to {needed}, past the end of its message at byte {end}"
            ),
            WireError::VarintTooLong => write!(f, "a varint longer than 10 bytes"),
            WireError::FieldZero => write!(f, "a tag with field number 0"),
            WireError::BadWireType(3 | 4) => {
                write!(f, "a group (wire type 3/4), which ONNX does not use")
            }
            WireError::BadWireType(t) => write!(f, "wire type {t}, which protobuf does not define"),
        }
    }
}

/// A field's tag: its number and wire type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag {
    /// Field number (1 to 2^29 - 1).
    pub field: u32,
    /// How its value is encoded.
    pub wire: WireType,
}

/// Byte access to a file's held ranges at absolute offsets, remembering the range last used
/// (reads are mostly sequential) and counting the separate reads the parse has gone through.
pub struct Bytes<'a> {
    held: &'a Held,
    /// The held bytes from `cur_at` to the end of the read holding them.
    cur: &'a [u8],
    cur_at: u64,
    /// End of the read last entered, and how many distinct reads were entered.
    last_end: u64,
    reads_entered: u32,
}

impl<'a> Bytes<'a> {
    /// Access to the bytes `held`.
    pub fn new(held: &'a Held) -> Self {
        Bytes {
            held,
            cur: &[],
            cur_at: 0,
            last_end: u64::MAX,
            reads_entered: 0,
        }
    }

    /// How many separate reads (ranges held) the bytes asked for so far came from. Reads are
    /// entered in file order by a parse that moves forward, so this is also the number of
    /// reads made before the first missing byte.
    pub fn reads_entered(&self) -> u32 {
        self.reads_entered
    }

    /// The held bytes from `at` to the end of the read holding `at` (at least one byte).
    fn enter(&mut self, at: u64) -> Option<&'a [u8]> {
        if let Some(rel) = at.checked_sub(self.cur_at) {
            if let Some(rest) = usize::try_from(rel).ok().and_then(|r| self.cur.get(r..)) {
                if !rest.is_empty() {
                    return Some(rest);
                }
            }
        }
        let held = self.held;
        // `Held::from` answers with the empty tail of a read that ends at `at` even when the
        // next read starts there; then the read holding `at` is measured with `Held::get`.
        let rest = match held.from(at) {
            Some(r) if !r.is_empty() => r,
            _ => {
                held.get(at, 1)?;
                let (mut lo, mut hi) = (1u64, u64::MAX - at);
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    if held.get(at, mid).is_some() {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                held.get(at, lo)?
            }
        };
        let end = at.saturating_add(rest.len() as u64);
        if end != self.last_end {
            self.last_end = end;
            self.reads_entered = self.reads_entered.saturating_add(1);
        }
        self.cur = rest;
        self.cur_at = at;
        Some(rest)
    }

    /// The byte at `at`.
    pub fn byte(&mut self, at: u64) -> Result<u8, WireError> {
        self.enter(at)
            .and_then(|r| r.first().copied())
            .ok_or(WireError::Missing(at))
    }

    /// The `len` bytes at `at`: borrowed when one read holds them, else copied from the
    /// adjacent reads that do. The caller has checked `len` against the message.
    pub fn slice(&mut self, at: u64, len: u64) -> Result<Cow<'a, [u8]>, WireError> {
        let end = at.checked_add(len).ok_or(WireError::PastEnd {
            needed: u64::MAX,
            end: u64::MAX,
        })?;
        if len == 0 {
            return Ok(Cow::Borrowed(&[]));
        }
        let first = self.enter(at).ok_or(WireError::Missing(at))?;
        if let Some(all) = usize::try_from(len).ok().and_then(|n| first.get(..n)) {
            return Ok(Cow::Borrowed(all));
        }
        let mut out = Vec::new();
        let mut pos = at;
        while pos < end {
            let part = self.enter(pos).ok_or(WireError::Missing(pos))?;
            let want = usize::try_from(end - pos).unwrap_or(usize::MAX);
            let take = &part[..part.len().min(want)];
            out.extend_from_slice(take);
            pos += take.len() as u64;
        }
        Ok(Cow::Owned(out))
    }
}

/// Reads a varint at `*pos` that must end before `end`; moves `*pos` past it.
pub fn varint(b: &mut Bytes, pos: &mut u64, end: u64) -> Result<u64, WireError> {
    let mut v = 0u64;
    for i in 0..MAX_VARINT_LEN {
        let at = *pos + i;
        if at >= end {
            return Err(WireError::PastEnd {
                needed: at + 1,
                end,
            });
        }
        let byte = b.byte(at)?;
        // The 10th byte holds bit 63 only; higher bits are dropped, as protobuf's parsers do.
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *pos = at + 1;
            return Ok(v);
        }
    }
    Err(WireError::VarintTooLong)
}

/// Reads a tag at `*pos` (before `end`); moves `*pos` past it.
pub fn tag(b: &mut Bytes, pos: &mut u64, end: u64) -> Result<Tag, WireError> {
    let v = varint(b, pos, end)?;
    let field = u32::try_from(v >> 3).unwrap_or(u32::MAX);
    if field == 0 {
        return Err(WireError::FieldZero);
    }
    let wire = match v & 7 {
        0 => WireType::Varint,
        1 => WireType::I64,
        2 => WireType::Len,
        5 => WireType::I32,
        t => return Err(WireError::BadWireType(t as u8)),
    };
    Ok(Tag { field, wire })
}

/// Reads a fixed-width little-endian value of `len` (4 or 8) bytes at `*pos`.
pub fn fixed(b: &mut Bytes, pos: &mut u64, end: u64, len: u64) -> Result<u64, WireError> {
    let stop = pos.saturating_add(len);
    if stop > end {
        return Err(WireError::PastEnd { needed: stop, end });
    }
    let s = b.slice(*pos, len)?;
    let mut v = 0u64;
    for (i, byte) in s.iter().enumerate() {
        v |= u64::from(*byte) << (8 * i);
    }
    *pos = stop;
    Ok(v)
}

/// Reads a length prefix at `*pos` and checks that its bytes end by `end`: the payload's
/// absolute offset and length, with `*pos` moved past the prefix only.
pub fn len_prefix(b: &mut Bytes, pos: &mut u64, end: u64) -> Result<(u64, u64), WireError> {
    let n = varint(b, pos, end)?;
    match pos.checked_add(n) {
        Some(stop) if stop <= end => Ok((*pos, n)),
        stop => Err(WireError::PastEnd {
            needed: stop.unwrap_or(u64::MAX),
            end,
        }),
    }
}

/// A varint read as protobuf's `int64` (two's complement) or `int32` (sign-extended to 64
/// bits when negative, so a 10-byte varint).
pub fn as_i64(v: u64) -> i64 {
    v as i64
}

/// Decodes the varints of a packed payload `bytes` (held in full), calling `each` with every
/// value; stops at the first error (`PastEnd` relative to `base`, the payload's offset).
pub fn packed_varints(
    bytes: &[u8],
    base: u64,
    mut each: impl FnMut(u64) -> Result<(), WireError>,
) -> Result<(), WireError> {
    let mut i = 0usize;
    while i < bytes.len() {
        let mut v = 0u64;
        let mut done = false;
        for k in 0..MAX_VARINT_LEN as usize {
            let Some(&byte) = bytes.get(i + k) else {
                return Err(WireError::PastEnd {
                    needed: base + (i + k) as u64 + 1,
                    end: base + bytes.len() as u64,
                });
            };
            v |= u64::from(byte & 0x7f) << (7 * k);
            if byte & 0x80 == 0 {
                i += k + 1;
                done = true;
                break;
            }
        }
        if !done {
            return Err(WireError::VarintTooLong);
        }
        each(v)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(b: &[u8]) -> Held {
        let mut h = Held::default();
        h.add(0, b.to_vec());
        h
    }

    fn read_varint(b: &[u8]) -> Result<(u64, u64), WireError> {
        let h = held(b);
        let mut bytes = Bytes::new(&h);
        let mut pos = 0;
        let v = varint(&mut bytes, &mut pos, b.len() as u64)?;
        Ok((v, pos))
    }

    #[test]
    fn varints_of_every_length() {
        assert_eq!(read_varint(&[0x00]), Ok((0, 1)));
        assert_eq!(read_varint(&[0x01]), Ok((1, 1)));
        assert_eq!(read_varint(&[0x96, 0x01]), Ok((150, 2)));
        assert_eq!(read_varint(&[0xff, 0x7f]), Ok((16383, 2)));
        // u64::MAX and -1 as int64 take 10 bytes.
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(read_varint(&max), Ok((u64::MAX, 10)));
        assert_eq!(as_i64(read_varint(&max).unwrap().0), -1);
        // A non-minimal encoding is still the value (protobuf accepts it).
        assert_eq!(read_varint(&[0x81, 0x80, 0x00]), Ok((1, 3)));
        // Bits past 64 on the 10th byte are dropped.
        let mut big = [0x80u8; 10];
        big[9] = 0x7f;
        assert_eq!(read_varint(&big), Ok((1 << 63, 10)));
    }

    #[test]
    fn varint_errors() {
        assert_eq!(read_varint(&[0x80; 11]), Err(WireError::VarintTooLong));
        assert_eq!(
            read_varint(&[0x80, 0x80]),
            Err(WireError::PastEnd { needed: 3, end: 2 })
        );
        assert_eq!(
            read_varint(&[]),
            Err(WireError::PastEnd { needed: 1, end: 0 })
        );
        // A varint stops at its message's end even when the file goes on.
        let h = held(&[0x80, 0x01]);
        let mut b = Bytes::new(&h);
        let mut pos = 0;
        assert_eq!(
            varint(&mut b, &mut pos, 1),
            Err(WireError::PastEnd { needed: 2, end: 1 })
        );
    }

    #[test]
    fn missing_bytes_are_named() {
        let mut h = Held::default();
        h.add(0, vec![0x80, 0x80]);
        let mut b = Bytes::new(&h);
        let mut pos = 0;
        assert_eq!(varint(&mut b, &mut pos, 100), Err(WireError::Missing(2)));
        // Once the next range is held, the varint reads across the two.
        h.add(2, vec![0x01, 0x05]);
        let mut b = Bytes::new(&h);
        let mut pos = 0;
        assert_eq!(varint(&mut b, &mut pos, 100), Ok(1 << 14));
        assert_eq!(pos, 3);
        assert_eq!(b.reads_entered(), 2);
        assert_eq!(b.slice(1, 3).unwrap().as_ref(), &[0x80, 0x01, 0x05]);
        assert_eq!(b.slice(3, 2), Err(WireError::Missing(4)));
    }

    #[test]
    fn tags_and_wire_types() {
        let read = |b: &[u8]| {
            let h = held(b);
            let mut bytes = Bytes::new(&h);
            let mut pos = 0;
            tag(&mut bytes, &mut pos, b.len() as u64)
        };
        assert_eq!(
            read(&[0x08]),
            Ok(Tag {
                field: 1,
                wire: WireType::Varint
            })
        );
        assert_eq!(
            read(&[0x4a]),
            Ok(Tag {
                field: 9,
                wire: WireType::Len
            })
        );
        assert_eq!(
            read(&[0x25]),
            Ok(Tag {
                field: 4,
                wire: WireType::I32
            })
        );
        assert_eq!(
            read(&[0x51]),
            Ok(Tag {
                field: 10,
                wire: WireType::I64
            })
        );
        // Field 16 needs a two-byte tag.
        assert_eq!(
            read(&[0x82, 0x01]),
            Ok(Tag {
                field: 16,
                wire: WireType::Len
            })
        );
        assert_eq!(read(&[0x02]), Err(WireError::FieldZero));
        assert_eq!(read(&[0x0b]), Err(WireError::BadWireType(3)));
        assert_eq!(read(&[0x0c]), Err(WireError::BadWireType(4)));
        assert_eq!(read(&[0x0e]), Err(WireError::BadWireType(6)));
        assert_eq!(read(&[0x0f]), Err(WireError::BadWireType(7)));
        // A field number past 32 bits saturates (and is then an unknown field).
        let huge = [0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(read(&huge).unwrap().field, u32::MAX);
    }

    #[test]
    fn fixed_width_values() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let h = held(&b);
        let mut bytes = Bytes::new(&h);
        let mut pos = 0;
        assert_eq!(fixed(&mut bytes, &mut pos, 8, 4), Ok(0x0403_0201));
        assert_eq!(pos, 4);
        assert_eq!(
            fixed(&mut bytes, &mut pos, 7, 4),
            Err(WireError::PastEnd { needed: 8, end: 7 })
        );
        let mut pos = 0;
        assert_eq!(fixed(&mut bytes, &mut pos, 8, 8), Ok(0x0807_0605_0403_0201));
        let f = 1.5f32.to_le_bytes();
        let h = held(&f);
        let mut bytes = Bytes::new(&h);
        let mut pos = 0;
        let v = fixed(&mut bytes, &mut pos, 4, 4).unwrap();
        assert_eq!(f32::from_bits(v as u32), 1.5);
    }

    #[test]
    fn length_prefixes_are_checked_against_the_message() {
        let b = [0x03, b'a', b'b', b'c', 0x05];
        let h = held(&b);
        let mut bytes = Bytes::new(&h);
        let mut pos = 0;
        assert_eq!(len_prefix(&mut bytes, &mut pos, 5), Ok((1, 3)));
        assert_eq!(pos, 1);
        assert_eq!(bytes.slice(1, 3).unwrap().as_ref(), b"abc");
        let mut pos = 4;
        assert_eq!(
            len_prefix(&mut bytes, &mut pos, 5),
            Err(WireError::PastEnd { needed: 10, end: 5 })
        );
        // A length of 2^64 - 1 does not overflow.
        let b = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        let h = held(&b);
        let mut bytes = Bytes::new(&h);
        let mut pos = 0;
        assert!(matches!(
            len_prefix(&mut bytes, &mut pos, 10),
            Err(WireError::PastEnd { .. })
        ));
    }

    #[test]
    fn packed_varint_payloads() {
        let mut got = Vec::new();
        packed_varints(&[0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05], 0, |v| {
            got.push(v);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![3, 270, 86942]);
        assert_eq!(
            packed_varints(&[0x01, 0x80], 10, |_| Ok(())),
            Err(WireError::PastEnd {
                needed: 13,
                end: 12
            })
        );
        assert_eq!(
            packed_varints(&[0x80; 12], 0, |_| Ok(())),
            Err(WireError::VarintTooLong)
        );
    }

    #[test]
    fn adjacent_reads_are_one_run() {
        // Three reads back to back, entered one after another.
        let mut h = Held::default();
        h.add(0, vec![1, 2]);
        h.add(2, vec![3, 4, 5]);
        h.add(5, vec![6]);
        let mut b = Bytes::new(&h);
        assert_eq!(b.slice(0, 6).unwrap().as_ref(), &[1, 2, 3, 4, 5, 6]);
        assert_eq!(b.reads_entered(), 3);
        assert_eq!(b.byte(2), Ok(3));
        assert_eq!(b.byte(6), Err(WireError::Missing(6)));
    }
}
