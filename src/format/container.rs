//! A zip archive, whatever it holds: its end records and central directory are read from the
//! file's end (PKWARE APPNOTE; [`super::zip`]), then its members say what it is — a PyTorch
//! checkpoint (a `data.pkl`, [`super::torch::zip_listing`]) or a NumPy `.npz` (`.npy` members,
//! [`super::numpy::npz_step`]).

use super::archive::MAX_PICKLE_BYTES;
use super::error::{Error, ErrorKind};
use super::held::Held;
use super::zip::{self, Need, Stop};
use super::Model;

/// Bytes read from the end of a zip archive first: the end record (with a comment of up to
/// 64 KiB) and, for up to ~2,000 members, the whole central directory, in one read.
pub const ZIP_TAIL: u64 = 256 << 10;

/// One step of reading a zip archive from the bytes `held` (the file is `size` bytes;
/// `prefix` its first bytes): the model, the bytes to read next, or why it cannot be read.
pub fn zip_step(held: &Held, size: u64, prefix: &[u8]) -> Result<Model, Stop> {
    let tail_len = size.min(ZIP_TAIL);
    let tail_at = size - tail_len;
    let Some(tail) = held.get(tail_at, tail_len) else {
        return Err(Stop::NeedRange(Need {
            offset: tail_at,
            len: tail_len,
        }));
    };
    let end = match zip::find_end(tail, size, None) {
        // The ZIP64 end record may be before the tail: read it, then look again.
        Err(Stop::NeedRange(n)) => match held.get(n.offset, n.len) {
            Some(rec) => zip::find_end(tail, size, Some(rec))?,
            None => return Err(Stop::NeedRange(n)),
        },
        r => r?,
    };
    if end.cd_size > MAX_PICKLE_BYTES {
        return Err(Error::new(
            "zip central directory",
            end.cd_offset,
            ErrorKind::Invalid(format!(
                "{} bytes, more than this tool reads ({MAX_PICKLE_BYTES})",
                end.cd_size
            )),
        )
        .into());
    }
    let Some(cd) = held.get(end.cd_offset, end.cd_size) else {
        return Err(Stop::NeedRange(Need {
            offset: end.cd_offset,
            len: end.cd_size,
        }));
    };
    let entries = zip::central_directory(cd, &end)?;
    let pickle = entries.iter().any(|e| {
        let l = e.name.to_lowercase();
        l == "data.pkl" || l.ends_with("/data.pkl")
    });
    if !pickle && entries.iter().any(|e| e.name.ends_with(".npy")) {
        return super::numpy::npz_step(held, size, prefix, &entries, end.cd_offset);
    }
    super::torch::zip_listing(held, size, prefix, &end, &entries)
}
