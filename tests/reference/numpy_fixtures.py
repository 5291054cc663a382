#!/usr/bin/env python3
"""NumPy files written with numpy itself, and what numpy reads back from them, for
tests/numpy_files.rs: `.npy` arrays of every dtype weightpeek reads (and a Fortran-ordered, a
big-endian, a scalar and an empty one), an `.npz` written by np.savez (stored members) and one by
np.savez_compressed (deflated members), and big-compressed.npz (np.savez_compressed: a 4 MiB
array of random floats, whose first rows are inflated from the start of its compressed bytes,
and a small array after it).

Header forms (headers/*.npy, read back with np.load): Python 2 headers (long integers `2L`,
`|O8` with a protocol 2 pickle), keys in another order with double quotes and no trailing
comma, format versions 2.0 and 3.0 (a UTF-8 field name), structured dtypes (plain, nested,
aligned with padding, with titles, with subarrays), text (`<U`), bytes (`|S`), datetime64 and
timedelta64, and 0-d arrays of each kind.

Object arrays (objects/*.npy and objects/*.npz, stored and deflated members): benign ones
(numbers, strings, dicts, a 0-d dict, a big one of 40,000 strings) written by np.save and read
back with np.load(allow_pickle=True), and malicious ones whose elements pickle as calls of
os.system, builtins.eval, builtins.exec, subprocess.Popen and runpy._run_code (written by
np.save; never loaded: np.load(allow_pickle=False) must refuse them). For each, the imports
pickletools finds in the pickle (offsets absolute in an .npy file or a stored member, within the
inflated member for a deflated one) and picklescan's and fickling's verdicts.

Writes DIR/<file> and DIR/expected.json:
  {"files": {file: {"tensors": [{"name", "dtype", "shape", "bytes", "previewable",
    "deflated", "first": [64 values as text], "last_row": [...], "descr", "object",
    "itemsize", "fields": [[name, descr, subarray shape, offset]]}],
    "pickles": [{"name", "offset", "imports": [{"module", "name", "offset", "opcode"}]}],
    "intent": "benign" | "unknown" | "malicious", "picklescan": {...}, "fickling": {...}}}}
A structured dtype's fields are its leaves (a nested field is `outer.inner`), padding left out.

A tensor's shape is the array's shape, reversed for a Fortran-ordered array (weightpeek lists
it as the transpose its bytes hold); its values are those of the array as its bytes lie
(np.load, then .T for a Fortran-ordered one). Values as text: tests/reference/textvals.py.
`previewable` is false for big-endian arrays; `deflated` says the member is deflated (its
values are read by inflating its compressed bytes).

Usage: numpy_fixtures.py --out DIR
"""

from __future__ import annotations

import argparse
import ast
import fractions
import io
import json
import os
import pickle
import runpy
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from textvals import kind_of, vtext  # noqa: E402
from pickle_cases import Reducer, fickling_verdict, genops_imports, picklescan_verdict  # noqa: E402

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
        "records": records(),
    }


def records() -> np.ndarray:
    """A structured array of every kind of field: subarray, nested, padding (aligned), text
    (listed, not previewed), 64-bit integers past 2^53, booleans, halves and complex."""
    dt = np.dtype([("w", "<f4", (3,)), ("id", "<i8"), ("ok", "|b1"),
                   ("pos", [("x", "<f2"), ("y", "<f8")]), ("tag", "<U3"), ("z", "<c8", (2, 2))],
                  align=True)
    r = np.zeros((40, 3), dtype=dt)
    r["w"] = RNG.normal(size=(40, 3, 3))
    r["id"] = RNG.integers(-2**63, 2**63 - 1, (40, 3), dtype=np.int64)
    r["ok"] = RNG.integers(0, 2, (40, 3)).astype(bool)
    r["pos"]["x"] = RNG.normal(size=(40, 3))
    r["pos"]["y"] = RNG.normal(size=(40, 3))
    r["tag"] = "ab"
    r["z"] = RNG.normal(size=(40, 3, 2, 2)) + 1j * RNG.normal(size=(40, 3, 2, 2))
    return r


def field_of(a: np.ndarray, path: str) -> np.ndarray:
    """numpy's arr['outer']['inner'] for the leaf field `outer.inner`."""
    for part in path.split("."):
        a = a[part]
    return a


