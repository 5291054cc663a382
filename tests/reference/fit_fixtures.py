#!/usr/bin/env python3
"""Small GGUF models for the fit planner's tests, and their per-layer bytes from gguf-py.

Writes, with gguf-py's GGUFWriter and llama.cpp's own architecture keys and tensor shapes (so
llama.cpp loads them; see tests/reference/llama_cpp_memory.py --fit):

- dense-llama.gguf: a dense llama (grouped-query attention, F16 and Q8_0 tensors, output.weight);
- moe-qwen2moe.gguf: qwen2moe, routed experts (ffn_*_exps) and a shared expert (ffn_*_shexp),
  no output.weight (tied embedding);
- mla-deepseek2.gguf: deepseek2 with multi-head latent attention (key_length_mla /
  value_length_mla, attn_k_b / attn_v_b), one leading dense layer, then routed and shared
  experts.

The vocabulary of each is the real llama-spm vocabulary of ../shared/data/vocab.

repo/: one small llama model at twelve tensor types (a repository of quantisations; the Q8_0
one as a split set of two parts), tensor data zero, for the repo table over the mock Hub.

expected.json holds, for each of them and for the real Gemma 3 GGUF given with --gemma: the bytes
of every tensor as gguf-py's reader gives them (`n_bytes`), grouped by llama.cpp's layers — the
input layer (token_embd, token_types, position_embd, per_layer_token_embd, masked_embd_*), each
repeating layer blk.N (the expert tensors matching llama.cpp's LLM_FFN_EXPS_REGEX apart; the
unnumbered repeating tensors token_embd_norm and rope_* in layer 0), and the output layer
(everything else) — and the token embedding's bytes when there is no output.weight, and the
file's sha256 (tests/fit.rs checks that llama.cpp's recorded report is of these very bytes).
"""
import argparse
import hashlib
import json
import re
from pathlib import Path

import numpy as np

EXPERTS = re.compile(r"\.ffn_(up|down|gate|gate_up)_(ch|)exps")
INPUT = {"token_embd", "token_types", "position_embd", "per_layer_token_embd",
         "masked_embd_centroids", "masked_embd_ordering"}
UNNUMBERED = {"token_embd_norm", "rope_freqs", "rope_factors_long", "rope_factors_short"}
LAYER = re.compile(r"^blk\.(\d+)\.")


def group(path, block_count: int) -> dict:
    """Per-layer bytes of a file, or of a split set given as a list of its parts."""
    from gguf import GGUFReader
    tensors = [t for p in (path if isinstance(path, list) else [path]) for t in GGUFReader(str(p)).tensors]
    layers = [{"dense": 0, "experts": 0} for _ in range(block_count)]
    doc = {"input": 0, "output": 0, "tied_output": 0, "layers": layers}
    token_embd, has_output = 0, False
    for t in tensors:
        name, n = t.name, int(t.n_bytes)
        stem = name.split(".")[0]
        m = LAYER.match(name)
        il = int(m.group(1)) if m else (0 if stem in UNNUMBERED else None)
        if il is not None and il < block_count:
            layers[il]["experts" if EXPERTS.search(name) else "dense"] += n
        elif stem in INPUT:
            doc["input"] += n
            if name == "token_embd.weight":
                token_embd = n
        else:
            has_output |= name == "output.weight"
            doc["output"] += n
    doc["tied_output"] = 0 if has_output else token_embd
    h = hashlib.sha256()
    for p in (path if isinstance(path, list) else [path]):
        h.update(Path(p).read_bytes())
    doc["sha256"] = h.hexdigest()
    return doc


def vocab(w, shared: Path) -> int:
    """Copies the real llama-spm tokenizer into writer `w`; returns the vocabulary size."""
    from gguf import GGUFReader
    r = GGUFReader(str(shared / "data" / "vocab" / "ggml-vocab-llama-spm.gguf"))
    f = r.fields
    tokens = [bytes(f["tokenizer.ggml.tokens"].parts[i]) for i in f["tokenizer.ggml.tokens"].data]
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([float(f["tokenizer.ggml.scores"].parts[i][0]) for i in f["tokenizer.ggml.scores"].data])
    w.add_token_types([int(f["tokenizer.ggml.token_type"].parts[i][0]) for i in f["tokenizer.ggml.token_type"].data])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    return len(tokens)


