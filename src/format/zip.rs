//! ZIP archives, read from their end: the end-of-central-directory record (and its ZIP64
//! record), the central directory, and a member's local header — enough to find where each
//! stored member's bytes are, without reading them (PKWARE APPNOTE 6.3: sections 4.3.7 local
//! file header, 4.3.12 central directory header, 4.3.14–4.3.16 ZIP64 and end records, 4.5.3 the
//! ZIP64 extended information extra field).
//!
//! PyTorch (`torch.save` since 1.6, TorchScript) and NumPy (`.npz`) write zip archives. Every
//! function here works on bytes the caller read at a known absolute offset, checks every count
//! against the bytes present before allocating, uses checked `u64` arithmetic, and never panics.
//! A read that needs bytes the caller does not hold says which ([`Need`]).

use super::error::{Error, ErrorKind};

/// Signature of a local file header (`PK\x03\x04`), which starts a zip file.
pub const LOCAL_SIG: u32 = 0x0403_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const END_SIG: u32 = 0x0605_4b50;
const ZIP64_END_SIG: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
/// Fixed size of the end-of-central-directory record.
pub const END_LEN: u64 = 22;
/// Fixed size of the ZIP64 end-of-central-directory locator.
const LOCATOR_LEN: u64 = 20;
/// Fixed size of a ZIP64 end-of-central-directory record (without its extensible data).
const ZIP64_END_LEN: u64 = 56;
/// Fixed size of a central directory header.
const CENTRAL_LEN: u64 = 46;
/// Fixed size of a local file header.
pub const LOCAL_LEN: u64 = 30;
/// The archive comment is at most 65,535 bytes, so the end record starts at most this far
/// before the end of the file.
pub const MAX_END_SEARCH: u64 = END_LEN + 0xFFFF;

/// Stored (no compression): the only method whose bytes can be read in place.
pub const METHOD_STORED: u16 = 0;
/// Deflate.
pub const METHOD_DEFLATE: u16 = 8;

pub use super::held::Need;

/// Why a zip parse stopped: more bytes are needed, or the archive is bad.
pub use super::cursor::Stop;

/// Where the central directory is (from the end records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndRecord {
    /// Absolute offset of the central directory.
    pub cd_offset: u64,
    /// Its size in bytes.
    pub cd_size: u64,
    /// Entries it holds.
    pub entries: u64,
    /// Whether the ZIP64 end record gave these (an archive over 4 GiB or 65,535 entries).
    pub zip64: bool,
    /// Absolute offset of the end record.
    pub end_offset: u64,
}

/// One member of the archive, from its central directory header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Name as stored (UTF-8, or CP437 read byte for byte as Latin-1 when the UTF-8 flag is off
    /// and the bytes are not UTF-8).
    pub name: String,
    /// Compression method (0 stored, 8 deflate, …).
    pub method: u16,
    /// General-purpose flags (bit 0: encrypted; bit 3: sizes in a data descriptor).
    pub flags: u16,
    /// CRC-32 of the uncompressed bytes.
    pub crc32: u32,
    /// Compressed size in bytes.
    pub compressed: u64,
    /// Uncompressed size in bytes.
    pub size: u64,
    /// Absolute offset of its local file header.
    pub local_header: u64,
    /// Absolute offset of its central directory header.
    pub central_offset: u64,
}

impl Entry {
    /// Whether the bytes are stored as they are (not compressed, not encrypted).
    pub fn is_stored(&self) -> bool {
        self.method == METHOD_STORED && self.flags & 1 == 0
    }
}

fn err(field: impl Into<String>, offset: u64, why: impl Into<String>) -> Error {
    Error::new(field, offset, ErrorKind::Invalid(why.into()))
}

/// Little-endian reads from `b` (which starts at absolute offset `base`); `None` past its end.
struct Le<'a> {
    b: &'a [u8],
}

