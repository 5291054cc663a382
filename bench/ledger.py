#!/usr/bin/env python3
"""The speed ledger (issue #23): the time of every stage of opening a model, natively and as
wasm in Chromium, next to the reference tools of the same run, for scripts/bench.sh.

  ledger.py write LEDGER NATIVE WASM REFS... [--page OPEN]
                                                prints the table; writes LEDGER (JSON) with the
                                                date, the commit and every figure
  ledger.py compare LEDGER NATIVE WASM [NATIVE WASM]...
                                                prints each stage's ratio to LEDGER's figure and
                                                flags the stages more than 1.5x slower; given
                                                several runs, each stage's fastest median counts
                                                (a busy moment slows one run, not all)

NATIVE and WASM are JSON-lines files of `examples/bench_stages.rs` and `bench/wasm.mjs
--stages` ({"file", "stages": [{"stage", "median_ms", "min_ms"}]}); REFS are JSON-lines files of
reference tools ({"tool", "file", "median_ms"}: bench/gguf_py.py, bench/hf_gguf.mjs,
bench/st_py.py); OPEN is bench/open_tasks.mjs's ({"file", "open_median_ms", "longest_task_ms"}:
the page's open, compared too). Files are keyed by their base name (a ".header" suffix dropped). Reports only:
the exit status is 0 whatever the figures.
"""
import datetime
import json
import os
import subprocess
import sys

# A stage is flagged when it is this much slower than the ledger's figure and slower by at least
# FLOOR_MS: a stage of a few microseconds varies by more than 1.5x from run to run on a busy
# machine, and such a stage cannot slow an open down.
SLOWER = 1.5
FLOOR_MS = 0.05


def key(path):
    return os.path.basename(path).removesuffix(".header")


def stages(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        out[key(r["file"])] = {s["stage"]: s["median_ms"] for s in r["stages"]}
    return out


def refs(paths):
    out = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            out.setdefault(key(r["file"]), {})[r["tool"]] = r["median_ms"]
    return out


def fmt(v):
    if v is None:
        return "–"
    return f"{v:.3f}" if v < 1 else f"{v:.2f}"


def table(native, wasm, reference):
    lines = []
    for f, n in native.items():
        w = wasm.get(f, {})
        lines.append(f"\n{f} (ms per run, medians):")
        lines.append("| stage | native | wasm (Chromium) | wasm / native |")
        lines.append("|---|---:|---:|---:|")
        for stage, t in n.items():
            ws = w.get(stage)
            ratio = f"{ws / t:.2f}×" if ws and t > 0.001 else "–"
            lines.append(f"| {stage} | {fmt(t)} | {fmt(ws)} | {ratio} |")
        for tool, t in reference.get(f, {}).items():
            opened = n.get("parse", 0) + n.get("summary", 0)
            lines.append(f"| {tool} (whole header) | {fmt(t)} | | {t / opened:.0f}× parse + summary |")
    return "\n".join(lines)


def commit():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
        return rev + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    cmd = sys.argv[1]
    ledger = sys.argv[2]
    native, wasm = stages(sys.argv[3]), stages(sys.argv[4])
    if cmd == "write":
        rest = sys.argv[5:]
        page = {}
        if "--page" in rest:
            i = rest.index("--page")
            for line in open(rest[i + 1]):
                r = json.loads(line)
                page[key(r["file"])] = {"open_ms": r["open_median_ms"], "longest_task_ms": r["longest_task_ms"]}
            rest = rest[:i] + rest[i + 2:]
        reference = refs(rest)
        print(table(native, wasm, reference))
        for f, p in page.items():
            print(f"page, {f}: drop to every finding shown {p['open_ms']} ms (median), longest main-thread task {p['longest_task_ms']:.0f} ms")
        doc = {
            "what": "median ms per run of each stage of opening a model (src/view/stages.rs), header bytes in memory",
            "date": datetime.date.today().isoformat(),
            "commit": commit(),
            "cores": os.cpu_count(),
            "native": native,
            "wasm": wasm,
            "reference": reference,
            "page": page,
        }
        with open(ledger, "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        print(f"\nledger written to {ledger}")
        return
    if cmd != "compare":
        sys.exit("usage: ledger.py write|compare LEDGER NATIVE WASM [REFS...]")
    runs = sys.argv[3:]
    if len(runs) % 2:
        sys.exit("usage: ledger.py compare LEDGER NATIVE WASM [NATIVE WASM]...")
    for extra_native, extra_wasm in zip(runs[2::2], runs[3::2]):
        for have, more in ((native, stages(extra_native)), (wasm, stages(extra_wasm))):
            for f, st in more.items():
                for stage, t in st.items():
                    have.setdefault(f, {})[stage] = min(t, have.get(f, {}).get(stage, t))
    old = json.load(open(ledger))
    print(f"stages against {ledger} ({old['date']}, {old['commit']}); '!' marks a stage over {SLOWER}× slower (and by ≥ {FLOOR_MS} ms)")
    print("| file | stage | native now | ledger | ratio | wasm now | ledger | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    flagged = 0
    for f, n in native.items():
        for stage, t in n.items():
            cells = []
            for now, was in ((t, old["native"].get(f, {}).get(stage)), (wasm.get(f, {}).get(stage), old["wasm"].get(f, {}).get(stage))):
                if now is None or was is None:
                    cells += [fmt(now), fmt(was), "–"]
                    continue
                ratio = now / was if was > 0 else float("inf")
                slow = ratio > SLOWER and now - was >= FLOOR_MS
                flagged += slow
                cells += [fmt(now), fmt(was), f"{ratio:.2f}×{' !' if slow else ''}"]
            print(f"| {f} | {stage} | " + " | ".join(cells) + " |")
    print(f"\n{flagged} stage(s) more than {SLOWER}× slower than the ledger" + (": a regression is a bug; find it before landing" if flagged else ""))


if __name__ == "__main__":
    main()
