"""What the web build's WebAssembly module is made of (issue #21, "measure first"): `twiggy
top` of the module built with its function names (cargo build --release --target
wasm32-unknown-unknown --bin weightpeek-web; the same code Trunk builds before wasm-opt),
each function's bytes summed by where it comes from — weightpeek's own modules two levels deep
(`format::onnx`, `web::fit`, …), other crates by name — as shares of the module's code, next
to what a page downloads now (dist/, gzip -9). Prints Markdown tables. Reports; fails nothing.
Usage: wasm_size.py NAMED.wasm DIST_DIR [TOP]"""
import gzip
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_{][A-Za-z0-9_{}]*)+")


def owner(name: str) -> str:
    """The module or crate a function belongs to."""
    # `<T as Trait>::f`, `core::ptr::drop_in_place<weightpeek::x::Y>`: the first weightpeek
    # path if any (its code is there for weightpeek), else the first path.
    paths = PATH.findall(name)
    ours = [p for p in paths if p.startswith("weightpeek::")]
    p = (ours or paths or ["(unnamed)"])[0]
    parts = p.split("::")
    if parts[0] == "weightpeek":
        return "::".join(parts[1:3]) if len(parts) > 3 else "::".join(parts[1:2])
    return parts[0]


# The parts the issue would load on first use, by the modules (of owner()) that make them.
FEATURES = [
    ("previews and the dequantisers", ("preview", "dequant", "web::preview", "view::preview", "web::histogram")),
    ("PyTorch, NumPy, ONNX and the pickle machine", ("format::torch", "format::pickle", "format::numpy", "format::onnx", "format::zip")),
    ("the doctor", ("check::doctor",)),
    ("fit and memory", ("summary::fit", "web::fit", "view::fit", "summary::memory", "web::memory", "view::memory")),
    ("the header editor", ("edit", "web::edit", "view::edit")),
    ("the tokenizer view", ("summary::tokenizer", "web::tokenizer", "view::tokenizer")),
    ("compare", ("view::compare", "web::compare")),
    ("the scan", ("scan", "web::scan", "web::scan_card", "view::scan")),
    ("quantised safetensors and the recipe", ("summary::quant_st", "summary::recipe", "view::recipe", "web::recipe")),
]


def feature(owner_: str) -> str:
    ours = not owner_.startswith(("(", "core", "alloc", "std")) and "::" in owner_ or owner_ in (
        "preview", "dequant", "edit", "scan", "check", "format", "open", "source", "summary", "view", "web", "remote", "text")
    for name, prefixes in FEATURES:
        if any(owner_ == p or owner_.startswith(p + "::") for p in prefixes):
            return name
    return "the first view (header reading, summary, cards, remote)" if ours else "Rust std, serde_json, wasm-bindgen and other crates"


def main() -> None:
    wasm, dist = Path(sys.argv[1]), Path(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    rows = json.loads(subprocess.run(["twiggy", "top", "-n", "1000000", "--format", "json", str(wasm)],
                                     check=True, capture_output=True, text=True).stdout)
    code, other = Counter(), Counter()
    for r in rows:
        n, size = r["name"], r["shallow_size"]
        if n.startswith(("custom section", '"function names"', "data segment", "table[", "elem[", "type[", "import ", "export ", "global[", "memory[")) or n.startswith('"'):
            other[n if not n.startswith("data segment") else "data segments"] += size
        else:
            code[owner(n)] += size
    total = sum(code.values())
    print(f"Code of {wasm.name} by origin ({total:,} bytes of functions before wasm-opt; "
          f"data segments {other['data segments']:,} bytes):\n")
    print("| from | bytes | share of the code |")
    print("|---|---|---|")
    for k, v in code.most_common(top):
        print(f"| `{k}` | {v:,} | {100 * v / total:.1f}% |")
    rest = total - sum(v for _, v in code.most_common(top))
    print(f"| the rest ({len(code) - top} more) | {rest:,} | {100 * rest / total:.1f}% |")
    by = Counter()
    for k, v in code.items():
        by[feature(k)] += v
    print("\nThe same code by the part of the app it serves:\n")
    print("| part | bytes | share of the code |")
    print("|---|---|---|")
    for k, v in by.most_common():
        print(f"| {k} | {v:,} | {100 * v / total:.1f}% |")
    print("\nWhat the page downloads now (dist/, each file gzip -9):\n")
    print("| file | bytes | gzipped |")
    print("|---|---|---|")
    first = ["index.html", "weightpeek-web.js", "weightpeek-web_bg.wasm", "style.css", "early.js", "simd-check.js"]
    raw = gz = 0
    for f in first:
        b = (dist / f).read_bytes()
        z = len(gzip.compress(b, 9))
        raw, gz = raw + len(b), gz + z
        print(f"| {f} | {len(b):,} | {z:,} |")
    print(f"| **first load** | {raw:,} | {gz:,} |")


if __name__ == "__main__":
    main()
