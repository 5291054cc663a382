#!/usr/bin/env python3
"""Write the expected values that weightpeek's Rust tests compare against, using reference readers.

Usage:
    python tests/reference/reference.py --out DIR FILE...
    python tests/reference/reference.py --out DIR --cross-check FILE...

For each FILE it writes DIR/<key>.json and finally DIR/index.json = {key: absolute path} for
the files of this run. key = file name without its final extension (ggml-vocab-llama.v1.gguf ->
"ggml-vocab-llama.v1"); for safetensors files it is the parent directory's name
(all-MiniLM-L6-v2/model.safetensors -> "all-MiniLM-L6-v2"). Two files with the same key abort.

Which reference produces what (this is the point of the script: no expected value is typed in):
  * GGUF v2 and v3: PyPI `gguf` (gguf-py) GGUFReader. Everything comes from its parsed fields and
    ReaderTensor objects. Note ReaderTensor.shape is the dims array exactly as stored in the file,
    i.e. ggml order ne0, ne1, ... (fastest-varying first); only ReaderTensor.data is reshaped to
    numpy order. We therefore write `shape` as-is, no reversal.
  * GGUF v1: GGUFReader refuses v1 (READER_SUPPORTED_VERSIONS = [2, 3]). For v1 we use a second,
    independent published reader: the npm package @huggingface/gguf (pinned 0.4.6 in
    tests/reference/package.json), which reads v1's u32 counts and lengths. hf_gguf.mjs (next to
    this script) dumps its parse as JSON and we convert that into the same schema. The ggml type
    names and byte sizes of tensors still come from gguf-py's GGMLQuantizationType /
    GGML_QUANT_SIZES. This needs `node` (>= 20) and `npm ci` in tests/reference; the script runs
    `npm ci` itself when node_modules is missing. `--cross-check` also runs that npm reader on
    every v2/v3 file and fails if it disagrees with GGUFReader on anything we write.
  * safetensors: the header JSON is read with Python's json module (object_pairs_hook keeps the
    file's order and rejects duplicate keys), then every name, dtype and shape, and the metadata,
    is cross-checked against PyPI `safetensors` safe_open(framework="numpy"); every tensor's byte
    size (data_offsets end - begin) is checked against the array safe_open returns (numpy nbytes)
    and against element count x dtype width. Any disagreement aborts.

Speed: GGUFReader parses every array element into its own numpy view; Gemma 3's 262,144-token
header takes ~10 s. We only touch the first 5 and last elements of each array afterwards.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
HEAD_LEN = 5


# ----------------------------------------------------------------------------- helpers

def jfloat(x: float) -> float | str:
    """JSON-safe float: non-finite values become the strings 'nan', 'inf', '-inf'."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


# Token texts whose ids the GGUF facts list (doc["token_ids"]).
NAMED_TOKENS = ["Ġthe", "▁the", "the"]


def summarise(doc: dict[str, Any]) -> dict[str, Any]:
    """Fill tensor_count, parameter_count, tensor_bytes and dtypes from doc['tensors']."""
    tensors = doc["tensors"]
    by: dict[str, dict[str, Any]] = {}
    params = 0
    nbytes = 0
    for t in tensors:
        n = int(np.prod(t["shape"], dtype=object)) if t["shape"] else 1
        t_elements = n
        params += t_elements
        nbytes += t["bytes"]
        d = by.setdefault(t["dtype"], {"dtype": t["dtype"], "tensors": 0, "elements": 0, "bytes": 0})
        d["tensors"] += 1
        d["elements"] += t_elements
        d["bytes"] += t["bytes"]
    doc["tensor_count"] = len(tensors)
    doc["parameter_count"] = params
    doc["tensor_bytes"] = nbytes
    doc["dtypes"] = [by[k] for k in sorted(by)]
    return doc


def ordered_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """Put the keys in the documented order (readability of the JSON only)."""
    order = ["path", "format", "reference", "file_size", "version", "endianness", "alignment",
             "data_offset", "header_size", "metadata_count", "tensor_count", "parameter_count",
             "tensor_bytes", "dtypes", "tensors", "metadata"]
    out = {k: doc[k] for k in order if k in doc}
    out.update({k: v for k, v in doc.items() if k not in out})
    return out