def field_values(a: np.ndarray, laid_t: bool) -> list:
    """Every decodable leaf field of structured array `a` as numpy gives it (`a['x']`): its
    dtype, shape (the array's, transposed when laid out in Fortran order, then the field's
    subarray shape), first values and last row. Text fields are listed as not previewed."""
    out = []
    for name, descr, fshape, _ in leaf_fields(a.dtype):
        x = field_of(a, name)
        if laid_t:
            k = a.ndim
            x = np.transpose(x, list(range(k))[::-1] + list(range(k, x.ndim)))
        dt = NAMES.get(descr)
        e = dict(field=name, dtype=dt, shape=list(x.shape), previewable=dt is not None)
        if dt and x.size:
            kind = kind_of(dt)
            rows = x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(1, -1)
            e["first"] = [vtext(kind, v) for v in rows.ravel()[:FIRST]]
            e["last_row"] = [vtext(kind, v) for v in rows[-1][:FIRST]]
        out.append(e)
    return out


def describe(name: str, a: np.ndarray, deflated=False) -> dict:
    descr = a.dtype.str
    dt = NAMES.get(descr, None)
    laid = a.T if a.flags.f_contiguous and not a.flags.c_contiguous and a.ndim > 1 else a
    e = dict(name=name, dtype=dt or f"{descr} (big-endian)" if descr.startswith(">") else dt,
             shape=list(laid.shape), bytes=int(a.nbytes),
             previewable=bool(dt), deflated=deflated)
    if e["dtype"] is None:
        e["dtype"] = descr
    if a.dtype.names:
        # A structured dtype is named by the list numpy's header holds, as Python's repr writes it.
        e["dtype"] = repr(np.lib.format.dtype_to_descr(a.dtype))
    if e["previewable"] and a.size:
        kind = kind_of(dt)
        rows = laid.reshape(-1, laid.shape[-1]) if laid.ndim > 1 else laid.reshape(1, -1)
        e["first"] = [vtext(kind, v) for v in rows.ravel()[:FIRST]]
        e["last_row"] = [vtext(kind, v) for v in rows[-1][:FIRST]]
    if a.dtype.names and not a.dtype.hasobject:
        e["field_values"] = field_values(a, laid is not a)
    return e


def read_header(f, version):
    """numpy's header reader for the version: (shape, fortran_order, dtype); `f` is then at
    the array's first byte."""
    fmt = np.lib.format
    return (fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0)(f)


def npy_bytes(header: str, data: bytes, version=(1, 0)) -> bytes:
    """An .npy file with this header text, padded as numpy pads it (to a multiple of 64 bytes,
    ending in a newline)."""
    h = header.encode("utf-8" if version >= (3, 0) else "latin-1")
    size = 2 if version == (1, 0) else 4
    pad = (64 - (6 + 2 + size + len(h) + 1) % 64) % 64
    h += b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes(version) + len(h).to_bytes(size, "little") + h + data


def leaf_fields(dt: np.dtype, prefix="", base=0) -> list:
    out = []
    for name in dt.names or ():
        fdt, off = dt.fields[name][:2]
        full = f"{prefix}.{name}" if prefix else name
        inner = fdt.base if fdt.subdtype else fdt
        if inner.names:
            out += leaf_fields(inner, full, base + off)
        else:
            out.append([full, inner.str, list(fdt.shape), base + off])
    return out


