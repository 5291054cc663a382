#!/usr/bin/env python3
"""Reference vectors for weightpeek's dequantisers (src/dequant/), checked bit for bit by
tests/dequant.rs.

For each case it writes CASE.bin (input bytes, as stored in a GGUF / safetensors file) and
CASE.f32 (expected values, little-endian float32), plus index.json listing the cases, where each
expectation comes from and the versions used. Sources:

  gguf-py (`gguf.quants.quantize` / `dequantize`, which match ggml bit for bit):
    - types it can quantise, from real weights (rows of the MiniLM safetensors model):
      F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, TQ1_0, TQ2_0, MXFP4;
    - random blocks with finite f16 scales for every type it can dequantise: the above plus all
      K-quants, all IQ types and NVFP4;
    - real rows of the Gemma 3 270M GGUF (Q4_K, Q5_0, Q6_K, Q8_0, F32), read with GGUFReader.
  ggml's definitions, transcribed to numpy float32 below (gguf-py has no dequantiser for them):
    Q8_1, Q8_K, Q1_0, Q2_0 (ggml-common.h block layouts; ggml-quants.c dequantize_row_q8_K,
    dequantize_row_q1_0, dequantize_row_q2_0; Q8_1 = d * qs like dequantize_row_q8_0), and the
    plain types I8, I16, I32, I64, F64 (numpy astype(float32)), also byte-swapped (big-endian).
  numpy and ml_dtypes for safetensors dtypes: every byte of each F8 type, every F4 nibble pair
    (first value in the low nibble, as PyTorch float4_e2m1fn_x2 / safetensors F4 store them),
    F16/BF16/F32/F64 special values and real weights, all integer dtypes, BOOL, C64.

Usage: dequant_vectors.py --out DIR [--minilm PATH] [--gemma PATH]
Missing model files are an error (the test command provides them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFReader
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES
from safetensors import safe_open

DATA = Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache" / "weightpeek-data"))
RNG = np.random.default_rng(20240604)
F32 = np.float32

# Where each GGML type's f16 scale fields sit in its block (byte offsets, ggml-common.h).
F16_SCALES = {
    "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0],
    "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208],
    "IQ2_XXS": [0], "IQ2_XS": [0], "IQ2_S": [0], "IQ3_XXS": [0], "IQ3_S": [0], "IQ1_S": [0],
    "IQ4_NL": [0], "IQ4_XS": [0], "TQ1_0": [52], "TQ2_0": [64],
    "MXFP4": [], "NVFP4": [],  # E8M0 / UE4M3 scales: every byte is finite
    "IQ1_M": [],  # f16 scale spread over the top nibbles of 4 u16 (set below)
    "Q8_1": [0, 2], "Q1_0": [0], "Q2_0": [0],
}

# (block size, bytes per block) where gguf-py 0.19.0 has no or a different entry than ggml's
# sizeof(block_*) in ggml-common.h: it lacks Q2_0, and lists Q8_1 as 40 bytes (ggml: 2 f16 + 32).
GGML_SIZES = {"Q8_1": (32, 36), "Q2_0": (64, 18)}


def sizes(name: str) -> tuple[int, int]:
    if name in GGML_SIZES:
        return GGML_SIZES[name]
    return GGML_QUANT_SIZES[T[name]]


class Out:
    def __init__(self, root: Path):
        self.root = root
        self.cases: list[dict] = []
        root.mkdir(parents=True, exist_ok=True)
        for old in list(root.glob("*.bin")) + list(root.glob("*.f32")):
            old.unlink()

    def add(self, name: str, kind: str, ty: str, data: bytes, expected: np.ndarray, source: str, big_endian=False):
        expected = np.ascontiguousarray(expected, dtype="<f4").ravel()
        assert name not in {c["name"] for c in self.cases}, name
        (self.root / f"{name}.bin").write_bytes(bytes(data))
        (self.root / f"{name}.f32").write_bytes(expected.tobytes())
        self.cases.append(
            dict(name=name, kind=kind, type=ty, big_endian=big_endian, input=f"{name}.bin",
                 expected=f"{name}.f32", values=int(expected.size), source=source)
        )


def finite_f16(n: int) -> np.ndarray:
    """Finite f16 scales: mostly model-like magnitudes, plus 0, ±subnormals and large ones."""
    mag = np.exp2(RNG.uniform(-14, 2, n)).astype(np.float16)
    sign = np.where(RNG.random(n) < 0.2, -1, 1).astype(np.float16)
    v = mag * sign
    special = np.array([0.0, -0.0, 6e-8, -6e-8, 3e-5, 65504.0, 1.0, 0.5], dtype=np.float16)
    k = min(n // 4, special.size)
    v[:k] = special[:k]
    RNG.shuffle(v)
    assert np.isfinite(v).all()
    return v


def random_blocks(name: str, n_blocks: int) -> np.ndarray:
    bs, ts = sizes(name)
    raw = RNG.integers(0, 256, size=(n_blocks, ts), dtype=np.uint8)
    for off in F16_SCALES[name]:
        raw[:, off:off + 2] = finite_f16(n_blocks).view(np.uint8).reshape(n_blocks, 2)
    if name == "IQ1_M":
        # scale.u16 = sc[0]>>12 | (sc[1]>>8)&0xf0 | (sc[2]>>4)&0xf00 | sc[3]&0xf000 (u16 at 48..56)
        d = finite_f16(n_blocks).view(np.uint16)
        sc = raw[:, 48:56].copy().view("<u2")
        for i in range(4):
            nib = (d >> (4 * i)) & 0xF
            sc[:, i] = (sc[:, i] & 0x0FFF) | (nib << 12)
        raw[:, 48:56] = sc.view(np.uint8)
    if name == "MXFP4":
        raw[:4, 0] = [0, 1, 254, 255]  # e8m0 edge cases (subnormal scales, 2^126, 2^127)
    if name == "NVFP4":
        raw[0, :4] = [0x00, 0x7F, 0x80, 0xFF]  # ue4m3 zero cases and the ignored sign bit
    return raw.reshape(-1)


def minilm_rows(path: Path, n_values: int) -> np.ndarray:
    with safe_open(str(path), "np") as f:
        w = f.get_tensor("encoder.layer.0.attention.self.query.weight")
    return np.ascontiguousarray(w.reshape(-1)[:n_values], dtype=F32)


# --- ggml definitions transcribed (types gguf-py cannot dequantise) -------------------------

def ggml_q8_1(raw: np.ndarray) -> np.ndarray:
    """block_q8_1 {f16 d; f16 s; int8 qs[32]}: y = qs * d (as dequantize_row_q8_0)."""
    b = raw.reshape(-1, 36)
    d = b[:, 0:2].copy().view(np.float16).astype(F32)
    qs = b[:, 4:].copy().view(np.int8).astype(F32)
    return qs * d


def ggml_q8_k(raw: np.ndarray) -> np.ndarray:
    """block_q8_K {f32 d; int8 qs[256]; int16 bsums[16]}: dequantize_row_q8_K, y = d * qs."""
    b = raw.reshape(-1, 292)
    d = b[:, 0:4].copy().view("<f4")
    qs = b[:, 4:260].copy().view(np.int8).astype(F32)
    return d * qs


def ggml_q1_0(raw: np.ndarray) -> np.ndarray:
    """block_q1_0 {f16 d; uint8 qs[16]}: dequantize_row_q1_0, bit j (LSB first) ? d : -d."""
    b = raw.reshape(-1, 18)
    d = b[:, 0:2].copy().view(np.float16).astype(F32)
    bits = np.unpackbits(b[:, 2:], axis=1, bitorder="little")
    return np.where(bits == 1, d, -d)


def ggml_q2_0(raw: np.ndarray) -> np.ndarray:
    """block_q2_0 {f16 d; uint8 qs[16]}: dequantize_row_q2_0, y = (q - 1) * d, 2-bit q LSB first."""
    b = raw.reshape(-1, 18)
    d = b[:, 0:2].copy().view(np.float16).astype(F32)
    qs = b[:, 2:]
    q = np.stack([(qs >> (2 * k)) & 3 for k in range(4)], axis=-1).reshape(b.shape[0], 64)
    return (q.astype(np.int32) - 1).astype(F32) * d


# --- cases ---------------------------------------------------------------------------------

def gguf_cases(out: Out, minilm: Path, gemma: Path) -> None:
    real = minilm_rows(minilm, 1536)  # four 384-value rows = 6 blocks of 256
    src_q = "gguf-py quants.quantize then quants.dequantize of MiniLM encoder.layer.0 query rows"
    for qt in [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.TQ1_0, T.TQ2_0, T.MXFP4, T.BF16]:
        data = quants.quantize(real, qt)
        out.add(f"{qt.name}.minilm", "ggml", qt.name, data.tobytes(), quants.dequantize(data, qt), src_q)
    f16 = real.astype(np.float16)
    out.add("F16.minilm", "ggml", "F16", f16.tobytes(), quants.dequantize(f16.view(np.uint8), T.F16), src_q)
    out.add("F32.minilm", "ggml", "F32", real.tobytes(), real, "MiniLM rows as stored")

    src_r = "random blocks with finite f16 scales, gguf-py quants.dequantize"
    for qt in [T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.TQ1_0, T.TQ2_0, T.MXFP4, T.NVFP4,
               T.IQ4_NL]:
        raw = random_blocks(qt.name, 48 if sizes(qt.name)[0] <= 64 else 8)
        out.add(f"{qt.name}.random", "ggml", qt.name, raw.tobytes(), quants.dequantize(raw, qt), src_r)
    for qt in [T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K, T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS,
               T.IQ3_S, T.IQ1_S, T.IQ1_M, T.IQ4_XS]:
        raw = random_blocks(qt.name, 12)
        out.add(f"{qt.name}.random", "ggml", qt.name, raw.tobytes(), quants.dequantize(raw, qt), src_r)

    reader = GGUFReader(str(gemma))
    seen = set()
    for t in reader.tensors:
        name = t.tensor_type.name
        if name in {"Q4_K", "Q5_0", "Q6_K", "Q8_0", "F32"} and name not in seen:
            seen.add(name)
            rows = np.ascontiguousarray(t.data[:2] if t.data.ndim > 1 else t.data)
            exp = quants.dequantize(rows.view(np.uint8), t.tensor_type) if name != "F32" else rows
            out.add(f"{name}.gemma", "ggml", name, rows.tobytes(), exp,
                    f"Gemma 3 270M {t.name}, first rows, GGUFReader + gguf-py quants.dequantize")
    assert seen == {"Q4_K", "Q5_0", "Q6_K", "Q8_0", "F32"}, seen

    src_def = "ggml definition transcribed to numpy float32 (tests/reference/dequant_vectors.py)"
    for name, fn in [("Q8_1", ggml_q8_1), ("Q1_0", ggml_q1_0), ("Q2_0", ggml_q2_0)]:
        raw = random_blocks(name, 16)
        out.add(f"{name}.ggmldef", "ggml", name, raw.tobytes(), fn(raw), src_def)
    raw = RNG.integers(0, 256, size=(4, 292), dtype=np.uint8)
    d = np.array([0.0078125, -3.5e-3, 1.2e-38, 100.0], dtype="<f4")  # incl. an f32 subnormal
    raw[:, 0:4] = d.view(np.uint8).reshape(4, 4)
    out.add("Q8_K.ggmldef", "ggml", "Q8_K", raw.tobytes(), ggml_q8_k(raw), src_def)

    # Plain types, both byte orders (ggml byte-swaps plain types for big-endian files).
    specials64 = np.array([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-40, 1e-50, 3.5e38,
                           1e39, -1e39, 1.0000000596046448, 1.0000001788139343, 16777217.0],
                          dtype=np.float64)
    plain = {
        "F32": np.concatenate([real[:256], np.array([np.inf, -np.inf, np.nan, -0.0, 1e-45], F32)]),
        "F16": f16_specials(),
        "BF16": bf16_specials(),
        "F64": np.concatenate([specials64, RNG.normal(0, 1e3, 64)]),
        "I8": np.arange(-128, 128, dtype=np.int8),
        "I16": np.concatenate([np.array([-32768, -1, 0, 1, 32767], np.int16),
                               RNG.integers(-32768, 32768, 64, dtype=np.int16)]),
        "I32": np.concatenate([np.array([-2**31, 2**31 - 1, 16777217, 16777219, -16777217], np.int32),
                               RNG.integers(-2**31, 2**31, 64, dtype=np.int32)]),
        "I64": np.concatenate([np.array([-2**63, 2**63 - 1, 2**53 + 1, 16777217, -1], np.int64),
                               RNG.integers(-2**63, 2**63 - 1, 64, dtype=np.int64)]),
    }
    for name, arr in plain.items():
        le = arr.astype(arr.dtype.newbyteorder("<"))
        if name == "F16":
            exp = le.astype(F32)
        elif name == "BF16":
            exp = le.astype(F32)
        else:
            exp = le.astype(F32)
        src = "numpy astype(float32) (ggml.h plain type; F16/BF16 as ggml_fp16/bf16_to_fp32)"
        out.add(f"{name}.plain", "ggml", name, le.tobytes(), exp, src)
        if name != "I8":
            if name == "F16":  # every 8th special pattern is enough to show the byte swap
                arr, exp = arr[::8], exp[::8]
            be = arr.astype(arr.dtype.newbyteorder(">"))
            out.add(f"{name}.plain_be", "ggml", name, be.tobytes(), exp, src + ", big-endian bytes", big_endian=True)


def f16_specials() -> np.ndarray:
    """Every f16 bit pattern with exponent 0, 1, 15, 30 or 31 (zeros, subnormals, NaNs, Inf)."""
    pats = [(s << 15) | (e << 10) | m for s in (0, 1) for e in (0, 1, 15, 30, 31) for m in range(1024)]
    return np.array(pats, dtype=np.uint16).view(np.float16)


def bf16_specials() -> np.ndarray:
    pats = [(s << 15) | (e << 7) | m for s in (0, 1) for e in (0, 1, 127, 254, 255) for m in range(128)]
    return np.array(pats, dtype=np.uint16).view(ml_dtypes.bfloat16)


def safetensors_cases(out: Out, minilm: Path) -> None:
    src = "numpy / ml_dtypes astype(float32)"
    every = np.arange(256, dtype=np.uint8)
    for name, dt in [("F8_E5M2", ml_dtypes.float8_e5m2), ("F8_E4M3", ml_dtypes.float8_e4m3fn),
                     ("F8_E8M0", ml_dtypes.float8_e8m0fnu), ("F8_E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
                     ("F8_E5M2FNUZ", ml_dtypes.float8_e5m2fnuz)]:
        out.add(f"st.{name}", "safetensors", name, every.tobytes(), every.view(dt).astype(F32),
                f"every byte, ml_dtypes.{dt.__name__} astype(float32)")
    # F4: two values per byte, first in the low nibble (PyTorch Float4_e2m1fn_x2: val1:val0 =
    # bits 7654:3210); ml_dtypes.float4_e2m1fn keeps one value in the low bits of a byte.
    nibbles = np.stack([every & 0x0F, every >> 4], axis=-1).reshape(-1)
    out.add("st.F4", "safetensors", "F4", every.tobytes(),
            nibbles.view(ml_dtypes.float4_e2m1fn).astype(F32),
            "every byte, low nibble first, ml_dtypes.float4_e2m1fn astype(float32)")

    real = minilm_rows(minilm, 768)
    out.add("st.F32", "safetensors", "F32", real.tobytes(), real, "MiniLM rows as stored")
    b16 = np.concatenate([real.astype(ml_dtypes.bfloat16), bf16_specials()])
    out.add("st.BF16", "safetensors", "BF16", b16.tobytes(), b16.astype(F32), src)
    h16 = np.concatenate([real.astype(np.float16), f16_specials()[::4]])
    out.add("st.F16", "safetensors", "F16", h16.tobytes(), h16.astype(F32), src)
    f64 = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 1e-46, 3.4028235677973366e38,
                                    3.4028236e38, 1e300, 1.0000000596046448], np.float64),
                          RNG.normal(0, 10, 64)])
    out.add("st.F64", "safetensors", "F64", f64.tobytes(), f64.astype(F32), src)
    ints = {
        "U8": every, "I8": every.view(np.int8),
        "I16": RNG.integers(-2**15, 2**15, 128, dtype=np.int16),
        "U16": np.concatenate([np.array([0, 65535], np.uint16), RNG.integers(0, 2**16, 128, dtype=np.uint16)]),
        "I32": np.concatenate([np.array([-2**31, 2**31 - 1, 16777217], np.int32), RNG.integers(-2**31, 2**31, 128, dtype=np.int32)]),
        "U32": np.concatenate([np.array([0, 2**32 - 1, 16777217, 16777219], np.uint32), RNG.integers(0, 2**32, 128, dtype=np.uint32)]),
        "I64": np.concatenate([np.array([-2**63, 2**63 - 1, 2**53 + 1], np.int64), RNG.integers(-2**63, 2**63 - 1, 128, dtype=np.int64)]),
        "U64": np.concatenate([np.array([0, 2**64 - 1, 2**63 + 1, 2**53 + 1, 0x8000_0080_0000_0001], np.uint64),
                               RNG.integers(0, 2**64 - 1, 128, dtype=np.uint64)]),
    }
    for name, arr in ints.items():
        le = arr.astype(arr.dtype.newbyteorder("<"))
        out.add(f"st.{name}", "safetensors", name, le.tobytes(), le.astype(F32), src)
    boolean = np.array([0, 1, 1, 0, 0, 1], dtype=np.bool_)
    out.add("st.BOOL", "safetensors", "BOOL", boolean.tobytes(), boolean.astype(F32), src)
    c = (real[:64] + 1j * real[64:128]).astype(np.complex64)
    out.add("st.C64", "safetensors", "C64", c.tobytes(), c.view(F32), "complex64 viewed as (re, im) float32 pairs")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--minilm", type=Path, default=DATA / "all-MiniLM-L6-v2" / "model.safetensors")
    ap.add_argument("--gemma", type=Path, default=DATA / "gemma-3-270m-q4_k_m.gguf")
    args = ap.parse_args()
    for p in (args.minilm, args.gemma):
        if not p.is_file():
            print(f"error: {p} missing", file=sys.stderr)
            return 1
    out = Out(args.out)
    # Overflow to ±Inf (F64 → f32, 2^127 MXFP4 scales) is part of what is being checked.
    with np.errstate(over="ignore"):
        gguf_cases(out, args.minilm, args.gemma)
        safetensors_cases(out, args.minilm)
    index = dict(
        generator="tests/reference/dequant_vectors.py",
        versions={k: version(k) for k in ("gguf", "numpy", "ml_dtypes", "safetensors")},
        cases=out.cases,
    )
    tmp = args.out / "index.json.tmp"
    tmp.write_text(json.dumps(index, indent=1))
    tmp.replace(args.out / "index.json")
    total = sum((args.out / c[k]).stat().st_size for c in out.cases for k in ("input", "expected"))
    print(f"dequant vectors: {len(out.cases)} cases, {total // 1024} KiB in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
