"""`bash scripts/bench.sh scan` (issue #22): whole processes, from the page cache (one warm-up
read first), medians of RUNS — `cat FILE > /dev/null`, `weightpeek scan FILE --json` on all
cores and on one, and bench/scan_gguf_py.py (gguf-py dequantize + numpy float64; one run for a
file over 512 MiB). Prints a Markdown table: seconds, MB/s of file bytes, and each rate as a
share of cat's in the same run. Reports; passes or fails nothing.
Usage: scan_table.py WEIGHTPEEK PYTHON RUNS FILE..."""
import json
import os
import statistics
import subprocess
import sys
import time


def timed(cmd, runs, shell=False):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, shell=shell, check=True, stdout=subprocess.DEVNULL)
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> None:
    wp, py, runs, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    here = os.path.dirname(os.path.abspath(__file__))
    cores = os.cpu_count()
    print(f"| file | size | cat > /dev/null | weightpeek scan ({cores} threads) | weightpeek scan (1 thread) | gguf-py + numpy |")
    print("|---|---|---|---|---|---|")
    for f in files:
        size = os.path.getsize(f)
        subprocess.run(f"cat '{f}' > /dev/null", shell=True, check=True)
        cat = timed(f"cat '{f}' > /dev/null", runs, shell=True)
        all_cores = timed([wp, "scan", f, "--json"], runs)
        one = timed([wp, "scan", f, "--json", "--threads", "1"], max(1, runs // 2))
        ref_runs = 1 if size > 512 << 20 else max(1, runs // 2)
        ref = timed([py, os.path.join(here, "scan_gguf_py.py"), f], ref_runs)

        def cell(s):
            return f"{s:.3f} s, {size / s / 1e6:,.0f} MB/s ({cat / s:.0%} of cat)"

        print(f"| {os.path.basename(f)} | {size / 1e6:,.0f} MB | {cat:.3f} s, {size / cat / 1e6:,.0f} MB/s "
              f"| {cell(all_cores)} | {cell(one)} | {ref:.2f} s, {size / ref / 1e6:,.0f} MB/s "
              f"(weightpeek {ref / all_cores:.0f}× faster) |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