impl Le<'_> {
    fn u16(&self, at: u64) -> Option<u16> {
        let at = usize::try_from(at).ok()?;
        Some(u16::from_le_bytes(
            self.b.get(at..at.checked_add(2)?)?.try_into().ok()?,
        ))
    }
    fn u32(&self, at: u64) -> Option<u32> {
        let at = usize::try_from(at).ok()?;
        Some(u32::from_le_bytes(
            self.b.get(at..at.checked_add(4)?)?.try_into().ok()?,
        ))
    }
    fn u64(&self, at: u64) -> Option<u64> {
        let at = usize::try_from(at).ok()?;
        Some(u64::from_le_bytes(
            self.b.get(at..at.checked_add(8)?)?.try_into().ok()?,
        ))
    }
    fn slice(&self, at: u64, len: u64) -> Option<&[u8]> {
        let at = usize::try_from(at).ok()?;
        let len = usize::try_from(len).ok()?;
        self.b.get(at..at.checked_add(len)?)
    }
}

/// Finds the end records in `tail`, the last bytes of the file (`tail` starts at absolute offset
/// `file_size - tail.len()`; at least [`MAX_END_SEARCH`] of them, or the whole file, find any
/// end record). A ZIP64 end record outside `tail` is a [`Stop::NeedRange`]; call again with its
/// bytes as `zip64_record`.
///
/// Errors: no end record (not a zip, or cut short), counts or offsets that do not fit the file.
pub fn find_end(
    tail: &[u8],
    file_size: u64,
    zip64_record: Option<&[u8]>,
) -> Result<EndRecord, Stop> {
    let base = file_size
        .checked_sub(tail.len() as u64)
        .ok_or_else(|| err("zip end record", 0, "more tail bytes than the file has"))?;
    let le = Le { b: tail };
    let len = tail.len() as u64;
    if len < END_LEN {
        return Err(err(
            "zip end record",
            base,
            format!("the file's last {len} bytes cannot hold a zip end record (22 bytes)"),
        )
        .into());
    }
    // Search backwards for a signature whose comment ends exactly at the end of the file.
    let lowest = len.saturating_sub(MAX_END_SEARCH) as usize;
    let last = (len - END_LEN) as usize;
    let found = tail
        .get(lowest..last + 4)
        .unwrap_or(&[])
        .windows(4)
        .enumerate()
        .rev()
        .filter(|(_, w)| *w == END_SIG.to_le_bytes())
        .map(|(i, _)| (lowest + i) as u64)
        .find(|&at| at + END_LEN + u64::from(le.u16(at + 20).unwrap_or(0)) == len);
    let Some(at) = found else {
        return Err(err(
            "zip end record",
            base,
            if len < MAX_END_SEARCH {
                format!(
                    "no end-of-central-directory record in the file's {len} bytes: not a zip \
                     archive, or the file is cut short"
                )
            } else {
                "no end-of-central-directory record in the last 65,557 bytes: not a zip archive, \
                 or the file is cut short"
                    .to_string()
            },
        )
        .into());
    };
    let end_offset = base + at;
    let field = |i: u64| le.u16(at + i).unwrap_or(0);
    let disk = field(4);
    let cd_disk = field(6);
    let mut entries = u64::from(field(10));
    let mut cd_size = u64::from(le.u32(at + 12).unwrap_or(0));
    let mut cd_offset = u64::from(le.u32(at + 16).unwrap_or(0));
    let needs64 = entries == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF;
    let mut zip64 = false;
    // A ZIP64 locator sits right before the end record.
    let locator = at
        .checked_sub(LOCATOR_LEN)
        .filter(|&l| le.u32(l) == Some(ZIP64_LOCATOR_SIG));
    if let Some(l) = locator {
        let rec = le.u64(l + 8).unwrap_or(u64::MAX);
        if rec.checked_add(ZIP64_END_LEN).is_none_or(|e| e > base + l) {
            return Err(err(
                "zip64 end locator",
                base + l,
                format!("points at byte {rec}, outside the archive before it"),
            )
            .into());
        }
        let inside = rec
            .checked_sub(base)
            .and_then(|r| le.slice(r, ZIP64_END_LEN));
        let given = zip64_record.and_then(|b| b.get(..ZIP64_END_LEN as usize));
        let Some(rb) = inside.or(given) else {
            return Err(Stop::NeedRange(Need {
                offset: rec,
                len: ZIP64_END_LEN,
            }));
        };
        let r = Le { b: rb };
        if r.u32(0) != Some(ZIP64_END_SIG) {
            return Err(err(
                "zip64 end record",
                rec,
                "the ZIP64 locator points at bytes that are not a ZIP64 end record",
            )
            .into());
        }
        entries = r.u64(32).unwrap_or(0);
        cd_size = r.u64(40).unwrap_or(0);
        cd_offset = r.u64(48).unwrap_or(0);
        zip64 = true;
    } else if needs64 {
        return Err(err(
            "zip end record",
            end_offset,
            "the sizes say ZIP64 but there is no ZIP64 end locator",
        )
        .into());
    }
    if disk != 0 || cd_disk != 0 {
        return Err(err(
            "zip end record",
            end_offset,
            "a multi-disk (spanned) archive: only single-file archives are read",
        )
        .into());
    }
    let cd_end = cd_offset.checked_add(cd_size);
    if cd_end.is_none_or(|e| e > end_offset) {
        return Err(err(
            "zip central directory",
            end_offset,
            format!(
                "{cd_size} bytes at byte {cd_offset} run past the end record at byte {end_offset}"
            ),
        )
        .into());
    }
    if entries > cd_size / CENTRAL_LEN {
        return Err(Error::new(
            "zip central directory",
            end_offset,
            ErrorKind::CountTooLarge {
                count: entries,
                what: "zip entries",
                max: cd_size / CENTRAL_LEN,
            },
        )
        .into());
    }
    Ok(EndRecord {
        cd_offset,
        cd_size,
        entries,
        zip64,
        end_offset,
    })
}

