"""Shared by the Python reference benchmarks (bench/gguf_py.py, bench/st_py.py): times one
header read per file a number of runs and prints the JSON line scripts/bench.sh collects,
{"tool", "file", "runs", "median_ms", "min_ms", "tensors"}."""
import argparse
import json
import statistics
import time


def main(tool: str, read, default_runs: int) -> None:
    """`read(path)` reads one file's header and returns its tensor count."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=default_runs)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for f in a.files:
        times, tensors = [], 0
        for _ in range(a.runs):
            t = time.perf_counter()
            tensors = read(f)
            times.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"tool": tool, "file": f, "runs": a.runs, "median_ms": statistics.median(times),
                          "min_ms": min(times), "tensors": tensors}))
