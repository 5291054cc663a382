#!/usr/bin/env python3
"""The listing-speed table of scripts/bench.sh (`torch` and `onnx` modes): for each file,
`weightpeek FILE --json` and `PYTHON LISTER FILE 5` (a reference lister printing one JSON
line with `tensors` and its in-process `median_ms`) are each run 5 times as whole processes;
medians, their ratio and the lister's in-process time, as a Markdown table. Reports only.

Usage: listing_table.py PYTHON LISTER "REFERENCE NAME" FILE...
"""
import json
import statistics
import subprocess
import sys
import time


def run(cmd):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), out


def main():
    py, lister, name, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    print(f"| file | tensors | weightpeek (process) | {name} (process) | ratio | {name} alone (in-process) |")
    print("|---|---:|---:|---:|---:|---:|")
    for f in files:
        w, out = run(["target/release/weightpeek", f, "--json"])
        n = json.loads(out)["tensor_count"]
        p, pout = run([py, lister, f, "5"])
        r = json.loads(pout)
        same = "" if r["tensors"] == n else f" (reference: {r['tensors']})"
        print(f"| {f.rsplit('/', 1)[-1]} | {n}{same} | {w:.1f} ms | {p:.1f} ms | {p / w:.1f}× | {r['median_ms']:.2f} ms |")


if __name__ == "__main__":
    main()
