#!/usr/bin/env python3
"""Build pairs of GGUF files for the page's Compare card (and `weightpeek diff A B`), with the
PyPI `gguf` package, and write what differs between each pair as computed here in Python from
the written files read back with gguf-py's GGUFReader.

Usage:
    python tests/reference/compare_fixtures.py --out DIR [--gemma PATH]

Writes under DIR:
  small-a.gguf, small-b.gguf   two small llama-like files: B changes general.name, drops one key,
                               adds one, stores blk.0.attn_q.weight as Q8_0 instead of Q4_0,
                               lacks output_norm.weight and has an extra tensor
  small.json                   the differences of (small-a, small-b)
  gemma-modified.gguf          a copy of the real Gemma 3 270M Q4_K_M header (every key and
                               tensor) with the same kinds of changes; its tensor data is
                               zeros (a sparse file of the real size), the page reads only the
                               header anyway
  gemma.json                   the differences of (gemma, gemma-modified)
Tensor data is never written: files are truncated to their full size (sparse, zeros).
Skipped when the outputs are newer than this script (delete DIR to rebuild).

Each JSON: keys_added, keys_removed, keys_changed (names), tensors_added, tensors_removed,
tensors_changed ({name, dtype_a, dtype_b, shape_a, shape_b}), bpw_by_role ({role, a, b}:
bytes × 8 ÷ elements of every tensor of the role, layer tensors grouped by what follows the
layer number), bpw ([a, b]), header_b (bytes of B's header) and size_b.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFReader, GGUFValueType, GGUFWriter
from gguf.constants import GGML_QUANT_SIZES

ALIGN = 32


def nbytes(shape: list[int], dtype: T) -> int:
    block, size = GGML_QUANT_SIZES[dtype]
    n = int(np.prod(shape, dtype=object)) if shape else 1
    assert n % block == 0, (shape, dtype)
    return n // block * size


def write_header_only(path: Path, arch: str, kvs: list[tuple[str, object, GGUFValueType,
                      GGUFValueType | None]], tensors: list[tuple[str, list[int], T]]) -> None:
    """A GGUF with `kvs` and `tensors` (ggml order shapes), data all zeros (sparse)."""
    w = GGUFWriter(path, arch)
    for key, val, vtype, sub in kvs:
        if key == "general.architecture":
            continue
        w.add_key_value(key, val, vtype, sub)
    total = 0
    for name, shape, dtype in tensors:
        n = nbytes(shape, dtype)
        # numpy order (the writer reverses it back to ggml order); a non-uint8 placeholder
        # dtype so the shape is taken as given.
        w.add_tensor_info(name, list(reversed(shape)), np.float32, n, raw_dtype=dtype)
        total += -(-n // ALIGN) * ALIGN
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    header = -(-path.stat().st_size // ALIGN) * ALIGN
    with open(path, "r+b") as f:
        f.truncate(header + total)


def fields_of(r: GGUFReader) -> list[tuple[str, object, GGUFValueType, GGUFValueType | None]]:
    """Every key of a read file as add_key_value arguments (strings as bytes, exactly)."""
    out = []
    for f in r.fields.values():
        if f.name.startswith("GGUF."):
            continue
        vtype = GGUFValueType(int(f.types[0]))
        if vtype == GGUFValueType.ARRAY:
            sub = GGUFValueType(int(f.types[-1]))
            assert len(f.types) == 2, f"{f.name}: nested arrays are not copied"
            if sub == GGUFValueType.STRING:
                val = [bytes(f.parts[i]) for i in f.data]
            else:
                val = [f.parts[i][0].item() for i in f.data]
            out.append((f.name, val, vtype, sub))
        elif vtype == GGUFValueType.STRING:
            out.append((f.name, bytes(f.parts[f.data[0]]), vtype, None))
        else:
            out.append((f.name, f.parts[f.data[0]][0].item(), vtype, None))
    return out


def value_bytes(f) -> tuple:
    """A key's type(s) and the bytes of its value, for equality."""
    return (tuple(int(t) for t in f.types), b"".join(bytes(f.parts[i]) for i in f.data))


def split_role(name: str) -> str:
    """What follows the first all-digit segment after the first one (the layer number), else
    the name itself (src/summary/layers.rs split_layer)."""
    segs = name.split(".")
    for i, s in enumerate(segs):
        if i > 0 and s and s.isascii() and s.isdigit():
            role = ".".join(segs[i + 1:])
            return role if role else name
    return name


def roles(r: GGUFReader) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for t in r.tensors:
        role = split_role(t.name)
        acc = out.setdefault(role, [0, 0])
        acc[0] += int(t.n_bytes)
        acc[1] += int(t.n_elements)
    return out


