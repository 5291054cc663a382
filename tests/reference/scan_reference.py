#!/usr/bin/env python3
"""Reference results of `weightpeek scan` (issue #22), checked by tests/scan.rs.

Writes into --out:
  types.gguf      one tensor of every ggml type gguf-py can write (random blocks with finite
                  scales, as tests/reference/dequant_vectors.py makes them; random plain values,
                  64-bit integers past 2^53 included);
  bad.gguf        NaN and infinite F32/F16/BF16 values, a Q4_K with a NaN d and an infinite
                  dmin, a Q8_0 with a -Inf d, an MXFP4 with the invalid exponent 0xFF, an IQ1_M
                  whose spread scale is +Inf, an all-zero F16, and five sibling tensors one of
                  which is 10^5 times larger than the others;
  truncated.gguf  types.gguf cut in the middle of its last tensor's data;
  expected.json   per file and tensor: count, nan, inf, zeros, min, max, mean, std (numpy in
                  float64 over the values gguf-py dequantises: `quants.dequantize`, or the
                  GGUFReader's typed array for plain types, or the ggml definitions transcribed
                  in dequant_vectors.py for Q8_K and Q1_0; gguf-py writes no Q8_1: it takes its blocks for 40 bytes, ggml for 36), the block scales that are NaN
                  or infinite (read with numpy at the ggml-common.h offsets), the first bad
                  block's file offset, and the findings the scan must give; the same for the
                  real Gemma 3 GGUF and MiniLM safetensors files (safetensors' numpy reader).

Usage: scan_reference.py --out DIR --gemma PATH --minilm PATH
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFReader, GGUFWriter, quants
from safetensors import safe_open

sys.path.insert(0, str(Path(__file__).parent))
import dequant_vectors as dv  # noqa: E402  (random_blocks, sizes, the ggml transcriptions)

RNG = np.random.default_rng(20261203)
dv.RNG = RNG

# Types dequantised by the ggml definitions transcribed in dequant_vectors.py.
TRANSCRIBED = {"Q8_K": dv.ggml_q8_k, "Q1_0": dv.ggml_q1_0}
# Plain types: read as GGUFReader's typed array.
PLAIN = {"F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64"}
# ggml_validate_row_data's judged scales (see src/scan/scales.rs): f16 offsets, Q8_K's f32 d,
# MXFP4's e, IQ1_M's spread f16.
F16_JUDGED = dict(dv.F16_SCALES)
F16_JUDGED.pop("IQ1_M")
F16_JUDGED.pop("MXFP4")
F16_JUDGED.pop("NVFP4")
OUTLIER_FACTOR = 1000.0
MIN_SIBLINGS = 4


def values_of(t) -> np.ndarray:
    """A GGUFReader tensor's values, float64 (ints: their own integer dtype kept for min/max)."""
    name = t.tensor_type.name
    if name == "BF16":
        raw = np.ascontiguousarray(t.data).view(np.uint16).astype(np.uint32) << 16
        return raw.view(np.float32).astype(np.float64).ravel()
    if name in PLAIN:
        return np.ascontiguousarray(t.data).ravel()
    raw = np.ascontiguousarray(t.data).view(np.uint8).ravel()
    if name in TRANSCRIBED:
        return TRANSCRIBED[name](raw).astype(np.float64).ravel()
    return quants.dequantize(raw, t.tensor_type).astype(np.float64).ravel()


def value_stats(x: np.ndarray) -> dict:
    """numpy's counts and float64 statistics over the finite values."""
    is_int = np.issubdtype(x.dtype, np.integer)
    f = x.astype(np.float64)
    finite = f[np.isfinite(f)]
    out = dict(count=int(x.size), nan=int(np.isnan(f).sum()), inf=int(np.isinf(f).sum()),
               zeros=int((finite == 0).sum()))
    if finite.size == 0:
        out.update(min=None, max=None, mean=None, std=None)
        return out
    if is_int:
        out.update(min=int(x.min()), max=int(x.max()))
    else:
        out.update(min=float(finite.min()), max=float(finite.max()))
    out.update(mean=float(np.mean(finite)), std=float(np.std(finite)))
    return out


