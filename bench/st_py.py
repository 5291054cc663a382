#!/usr/bin/env python3
"""Benchmark: the PyPI `safetensors` package reading a file's header, for scripts/bench.sh.

Usage: python bench/st_py.py [--runs N] FILE...   prints one JSON line per file (bench/timing.py):
the time to open the file and list every tensor's dtype and shape and the metadata (the header's
facts).
"""
from importlib.metadata import version

from safetensors import safe_open

from timing import main


def read(path: str) -> int:
    with safe_open(path, framework="numpy") as st:
        names = list(st.keys())
        for n in names:
            sl = st.get_slice(n)
            sl.get_dtype(), sl.get_shape()
        st.metadata()
    return len(names)


if __name__ == "__main__":
    main(f"safetensors safe_open {version('safetensors')}", read, 10)