# ----------------------------------------------------------------------------- GGUF via gguf-py

def gguf_version_string() -> str:
    from importlib.metadata import version
    return f"gguf {version('gguf')} GGUFReader"


def gguf_via_reader(path: Path) -> dict[str, Any]:
    from gguf import GGUFReader, GGUFValueType

    reader = GGUFReader(path)  # raises ValueError for v1

    fields = list(reader.fields.values())
    # GGUFReader pushes three pseudo-fields first (GGUF.version, GGUF.tensor_count, GGUF.kv_count);
    # they are not key/value pairs of the file. A real key with one of those names would have made
    # GGUFReader raise on the duplicate, so dropping the first three by position is exact.
    assert [f.name for f in fields[:3]] == ["GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"]
    version = int(fields[0].parts[0][0])
    kv_count = int(fields[2].parts[0][0])
    kvs = fields[3:]
    if len(kvs) != kv_count:
        raise SystemExit(f"{path}: GGUFReader gave {len(kvs)} fields but the header says {kv_count}")

    def conv(vtype: GGUFValueType, part: np.ndarray) -> Any:
        if vtype == GGUFValueType.STRING:
            return part.tobytes().decode("utf-8", errors="replace")
        v = part.tolist()[0]
        if vtype in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
            return jfloat(v)
        if vtype == GGUFValueType.BOOL:
            return bool(v)
        return int(v)

    metadata = []
    for f in kvs:
        vtype = GGUFValueType(int(f.parts[2][0]))  # parts: key_len, key, value_type, ...
        m: dict[str, Any] = {"key": f.name, "type": vtype.name}
        if vtype == GGUFValueType.ARRAY:
            # parts[3] = element type, parts[4] = element count (GGUFReader leaves f.types
            # without the element type for empty arrays, so read it from the parts).
            etype = GGUFValueType(int(f.parts[3][0]))
            count = int(f.parts[4][0])
            m["elem_type"] = etype.name
            m["count"] = count
            if etype != GGUFValueType.ARRAY:
                if len(f.data) != count:
                    raise SystemExit(f"{path}: {f.name}: {len(f.data)} data parts for {count} elements")
                m["head"] = [conv(etype, f.parts[i]) for i in f.data[:HEAD_LEN]]
                m["last"] = conv(etype, f.parts[f.data[-1]]) if count else None
        else:
            m["value"] = conv(vtype, f.parts[f.data[0]])
        metadata.append(m)

    tensors = []
    for t in reader.tensors:
        tensors.append({
            "name": t.name,
            "dtype": t.tensor_type.name,
            "type_id": int(t.tensor_type),
            # ReaderTensor.shape = dims as stored = ggml order (ne0 first); not reversed.
            "shape": [int(d) for d in t.shape],
            "offset": int(t.data_offset),  # GGUFReader adds data_offset: already absolute
            "bytes": int(t.n_bytes),
        })

    doc = {
        "path": str(path.resolve()),
        "format": "gguf",
        "reference": gguf_version_string(),
        "file_size": path.stat().st_size,
        "version": version,
        "endianness": reader.endianess.name.lower(),
        "alignment": int(reader.alignment),
        "data_offset": int(reader.data_offset),
        "metadata_count": kv_count,
        "tensors": tensors,
        "metadata": metadata,
    }
    # The ids of a few tokens by their text (every id with that exact text), for tests of the
    # token search ("Ġthe" in byte-level BPE vocabularies, "▁the" in SentencePiece ones).
    tok = reader.fields.get("tokenizer.ggml.tokens")
    if tok is not None and tok.data:
        ids: dict[str, list[int]] = {t: [] for t in NAMED_TOKENS}
        for i, idx in enumerate(tok.data):
            text = bytes(tok.parts[idx]).decode("utf-8", "replace")
            if text in ids:
                ids[text].append(i)
        doc["token_ids"] = ids
    return summarise(doc)


# ----------------------------------------------------------------------------- GGUF via npm @huggingface/gguf

