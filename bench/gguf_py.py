#!/usr/bin/env python3
"""Benchmark: the PyPI `gguf` package's GGUFReader on local files, for scripts/bench.sh.

Usage: python bench/gguf_py.py [--runs N] FILE...   prints one JSON line per file:
{"tool": "gguf-py GGUFReader <version>", "file", "runs", "median_ms", "min_ms", "tensors"}.
GGUFReader memory-maps the file and parses the whole header (every array element); this is the
time until its fields and tensor list are ready, the same work weightpeek's summary needs.
"""
import argparse
import json
import statistics
import time
from importlib.metadata import version

from gguf import GGUFReader


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for f in a.files:
        times, tensors = [], 0
        for _ in range(a.runs):
            t = time.perf_counter()
            r = GGUFReader(f)
            tensors = len(r.tensors)
            times.append((time.perf_counter() - t) * 1e3)
            del r
        print(json.dumps({"tool": f"gguf-py GGUFReader {version('gguf')}", "file": f, "runs": a.runs,
                          "median_ms": statistics.median(times), "min_ms": min(times), "tensors": tensors}))


if __name__ == "__main__":
    main()
