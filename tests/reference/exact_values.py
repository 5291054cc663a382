#!/usr/bin/env python3
"""Files holding every safetensors dtype and every plain GGUF type, and the exact values a
preview of each tensor must show, computed with numpy and ml_dtypes (checked by
tests/exact_values.rs natively, by the CLI's --json, and by tests/e2e/exact-values.test.mjs
in the page).

Writes DIR/every-dtype.safetensors, DIR/every-type.gguf, DIR/every-type-be.gguf (big-endian)
and DIR/expected.json:

    {"files": {key: file name}, "tensors": [{"file", "tensor", "dtype", "kind", "shape",
      "windows": [{"request": null | {"rows": [a, b]}, "rows": [a, b], "cols": [c, d],
                   "read_len", "first": [value, ...], "stats": {...}}]}]}

A window is the default one (request null: all rows of these small tensors) or the last row.
Values are text, so no digit is lost in JSON or in JavaScript: an integer's decimal digits;
a float as Python's shortest round-trip repr of its value as a double (an f32 widened
exactly), or NaN / Infinity / -Infinity; true / false; a complex value as [re, im].
Statistics follow src/preview/stats.rs's definitions, in float64 over the finite values:
count, finite, zeros, nan, pos_inf, neg_inf, exact min and max (integers compared as
integers, so values past 2^53 stay exact), mean, std (ddof=0), mean |x|, and the 64-bin
histogram bin = floor((x - min) / (max - min) * 64) clipped to 63. A complex tensor's
statistics are of |z| = sqrt(re^2 + im^2) in float64. The safetensors file is written and
read back here with the standard library (json, struct) and numpy; the safetensors package
and gguf-py's GGUFReader must read the same values (checked before anything is written).

Usage: exact_values.py --out DIR
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from importlib.metadata import version
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFEndian, GGUFReader, GGUFWriter
from safetensors import safe_open

sys.path.insert(0, str(Path(__file__).parent))
from textvals import ftext, vtext  # noqa: E402

RNG = np.random.default_rng(1111)
ROWS, COLS = 4, 24
BINS = 64
FIRST = 64

# safetensors dtype -> numpy dtype it is read as.
ST_NP = {
    "BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16, "I16": np.int16,
    "U32": np.uint32, "I32": np.int32, "U64": np.uint64, "I64": np.int64,
    "F16": np.float16, "BF16": ml_dtypes.bfloat16, "F32": np.float32, "F64": np.float64,
    "C64": np.complex64, "F8_E5M2": ml_dtypes.float8_e5m2, "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu, "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
}


def fill(head: list, rest: np.ndarray, dtype) -> np.ndarray:
    """`head` (special values) then `rest`, ROWS x COLS of `dtype`."""
    n = ROWS * COLS
    a = np.concatenate([np.array(head, dtype=dtype), rest.astype(dtype)])[:n]
    return a.reshape(ROWS, COLS)


def ints(dtype, head: list) -> np.ndarray:
    info = np.iinfo(dtype)
    return fill(head, RNG.integers(info.min, info.max, ROWS * COLS, dtype=dtype, endpoint=True), dtype)


def floats(dtype, head: list, scale: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return fill(head, RNG.normal(0, scale, ROWS * COLS), dtype)


def minifloats(dt) -> np.ndarray:
    """Every byte pattern's value is possible: 96 random bytes (NaN patterns included)."""
    b = np.concatenate([np.array([0x00, 0x80, 0x7F, 0xFF, 0x01], np.uint8),
                        RNG.integers(0, 256, ROWS * COLS, dtype=np.uint8)])[:ROWS * COLS]
    return b.view(dt).reshape(ROWS, COLS)


