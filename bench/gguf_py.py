#!/usr/bin/env python3
"""Benchmark: the PyPI `gguf` package's GGUFReader on local files, for scripts/bench.sh.

Usage: python bench/gguf_py.py [--runs N] FILE...   prints one JSON line per file (bench/timing.py):
{"tool": "gguf-py GGUFReader <version>", "file", "runs", "median_ms", "min_ms", "tensors"}.
GGUFReader memory-maps the file and parses the whole header (every array element); this is the
time until its fields and tensor list are ready, the same work weightpeek's summary needs.
"""
from importlib.metadata import version

from gguf import GGUFReader

from timing import main


def read(path: str) -> int:
    r = GGUFReader(path)
    n = len(r.tensors)
    del r
    return n


if __name__ == "__main__":
    main(f"gguf-py GGUFReader {version('gguf')}", read, 3)
