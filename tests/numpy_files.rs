//! NumPy files (issue #12): the `.npy` and `.npz` files `tests/reference/numpy_fixtures.py`
//! writes with numpy (under `target/numpy-fixtures` or `$WEIGHTPEEK_NUMPY_FIXTURES`) list the
//! arrays numpy reads back, and every array stored as it is previews numpy's values (first
//! values and last row), deflated `.npz` members too (inflated up to the window); big-endian
//! arrays are listed, and their previews say why they are not shown. No expected value is
//! written here.

mod common;

use std::path::{Path, PathBuf};

use common::open_model;
use serde_json::Value as J;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_NUMPY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/numpy-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

#[test]
fn every_array_lists_and_previews_numpys_values() {
    let Some(dir) = fixtures() else { return };
    let doc: J =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let mut previewed = 0;
    for (file, f) in doc["files"].as_object().unwrap() {
        let (m, mut src) = open_model(&dir.join(file));
        assert!(m.error.is_none(), "{file}: {:?}", m.error);
        assert_eq!(m.format.name(), "numpy", "{file}");
        previewed += common::check_tensors(file, &m, &mut src, f["tensors"].as_array().unwrap());
    }
    assert!(previewed >= 20, "{previewed} arrays previewed");
}

/// A deflated `.npz` member (np.savez_compressed) previews by inflating its compressed bytes
/// from the member's start up to the window's end, in reads of at most
/// [`weightpeek::preview::INFLATE_READ`]: a first row reads one such chunk, the last row reads
/// the member up to it (never past its compressed size); the preview counts the compressed
/// bytes read and says so; values are numpy's.
#[test]
fn deflated_members_inflate_only_up_to_the_window() {
    use weightpeek::preview::{preview_tensor, WindowRequest, INFLATE_READ};
    use weightpeek::source::block_on_ready;
    let Some(dir) = fixtures() else { return };
    let doc: J =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let file = "big-compressed.npz";
    let want = &doc["files"][file]["tensors"];
    let (m, mut src) = open_model(&dir.join(file));
    let listed = src.bytes;
    let (i, t) = m
        .tensors
        .iter()
        .enumerate()
        .find(|(_, t)| t.name == "big")
        .unwrap();
    let d = *m.archive.as_ref().unwrap().deflated_of(i).unwrap();
    assert!(d.compressed > 4 * INFLATE_READ, "{d:?}");
    assert!(listed < d.compressed / 4, "listing read {listed} bytes");
    let w = want
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "big")
        .unwrap();
    let rows = t.shape[0];
    for (req, most) in [
        (Some(0..1), INFLATE_READ),
        (Some(rows - 1..rows), d.compressed),
        (None, d.compressed),
    ] {
        let before = src.bytes;
        let p = block_on_ready(preview_tensor(
            &m,
            &mut src,
            "big",
            &WindowRequest {
                rows: req.clone(),
                cols: None,
            },
        ))
        .unwrap();
        let read = src.bytes - before;
        assert_eq!(p.bytes_read, read, "{req:?}");
        assert!(read <= most, "{req:?}: read {read} of {}", d.compressed);
        assert_eq!(
            p.read_note.as_deref(),
            Some(
                format!(
                    "deflated member: {} compressed bytes read",
                    weightpeek::text::thousands(read)
                )
                .as_str()
            )
        );
        let (key, want_values) = match &req {
            Some(r) if r.start > 0 => ("last_row", &w["last_row"]),
            _ => ("first", &w["first"]),
        };
        for (k, (v, want)) in p
            .first_values
            .iter()
            .zip(want_values.as_array().unwrap())
            .enumerate()
        {
            assert!(
                common::same("float", v.value, want),
                "{key} {k}: {v:?} vs {want}"
            );
        }
        println!("{req:?}: {read} compressed bytes read of {}", d.compressed);
    }
}

/// A damaged deflated member (bytes flipped in its compressed data, a central directory
/// that claims it is larger inflated): a preview is an error or other values, never a panic.
#[test]
fn damaged_deflated_members_are_errors() {
    use weightpeek::preview::{preview_tensor, WindowRequest};
    use weightpeek::source::{block_on_ready, parse_bytes};
    let Some(dir) = fixtures() else { return };
    let good = std::fs::read(dir.join("compressed.npz")).unwrap();
    let m = parse_bytes(&good).unwrap();
    let a = m.archive.as_ref().unwrap();
    let mut errors = 0;
    for d in &a.deflated {
        for flip in [0u64, 1, d.compressed / 2, d.compressed - 1] {
            let mut b = good.clone();
            b[(d.start + flip) as usize] ^= 0x5a;
            let path = std::env::temp_dir().join(format!("wp-damaged-{}-{flip}.npz", d.tensor));
            std::fs::write(&path, &b).unwrap();
            let mut src = common::CountingFile::open(&path);
            let name = &m.tensors[d.tensor].name;
            let r = block_on_ready(preview_tensor(
                &m,
                &mut src,
                name,
                &WindowRequest::default(),
            ));
            if let Err(e) = r {
                assert!(!e.to_string().is_empty());
                errors += 1;
            }
            assert!(src.bytes <= d.compressed);
            let _ = std::fs::remove_file(&path);
        }
    }
    assert!(errors > 0, "no damaged member was an error");
}