def st_tensors() -> dict[str, tuple[str, np.ndarray]]:
    big = [0, 2**64 - 1, 2**63 + 1, 2**53 + 1, 0x8000_0080_0000_0001, 18611472384]
    t = {
        "bool": ("BOOL", (RNG.integers(0, 2, ROWS * COLS) == 1).reshape(ROWS, COLS)),
        "u8": ("U8", ints(np.uint8, [0, 255])),
        "i8": ("I8", ints(np.int8, [-128, 127, 0])),
        "u16": ("U16", ints(np.uint16, [0, 65535])),
        "i16": ("I16", ints(np.int16, [-32768, 32767])),
        "u32": ("U32", ints(np.uint32, [0, 2**32 - 1, 16777217, 16777219])),
        "i32": ("I32", ints(np.int32, [-2**31, 2**31 - 1, 16777217, -16777219])),
        "u64": ("U64", ints(np.uint64, big)),
        "i64": ("I64", ints(np.int64, [-2**63, 2**63 - 1, 2**53 + 1, -(2**53 + 1), 18611472384, -1])),
        "f16": ("F16", floats(np.float16, [0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, 65504.0], 3.0)),
        "bf16": ("BF16", floats(ml_dtypes.bfloat16, [0.0, -0.0, np.inf, np.nan, 1e-40, 3e38], 3.0)),
        "f32": ("F32", floats(np.float32, [0.1, -0.0, np.inf, np.nan, 1e-45, 3.4028235e38, 16777217.0], 1e3)),
        "f64": ("F64", floats(np.float64, [0.1, 1 / 3, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e150,
                                           16777217.0, 1.0000000596046448, 2.0**60 + 2.0**8], 1e3)),
        "f8_e5m2": ("F8_E5M2", minifloats(ml_dtypes.float8_e5m2)),
        "f8_e4m3": ("F8_E4M3", minifloats(ml_dtypes.float8_e4m3fn)),
        "f8_e8m0": ("F8_E8M0", minifloats(ml_dtypes.float8_e8m0fnu)),
        "f8_e4m3fnuz": ("F8_E4M3FNUZ", minifloats(ml_dtypes.float8_e4m3fnuz)),
        "f8_e5m2fnuz": ("F8_E5M2FNUZ", minifloats(ml_dtypes.float8_e5m2fnuz)),
    }
    re = RNG.normal(0, 2, ROWS * COLS).astype(np.float32)
    im = RNG.normal(0, 2, ROWS * COLS).astype(np.float32)
    re[:4] = [0.5, -0.0, np.inf, 3.0]
    im[:4] = [-1.25, 2.0, 1.0, np.nan]
    c = np.empty(ROWS * COLS, np.complex64)  # set parts directly: arithmetic would lose -0.0, NaN
    c.real, c.imag = re, im
    t["c64"] = ("C64", c.reshape(ROWS, COLS))
    # F4: two E2M1 values a byte, the first in the low nibble; kept as the packed bytes.
    t["f4"] = ("F4", RNG.integers(0, 256, (ROWS, COLS // 2), dtype=np.uint8))
    t["empty_rows"] = ("F32", np.zeros((0, 4), np.float32))
    t["empty_cols"] = ("I64", np.zeros((3, 0), np.int64))
    t["scalar_f64"] = ("F64", np.array(1 / 3, np.float64))
    return t


def write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]]) -> dict:
    header, blobs, off = {}, [], 0
    for name, (dtype, arr) in tensors.items():
        raw = np.ascontiguousarray(arr).tobytes()
        shape = list(arr.shape)
        if dtype == "F4":
            shape = [arr.shape[0], arr.shape[1] * 2]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return header


def read_safetensors(path: Path) -> dict[str, tuple[str, np.ndarray, int]]:
    """Reads every tensor back with struct/json/numpy: (dtype, values, data offset)."""
    b = path.read_bytes()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8:8 + n])
    out = {}
    for name, info in header.items():
        a, z = info["data_offsets"]
        raw = b[8 + n + a:8 + n + z]
        dt, shape = info["dtype"], info["shape"]
        if dt == "F4":
            packed = np.frombuffer(raw, np.uint8)
            nib = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(-1)
            vals = nib.view(ml_dtypes.float4_e2m1fn).reshape(shape)
        else:
            vals = np.frombuffer(raw, ST_NP[dt]).reshape(shape)
        out[name] = (dt, vals)
    # The safetensors package reads the same values where its numpy backend has the dtype.
    with safe_open(str(path), "np") as f:
        for name in f.keys():
            try:
                got = f.get_tensor(name)
            except Exception:  # dtypes numpy's backend does not have (F8, BF16, F4)
                continue
            want = out[name][1]
            # Same dtype, shape and bytes (NaN payloads included).
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert got.tobytes() == want.tobytes(), name
    return out


GGUF_TYPES = {
    "f32": (np.float32, None), "f16": (np.float16, None), "bf16": (None, T.BF16),
    "f64": (np.float64, None), "i8": (np.int8, None), "i16": (np.int16, None),
    "i32": (np.int32, None), "i64": (np.int64, None),
}


