#!/usr/bin/env python3
"""Benchmark: the PyPI `safetensors` package reading a file's header, for scripts/bench.sh.

Usage: python bench/st_py.py [--runs N] FILE...   prints one JSON line per file:
{"tool": "safetensors safe_open <version>", "file", "runs", "median_ms", "min_ms", "tensors"}:
the time to open the file and list every tensor's dtype and shape (the header's facts).
"""
import argparse
import json
import statistics
import time
from importlib.metadata import version

from safetensors import safe_open


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for f in a.files:
        times, tensors = [], 0
        for _ in range(a.runs):
            t = time.perf_counter()
            with safe_open(f, framework="numpy") as st:
                names = list(st.keys())
                for n in names:
                    sl = st.get_slice(n)
                    sl.get_dtype(), sl.get_shape()
                st.metadata()
            tensors = len(names)
            times.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"tool": f"safetensors safe_open {version('safetensors')}", "file": f, "runs": a.runs,
                          "median_ms": statistics.median(times), "min_ms": min(times), "tensors": tensors}))


if __name__ == "__main__":
    main()
