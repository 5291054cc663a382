#!/usr/bin/env python3
"""Benchmark: gguf-py's numpy `gguf.quants.dequantize`, elements per second per ggml type, the
baseline for issue #4's "at least 10x gguf-py" target (compare with
`cargo run --release --example bench_dequant`, which uses the same kind of input).

Usage: python bench/dequant_gguf_py.py [--elements N] [--seconds S]
prints one JSON line per type: {"tool", "type", "elements", "g_elements_per_s"}.
Input: pseudo-random bytes with bit 6 of every byte cleared, so no f16 scale is Inf/NaN.
Types gguf-py cannot dequantise are skipped.
"""
import argparse
import json
import time
from importlib.metadata import version

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--elements", type=int, default=1 << 20)
    ap.add_argument("--seconds", type=float, default=0.5)
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    tool = f"gguf-py {version('gguf')} quants.dequantize (numpy {np.__version__})"
    for qt in T:
        if qt not in GGML_QUANT_SIZES:
            continue
        bs, ts = GGML_QUANT_SIZES[qt]
        blocks = max(1, a.elements // bs)
        data = (rng.integers(0, 256, blocks * ts, dtype=np.uint8) & 0xBF).reshape(blocks, ts)
        try:
            quants.dequantize(data, qt)
        except (NotImplementedError, ValueError, TypeError):
            continue
        runs, start = 0, time.perf_counter()
        while runs < 2 or time.perf_counter() - start < a.seconds:
            quants.dequantize(data, qt)
            runs += 1
        rate = blocks * bs * runs / (time.perf_counter() - start)
        print(json.dumps({"tool": tool, "type": qt.name, "elements": blocks * bs,
                          "g_elements_per_s": round(rate / 1e9, 4)}), flush=True)


if __name__ == "__main__":
    main()