def ensure_node_reader() -> None:
    if (HERE / "node_modules" / "@huggingface" / "gguf" / "package.json").exists():
        return
    print("reference.py: installing @huggingface/gguf (npm ci in tests/reference)", file=sys.stderr)
    subprocess.check_call(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE)


def hf_dump(path: Path) -> dict[str, Any]:
    ensure_node_reader()
    res = subprocess.run(["node", str(HERE / "hf_gguf.mjs"), str(path)], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{path}: @huggingface/gguf failed:\n{res.stderr}")
    return json.loads(res.stdout)


def gguf_via_hf(path: Path) -> dict[str, Any]:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType

    raw = hf_dump(path)
    kv_count = int(raw["kv_count"])
    if len(raw["metadata"]) != kv_count:
        raise SystemExit(f"{path}: @huggingface/gguf gave {len(raw['metadata'])} keys, header says {kv_count}")

    def conv(vtype: GGUFValueType, v: Any) -> Any:
        if vtype in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
            return v if isinstance(v, str) else jfloat(v)
        if vtype == GGUFValueType.STRING:
            return v  # TextDecoder('utf-8') replaces invalid bytes with U+FFFD, like errors='replace'
        if vtype == GGUFValueType.BOOL:
            return bool(v)
        return int(v)  # u64/i64 arrive as decimal strings

    metadata = []
    for e in raw["metadata"]:
        vtype = GGUFValueType(e["type"])
        m: dict[str, Any] = {"key": e["key"], "type": vtype.name}
        if vtype == GGUFValueType.ARRAY:
            etype = GGUFValueType(e["sub_type"])
            vals = e["value"]
            m["elem_type"] = etype.name
            m["count"] = len(vals)
            if etype != GGUFValueType.ARRAY:
                m["head"] = [conv(etype, x) for x in vals[:HEAD_LEN]]
                m["last"] = conv(etype, vals[-1]) if vals else None
        else:
            m["value"] = conv(vtype, e["value"])
        metadata.append(m)

    data_offset = int(raw["data_offset"])
    tensors = []
    for t in raw["tensors"]:
        ty = GGMLQuantizationType(t["type_id"])
        shape = [int(d) for d in t["shape"]]  # as stored: ne0 first
        block, tsize = GGML_QUANT_SIZES[ty]
        n = int(np.prod(shape, dtype=object)) if shape else 1
        tensors.append({
            "name": t["name"], "dtype": ty.name, "type_id": int(ty), "shape": shape,
            "offset": data_offset + int(t["offset"]), "bytes": n * tsize // block,
        })

    doc = {
        "path": str(path.resolve()),
        "format": "gguf",
        "reference": raw["reference"],
        "file_size": path.stat().st_size,
        "version": int(raw["version"]),
        "endianness": "little" if raw["little_endian"] else "big",
        "alignment": int(raw["alignment"]),
        "data_offset": data_offset,
        "metadata_count": kv_count,
        "tensors": tensors,
        "metadata": metadata,
    }
    return summarise(doc)


def cross_check(path: Path, doc: dict[str, Any]) -> None:
    other = gguf_via_hf(path)
    diffs = [k for k in doc if k != "reference" and doc[k] != other.get(k)]
    if diffs:
        for k in diffs:
            a, b = doc[k], other.get(k)
            if isinstance(a, list) and isinstance(b, list):
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        print(f"  {k}[{i}]: gguf-py {x!r}\n  {' ' * len(k)}     npm     {y!r}", file=sys.stderr)
                        break
                else:
                    print(f"  {k}: lengths {len(a)} vs {len(b)}", file=sys.stderr)
            else:
                print(f"  {k}: gguf-py {a!r} vs npm {b!r}", file=sys.stderr)
        raise SystemExit(f"{path}: GGUFReader and @huggingface/gguf disagree on {diffs}")


def gguf_doc(path: Path, check: bool) -> dict[str, Any]:
    try:
        doc = gguf_via_reader(path)
    except ValueError as e:
        # GGUFReader's only refusal we route elsewhere: "file appears to be version 1 ...".
        if "version 1 " not in str(e):
            raise
        return gguf_via_hf(path)
    if check:
        cross_check(path, doc)
    return doc


# ----------------------------------------------------------------------------- safetensors

# Used only to *verify* data_offsets (the byte counts come from the file, and are also compared
# with the nbytes of the array safetensors itself returns whenever numpy can hold the dtype).
ST_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
           "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
           "I64": 64, "U64": 64, "F64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}


def safetensors_doc(path: Path) -> dict[str, Any]:
    import safetensors
    from safetensors import safe_open

    def no_dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for k, v in pairs:
            if k in d:
                raise SystemExit(f"{path}: duplicate key {k!r} in the header JSON")
            d[k] = v
        return d

    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"), object_pairs_hook=no_dupes)
    header_size = 8 + n
    file_size = path.stat().st_size
    st_meta = header.pop("__metadata__", None) or {}

    with safe_open(str(path), framework="numpy") as sf:
        lib_keys = list(sf.keys())
        lib_meta = sf.metadata() or {}
        if sorted(lib_keys) != sorted(header):
            raise SystemExit(f"{path}: tensor names differ between header JSON and safe_open")
        if lib_meta != st_meta:
            raise SystemExit(f"{path}: __metadata__ differs: {st_meta!r} vs safe_open {lib_meta!r}")
        tensors = []
        for name, info in header.items():
            dtype, shape = info["dtype"], [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
            sl = sf.get_slice(name)
            if sl.get_dtype() != dtype or list(sl.get_shape()) != shape:
                raise SystemExit(f"{path}: {name}: header says {dtype} {shape}, safe_open says "
                                 f"{sl.get_dtype()} {sl.get_shape()}")
            nbytes = end - begin
            elems = int(np.prod(shape, dtype=object)) if shape else 1
            if dtype not in ST_BITS or (elems * ST_BITS[dtype] + 7) // 8 != nbytes:
                raise SystemExit(f"{path}: {name}: {nbytes} bytes for {elems} x {dtype}")
            try:
                arr = sf.get_tensor(name)
            except Exception:  # dtype numpy cannot hold (e.g. BF16): width check above stands
                arr = None
            if arr is not None and (arr.nbytes != nbytes or list(arr.shape) != shape):
                raise SystemExit(f"{path}: {name}: safe_open array is {arr.nbytes} B {arr.shape}")
            if not (0 <= begin <= end and header_size + end <= file_size):
                raise SystemExit(f"{path}: {name}: data_offsets {begin}..{end} outside the file")
            tensors.append({"name": name, "dtype": dtype, "shape": shape,
                            "offset": header_size + begin, "bytes": nbytes})

    metadata = [{"key": k, "type": "STRING", "value": v} for k, v in st_meta.items()]
    doc = {
        "path": str(path.resolve()),
        "format": "safetensors",
        "reference": f"safetensors {safetensors.__version__} safe_open (+ header JSON, cross-checked)",
        "file_size": file_size,
        "header_size": header_size,
        "metadata_count": len(metadata),
        "tensors": tensors,
        "metadata": metadata,
    }
    return summarise(doc)


# ----------------------------------------------------------------------------- main

def key_for(path: Path) -> str:
    if path.suffix == ".safetensors":
        return path.resolve().parent.name
    return path.name.rsplit(".", 1)[0] if "." in path.name else path.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("--cross-check", action="store_true",
                    help="also parse every v2/v3 GGUF with @huggingface/gguf and require agreement")
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    index: dict[str, str] = {}
    for path in args.files:
        key = key_for(path)
        if key in index:
            raise SystemExit(f"two files map to key {key!r}: {index[key]} and {path}")
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic == b"GGUF":
            doc = gguf_doc(path, args.cross_check)
        elif path.suffix == ".safetensors":
            doc = safetensors_doc(path)
        else:
            raise SystemExit(f"{path}: neither GGUF (magic {magic!r}) nor .safetensors")
        (args.out / f"{key}.json").write_text(json.dumps(ordered_doc(doc), indent=1, ensure_ascii=False) + "\n")
        index[key] = str(path.resolve())
        print(f"{key}: {doc['reference']}, {doc['tensor_count']} tensors, {doc['metadata_count']} keys, "
              f"{time.perf_counter() - t0:.2f} s", file=sys.stderr)
    (args.out / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
