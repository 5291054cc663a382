#!/usr/bin/env python3
"""Record llama.cpp's own memory report for a GGUF model, for tests/memory_vs_llama_cpp.rs.

llama.cpp itself (through the `llama-cpp-python` package from PyPI, which builds the llama.cpp it
bundles) loads the model for each setting below and prints, per KV cache, a line such as

    llama_kv_cache: size =   96.00 MiB ( 32768 cells,   3 layers,  1/1 seqs), K (f16):   48.00 MiB, V (f16):   48.00 MiB

and the weights as `CPU_Mapped model buffer size = 235.16 MiB`. This script parses those lines
(only llama.cpp's words and numbers, nothing computed here) and writes them as JSON.

Building llama-cpp-python takes ~10 minutes on 2 cores, so this is not part of the test command:
run it by hand and commit its output (tests/reference/llama_cpp_memory.json):

    python3 -m venv /tmp/llamavenv
    CMAKE_ARGS="-DGGML_NATIVE=OFF" /tmp/llamavenv/bin/pip install llama-cpp-python==0.3.36
    /tmp/llamavenv/bin/python tests/reference/llama_cpp_memory.py MODEL.gguf > tests/reference/llama_cpp_memory.json

With --fit MODEL..., records for each model the KV caches and the CPU compute buffer with
flash attention on and swa_full off (tests/reference/llama_cpp_fit.json, for tests/fit.rs):

    /tmp/llamavenv/bin/python tests/reference/llama_cpp_memory.py --fit target/fit-fixtures/*.gguf \
        GEMMA.gguf > tests/reference/llama_cpp_fit.json

Settings: context lengths (including one that is not a multiple of 256), KV cache types f16,
q8_0, q4_0, and llama.cpp's `swa_full` on (the C API default: every sliding-window layer at the
full context) and off (llama-cli/llama-server default: the window plus one ubatch).
"""
import hashlib
import json
import os
import re
import subprocess
import sys

# (n_ctx, KV type, swa_full)
SETTINGS = [
    (32768, "f16", True),
    (32768, "f16", False),
    (8192, "q8_0", False),
    (1000, "q4_0", False),
    (4096, "f16", False),
]
# ggml_type ids (ggml.h): the KV cache types a person can choose.
GGML_TYPE = {"f16": 1, "q4_0": 2, "q8_0": 8}

CHILD = r"""
import sys
from llama_cpp import Llama
ctx, kv, swa_full = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
# llama.cpp refuses a quantised V cache without flash attention.
Llama(model_path=sys.argv[1], n_ctx=ctx, type_k=kv, type_v=kv, swa_full=swa_full,
      flash_attn=kv != 1, n_gpu_layers=0, verbose=True)
"""

CACHE = re.compile(
    r"llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)/(\d+) seqs\), "
    r"K \((\w+)\): +([\d.]+) MiB, V \((\w+)\): +([\d.]+) MiB"
)
WEIGHTS = re.compile(r"CPU_Mapped model buffer size = +([\d.]+) MiB")


def run(model: str, ctx: int, kv: str, swa_full: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, model, str(ctx), str(GGML_TYPE[kv]), "1" if swa_full else "0"],
        capture_output=True, text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    log = out.stderr + out.stdout
    caches = [
        {"mib": float(m[0]), "cells": int(m[1]), "layers": int(m[2]), "k_type": m[5],
         "k_mib": float(m[6]), "v_type": m[7], "v_mib": float(m[8])}
        for m in CACHE.findall(log)
    ]
    weights = [float(w) for w in WEIGHTS.findall(log)]
    if not caches or not weights:
        sys.exit(f"no KV cache or weights line in llama.cpp's output for {ctx} {kv} {swa_full}:\n{log[-3000:]}")
    return {"n_ctx": ctx, "kv_type": kv, "swa_full": swa_full, "flash_attn": kv != "f16",
            "caches": caches, "weights_mib": weights[0]}


# --fit: (n_ctx, KV type) with flash attention on and swa_full off (llama-server's settings,
# which the fit planner assumes), for the KV cache and the CPU compute buffer of every model.
FIT_SETTINGS = [(4096, "f16"), (1000, "q8_0"), (8192, "q4_0"), (512, "f16")]

FIT_CHILD = r"""
import sys
from llama_cpp import Llama
ctx, kv = int(sys.argv[2]), int(sys.argv[3])
Llama(model_path=sys.argv[1], n_ctx=ctx, type_k=kv, type_v=kv, swa_full=False,
      flash_attn=True, n_gpu_layers=0, verbose=True)
"""
COMPUTE = re.compile(r"CPU compute buffer size = +([\d.]+) MiB")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fit(models: list[str]) -> None:
    import llama_cpp
    result = {"generator": "tests/reference/llama_cpp_memory.py --fit",
              "llama_cpp_python": llama_cpp.__version__, "models": {}}
    for model in models:
        cases = []
        for ctx, kv in FIT_SETTINGS:
            out = subprocess.run(
                [sys.executable, "-c", FIT_CHILD, model, str(ctx), str(GGML_TYPE[kv])],
                capture_output=True, text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
            log = out.stderr + out.stdout
            caches = [
                {"mib": float(m[0]), "cells": int(m[1]), "layers": int(m[2]), "k_type": m[5],
                 "k_mib": float(m[6]), "v_type": m[7], "v_mib": float(m[8])}
                for m in CACHE.findall(log)
            ]
            compute = [float(c) for c in COMPUTE.findall(log)]
            if not caches or not compute:
                sys.exit(f"no KV cache or compute line for {model} {ctx} {kv}:\n{log[-3000:]}")
            cases.append({"n_ctx": ctx, "kv_type": kv, "caches": caches, "compute_mib": compute[0]})
        result["models"][os.path.basename(model)] = {"sha256": sha256(model), "cases": cases}
    json.dump(result, sys.stdout, indent=1)
    print()


def main() -> None:
    if sys.argv[1] == "--fit":
        fit(sys.argv[2:])
        return
    model = sys.argv[1]
    import llama_cpp

    h = hashlib.sha256()
    with open(model, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    result = {
        "generator": "tests/reference/llama_cpp_memory.py",
        "llama_cpp_python": llama_cpp.__version__,
        "model": os.path.basename(model),
        "sha256": h.hexdigest(),
        "cases": [run(model, *s) for s in SETTINGS],
    }
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