fn name_text(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        // CP437's first 128 are ASCII; beyond, keep the bytes visible one char each.
        Err(_) => raw.iter().map(|&b| char::from(b)).collect(),
    }
}

/// Reads the central directory: `cd` holds its bytes (`end.cd_size` of them, from
/// `end.cd_offset`). Each entry's ZIP64 extra field replaces the 32-bit sizes and offset that are
/// `0xFFFFFFFF`. Errors name the entry and its byte offset: a bad signature, a name or extra
/// field past the directory, a local header offset past the directory's start.
pub fn central_directory(cd: &[u8], end: &EndRecord) -> Result<Vec<Entry>, Error> {
    let le = Le { b: cd };
    let mut out = Vec::with_capacity(usize::try_from(end.entries).unwrap_or(0).min(1 << 16));
    let mut at = 0u64;
    for i in 0..end.entries {
        let abs = end.cd_offset.saturating_add(at);
        let field = || format!("zip central directory entry {i}");
        if le.u32(at) != Some(CENTRAL_SIG) {
            return Err(err(
                field(),
                abs,
                "not a central directory header (bad signature)",
            ));
        }
        let h = |o: u64| le.u16(at + o).unwrap_or(0);
        let w = |o: u64| le.u32(at + o).unwrap_or(0);
        let flags = h(8);
        let method = h(10);
        let crc32 = w(16);
        let mut compressed = u64::from(w(20));
        let mut size = u64::from(w(24));
        let name_len = u64::from(h(28));
        let extra_len = u64::from(h(30));
        let comment_len = u64::from(h(32));
        let mut local_header = u64::from(w(42));
        let name = le
            .slice(at + CENTRAL_LEN, name_len)
            .ok_or_else(|| err(field(), abs, "the name runs past the central directory"))?;
        let extra = le
            .slice(at + CENTRAL_LEN + name_len, extra_len)
            .ok_or_else(|| {
                err(
                    field(),
                    abs,
                    "the extra field runs past the central directory",
                )
            })?;
        // ZIP64 extended information: the 8-byte values, in this order, of the fields that are
        // all ones.
        let mut e = 0u64;
        let x = Le { b: extra };
        while e + 4 <= extra_len {
            let id = x.u16(e).unwrap_or(0);
            let n = u64::from(x.u16(e + 2).unwrap_or(0));
            if id == 0x0001 {
                let mut p = e + 4;
                let stop = (e + 4).saturating_add(n);
                for v in [&mut size, &mut compressed, &mut local_header] {
                    if *v == 0xFFFF_FFFF && p + 8 <= stop {
                        *v = x.u64(p).unwrap_or(*v);
                        p += 8;
                    }
                }
            }
            e = e.saturating_add(4).saturating_add(n);
        }
        if local_header >= end.cd_offset {
            return Err(err(
                field(),
                abs,
                format!(
                    "\"{}\": local header at byte {local_header}, not before the central \
                     directory at byte {}",
                    name_text(name),
                    end.cd_offset
                ),
            ));
        }
        out.push(Entry {
            name: name_text(name),
            method,
            flags,
            crc32,
            compressed,
            size,
            local_header,
            central_offset: abs,
        });
        at = at
            .checked_add(CENTRAL_LEN + name_len + extra_len + comment_len)
            .filter(|&next| next <= cd.len() as u64)
            .ok_or_else(|| err(field(), abs, "the entry runs past the central directory"))?;
    }
    Ok(out)
}