def header_arrays() -> dict[str, tuple]:
    """name -> (the array np.load gives, the file's bytes or None to write it with np.save,
    format version or None)."""
    f8 = RNG.normal(size=(2, 3))
    objs = np.array([1, "two", {"three": 3.0}], dtype=object)
    st = np.zeros(5, dtype=[("a", "<f4"), ("b", "<i8", (2,))])
    st["a"], st["b"] = RNG.normal(size=5), RNG.integers(-9, 9, (5, 2))
    nested = np.zeros(3, dtype=[("pos", [("x", "<f4"), ("y", "<f4")]), ("id", "<u2")])
    nested["pos"]["x"], nested["id"] = [1, 2, 3], [7, 8, 9]
    aligned = np.zeros(4, dtype=np.dtype([("a", "u1"), ("b", "<f8")], align=True))
    titled = np.zeros(2, dtype=np.dtype({"names": ["a"], "formats": ["<f4"], "titles": ["Alpha"]}))
    i4 = RNG.integers(-99, 99, (4,), dtype=np.int32)
    utf8 = np.zeros(2, dtype=[("\u00e9t\u00e9", "<f4")])
    return {
        "py2-long": (f8, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }", f8.tobytes()), None),
        "py2-object": (objs, npy_bytes("{'descr': '|O8', 'fortran_order': False, 'shape': (3L,), }",
                                       pickle.dumps(objs, protocol=2)), None),
        "double-quotes": (i4, npy_bytes('{"shape": (4,), "fortran_order": False, "descr": "<i4"}', i4.tobytes()), None),
        "v2": (f8.astype(np.float32), None, (2, 0)),
        "v3-utf8-field": (utf8, None, (3, 0)),
        "structured": (st, None, None),
        "structured-nested": (nested, None, None),
        "structured-aligned": (aligned, None, None),
        "structured-titles": (titled, None, None),
        "structured-object": (np.array([(1.5, {"k": 1})], dtype=[("a", "<f4"), ("o", "O")]), None, None),
        "text": (np.array(["ab", "c\u00e9de"], dtype="<U5"), None, None),
        "bytes": (np.array([b"x", b"yz"], dtype="|S3"), None, None),
        "datetime": (np.array(["2020-01-01T00:00", "1970-01-01"], dtype="<M8[ns]"), None, None),
        "timedelta": (np.array([1, -2], dtype="<m8[s]"), None, None),
        "0d-i32": (np.array(-7, np.int32), None, None),
        "0d-bool": (np.array(True), None, None),
        "0d-text": (np.array("h\u00e9"), None, None),
        "0d-object": (np.array({"a": 1}, dtype=object), None, None),
        "0d-structured": (np.array((2.5,), dtype=[("a", "<f4")]), None, None),
        "structured-fortran": (np.asfortranarray(records()[:4]), None, None),
        "structured-empty": (records()[:0], None, None),
    }


def pickle_of(data: bytes, start: int, name: str) -> dict:
    imports, end, protocol, error = genops_imports(data)
    assert error is None and end is not None, (name, error)
    for i in imports:
        i["offset"] += start
    return dict(name=name, offset=start, len=end, protocol=protocol, imports=imports)


def written_descr(path: Path) -> str:
    """The header's descr as numpy's reader evaluates it (Python 2's longs filtered out for
    versions 1 and 2): the dtype string, or a structured dtype's list as Python's repr writes
    it (which is how weightpeek names a dtype it does not decode)."""
    from numpy.lib import _format_impl as fmt
    raw = path.read_bytes()
    version = (raw[6], raw[7])
    size = 2 if version == (1, 0) else 4
    n = int.from_bytes(raw[8:8 + size], "little")
    text = raw[8 + size:8 + size + n].decode("utf-8" if version >= (3, 0) else "latin-1")
    try:
        d = ast.literal_eval(text)
    except SyntaxError:
        d = ast.literal_eval(fmt._filter_header(text))
    return d["descr"] if isinstance(d["descr"], str) else repr(d["descr"])


def describe_header(name: str, a: np.ndarray, path: Path) -> dict:
    e = describe(name, a)
    dt = a.dtype
    if not e["previewable"] and not dt.str.startswith(">"):
        e["dtype"] = written_descr(path)
    if dt.hasobject:
        e["bytes"] = None
    e.update(descr=dt.descr if dt.names else dt.str, object=bool(dt.hasobject),
             itemsize=None if dt.hasobject else dt.itemsize, fields=leaf_fields(dt))
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        e["version"] = list(version)
        read_header(f, version)
        e["data_start"] = f.tell()
    return e


def write_headers(out: Path, files: dict) -> None:
    (out / "headers").mkdir(exist_ok=True)
    for name, (arr, raw, version) in header_arrays().items():
        path = out / "headers" / f"{name}.npy"
        if raw is not None:
            path.write_bytes(raw)
        else:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, arr, version=version)
        back = np.load(path, allow_pickle=True)
        assert back.dtype == arr.dtype and back.shape == arr.shape, name
        if not arr.dtype.hasobject:
            assert back.tobytes() == arr.tobytes(), name
        e = describe_header("array", back, path)
        entry = dict(tensors=[e], intent="benign")
        if arr.dtype.hasobject:
            data = path.read_bytes()[e["data_start"]:]
            entry["pickles"] = [pickle_of(data, e["data_start"], "array.npy")]
        files[f"headers/{name}.npy"] = entry


SINKS = {
    "os-system": (os.system, ("echo pwned",)),
    "eval": (eval, ("__import__('os').system('echo pwned')",)),
    "exec": (exec, ("import os",)),
    "popen": (subprocess.Popen, (["echo", "pwned"],)),
    "run-code": (runpy._run_code, ("print(1)", {})),
}


