//! NumPy files (issue #12): the `.npy` and `.npz` files `tests/reference/numpy_fixtures.py`
//! writes with numpy (under `target/numpy-fixtures` or `$WEIGHTPEEK_NUMPY_FIXTURES`) list the
//! arrays numpy reads back, and every array stored as it is previews numpy's values (first
//! values and last row); big-endian arrays and deflated `.npz` members are listed, and their
//! previews say why they are not shown. No expected value is written here.

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
