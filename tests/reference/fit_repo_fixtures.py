#!/usr/bin/env python3
"""A Hub repo of one model at eleven tensor types, for the page's "Will it fit?" table.

Writes, with gguf-py's GGUFWriter, a TinyLlama-shaped llama (22 layers, 2048 wide, grouped-query
attention with 4 KV heads, feed-forward 5632, vocabulary 32000) once per type: every matrix in
that type, the norms in F32, as a quantised repo lists its files (`tinyllama-fit-Q4_K.gguf`, …).
Only the header is written by gguf-py (metadata and the tensor table with each tensor's size
from gguf's GGML_QUANT_SIZES); the file is then extended to its full size as a sparse file
(zeros), so eleven files of 0.4 to 2.2 GB take almost no disk and a test can prove that only
headers are read.

expected.json: for each file its size in bytes and where its data section starts (the header's
end, aligned), as gguf-py's reader reports them.
"""
import argparse
import json
import os
from pathlib import Path

import numpy as np

TYPES = ["F16", "BF16", "Q8_0", "Q6_K", "Q5_K", "Q5_0", "Q4_K", "Q4_0", "Q3_K", "Q2_K", "IQ4_XS"]
N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, N_FF, N_VOCAB, N_CTX = 22, 2048, 32, 4, 5632, 32000, 4096


def nbytes(shape_ggml: tuple, qtype) -> int:
    from gguf import GGML_QUANT_SIZES
    block, size = GGML_QUANT_SIZES[qtype]
    n = int(np.prod(shape_ggml))
    assert shape_ggml[0] % block == 0, (shape_ggml, qtype)
    return n // block * size


def write(path: Path, type_name: str) -> dict:
    from gguf import GGMLQuantizationType, GGUFReader, GGUFWriter
    q = GGMLQuantizationType[type_name]
    f32 = GGMLQuantizationType.F32
    w = GGUFWriter(path, "llama")
    w.add_name(f"tinyllama fit {type_name}")
    w.add_block_count(N_LAYER)
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    kv = N_EMBD // N_HEAD * N_HEAD_KV

    def t(name: str, shape_ggml: tuple, qtype=q) -> None:
        w.add_tensor_info(name, tuple(reversed(shape_ggml)), np.dtype(np.float32),
                          nbytes(shape_ggml, qtype), raw_dtype=qtype)

    t("token_embd.weight", (N_EMBD, N_VOCAB))
    for i in range(N_LAYER):
        t(f"blk.{i}.attn_norm.weight", (N_EMBD,), f32)
        t(f"blk.{i}.attn_q.weight", (N_EMBD, N_EMBD))
        t(f"blk.{i}.attn_k.weight", (N_EMBD, kv))
        t(f"blk.{i}.attn_v.weight", (N_EMBD, kv))
        t(f"blk.{i}.attn_output.weight", (N_EMBD, N_EMBD))
        t(f"blk.{i}.ffn_norm.weight", (N_EMBD,), f32)
        t(f"blk.{i}.ffn_gate.weight", (N_EMBD, N_FF))
        t(f"blk.{i}.ffn_up.weight", (N_EMBD, N_FF))
        t(f"blk.{i}.ffn_down.weight", (N_FF, N_EMBD))
    t("output_norm.weight", (N_EMBD,), f32)
    t("output.weight", (N_EMBD, N_VOCAB))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    fout = w.fout[0]
    start = GGUFWriter.ggml_pad(fout.tell(), w.data_alignment)
    data = sum(GGUFWriter.ggml_pad(ti.nbytes, w.data_alignment) for ti in w.tensors[0].values())
    w.close()
    # The data section as zeros, without writing them (a sparse file).
    os.truncate(path, start + data)
    r = GGUFReader(str(path))
    assert r.data_offset == start, (r.data_offset, start)
    return {"size": path.stat().st_size, "data_offset": int(r.data_offset), "type": type_name}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args()
    repo = a.out / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    files = {}
    for name in TYPES:
        p = repo / f"tinyllama-fit-{name}.gguf"
        files[p.name] = write(p, name)
    (repo / "README.md").write_text("A generated model at eleven tensor types (weightpeek's tests).\n")
    doc = {"generator": "tests/reference/fit_repo_fixtures.py", "files": files}
    (a.out / "expected.json").write_text(json.dumps(doc, indent=1))
    print(f"fit repo fixtures: {len(files)} files in {repo}")


if __name__ == "__main__":
    main()