/// Where a member's bytes start, from its local header: `local` holds bytes read at
/// `entry.local_header` (at least [`LOCAL_LEN`]; more for the name and extra field — a
/// [`Stop::NeedRange`] says how many). Errors: a bad signature, or bytes that run past
/// `limit` (the central directory's start).
pub fn data_offset(local: &[u8], entry: &Entry, limit: u64) -> Result<u64, Stop> {
    let le = Le { b: local };
    let need = |len| {
        Stop::NeedRange(Need {
            offset: entry.local_header,
            len,
        })
    };
    let (Some(sig), Some(n), Some(m)) = (le.u32(0), le.u16(26), le.u16(28)) else {
        return Err(need(LOCAL_LEN));
    };
    if sig != LOCAL_SIG {
        return Err(err(
            format!("zip local header of \"{}\"", entry.name),
            entry.local_header,
            "not a local file header (bad signature)",
        )
        .into());
    }
    let start = entry
        .local_header
        .checked_add(LOCAL_LEN + u64::from(n) + u64::from(m))
        .ok_or_else(|| {
            Error::new(
                "zip local header",
                entry.local_header,
                ErrorKind::Overflow("offset"),
            )
        })?;
    if start
        .checked_add(entry.compressed)
        .is_none_or(|e| e > limit)
    {
        return Err(err(
            format!("zip member \"{}\"", entry.name),
            entry.local_header,
            format!(
                "its {} bytes at byte {start} run past the central directory at byte {limit}",
                entry.compressed
            ),
        )
        .into());
    }
    Ok(start)
}

