//! NumPy object arrays: an array whose dtype holds Python objects (`descr` `|O`, Python 2's
//! `|O8`, or a structured dtype with an object field) is written by `np.save` as its `.npy`
//! header followed by a pickle of the whole array (`pickle.dump(array, fp, protocol=3)`,
//! numpy/lib/format.py `write_array`), and `np.load(..., allow_pickle=True)` unpickles it,
//! running whatever it names (`allow_pickle=False`, the default since numpy 1.16.3, refuses
//! it). The pickle is read here by [`crate::format::pickle`], which never executes, and judged
//! as a PyTorch checkpoint's pickles are: the same import list with byte offsets, the same
//! verdicts.
//!
//! Only the pickle's bytes are read: from the array's data start to the end of the `.npy`
//! file or `.npz` member (numpy writes nothing after it), at most
//! [`MAX_PICKLE_BYTES`]; a longer pickle is judged as
//! far as it was read, with an error saying the rest was not checked.

use crate::format::archive::{PickleInfo, MAX_PICKLE_BYTES};
use crate::format::error::{Error, ErrorKind};
use crate::format::pickle::{self, Limits};

/// What `np.load` needs to unpickle an object array, for messages.
pub use crate::format::archive::NUMPY_LOADER as LOADER;

/// The pickle of an object array: `bytes` are its first bytes (at absolute offset `base`, or
/// at `base` of an inflated `.npz` member), `whole` whether they reach the array's end (else
/// [`MAX_PICKLE_BYTES`] cut them). `name` says where it is (`array.npy`, `npz member
/// "x.npy"`). The error, when reading stopped before STOP, names the field and offset.
pub fn judge(name: String, bytes: &[u8], base: u64, whole: bool) -> (PickleInfo, Option<Error>) {
    let (p, err) = pickle::parse_partial(bytes, base, &Limits::DEFAULT);
    let err = err.map(|mut e| {
        // Bytes missing (or a length past them) in a pickle cut by the cap: the cap's doing.
        let short = matches!(
            e.kind,
            ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
        );
        if !whole && short {
            e = Error::new(
                format!("{name}: object array pickle"),
                base.saturating_add(bytes.len() as u64),
                ErrorKind::Invalid(format!(
                    "the pickle runs past the {MAX_PICKLE_BYTES} bytes this tool reads of it: \
                     what comes after is not checked, so its safety is not known"
                )),
            );
        } else {
            e.field = format!("{name}: object array pickle: {}", e.field);
        }
        e
    });
    // Reading stopped before STOP: the verdict is not fully checked (unless an import read
    // is dangerous), as for a checkpoint's pickle.
    let info = crate::format::archive::info(name, &p, base, err.as_ref());
    (info, err)
}

/// Inflates a deflated `.npz` member's compressed bytes `input` (all of them when
/// `input_whole`, else the first [`MAX_PICKLE_BYTES`]) into at most `MAX_PICKLE_BYTES` bytes:
/// what comes out, and whether it is the whole member (the stream ended within the limits).
/// Errors: the bytes do not inflate (a damaged stream, or one that ends early although all of
/// it was read).
pub fn inflate_member(input: &[u8], input_whole: bool) -> Result<(Vec<u8>, bool), Error> {
    let limit = usize::try_from(MAX_PICKLE_BYTES).unwrap_or(usize::MAX);
    match miniz_oxide::inflate::decompress_to_vec_with_limit(input, limit) {
        Ok(v) => Ok((v, true)),
        Err(e) if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
            Ok((e.output, false))
        }
        // Input cut by the read limit: what inflated is judged, the rest is not checked.
        Err(e)
            if !input_whole
                && e.status == miniz_oxide::inflate::TINFLStatus::FailedCannotMakeProgress =>
        {
            Ok((e.output, false))
        }
        Err(e) => Err(Error::new(
            "npz member",
            0,
            ErrorKind::Invalid(format!(
                "the deflated member does not inflate ({:?}): its pickle cannot be read, so \
                 its safety is not known",
                e.status
            )),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pickle_cut_by_the_cap_says_its_rest_is_not_checked() {
        // GLOBAL posix system, then a string whose bytes are past the cut.
        let p = b"\x80\x02cposix\nsystem\nX\x10\x00\x00\x00echo";
        let (info, err) = judge("array.npy".into(), p, 100, false);
        assert_eq!(info.imports.len(), 1);
        assert_eq!(info.imports[0].offset, 102);
        let e = err.unwrap();
        assert!(e.to_string().contains("not checked"), "{e}");
        assert_eq!(e.offset, 100 + p.len() as u64);
        // The same bytes as the whole pickle: a truncated file, named as such.
        let (_, err) = judge("array.npy".into(), p, 100, true);
        assert!(err.unwrap().to_string().contains("object array pickle"));
    }

    #[test]
    fn members_inflate_within_the_limit() {
        let data = vec![7u8; 1000];
        let z = miniz_oxide::deflate::compress_to_vec(&data, 6);
        assert_eq!(inflate_member(&z, true).unwrap(), (data.clone(), true));
        // Cut input: what inflated, not whole; damaged input: an error.
        let (part, whole) = inflate_member(&z[..z.len() / 2], false).unwrap();
        assert!(!whole && part.len() <= data.len());
        assert!(inflate_member(&z[..z.len() / 2], true).is_err());
        assert!(inflate_member(&[0xff; 16], true).is_err());
    }
}