def expected(a: Path, b: Path) -> dict:
    ra, rb = GGUFReader(a), GGUFReader(b)
    fa = {k: v for k, v in ra.fields.items() if not k.startswith("GGUF.")}
    fb = {k: v for k, v in rb.fields.items() if not k.startswith("GGUF.")}
    ta = {t.name: t for t in ra.tensors}
    tb = {t.name: t for t in rb.tensors}
    changed = []
    for t in ra.tensors:
        u = tb.get(t.name)
        if u is None:
            continue
        sa, sb = [int(d) for d in t.shape], [int(d) for d in u.shape]
        if t.tensor_type != u.tensor_type or sa != sb:
            changed.append({"name": t.name, "dtype_a": t.tensor_type.name,
                            "dtype_b": u.tensor_type.name, "shape_a": sa, "shape_b": sb})
    ro_a, ro_b = roles(ra), roles(rb)
    bpw = lambda acc: acc[0] * 8 / acc[1] if acc and acc[1] else None  # noqa: E731
    by_role = [{"role": k, "a": bpw(v), "b": bpw(ro_b.get(k))} for k, v in ro_a.items()]
    by_role += [{"role": k, "a": None, "b": bpw(v)} for k, v in ro_b.items() if k not in ro_a]
    total = lambda ro: bpw([sum(v[0] for v in ro.values()), sum(v[1] for v in ro.values())])  # noqa: E731
    return {
        "a": a.name,
        "b": b.name,
        "keys_added": [k for k in fb if k not in fa],
        "keys_removed": [k for k in fa if k not in fb],
        "keys_changed": [k for k in fa if k in fb and value_bytes(fa[k]) != value_bytes(fb[k])],
        "tensors_added": [n for n in tb if n not in ta],
        "tensors_removed": [n for n in ta if n not in tb],
        "tensors_changed": changed,
        "bpw_by_role": by_role,
        "bpw": [total(ro_a), total(ro_b)],
        "header_b": int(rb.data_offset) if hasattr(rb, "data_offset") else None,
        "size_b": b.stat().st_size,
        "tensors_in_both": sum(1 for n in ta if n in tb),
    }


def small_pair(out: Path) -> None:
    S = GGUFValueType.STRING
    U32 = GGUFValueType.UINT32
    F32 = GGUFValueType.FLOAT32
    base = [
        ("general.name", b"tiny compare A", S, None),
        ("general.file_type", 2, U32, None),
        ("llama.block_count", 2, U32, None),
        ("llama.context_length", 2048, U32, None),
        ("llama.embedding_length", 256, U32, None),
        ("llama.rope.freq_base", 10000.0, F32, None),
        ("tokenizer.ggml.model", b"llama", S, None),
        ("tokenizer.ggml.tokens", [f"t{i}".encode() for i in range(64)], GGUFValueType.ARRAY, S),
        ("general.description", b"only in A", S, None),
    ]
    tensors = [("token_embd.weight", [256, 16384], T.Q8_0)]
    for i in range(2):
        tensors += [
            (f"blk.{i}.attn_norm.weight", [256], T.F32),
            (f"blk.{i}.attn_q.weight", [256, 256], T.Q4_0),
            (f"blk.{i}.attn_k.weight", [256, 256], T.Q4_0),
            (f"blk.{i}.ffn_down.weight", [256, 512], T.Q4_K),
        ]
    tensors += [("output_norm.weight", [256], T.F32), ("output.weight", [256, 16384], T.Q6_K)]
    write_header_only(out / "small-a.gguf", "llama", base, tensors)

    kb = [kv for kv in base if kv[0] != "general.description"]
    kb[0] = ("general.name", "tiny compare B: <b>not html</b> ✓".encode(), S, None)
    kb[3] = ("llama.context_length", 4096, U32, None)
    kb.append(("general.comment", b"only in B", S, None))
    tb = [("blk.0.attn_q.weight", s, T.Q8_0) if n == "blk.0.attn_q.weight" else (n, s, d)
          for n, s, d in tensors if n != "output_norm.weight"]
    tb.append(("blk.1.extra.weight", [256], T.F16))
    write_header_only(out / "small-b.gguf", "llama", kb, tb)


def gemma_pair(out: Path, gemma: Path) -> None:
    r = GGUFReader(gemma)
    kvs = fields_of(r)
    arch = next(v for k, v, *_ in kvs if k == "general.architecture").decode()
    drop = next((k for k, *_ in kvs if k == "general.basename"), kvs[-1][0])
    mod = []
    for k, v, t, s in kvs:
        if k == drop:
            continue
        if k == "general.name":
            v = b"Gemma 3 270m (weightpeek compare fixture)"
        mod.append((k, v, t, s))
    mod.append(("weightpeek.fixture", b"a modified copy of the header", GGUFValueType.STRING, None))
    tensors = []
    retyped = False
    names = [t.name for t in r.tensors]
    gone = "output_norm.weight" if "output_norm.weight" in names else names[-1]
    for t in r.tensors:
        if t.name == gone:
            continue
        ty = T(int(t.tensor_type))
        shape = [int(d) for d in t.shape]
        if not retyped and t.name.startswith("blk.0.") and ty == T.Q4_K:
            ty, retyped = T.Q8_0, True
        tensors.append((t.name, shape, ty))
    tensors.append(("weightpeek.extra.weight", [640], T.F32))
    write_header_only(out / "gemma-modified.gguf", arch, mod, tensors)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--gemma", type=Path,
                    default=Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache" / "weightpeek-data"))
                    / "gemma-3-270m-q4_k_m.gguf")
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    me = Path(__file__).stat().st_mtime
    fresh = lambda p: p.exists() and p.stat().st_mtime > me  # noqa: E731
    if not fresh(out / "small.json"):
        small_pair(out)
        doc = expected(out / "small-a.gguf", out / "small-b.gguf")
        (out / "small.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(f"compare fixtures: small pair written to {out}")
    if args.gemma.exists() and not fresh(out / "gemma.json"):
        gemma_pair(out, args.gemma)
        doc = expected(args.gemma, out / "gemma-modified.gguf")
        doc["a_path"] = str(args.gemma)
        (out / "gemma.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(f"compare fixtures: gemma pair written to {out}")
    elif not args.gemma.exists():
        print(f"compare fixtures: no {args.gemma}, the gemma pair is skipped")


if __name__ == "__main__":
    main()