/// Where PyTorch's writer (`PyTorchStreamWriter`, caffe2/serialize/inline_container.cc) puts a
/// member's bytes: at the first multiple of 64 at or after the local header, the name and a
/// 4-byte `FB` padding field (plus the ZIP64 extra field when the member or its offset needs
/// it). Used for members whose local header was not read; a preview reads the header and checks.
pub fn torch_data_offset(entry: &Entry, name_len: u64) -> Option<u64> {
    let mut start = entry.local_header.checked_add(LOCAL_LEN + name_len + 4)?;
    let big = entry.size >= 0xFFFF_FFFF;
    let far = entry.local_header >= 0xFFFF_FFFF;
    if big || far {
        start = start.checked_add(4)?;
        if big {
            start = start.checked_add(16)?;
        }
        if far {
            start = start.checked_add(8)?;
        }
    }
    start.checked_next_multiple_of(64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-member stored archive as Python's zipfile writes it (no comment).
    fn archive(name: &str, data: &[u8], comment: &[u8]) -> Vec<u8> {
        let mut z = Vec::new();
        let crc = 0u32;
        z.extend(LOCAL_SIG.to_le_bytes());
        z.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        z.extend(crc.to_le_bytes());
        z.extend((data.len() as u32).to_le_bytes());
        z.extend((data.len() as u32).to_le_bytes());
        z.extend((name.len() as u16).to_le_bytes());
        z.extend(0u16.to_le_bytes());
        z.extend(name.as_bytes());
        z.extend(data);
        let cd = z.len() as u32;
        z.extend(CENTRAL_SIG.to_le_bytes());
        z.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        z.extend(crc.to_le_bytes());
        z.extend((data.len() as u32).to_le_bytes());
        z.extend((data.len() as u32).to_le_bytes());
        z.extend((name.len() as u16).to_le_bytes());
        z.extend([0u8; 12]);
        z.extend(0u32.to_le_bytes());
        z.extend(name.as_bytes());
        let cd_size = z.len() as u32 - cd;
        z.extend(END_SIG.to_le_bytes());
        z.extend([0, 0, 0, 0, 1, 0, 1, 0]);
        z.extend(cd_size.to_le_bytes());
        z.extend(cd.to_le_bytes());
        z.extend((comment.len() as u16).to_le_bytes());
        z.extend(comment);
        z
    }

    #[test]
    fn finds_a_member_from_the_end() {
        let z = archive("a/data.pkl", b"hello", b"PK\x05\x06 fake");
        let end = find_end(&z, z.len() as u64, None).unwrap();
        assert_eq!((end.entries, end.zip64), (1, false));
        let cd = &z[end.cd_offset as usize..(end.cd_offset + end.cd_size) as usize];
        let e = central_directory(cd, &end).unwrap();
        assert_eq!(e[0].name, "a/data.pkl");
        assert!(e[0].is_stored());
        let at = data_offset(&z[e[0].local_header as usize..], &e[0], end.cd_offset).unwrap();
        assert_eq!(&z[at as usize..at as usize + 5], b"hello");
        assert_eq!(
            data_offset(&z[..10], &e[0], end.cd_offset),
            Err(Stop::NeedRange(Need {
                offset: 0,
                len: LOCAL_LEN
            }))
        );
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_an_error_not_a_panic() {
        let z = archive("archive/data/0", &[7; 40], b"");
        for cut in 0..z.len() {
            let _ = find_end(&z[cut..], (z.len() - cut) as u64, None);
            let _ = find_end(&z[..cut], cut as u64, None);
        }
        for i in 0..z.len() {
            let mut b = z.clone();
            b[i] ^= 0xFF;
            if let Ok(end) = find_end(&b, b.len() as u64, None) {
                let cd = b
                    .get(end.cd_offset as usize..(end.cd_offset + end.cd_size) as usize)
                    .unwrap_or(&[]);
                if let Ok(es) = central_directory(cd, &end) {
                    for e in es {
                        let _ = data_offset(
                            b.get(e.local_header as usize..).unwrap_or(&[]),
                            &e,
                            end.cd_offset,
                        );
                    }
                }
            }
        }
        // Too many entries for the directory's size.
        let mut b = z.clone();
        let n = b.len();
        b[n - 12..n - 10].copy_from_slice(&500u16.to_le_bytes());
        let e = find_end(&b, n as u64, None).unwrap_err();
        assert!(matches!(
            e,
            Stop::Fail(Error {
                kind: ErrorKind::CountTooLarge { .. },
                ..
            })
        ));
    }

    #[test]
    fn torch_alignment() {
        let e = Entry {
            name: "archive/data/0".into(),
            method: 0,
            flags: 0,
            crc32: 0,
            compressed: 48,
            size: 48,
            local_header: 100,
            central_offset: 0,
        };
        assert_eq!(torch_data_offset(&e, 14), Some(192));
    }
}
