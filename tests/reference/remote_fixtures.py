#!/usr/bin/env python3
"""Build the generated model sets the remote (HTTP Range) tests and benchmark serve, with the PyPI
`gguf` and `safetensors` packages, and write their reference facts with the same readers as
reference.py (gguf-py GGUFReader, safetensors safe_open), read back from the written files.

Usage:
    python tests/reference/remote_fixtures.py --out DIR [--bench]

Writes under DIR:
  split-gguf/tiny-llama-00001-of-00003.gguf ...   a split GGUF set (gguf-py's split writer:
                                                  split.no, split.count, split.tensors.count)
  sharded-safetensors/model-0000N-of-00003.safetensors + model.safetensors.index.json
  shards-163/...                                  163 safetensors shards of tiny tensors + index
                                                  (the pool and per-shard request tests)
  split-gguf.json, sharded-safetensors.json,      merged reference facts (tensor_count,
  shards-163.json                                 parameter_count, tensor_bytes, dtypes, parts)
With --bench also:
  big-vocab/big-vocab.gguf      a GGUF with a ~24 MB header (300,000 tokens and 300,000 merges)
  big-vocab.json
Every set is skipped when its reference file already exists (delete DIR to rebuild).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference  # noqa: E402  (gguf_doc, safetensors_doc, summarise: the reference readers)


def merged_reference(name: str, parts: list[Path], docs: list[dict]) -> dict:
    tensors = []
    for i, d in enumerate(docs):
        for t in d["tensors"]:
            tensors.append({**t, "part": i + 1})
    doc = {"name": name, "parts": [p.name for p in parts],
           "part_headers": [int(d.get("data_offset", d.get("header_size", 0))) for d in docs],
           "part_sizes": [p.stat().st_size for p in parts], "tensors": tensors}
    reference.summarise(doc)
    doc["header_bytes"] = sum(doc["part_headers"])
    return doc


def split_gguf(out: Path) -> None:
    from gguf import GGUFWriter
    d = out / "split-gguf"
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    w = GGUFWriter(d / "tiny-llama.gguf", "llama", split_max_tensors=4)
    w.add_name("tiny split llama")
    w.add_block_count(2)
    w.add_context_length(256)
    w.add_embedding_length(64)
    w.add_head_count(4)
    w.add_tokenizer_model("llama")
    w.add_token_list([f"tok{i}".encode() for i in range(300)])
    w.add_token_scores([float(-i) for i in range(300)])
    w.add_token_types([1] * 300)
    w.add_tensor("token_embd.weight", rng.standard_normal((300, 64), dtype=np.float32))
    for b in range(2):
        for t in ("attn_q", "attn_k", "attn_v", "ffn_up"):
            w.add_tensor(f"blk.{b}.{t}.weight", rng.standard_normal((64, 64)).astype(np.float16))
        w.add_tensor(f"blk.{b}.attn_norm.weight", np.ones(64, dtype=np.float32))
    w.add_tensor("output_norm.weight", np.ones(64, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    parts = sorted(d.glob("tiny-llama-*-of-*.gguf"))
    assert len(parts) >= 2, parts
    docs = [reference.gguf_doc(p, False) for p in parts]
    (out / "split-gguf.json").write_text(json.dumps(merged_reference("split-gguf", parts, docs), indent=1))


def sharded_safetensors(out: Path, name: str, shards: int, per_shard: int, shape: tuple[int, ...]) -> None:
    from safetensors.numpy import save_file
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    weight_map = {}
    total = 0
    parts = []
    for s in range(shards):
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        tensors = {}
        for k in range(per_shard):
            key = f"model.layers.{s}.mlp.experts.{k}.down_proj.weight"
            arr = rng.standard_normal(shape).astype(np.float16 if k % 2 else np.float32)
            tensors[key] = arr
            weight_map[key] = fname
            total += arr.nbytes
        save_file(tensors, str(d / fname), metadata={"format": "pt"})
        parts.append(d / fname)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (d / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    docs = [reference.safetensors_doc(p) for p in parts]
    ref = merged_reference(name, parts, docs)
    assert ref["tensor_bytes"] == total
    (out / f"{name}.json").write_text(json.dumps(ref, indent=1))


def big_vocab(out: Path) -> None:
    from gguf import GGUFWriter
    d = out / "big-vocab"
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    n = 300_000
    w = GGUFWriter(d / "big-vocab.gguf", "llama")
    w.add_name("big vocabulary test")
    w.add_block_count(1)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    lens = rng.integers(20, 60, n)
    w.add_token_list([(f"t{i}_" + "x" * int(lens[i])).encode() for i in range(n)])
    w.add_token_types([1] * n)
    mlens = rng.integers(10, 40, n)
    w.add_token_merges([f"m{i} " + "y" * int(mlens[i]) for i in range(n)])
    w.add_tensor("token_embd.weight", np.zeros((16, 8), dtype=np.float16))
    w.add_tensor("output_norm.weight", np.ones(8, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    p = d / "big-vocab.gguf"
    doc = reference.gguf_doc(p, False)
    doc.pop("metadata", None)
    (out / "big-vocab.json").write_text(json.dumps(doc, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--bench", action="store_true", help="also build the benchmark sets")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    jobs = [("split-gguf", lambda: split_gguf(a.out)),
            ("sharded-safetensors", lambda: sharded_safetensors(a.out, "sharded-safetensors", 3, 4, (32, 16))),
            ("shards-163", lambda: sharded_safetensors(a.out, "shards-163", 163, 2, (4, 4)))]
    if a.bench:
        jobs += [("big-vocab", lambda: big_vocab(a.out))]
    for name, job in jobs:
        if (a.out / f"{name}.json").exists():
            print(f"{name}: up to date")
            continue
        job()
        print(f"{name}: written")


if __name__ == "__main__":
    main()