def gguf_tensors(st: dict[str, tuple[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The plain GGUF types, with the same values as the safetensors file's tensors."""
    t = {k: st[k][1] for k in ("f32", "f16", "f64", "i8", "i16", "i32", "i64")}
    t["bf16"] = st["bf16"][1]
    t["empty_rows"] = np.zeros((0, 32), np.float32)
    return t


def write_gguf(path: Path, tensors: dict[str, np.ndarray], endian) -> None:
    w = GGUFWriter(str(path), "exact", endianess=endian)
    w.add_string("general.name", "every plain ggml type")
    for name, arr in tensors.items():
        if name == "bf16":
            # Raw bytes are not swapped by the writer (they are uint8): store each BF16 in the
            # file's byte order, as ggml's big-endian support reads it.
            order = ">u2" if endian == GGUFEndian.BIG else "<u2"
            raw = arr.view(np.uint16).astype(order).view(np.uint8).reshape(arr.shape[0], -1)
            w.add_tensor(name, raw, raw_shape=arr.shape, raw_dtype=T.BF16)
        else:
            w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def read_gguf(path: Path) -> dict[str, tuple[str, np.ndarray]]:
    r = GGUFReader(str(path))
    be = r.endianess == GGUFEndian.BIG
    out = {}
    for t in r.tensors:
        ne = [int(v) for v in t.shape]
        shape = list(reversed(ne))  # row-major: ne0 is the last axis
        name = t.tensor_type.name
        data = np.asarray(t.data)
        if name == "BF16":
            vals = data.view(np.uint8).view(">u2" if be else "<u2").astype(np.uint16).view(ml_dtypes.bfloat16)
        else:
            vals = data
        out[t.name] = (name, np.asarray(vals).reshape(shape))
    return out


KINDS = {"BOOL": "boolean", "C64": "complex"}


def kind_of(dtype: str) -> str:
    if dtype in KINDS:
        return KINDS[dtype]
    return "integer" if dtype[0] in "IU" else "float"


def stats(kind: str, m: np.ndarray) -> dict:
    x = m.ravel()
    if kind == "complex":
        d = np.sqrt(x.real.astype(np.float64) ** 2 + x.imag.astype(np.float64) ** 2)
    else:
        d = x.astype(np.float64)
    fin = np.isfinite(d)
    out = dict(count=int(d.size), finite=int(fin.sum()), zeros=int(np.count_nonzero(d[fin] == 0)),
               nan=int(np.isnan(d).sum()), pos_inf=int((d == np.inf).sum()),
               neg_inf=int((d == -np.inf).sum()))
    f = d[fin]
    if f.size == 0:
        return out
    if kind == "integer":
        out.update(min=str(int(x.min())), max=str(int(x.max())))
    elif kind == "boolean":
        out.update(min=vtext(kind, x.min()), max=vtext(kind, x.max()))
    else:
        out.update(min=ftext(f.min()), max=ftext(f.max()))
    mn, mx = float(f.min()), float(f.max())
    out.update(mean=float(f.mean()), std=float(f.std()), mean_abs=float(np.abs(f).mean()))
    if mx > mn:
        k = np.floor((f - mn) / (mx - mn) * BINS).astype(np.int64)
    else:
        k = np.zeros(f.size, np.int64)
    out["histogram"] = [int(c) for c in np.bincount(np.minimum(k, BINS - 1), minlength=BINS)]
    return out


def windows(dtype: str, vals: np.ndarray, itemsize_bits: int) -> list[dict]:
    kind = kind_of(dtype)
    if vals.size == 0:
        return [dict(request=None, rows=[0, 0], cols=[0, 0], read_len=0, first=[],
                     stats=stats(kind, vals))]
    m = vals.reshape(-1, vals.shape[-1]) if vals.ndim > 1 else vals.reshape(1, -1)
    n_rows, n_cols = m.shape
    row_bytes = n_cols * itemsize_bits // 8
    out = []
    for req, rows in ((None, (0, n_rows)), ({"rows": [n_rows - 1, n_rows]}, (n_rows - 1, n_rows))):
        w = m[rows[0]:rows[1]]
        first = [vtext(kind, v) for v in w.ravel()[:FIRST]]
        out.append(dict(request=req, rows=list(rows), cols=[0, n_cols],
                        read_len=(rows[1] - rows[0]) * row_bytes, first=first, stats=stats(kind, w)))
        if n_rows == 1:
            break
    return out


BITS = {"BOOL": 8, "U8": 8, "I8": 8, "U16": 16, "I16": 16, "U32": 32, "I32": 32, "U64": 64,
        "I64": 64, "F16": 16, "BF16": 16, "F32": 32, "F64": 64, "C64": 64, "F4": 4,
        "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    files = {"st": "every-dtype.safetensors", "gguf": "every-type.gguf", "gguf_be": "every-type-be.gguf"}
    st = st_tensors()
    write_safetensors(a.out / files["st"], st)
    write_gguf(a.out / files["gguf"], gguf_tensors(st), GGUFEndian.LITTLE)
    write_gguf(a.out / files["gguf_be"], gguf_tensors(st), GGUFEndian.BIG)
    tensors = []
    for key, read in (("st", read_safetensors), ("gguf", read_gguf), ("gguf_be", read_gguf)):
        for name, (dtype, vals) in read(a.out / files[key]).items():
            tensors.append(dict(file=key, tensor=name, dtype=dtype, kind=kind_of(dtype),
                                shape=list(vals.shape), windows=windows(dtype, vals, BITS[dtype])))
    # The big-endian file holds the same values as the little-endian one.
    le = {t["tensor"]: t["windows"] for t in tensors if t["file"] == "gguf"}
    for t in tensors:
        if t["file"] == "gguf_be":
            got, want = json.dumps(t["windows"]), json.dumps(le[t["tensor"]])
            assert got == want, t["tensor"]
    doc = dict(generator="tests/reference/exact_values.py",
               versions={k: version(k) for k in ("numpy", "ml_dtypes", "gguf", "safetensors")},
               files=files, tensors=tensors)
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False))
    tmp.replace(a.out / "expected.json")
    print(f"exact values: {len(tensors)} tensors in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
