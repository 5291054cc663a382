#!/usr/bin/env python3
"""Check a GGUF file written by `weightpeek edit` against the file it was made from, with the
PyPI `gguf` package (gguf-py's GGUFReader) and hashlib.

Usage:
    python tests/reference/edit_check.py ORIGINAL EDITED EXPECT.json
    python tests/reference/edit_check.py --describe EDITED      (keys and tensors as JSON)

EXPECT.json says what the edit was meant to do:
    {"set":      [{"key": K, "type": "UINT32", "value": TEXT}],   # value as text, as given
     "elements": [{"key": K, "index": I, "value": TEXT}],
     "delete":   [K, ...]}
A key in "set" that the original lacks is expected at the end, in the order given.

Checks, reading both files with gguf-py:
  - every key set has the type and value expected (numbers compared as the type's numpy
    value, floats bit for bit; strings as UTF-8 text);
  - every deleted key is gone;
  - every array element set has its new value, and every other element is unchanged;
  - every other key is equal, field for field (types and the encoded parts' bytes), in the
    original's order;
  - the tensors are equal: names, ggml types, shapes, byte sizes and offsets relative to the
    data section;
  - the data section (from gguf-py's data_offset to the end) has the same sha256 in both.
Prints a JSON report {"ok", "problems", "keys", "tensors", "data_sha256", "data_bytes"} and
exits 1 when a check fails.
"""
from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
from gguf import GGUFReader, GGUFValueType

NUMPY = {
    "UINT8": np.uint8, "INT8": np.int8, "UINT16": np.uint16, "INT16": np.int16,
    "UINT32": np.uint32, "INT32": np.int32, "UINT64": np.uint64, "INT64": np.int64,
    "FLOAT32": np.float32, "FLOAT64": np.float64,
}


def data_sha256(path: str, offset: int) -> tuple[str, int]:
    h = hashlib.sha256()
    n = 0
    with open(path, "rb") as f:
        f.seek(offset)
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
            n += len(b)
    return h.hexdigest(), n


def keys(r: GGUFReader) -> dict:
    return {k: f for k, f in r.fields.items() if not k.startswith("GGUF.")}


def parts_bytes(f) -> list[bytes]:
    return [bytes(p.tobytes()) for p in f.parts]


def raw(r: GGUFReader, f) -> bytes:
    """The field's encoded bytes (key length, key, type, value) as stored in the file."""
    end = f.offset + sum(int(p.nbytes) for p in f.parts)
    return bytes(r.data[f.offset:end])


def scalar_equal(ty: str, got, text: str) -> bool:
    if ty == "BOOL":
        return bool(got) == (text.strip() in ("true", "1"))
    if ty == "STRING":
        return got == text
    np_t = NUMPY[ty]
    if ty.startswith("FLOAT"):
        low = text.strip().lower()
        want = np_t({"nan": "nan", "inf": "inf", "+inf": "inf", "-inf": "-inf"}.get(low, text.strip()))
        return np.array([got], dtype=np_t).tobytes() == np.array([want], dtype=np_t).tobytes()
    return int(got) == int(text.strip())


def element(f, index: int):
    sub = f.types[-1]
    part = f.parts[f.data[index]]
    if sub == GGUFValueType.STRING:
        return bytes(part.tobytes()).decode("utf-8")
    return part.tolist()[0]