def bad_scales(t) -> tuple[int, int, int, int | None]:
    """(NaN scales, infinite scales, blocks, index of the first block with a bad scale)."""
    name = t.tensor_type.name
    if name in PLAIN or name == "NVFP4":
        return 0, 0, 0, None
    bs, ts = dv.sizes(name)
    b = np.ascontiguousarray(t.data).view(np.uint8).reshape(-1, ts)
    fields = []
    if name == "MXFP4":
        e = b[:, 0]
        fields.append((e == 0xFF, np.zeros(len(e), bool)))
    elif name == "Q8_K":
        d = b[:, 0:4].copy().view("<f4").ravel()
        fields.append((np.isnan(d), np.isinf(d)))
    elif name == "IQ1_M":
        sc = b[:, 48:56].copy().view("<u2")
        u = (sc[:, 0] >> 12) | ((sc[:, 1] >> 8) & 0xF0) | ((sc[:, 2] >> 4) & 0xF00) | (sc[:, 3] & 0xF000)
        d = u.astype(np.uint16).view(np.float16)
        fields.append((np.isnan(d), np.isinf(d)))
    else:
        for off in F16_JUDGED[name]:
            d = b[:, off:off + 2].copy().view("<f2").ravel()
            fields.append((np.isnan(d), np.isinf(d)))
    nan = sum(int(n.sum()) for n, _ in fields)
    inf = sum(int(i.sum()) for _, i in fields)
    bad = np.zeros(len(b), bool)
    for n, i in fields:
        bad |= n | i
    first = int(np.argmax(bad)) if bad.any() else None
    return nan, inf, len(b), first


def sibling_key(name: str) -> str:
    """Every '.'- or '/'-separated part of the name that is all digits becomes '#'."""
    return "/".join(".".join("#" if p.isdigit() else p for p in seg.split(".")) for seg in name.split("/"))


def expected_findings(tensors: dict) -> list[dict]:
    """The findings the scan gives (src/scan/findings.rs's rules), in its order."""
    errors, zeros, notes = [], [], []
    for name, t in tensors.items():
        if t.get("unreadable"):
            errors.append(dict(code="scan-unreadable", tensor=name, offset=None))
            continue
        if t["nan"] + t["inf"] > 0:
            errors.append(dict(code="scan-non-finite-values", tensor=name, offset=t["first_bad_offset"]))
        if t["scale_nan"] + t["scale_inf"] > 0:
            errors.append(dict(code="scan-non-finite-scales", tensor=name, offset=t["first_bad_offset"]))
        if t["count"] > 0 and t["zeros"] == t["count"]:
            zeros.append(dict(code="scan-all-zero", tensor=name, offset=None))
    groups: dict[str, list[tuple[str, float]]] = {}
    for name, t in tensors.items():
        if t.get("mean") is not None:
            r = float(np.sqrt(t["mean"] ** 2 + t["std"] ** 2))
            groups.setdefault(sibling_key(name), []).append((name, r))
    flagged = set()
    for members in groups.values():
        if len(members) < MIN_SIBLINGS:
            continue
        med = float(np.median([r for _, r in members]))
        for name, r in members:
            if med > 0 and (r > med * OUTLIER_FACTOR or 0 < r < med / OUTLIER_FACTOR):
                flagged.add(name)
    outliers = [dict(code="scan-outlier", tensor=n, offset=None) for n in tensors if n in flagged]
    return errors + zeros + outliers + notes