def object_arrays() -> dict[str, tuple[np.ndarray, str]]:
    big = np.array([f"value {i}" for i in range(40_000)], dtype=object)
    out = {
        "numbers": (np.array([1, 2.5, None, 10**30, -3], dtype=object), "benign"),
        "strings": (np.array([["a", "b\u00e9"], ["", "long " * 20]], dtype=object), "benign"),
        "dicts": (np.array([{"lr": 0.1, "steps": [1, 2]}, {"name": "x"}], dtype=object), "benign"),
        "0d-dict": (np.array({"config": {"layers": 4}, "ids": (1, 2)}, dtype=object), "benign"),
        "big-strings": (big, "benign"),
        # A class of the standard library that is neither a known rebuild nor a sink.
        "fractions": (np.array([fractions.Fraction(1, 3), 2], dtype=object), "unknown"),
    }
    for k, (f, args) in SINKS.items():
        a = np.empty(2, dtype=object)
        a[0], a[1] = "innocent", Reducer(f, args)
        out[f"evil-{k}"] = (a, "malicious")
    return out


def write_objects(out: Path, files: dict) -> None:
    """Object arrays in .npy files and in .npz members (stored and deflated). The malicious
    ones are never loaded with allow_pickle=True."""
    (out / "objects").mkdir(exist_ok=True)
    arrays = object_arrays()
    for name, (arr, intent) in arrays.items():
        path = out / "objects" / f"{name}.npy"
        np.save(path, arr, allow_pickle=True)
        try:
            np.load(path, allow_pickle=False)
            raise AssertionError(f"{name}: np.load(allow_pickle=False) read an object array")
        except ValueError:
            pass
        if intent != "malicious":
            back = np.load(path, allow_pickle=True)
            assert back.shape == arr.shape, name
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            shape, fortran, dtype = read_header(f, version)
            start = f.tell()
        data = path.read_bytes()
        e = dict(name="array", dtype=dtype.str, shape=list(shape), bytes=None, previewable=False,
                 deflated=False, descr=dtype.str, object=True, itemsize=None, fields=[])
        files[f"objects/{name}.npy"] = dict(
            tensors=[e], intent=intent, pickles=[pickle_of(data[start:], start, "array.npy")],
            picklescan=picklescan_file(path), fickling=fickling_verdict(data[start:]))
    mixed = {"weights": RNG.normal(size=(3, 4)).astype(np.float32)}
    for kind, save in (("stored", np.savez), ("deflated", np.savez_compressed)):
        for group in ("benign", "malicious"):
            members = dict(mixed, **{k.replace("-", "_"): a for k, (a, i) in arrays.items()
                                     if i == group and k != "big-strings"})
            path = out / "objects" / f"{group}-{kind}.npz"
            save(path, **members)
            files[f"objects/{path.name}"] = npz_objects(path, intent=group, deflated=kind == "deflated")
    # Members np.load reads as arrays whatever their names: one without the .npy suffix
    # (z["hidden"]) holding a malicious object array, beside a text member it gives as bytes.
    path = out / "objects" / "hidden-member.npz"
    evil = io.BytesIO()
    np.save(evil, arrays["evil-os-system"][0], allow_pickle=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("weights.npy", npy_of(mixed["weights"]))
        zf.writestr("hidden", evil.getvalue())
        zf.writestr("readme.txt", "not an array")
    with np.load(path) as z:
        assert z.files == ["weights", "hidden", "readme.txt"], z.files
        assert z["readme.txt"] == b"not an array"
        try:
            z["hidden"]
            raise AssertionError("np.load(allow_pickle=False) read the hidden object array")
        except ValueError:
            pass
    entry = npz_objects(path, intent="malicious", deflated=False)
    entry["tensors"] = [t for t in entry["tensors"] if t["name"] != "readme.txt"]
    files["objects/hidden-member.npz"] = entry
    # A bzip2 member (numpy's zipfile reads it; weightpeek does not): its safety is unknown.
    path = out / "bzip2-object.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_BZIP2) as zf:
        zf.writestr("evil.npy", evil.getvalue())
    with np.load(path) as z:
        try:
            z["evil"]
            raise AssertionError("np.load(allow_pickle=False) read the bzip2 object array")
        except ValueError:
            pass
    # Bigger than the first and last reads: two object arrays side by side between 1 MiB
    # arrays, and a twin of the same layout whose object arrays are plain bytes (the remote
    # test compares their requests).
    big = {"before": RNG.normal(size=(512, 512)).astype(np.float32),
           "strings": arrays["big-strings"][0], "dicts": arrays["dicts"][0],
           "after": RNG.normal(size=(512, 512)).astype(np.float32)}
    path = out / "objects" / "big-objects.npz"
    np.savez(path, **big)
    files["objects/big-objects.npz"] = npz_objects(path, intent="benign", deflated=False)
    with zipfile.ZipFile(path) as zf:
        sizes = {i.filename[:-4]: i.file_size for i in zf.infolist()}
    twin = {k: (v if not v.dtype.hasobject else np.zeros(sizes[k] - 128, np.uint8)) for k, v in big.items()}
    np.savez(out / "big-objects-twin.npz", **twin)


def npy_of(a: np.ndarray) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def npz_objects(path: Path, intent: str, deflated: bool) -> dict:
    tensors, pickles = [], []
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            member = zf.read(info)
            if not member.startswith(b"\x93NUMPY"):
                continue  # np.load gives its bytes
            with zf.open(info) as f:
                version = np.lib.format.read_magic(f)
                shape, fortran, dtype = read_header(f, version)
            b = io.BytesIO(member)
            np.lib.format.read_magic(b)
            read_header(b, version)
            data_start = b.tell()
            name = info.filename.removesuffix(".npy")
            if dtype.hasobject:
                # Absolute offsets in a stored member; within the inflated member otherwise.
                lh = info.header_offset
                n, m = int.from_bytes(raw[lh + 26:lh + 28], "little"), int.from_bytes(raw[lh + 28:lh + 30], "little")
                member_start = lh + 30 + n + m
                base = data_start if deflated else member_start + data_start
                pickles.append(pickle_of(member[data_start:], base, f'npz member "{info.filename}"'))
                tensors.append(dict(name=name, dtype=dtype.str, shape=list(shape), bytes=None,
                                    previewable=False, deflated=deflated, descr=dtype.str,
                                    object=True, itemsize=None, fields=[]))
            else:
                with np.load(path) as z:
                    tensors.append(describe(name, z[name], deflated))
    return dict(tensors=tensors, intent=intent, pickles=pickles, picklescan=picklescan_file(path))


def picklescan_file(path: Path) -> dict:
    from picklescan.scanner import scan_file_path
    try:
        r = scan_file_path(str(path))
    except Exception as e:  # noqa: BLE001 - the scanner cannot read it
        return dict(dangerous=False, error=f"{type(e).__name__}: {e}", globals=[])
    return dict(dangerous=r.issues_count > 0, error=r.scan_err,
                globals=sorted([g.module, g.name, g.safety.value] for g in r.globals))


def bits_per_weight(arrays) -> float | None:
    """Bits per weight as numpy counts an array's weights: each of `arr.size` elements holds
    `arr.itemsize * 8` bits, over the arrays of numbers (dtype.kind b, i, u, f, c); a
    structured, text or object array's elements are not weights. None without such an array."""
    nums = [a for a in arrays if a.dtype.kind in "biufc"]
    n = sum(a.size for a in nums)
    return sum(a.size * a.itemsize * 8 for a in nums) / n if n else None


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
        files[f"{name}.npy"] = dict(tensors=[describe("array", back)], bits_per_weight=bits_per_weight([back]))
    some = {k: v for k, v in arrays().items() if k in ("f32", "i64", "bool", "c64", "c128", "fortran", "scalar", "records")}
    some["layer/weight"] = RNG.normal(size=(2, 3)).astype(np.float32)  # a name with a slash
    np.savez(a.out / "weights.npz", **some)
    np.savez_compressed(a.out / "compressed.npz", **some)
    np.savez_compressed(a.out / "big-compressed.npz", big=RNG.normal(size=(2048, 512)).astype(np.float32),
                        after=np.arange(12, dtype=np.int64).reshape(3, 4))
    for f, deflated in (("weights.npz", False), ("compressed.npz", True), ("big-compressed.npz", True)):
        with np.load(a.out / f) as z, zipfile.ZipFile(a.out / f) as zf:
            order = [n[:-4] for n in zf.namelist()]
            assert all(zf.getinfo(n + ".npy").compress_type == (8 if deflated else 0) for n in order)
            files[f] = dict(tensors=[describe(n, z[n], deflated) for n in order],
                            bits_per_weight=bits_per_weight([z[n] for n in order]))
    write_headers(a.out, files)
    write_objects(a.out, files)
    doc = dict(generator="tests/reference/numpy_fixtures.py",
               versions={k: version(k) for k in ("numpy", "picklescan", "fickling")}, files=files)
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False))
    tmp.replace(a.out / "expected.json")
    print(f"numpy fixtures: {len(files)} files in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
