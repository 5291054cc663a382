#!/usr/bin/env python3
"""Reference previews for weightpeek's tensor preview (src/preview/), checked by
tests/preview.rs (native) and tests/e2e/preview.test.mjs (the page).

For each case (a tensor of the real Gemma 3 GGUF or MiniLM safetensors file, and a window of
it) it computes, independently of weightpeek:
  - the window: rows/columns (the default rule below when none are given), and the byte range
    covering it, from the reader's own tensor offsets and ggml's block sizes;
  - the values: gguf-py GGUFReader rows + gguf.quants.dequantize (GGUF), safetensors safe_open
    with numpy (safetensors), cropped to the columns;
  - statistics over the finite values in float64 (numpy): min, max, mean, std (ddof=0),
    mean |x|, counts of zeros / NaN / +Inf / -Inf; the 64-bin histogram with
    bin = floor((x - min) / (max - min) * 64) (clipped to 63) and edges min + (max-min)*i/64;
  - the first 64 values as float32 bit patterns.

Default window (the spec weightpeek implements): all columns of a row if the row has at most
2^20 values, else its first 2^20; rows 0 .. min(rows, max(1, 2^20 // columns)).
A GGUF row is ne0 values (the contiguous dimension); a safetensors row the last dimension.

Usage: preview_reference.py --out FILE [--gemma PATH] [--minilm PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
from gguf import GGUFReader, quants
from gguf.constants import GGML_QUANT_SIZES
from safetensors import safe_open

DATA = Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache" / "weightpeek-data"))
DEFAULT = 1 << 20
BINS = 64

# (file, tensor, rows, cols); None = the default.
CASES = [
    ("gemma", "blk.0.attn_output.weight", None, None),   # Q4_K, whole tensor (640 rows of 1024)
    ("gemma", "blk.0.ffn_down.weight", None, None),      # Q6_K, first 512 rows of 2048
    ("gemma", "output_norm.weight", None, None),         # F32, one row
    ("gemma", "token_embd.weight", None, None),          # Q8_0, 1638 of 262144 rows
    ("gemma", "token_embd.weight", (1000, 1100), (100, 300)),  # Q8_0 crop, partial blocks
    ("gemma", "blk.3.attn_output.weight", (5, 9), (300, 700)),  # Q4_K crop inside 256-blocks
    ("gemma", "blk.0.attn_q.weight", (7, 8), (33, 35)),  # Q5_0, one row, two values
    ("minilm", "encoder.layer.0.attention.self.query.weight", None, None),  # F32 [384, 384]
    ("minilm", "embeddings.word_embeddings.weight", (100, 200), (10, 50)),  # F32 crop
    ("minilm", "embeddings.position_ids", None, None),   # I64 [1, 512]
]


def default_window(n_rows: int, row_values: int):
    cols = (0, min(row_values, DEFAULT))
    n_cols = cols[1] - cols[0]
    rows = (0, min(n_rows, max(1, DEFAULT // n_cols)))
    return rows, cols


def stats(x: np.ndarray) -> dict:
    x = x.astype(np.float32).ravel()
    fin = x[np.isfinite(x)]
    d = fin.astype(np.float64)
    out = dict(
        count=int(x.size), finite=int(fin.size), zeros=int(np.count_nonzero(fin == 0)),
        nan=int(np.count_nonzero(np.isnan(x))), pos_inf=int(np.count_nonzero(x == np.inf)),
        neg_inf=int(np.count_nonzero(x == -np.inf)),
    )
    if fin.size:
        mn, mx = float(fin.min()), float(fin.max())
        out.update(min=mn, max=mx, mean=float(d.mean()), std=float(d.std()),
                   mean_abs=float(np.abs(d).mean()))
        if mx > mn:
            k = np.floor((d - mn) / (mx - mn) * BINS).astype(np.int64)
        else:
            k = np.zeros(d.size, np.int64)
        counts = np.bincount(np.minimum(k, BINS - 1), minlength=BINS)
        edges = [mn + (mx - mn) * i / BINS for i in range(BINS)] + [mx]
        out["histogram"] = dict(counts=[int(c) for c in counts], edges=edges)
    return out


def gguf_case(reader: GGUFReader, name: str, rows, cols) -> dict:
    t = next(t for t in reader.tensors if t.name == name)
    qt = t.tensor_type
    bs, ts = GGML_QUANT_SIZES[qt]
    ne = [int(v) for v in t.shape]
    row_values = ne[0]
    n_rows = int(np.prod(ne[1:])) if len(ne) > 1 else 1
    row_bytes = row_values // bs * ts
    if rows is None and cols is None:
        rows, cols = default_window(n_rows, row_values)
    u0, u1 = cols[0] // bs, -(-cols[1] // bs)
    first = rows[0] * row_bytes + u0 * ts
    last_end = (rows[1] - 1) * row_bytes + u1 * ts
    raw = np.asarray(t.data).reshape(n_rows, -1)[rows[0]:rows[1]]
    if qt.name in ("F32", "F16", "BF16"):
        vals = quants.dequantize(raw.view(np.uint8), qt) if qt.name != "F32" else raw
    else:
        vals = quants.dequantize(np.ascontiguousarray(raw), qt)
    vals = np.asarray(vals, np.float32).reshape(rows[1] - rows[0], row_values)[:, cols[0]:cols[1]]
    return dict(dtype=qt.name, read_offset=int(t.data_offset) + first, read_len=last_end - first,
                rows=list(rows), cols=list(cols), values=vals)


def st_case(path: Path, name: str, rows, cols) -> dict:
    with safe_open(str(path), "np") as f:
        arr = f.get_tensor(name)
    # Byte offsets from the header itself.
    with open(path, "rb") as fh:
        n = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(n))
    info = header[name]
    itemsize = arr.dtype.itemsize
    row_values = arr.shape[-1] if arr.ndim else 1
    n_rows = int(np.prod(arr.shape[:-1])) if arr.ndim > 1 else 1
    if rows is None and cols is None:
        rows, cols = default_window(n_rows, row_values)
    m = arr.reshape(n_rows, row_values)[rows[0]:rows[1], cols[0]:cols[1]]
    row_bytes = row_values * itemsize
    first = rows[0] * row_bytes + cols[0] * itemsize
    last_end = (rows[1] - 1) * row_bytes + cols[1] * itemsize
    return dict(dtype=info["dtype"], read_offset=8 + n + info["data_offsets"][0] + first,
                read_len=last_end - first, rows=list(rows), cols=list(cols),
                values=m.astype(np.float32))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--gemma", type=Path, default=DATA / "gemma-3-270m-q4_k_m.gguf")
    ap.add_argument("--minilm", type=Path, default=DATA / "all-MiniLM-L6-v2" / "model.safetensors")
    a = ap.parse_args()
    for p in (a.gemma, a.minilm):
        if not p.is_file():
            print(f"error: {p} missing", file=sys.stderr)
            return 1
    reader = GGUFReader(str(a.gemma))
    cases = []
    for file, name, rows, cols in CASES:
        c = gguf_case(reader, name, rows, cols) if file == "gemma" else st_case(a.minilm, name, rows, cols)
        vals = c.pop("values")
        first = np.ascontiguousarray(vals).ravel()[:64].astype("<f4")
        cases.append(dict(file=file, tensor=name,
                          request=dict(rows=list(rows) if rows else None, cols=list(cols) if cols else None),
                          **c, stats=stats(vals), first_bits=[int(b) for b in first.view("<u4")]))
    doc = dict(generator="tests/reference/preview_reference.py",
               versions={k: version(k) for k in ("gguf", "numpy", "safetensors")},
               files=dict(gemma=a.gemma.name, minilm=str(a.minilm.relative_to(a.minilm.parent.parent))),
               cases=cases)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(a.out)
    print(f"preview reference: {len(cases)} cases in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