def tensor(w, rng, name: str, shape_ggml: tuple, kind: str = "f16") -> None:
    """Adds a tensor of ggml shape `shape_ggml` (ne0 first): f32, f16 or q8_0."""
    from gguf import GGMLQuantizationType, quants
    shape = tuple(reversed(shape_ggml))
    a = (rng.standard_normal(shape) * 0.02).astype(np.float32)
    if kind == "f32":
        w.add_tensor(name, a)
    elif kind == "f16":
        w.add_tensor(name, a.astype(np.float16))
    else:
        q = quants.quantize(a, GGMLQuantizationType.Q8_0)
        w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=GGMLQuantizationType.Q8_0)


def finish(w) -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def dense_llama(out: Path, shared: Path) -> tuple[Path, int]:
    from gguf import GGUFWriter
    p = out / "dense-llama.gguf"
    rng = np.random.default_rng(1)
    n_layer, n_embd, n_head, n_head_kv, n_ff = 6, 256, 8, 2, 384
    w = GGUFWriter(p, "llama")
    w.add_name("fit test dense llama")
    w.add_block_count(n_layer)
    w.add_context_length(8192)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    n_vocab = vocab(w, shared)
    kv = n_embd // n_head * n_head_kv
    tensor(w, rng, "token_embd.weight", (n_embd, n_vocab), "q8_0")
    for i in range(n_layer):
        tensor(w, rng, f"blk.{i}.attn_norm.weight", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.attn_q.weight", (n_embd, n_embd))
        tensor(w, rng, f"blk.{i}.attn_k.weight", (n_embd, kv))
        tensor(w, rng, f"blk.{i}.attn_v.weight", (n_embd, kv))
        tensor(w, rng, f"blk.{i}.attn_output.weight", (n_embd, n_embd))
        tensor(w, rng, f"blk.{i}.ffn_norm.weight", (n_embd,), "f32")
        q = "q8_0" if i % 2 else "f16"
        tensor(w, rng, f"blk.{i}.ffn_gate.weight", (n_embd, n_ff), q)
        tensor(w, rng, f"blk.{i}.ffn_up.weight", (n_embd, n_ff), q)
        tensor(w, rng, f"blk.{i}.ffn_down.weight", (n_ff, n_embd), q)
    tensor(w, rng, "output_norm.weight", (n_embd,), "f32")
    tensor(w, rng, "output.weight", (n_embd, n_vocab), "q8_0")
    finish(w)
    return p, n_layer


def moe_qwen2moe(out: Path, shared: Path) -> tuple[Path, int]:
    from gguf import GGUFWriter
    p = out / "moe-qwen2moe.gguf"
    rng = np.random.default_rng(2)
    n_layer, n_embd, n_head, n_head_kv = 4, 128, 4, 2
    n_expert, n_used, n_ff_exp, n_ff_shexp = 8, 2, 96, 192
    w = GGUFWriter(p, "qwen2moe")
    w.add_name("fit test qwen2moe")
    w.add_block_count(n_layer)
    w.add_context_length(4096)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff_exp)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_expert_count(n_expert)
    w.add_expert_used_count(n_used)
    w.add_expert_feed_forward_length(n_ff_exp)
    w.add_expert_shared_feed_forward_length(n_ff_shexp)
    n_vocab = vocab(w, shared)
    kv = n_embd // n_head * n_head_kv
    tensor(w, rng, "token_embd.weight", (n_embd, n_vocab), "q8_0")
    for i in range(n_layer):
        tensor(w, rng, f"blk.{i}.attn_norm.weight", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.attn_q.weight", (n_embd, n_embd))
        tensor(w, rng, f"blk.{i}.attn_k.weight", (n_embd, kv))
        tensor(w, rng, f"blk.{i}.attn_v.weight", (n_embd, kv))
        tensor(w, rng, f"blk.{i}.attn_q.bias", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.attn_k.bias", (kv,), "f32")
        tensor(w, rng, f"blk.{i}.attn_v.bias", (kv,), "f32")
        tensor(w, rng, f"blk.{i}.attn_output.weight", (n_embd, n_embd))
        tensor(w, rng, f"blk.{i}.ffn_norm.weight", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.ffn_gate_inp.weight", (n_embd, n_expert), "f32")
        tensor(w, rng, f"blk.{i}.ffn_gate_exps.weight", (n_embd, n_ff_exp, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_up_exps.weight", (n_embd, n_ff_exp, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_down_exps.weight", (n_ff_exp, n_embd, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_gate_inp_shexp.weight", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.ffn_gate_shexp.weight", (n_embd, n_ff_shexp))
        tensor(w, rng, f"blk.{i}.ffn_up_shexp.weight", (n_embd, n_ff_shexp))
        tensor(w, rng, f"blk.{i}.ffn_down_shexp.weight", (n_ff_shexp, n_embd))
    tensor(w, rng, "output_norm.weight", (n_embd,), "f32")
    tensor(w, rng, "output.weight", (n_embd, n_vocab), "q8_0")
    finish(w)
    return p, n_layer


def mla_deepseek2(out: Path, shared: Path) -> tuple[Path, int]:
    from gguf import ExpertGatingFuncType, GGUFWriter
    p = out / "mla-deepseek2.gguf"
    rng = np.random.default_rng(3)
    n_layer, n_embd, n_head = 3, 128, 4
    kv_lora, q_lora, rope, nope, v_head = 96, 96, 32, 32, 32
    k_mla = nope + rope
    n_expert, n_used, n_ff_exp, n_shared, n_ff = 8, 2, 64, 1, 256
    w = GGUFWriter(p, "deepseek2")
    w.add_name("fit test deepseek2 mla")
    w.add_block_count(n_layer)
    w.add_context_length(4096)
    w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(1)
    # The converter's MLA layout: one compressed KV head of kv_lora_rank + rope dims.
    w.add_key_length(kv_lora + rope)
    w.add_value_length(kv_lora)
    w.add_key_length_mla(k_mla)
    w.add_value_length_mla(v_head)
    w.add_rope_dimension_count(rope)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_q_lora_rank(q_lora)
    w.add_kv_lora_rank(kv_lora)
    w.add_leading_dense_block_count(1)
    w.add_expert_count(n_expert)
    w.add_expert_used_count(n_used)
    w.add_expert_feed_forward_length(n_ff_exp)
    w.add_expert_shared_count(n_shared)
    w.add_expert_weights_scale(1.0)
    w.add_expert_weights_norm(True)
    w.add_expert_gating_func(ExpertGatingFuncType.SIGMOID)
    n_vocab = vocab(w, shared)
    tensor(w, rng, "token_embd.weight", (n_embd, n_vocab), "q8_0")
    for i in range(n_layer):
        tensor(w, rng, f"blk.{i}.attn_norm.weight", (n_embd,), "f32")
        tensor(w, rng, f"blk.{i}.attn_q_a_norm.weight", (q_lora,), "f32")
        tensor(w, rng, f"blk.{i}.attn_kv_a_norm.weight", (kv_lora,), "f32")
        tensor(w, rng, f"blk.{i}.attn_q_a.weight", (n_embd, q_lora))
        tensor(w, rng, f"blk.{i}.attn_q_b.weight", (q_lora, n_head * k_mla))
        tensor(w, rng, f"blk.{i}.attn_kv_a_mqa.weight", (n_embd, kv_lora + rope))
        tensor(w, rng, f"blk.{i}.attn_k_b.weight", (nope, kv_lora, n_head))
        tensor(w, rng, f"blk.{i}.attn_v_b.weight", (kv_lora, v_head, n_head))
        tensor(w, rng, f"blk.{i}.attn_output.weight", (n_head * v_head, n_embd))
        tensor(w, rng, f"blk.{i}.ffn_norm.weight", (n_embd,), "f32")
        if i == 0:
            tensor(w, rng, f"blk.{i}.ffn_gate.weight", (n_embd, n_ff))
            tensor(w, rng, f"blk.{i}.ffn_up.weight", (n_embd, n_ff))
            tensor(w, rng, f"blk.{i}.ffn_down.weight", (n_ff, n_embd))
            continue
        tensor(w, rng, f"blk.{i}.ffn_gate_inp.weight", (n_embd, n_expert), "f32")
        tensor(w, rng, f"blk.{i}.exp_probs_b.bias", (n_expert,), "f32")
        tensor(w, rng, f"blk.{i}.ffn_gate_exps.weight", (n_embd, n_ff_exp, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_up_exps.weight", (n_embd, n_ff_exp, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_down_exps.weight", (n_ff_exp, n_embd, n_expert), "q8_0")
        tensor(w, rng, f"blk.{i}.ffn_gate_shexp.weight", (n_embd, n_ff_exp * n_shared))
        tensor(w, rng, f"blk.{i}.ffn_up_shexp.weight", (n_embd, n_ff_exp * n_shared))
        tensor(w, rng, f"blk.{i}.ffn_down_shexp.weight", (n_ff_exp * n_shared, n_embd))
    tensor(w, rng, "output_norm.weight", (n_embd,), "f32")
    finish(w)
    return p, n_layer


REPO_TYPES = ["F32", "F16", "BF16", "Q8_0", "Q6_K", "Q5_K", "Q5_0", "Q4_K", "Q4_0", "IQ4_XS",
              "Q3_K", "Q2_K"]


def repo(out: Path) -> dict:
    """The repo/ models: name -> (block count, files)."""
    from gguf import GGMLQuantizationType, GGUFWriter
    from gguf.constants import GGML_QUANT_SIZES
    d = out / "repo"
    d.mkdir(parents=True, exist_ok=True)
    n_layer, n_embd, n_head, n_ff, n_vocab = 8, 256, 8, 768, 2048
    made = {}
    for tname in REPO_TYPES:
        ty = GGMLQuantizationType[tname]
        block, size = GGML_QUANT_SIZES[ty]
        split = tname == "Q8_0"
        name = f"tiny-{tname}.gguf"
        w = GGUFWriter(d / name, "llama", **({"split_max_tensors": 40} if split else {}))
        w.add_name(f"fit repo test {tname}")
        w.add_block_count(n_layer)
        w.add_context_length(16384)
        w.add_embedding_length(n_embd)
        w.add_feed_forward_length(n_ff)
        w.add_head_count(n_head)
        w.add_head_count_kv(n_head)

        def add(t: str, ne0: int, ne1: int, q: bool) -> None:
            if not q or ty == GGMLQuantizationType.F32:
                w.add_tensor(t, np.zeros((ne1, ne0), dtype=np.float32))
                return
            w.add_tensor(t, np.zeros((ne1, ne0 // block * size), dtype=np.uint8),
                         raw_shape=(ne1, ne0 // block * size), raw_dtype=ty)

        add("token_embd.weight", n_embd, n_vocab, True)
        for i in range(n_layer):
            w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
            for t in ("attn_q", "attn_k", "attn_v", "attn_output"):
                add(f"blk.{i}.{t}.weight", n_embd, n_embd, True)
            w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
            add(f"blk.{i}.ffn_gate.weight", n_embd, n_ff, True)
            add(f"blk.{i}.ffn_up.weight", n_embd, n_ff, True)
            add(f"blk.{i}.ffn_down.weight", n_ff, n_embd, True)
        w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
        add("output.weight", n_embd, n_vocab, True)
        finish(w)
        files = sorted(p.name for p in d.glob(f"tiny-{tname}*.gguf"))
        made[tname] = {"block_count": n_layer, "files": files}
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--shared", required=True, type=Path)
    ap.add_argument("--gemma", type=Path)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    models = {}
    for make in (dense_llama, moe_qwen2moe, mla_deepseek2):
        p, n = make(a.out, a.shared)
        models[p.name] = group(p, n)
    if a.gemma:
        from gguf import GGUFReader
        r = GGUFReader(str(a.gemma))
        n = int(r.fields["gemma3.block_count"].parts[-1][0])
        models[a.gemma.name] = group(a.gemma, n)
    made = repo(a.out)
    for tname, r in made.items():
        models[f"repo/{r['files'][0]}"] = group([a.out / "repo" / f for f in r["files"]], r["block_count"])
    doc = {"generator": "tests/reference/fit_fixtures.py", "models": models, "repo": made}
    (a.out / "expected.json").write_text(json.dumps(doc, indent=1))
    print(f"fit fixtures: {len(models)} models in {a.out}")


if __name__ == "__main__":
    main()