def gguf_expected(path: Path, size: int | None = None) -> dict:
    """Per-tensor results for a GGUF file; `size` cuts it (tensors past it are unreadable)."""
    r = GGUFReader(str(path))
    out = {}
    for t in r.tensors:
        ty = t.tensor_type.name
        start = int(t.data_offset)
        if size is not None and start + int(t.n_bytes) > size:
            out[t.name] = dict(type=ty, unreadable=True)
            continue
        x = values_of(t)
        e = value_stats(x)
        nan, inf, blocks, first_block = bad_scales(t)
        e.update(type=ty, scale_nan=nan, scale_inf=inf, blocks=blocks)
        # The first block (plain types: element) holding a bad value or scale.
        bs, ts = (1, np.dtype(t.data.dtype).itemsize) if ty in PLAIN else dv.sizes(ty)
        if ty == "BF16":
            bs, ts = 1, 2
        f = x.astype(np.float64)
        bad_vals = np.flatnonzero(~np.isfinite(f))
        firsts = [b for b in [first_block, int(bad_vals[0]) // bs if bad_vals.size else None] if b is not None]
        e["first_bad_offset"] = start + min(firsts) * ts if firsts else None
        out[t.name] = e
    return out


def add(w: GGUFWriter, name: str, ty: str, raw: np.ndarray, ne0: int) -> None:
    """A quantised tensor of raw blocks, `ne0` values per row."""
    bs, ts = dv.sizes(ty)
    rows = raw.size // ts // (ne0 // bs)
    w.add_tensor(name, raw.reshape(rows, ne0 // bs * ts), raw_dtype=T[ty])


def write_types(path: Path) -> None:
    w = GGUFWriter(str(path), "scan-types")
    for ty in ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
               "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S",
               "IQ4_XS", "IQ1_M", "TQ1_0", "TQ2_0", "MXFP4", "NVFP4", "Q1_0"]:
        bs, ts = dv.sizes(ty)
        n_blocks = 12 if bs >= 256 else 48
        if ty == "Q8_K":  # {f32 d; int8 qs[256]; int16 bsums[16]}: random bytes, a finite d below
            raw = RNG.integers(0, 256, size=n_blocks * ts, dtype=np.uint8)
        else:
            raw = dv.random_blocks(ty, n_blocks)
        if ty == "MXFP4":
            raw.reshape(n_blocks, ts)[3, 0] = 200  # 0xFF stays for bad.gguf
        if ty == "Q8_K":
            raw.reshape(n_blocks, ts)[:, 0:4] = RNG.normal(0, 0.01, (n_blocks, 1)).astype("<f4").view(np.uint8)
        add(w, f"t.{ty}", ty, raw, bs * (4 if bs < 256 else 2))
    w.add_tensor("t.F32", RNG.normal(0, 0.05, (3, 640)).astype(np.float32))
    w.add_tensor("t.F16", RNG.normal(0, 2, (3, 640)).astype(np.float16))
    bf = (RNG.normal(0, 1, (3, 640)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    w.add_tensor("t.BF16", bf.view(np.uint8).reshape(3, 1280), raw_dtype=T.BF16)
    w.add_tensor("t.F64", RNG.normal(1e3, 1e-3, (2, 100)).astype(np.float64))
    w.add_tensor("t.I8", RNG.integers(-128, 128, (2, 64), dtype=np.int8))
    w.add_tensor("t.I16", RNG.integers(-32768, 32768, (2, 64), dtype=np.int16))
    w.add_tensor("t.I32", RNG.integers(-2**31, 2**31, (2, 64), dtype=np.int32))
    i64 = RNG.integers(-2**62, 2**62, (2, 64), dtype=np.int64)
    i64[0, 0], i64[1, 5] = 2**63 - 1, -2**63 + 3  # extremes past 2^53: min/max exact
    w.add_tensor("t.I64", i64)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def set_f16(raw: np.ndarray, ts: int, block: int, off: int, bits: int) -> None:
    raw.reshape(-1, ts)[block, off:off + 2] = np.array([bits], "<u2").view(np.uint8)


def write_bad(path: Path) -> None:
    w = GGUFWriter(str(path), "scan-bad")
    x = RNG.normal(0, 1, 1024).astype(np.float32)
    x[[10, 500, 1000]] = np.nan
    x[[7, 800]] = np.inf
    x[900] = -np.inf
    w.add_tensor("nan.F32", x.reshape(2, 512))
    w.add_tensor("nan.F16", x.astype(np.float16).reshape(2, 512))
    bf = (x.view(np.uint32) >> 16).astype(np.uint16)
    bf[300] = 0x7FC1  # a NaN with a payload
    w.add_tensor("nan.BF16", bf.view(np.uint8).reshape(2, 1024), raw_dtype=T.BF16)
    raw = dv.random_blocks("Q4_K", 8)
    set_f16(raw, 144, 3, 0, 0x7E00)  # d NaN
    set_f16(raw, 144, 5, 2, 0x7C00)  # dmin +Inf
    add(w, "bad_d.Q4_K", "Q4_K", raw, 512)
    raw = dv.random_blocks("Q8_0", 32)
    set_f16(raw, 34, 7, 0, 0xFC00)  # d -Inf
    add(w, "bad_d.Q8_0", "Q8_0", raw, 256)
    raw = dv.random_blocks("MXFP4", 16)
    raw.reshape(16, 17)[:4, 0] = 100  # e of the first blocks: finite scales
    raw.reshape(16, 17)[2, 0] = 0xFF
    add(w, "bad_e.MXFP4", "MXFP4", raw, 128)
    raw = dv.random_blocks("IQ1_M", 4)
    sc = raw.reshape(4, 56)[1, 48:56].copy().view("<u2")
    for i, nib in enumerate([0x0, 0x0, 0xC, 0x7]):  # spread f16 0x7C00 = +Inf
        sc[i] = (sc[i] & 0x0FFF) | (nib << 12)
    raw.reshape(4, 56)[1, 48:56] = sc.view(np.uint8)
    add(w, "bad_d.IQ1_M", "IQ1_M", raw, 512)
    w.add_tensor("zero.F16", np.zeros((4, 128), np.float16))
    for i in range(5):
        v = RNG.normal(0, 0.02, (2, 256)).astype(np.float32)
        w.add_tensor(f"blk.{i}.w", v * (1e5 if i == 3 else 1))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--gemma", required=True, type=Path)
    ap.add_argument("--minilm", required=True, type=Path)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    files = {}
    write_types(a.out / "types.gguf")
    write_bad(a.out / "bad.gguf")
    for name in ["types.gguf", "bad.gguf"]:
        t = gguf_expected(a.out / name)
        files[name] = dict(tensors=t, findings=expected_findings(t))
    # Cut in the middle of the last tensor's data.
    r = GGUFReader(str(a.out / "types.gguf"))
    last = max(r.tensors, key=lambda t: int(t.data_offset))
    cut = int(last.data_offset) + int(last.n_bytes) // 2
    shutil.copy(a.out / "types.gguf", a.out / "truncated.gguf")
    with open(a.out / "truncated.gguf", "r+b") as f:
        f.truncate(cut)
    t = gguf_expected(a.out / "types.gguf", size=cut)
    files["truncated.gguf"] = dict(tensors=t, findings=expected_findings(t), size=cut)
    t = gguf_expected(a.gemma)
    files["gemma"] = dict(path=str(a.gemma), tensors=t, findings=expected_findings(t))
    st = {}
    with safe_open(str(a.minilm), "np") as f:
        for k in f.keys():
            x = f.get_tensor(k)
            e = value_stats(x.ravel())
            e.update(type=str(x.dtype), scale_nan=0, scale_inf=0, blocks=0, first_bad_offset=None)
            st[k] = e
    files["minilm"] = dict(path=str(a.minilm), tensors=st, findings=expected_findings(st))
    doc = dict(files=files, versions=dict(gguf=version("gguf"), numpy=np.__version__,
                                          safetensors=version("safetensors")))
    (a.out / "expected.json").write_text(json.dumps(doc, indent=1, allow_nan=False))
    for k, v in files.items():
        print(f"scan reference {k}: {len(v['tensors'])} tensors, {len(v['findings'])} findings")


if __name__ == "__main__":
    main()
