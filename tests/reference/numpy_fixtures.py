#!/usr/bin/env python3
"""NumPy files written with numpy itself, and what numpy reads back from them, for
tests/numpy_files.rs: `.npy` arrays of every dtype weightpeek reads (and a Fortran-ordered, a
big-endian, a scalar and an empty one), an `.npz` written by np.savez (stored members) and one by
np.savez_compressed (deflated members), and big-compressed.npz (np.savez_compressed: a 4 MiB
array of random floats, whose first rows are inflated from the start of its compressed bytes,
and a small array after it).

Writes DIR/<file> and DIR/expected.json:
  {"files": {file: {"tensors": [{"name", "dtype", "shape", "bytes", "previewable",
    "deflated", "first": [64 values as text], "last_row": [...]}]}}}

A tensor's shape is the array's shape, reversed for a Fortran-ordered array (weightpeek lists
it as the transpose its bytes hold); its values are those of the array as its bytes lie
(np.load, then .T for a Fortran-ordered one). Values as text: tests/reference/textvals.py.
`previewable` is false for big-endian arrays; `deflated` says the member is deflated (its
values are read by inflating its compressed bytes).

Usage: numpy_fixtures.py --out DIR
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from textvals import kind_of, vtext  # noqa: E402

RNG = np.random.default_rng(1313)
FIRST = 64
NAMES = {"<f4": "F32", "<f8": "F64", "<f2": "F16", "<i8": "I64", "<i4": "I32", "<i2": "I16",
         "|i1": "I8", "<u8": "U64", "<u4": "U32", "<u2": "U16", "|u1": "U8", "|b1": "BOOL",
         "<c8": "C64", "<c16": "C128"}


def arrays() -> dict[str, np.ndarray]:
    c = np.empty((3, 5), np.complex64)
    c.real, c.imag = RNG.normal(size=(3, 5)), RNG.normal(size=(3, 5))
    return {
        "f32": RNG.normal(size=(6, 10)).astype(np.float32),
        "f64": RNG.normal(size=(4, 3, 5)),
        "f16": RNG.normal(size=(50,)).astype(np.float16),
        "i64": np.array([[-2**63, 2**63 - 1, 2**53 + 1], [0, -1, 18611472384]], np.int64),
        "i32": RNG.integers(-2**31, 2**31, (5, 4), dtype=np.int32),
        "i16": RNG.integers(-2**15, 2**15, (7,), dtype=np.int16),
        "i8": RNG.integers(-128, 128, (2, 9), dtype=np.int8),
        "u64": np.array([0, 2**64 - 1, 2**63 + 1], np.uint64),
        "u32": RNG.integers(0, 2**32, (3, 3), dtype=np.uint32),
        "u16": RNG.integers(0, 2**16, (4,), dtype=np.uint16),
        "u8": RNG.integers(0, 256, (8, 8), dtype=np.uint8),
        "bool": RNG.integers(0, 2, (3, 7)).astype(np.bool_),
        "c64": c,
        "fortran": np.asfortranarray(RNG.normal(size=(4, 6)).astype(np.float32)),
        "bigendian": RNG.normal(size=(3, 4)).astype(">f4"),
        "scalar": np.array(1 / 3),
        "empty": np.zeros((0, 3), np.float32),
        "c128": (RNG.normal(size=(3, 4)) + 1j * RNG.normal(scale=1e-200, size=(3, 4))),
    }


def describe(name: str, a: np.ndarray, deflated=False) -> dict:
    descr = a.dtype.str
    dt = NAMES.get(descr, None)
    laid = a.T if a.flags.f_contiguous and not a.flags.c_contiguous and a.ndim > 1 else a
    e = dict(name=name, dtype=dt or f"{descr} (big-endian)" if descr.startswith(">") else dt,
             shape=list(laid.shape), bytes=int(a.nbytes),
             previewable=bool(dt), deflated=deflated)
    if e["dtype"] is None:
        e["dtype"] = descr
    if e["previewable"] and a.size:
        kind = kind_of(dt)
        rows = laid.reshape(-1, laid.shape[-1]) if laid.ndim > 1 else laid.reshape(1, -1)
        e["first"] = [vtext(kind, v) for v in rows.ravel()[:FIRST]]
        e["last_row"] = [vtext(kind, v) for v in rows[-1][:FIRST]]
    return e


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, arr in arrays().items():
        np.save(a.out / f"{name}.npy", arr)
        back = np.load(a.out / f"{name}.npy")
        assert back.dtype == arr.dtype and np.array_equal(back, arr, equal_nan=arr.dtype.kind in "fc")
        files[f"{name}.npy"] = dict(tensors=[describe("array", back)])
    some = {k: v for k, v in arrays().items() if k in ("f32", "i64", "bool", "c64", "c128", "fortran", "scalar")}
    some["layer/weight"] = RNG.normal(size=(2, 3)).astype(np.float32)  # a name with a slash
    np.savez(a.out / "weights.npz", **some)
    np.savez_compressed(a.out / "compressed.npz", **some)
    np.savez_compressed(a.out / "big-compressed.npz", big=RNG.normal(size=(2048, 512)).astype(np.float32),
                        after=np.arange(12, dtype=np.int64).reshape(3, 4))
    for f, deflated in (("weights.npz", False), ("compressed.npz", True), ("big-compressed.npz", True)):
        with np.load(a.out / f) as z, zipfile.ZipFile(a.out / f) as zf:
            order = [n[:-4] for n in zf.namelist()]
            assert all(zf.getinfo(n + ".npy").compress_type == (8 if deflated else 0) for n in order)
            files[f] = dict(tensors=[describe(n, z[n], deflated) for n in order])
    doc = dict(generator="tests/reference/numpy_fixtures.py", versions={"numpy": version("numpy")}, files=files)
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False))
    tmp.replace(a.out / "expected.json")
    print(f"numpy fixtures: {len(files)} files in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