def check(orig_path: str, new_path: str, expect: dict) -> dict:
    a, b = GGUFReader(orig_path), GGUFReader(new_path)
    ka, kb = keys(a), keys(b)
    problems: list[str] = []
    set_keys = {s["key"]: s for s in expect.get("set", [])}
    deleted = set(expect.get("delete", []))
    elements: dict[str, dict[int, str]] = {}
    for e in expect.get("elements", []):
        elements.setdefault(e["key"], {})[int(e["index"])] = e["value"]

    for k, s in set_keys.items():
        f = kb.get(k)
        if f is None:
            problems.append(f"{k}: missing after the edit")
            continue
        ty = f.types[0].name
        if ty != s["type"]:
            problems.append(f"{k}: type {ty}, expected {s['type']}")
            continue
        if not scalar_equal(ty, f.contents(), s["value"]):
            problems.append(f"{k}: value {f.contents()!r:.80}, expected {s['value']!r:.80}")
    for k in deleted:
        if k in kb and k not in set_keys:
            problems.append(f"{k}: still present after being deleted")
    for k, edits in elements.items():
        fa, fb = ka.get(k), kb.get(k)
        if fa is None or fb is None or fb.types != fa.types or len(fb.data) != len(fa.data):
            problems.append(f"{k}: not the same array after the element edit")
            continue
        for i, text in edits.items():
            got = element(fb, i)
            if not scalar_equal(fb.types[-1].name, got, text):
                problems.append(f"{k}[{i}]: {got!r}, expected {text!r}")
        # Every other element: compare the encoded parts after the key (type, count, elements).
        pa, pb = parts_bytes(fa), parts_bytes(fb)
        changed = {fa.data[i] for i in edits}
        if fa.types[-1] == GGUFValueType.STRING:  # a string element is its length and bytes
            changed |= {fa.data[i] - 1 for i in edits}
        diffs = [j for j in range(len(pa)) if j not in changed and pa[j] != pb[j]]
        if diffs:
            problems.append(f"{k}: {len(diffs)} parts other than the edited elements differ")

    untouched_a = [k for k in ka if k not in set_keys and k not in deleted and k not in elements]
    for k in untouched_a:
        if k not in kb:
            problems.append(f"{k}: missing although not edited")
        elif raw(a, ka[k]) != raw(b, kb[k]) or ka[k].types != kb[k].types:
            problems.append(f"{k}: changed although not edited")
    order_expected = [k for k in ka if not (k in deleted and k not in set_keys)]
    order_expected += [k for k in set_keys if k not in ka]
    if list(kb) != order_expected:
        problems.append(f"key order {list(kb)[:8]}…, expected {order_expected[:8]}…")

    if len(a.tensors) != len(b.tensors):
        problems.append(f"{len(b.tensors)} tensors, expected {len(a.tensors)}")
    for ta, tb in zip(a.tensors, b.tensors):
        same = (
            ta.name == tb.name
            and ta.tensor_type == tb.tensor_type
            and list(ta.shape) == list(tb.shape)
            and ta.n_bytes == tb.n_bytes
            and ta.data_offset - a.data_offset == tb.data_offset - b.data_offset
        )
        if not same:
            problems.append(f"tensor {ta.name}: differs")
        if tb.data_offset % b.alignment:
            problems.append(f"tensor {tb.name}: offset {tb.data_offset} not on the {b.alignment} grid")
    sha_a, na = data_sha256(orig_path, a.data_offset)
    sha_b, nb = data_sha256(new_path, b.data_offset)
    if (sha_a, na) != (sha_b, nb):
        problems.append(f"data section differs: {na} bytes {sha_a} vs {nb} bytes {sha_b}")
    return {
        "ok": not problems,
        "problems": problems,
        "keys": len(kb),
        "tensors": len(b.tensors),
        "data_sha256": sha_b,
        "data_bytes": nb,
        "alignment": int(b.alignment),
    }


def describe(path: str) -> dict:
    """Every key of a file: type, and value (arrays: element type, count and all elements)."""
    r = GGUFReader(path)
    out = {}
    for k, f in keys(r).items():
        if f.types[0] == GGUFValueType.ARRAY:
            out[k] = {"type": "ARRAY", "elem": f.types[-1].name,
                      "values": [element(f, i) for i in range(len(f.data))]}
        else:
            v = f.contents()
            if isinstance(v, float):
                v = float(np.float32(v)) if f.types[0] == GGUFValueType.FLOAT32 else v
            out[k] = {"type": f.types[0].name, "value": v}
    return {"version": int(r.fields["GGUF.version"].parts[0][0]), "keys": out,
            "tensors": len(r.tensors), "data_offset": int(r.data_offset)}


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--describe":
        json.dump(describe(sys.argv[2]), sys.stdout, ensure_ascii=False)
        print()
        return 0
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[3], encoding="utf-8") as f:
        expect = json.load(f)
    report = check(sys.argv[1], sys.argv[2], expect)
    json.dump(report, sys.stdout, ensure_ascii=False)
    print()
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
