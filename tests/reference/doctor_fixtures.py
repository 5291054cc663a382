#!/usr/bin/env python3
"""Craft one small GGUF per doctor finding (tokenizer, chat template, structure) with gguf-py's
GGUFWriter, and mixed-type GGUF files for the quantisation recipe.

Usage:
    python tests/reference/doctor_fixtures.py --out DIR
    python tests/reference/doctor_fixtures.py --apply MODEL.gguf ARGS.json

`--apply` checks a recipe as llama-quantize would read it: ARGS.json is a list of
`--tensor-type` arguments (`'REGEX=TYPE'`, shell-quoted); each pattern is lower-cased and
searched in every tensor name of MODEL.gguf (Python's `re.search`, as llama-quantize's
`std::regex_search`), and it prints JSON {"tensors": N, "file": {name: type read by gguf-py},
"first": {name: type of the first matching rule}, "last": {... of the last}, "matches":
{name: number of rules matching}}.

Writes DIR/<case>.gguf and DIR/expected.json:
    {"doctor": [{"case", "file", "codes", "what"}],
     "recipe": [{"case", "file", "types": {tensor name: ggml type name}}]}
`codes` are the finding codes each file is built to give (every file starts from one clean
llama model and changes one thing; "clean" gives none). `types` are read back from each written
file with gguf-py's GGUFReader, not taken from the construction.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType as Q, GGUFReader, GGUFWriter

CONTROL, NORMAL, USER_DEFINED = 3, 1, 4

# The clean model's vocabulary: (text, type).
VOCAB = [
    ("<unk>", 2), ("<s>", CONTROL), ("</s>", CONTROL), ("<|im_start|>", CONTROL),
    ("<|im_end|>", CONTROL), ("<|eot_id|>", CONTROL), ("<|turn_end|>", CONTROL),
    ("hello", NORMAL), ("world", NORMAL), ("\u2581the", NORMAL), ("<0x0A>", 6),
]
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
          "+ '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
LAYER = ["attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_down", "ffn_up"]


def base(**change):
    """The clean model's description; `change` overrides a part of it."""
    spec = {
        "arch": "llama",
        "block_count": 2,
        "layers": [0, 1],
        "drop": [],
        "vocab": list(VOCAB),
        "model": "llama",
        "pre": "default",
        "kv": {"tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.eos_token_id": 4},
        "scores": None,  # one per token
        "types": None,  # from the vocabulary
        "template": CHATML,
        "short": None,  # (tensor, bytes reserved) for a tensor given less room than it needs
    }
    spec.update(change)
    return spec


def tensor_names(spec):
    names = ["token_embd.weight", "output_norm.weight"]
    for n in spec["layers"]:
        names += [f"blk.{n}.{k}.weight" for k in LAYER]
    return [n for n in names if n not in spec["drop"]]


def write(path: Path, spec):
    w = GGUFWriter(str(path), spec["arch"])
    w.add_block_count(spec["block_count"])
    w.add_context_length(64)
    w.add_embedding_length(32)
    w.add_head_count(4)
    w.add_tokenizer_model(spec["model"])
    if spec["pre"] is not None:
        w.add_tokenizer_pre(spec["pre"])
    texts = [t for t, _ in spec["vocab"]]
    w.add_token_list(texts)
    if spec["model"] == "gpt2":
        w.add_token_merges(["h e", "l l"])
    scores = spec["scores"] if spec["scores"] is not None else [-float(i) for i in range(len(texts))]
    w.add_token_scores(scores)
    types = spec["types"] if spec["types"] is not None else [t for _, t in spec["vocab"]]
    if isinstance(types, np.ndarray):
        w.add_array("tokenizer.ggml.token_type", types.tolist())
    else:
        w.add_token_types(types)
    for k, v in spec["kv"].items():
        w.add_uint32(k, v)
    if spec["template"] is not None:
        w.add_chat_template(spec["template"])
    short = spec["short"]
    data = []
    for name in tensor_names(spec):
        a = np.arange(32, dtype=np.float32)
        nbytes = a.nbytes if not (short and short[0] == name) else short[1]
        w.add_tensor_info(name, a.shape, a.dtype, nbytes)
        data.append((a, nbytes))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    with open(path, "ab") as f:
        f.seek(0, 2)
        pad = (-f.tell()) % 32
        f.write(b"\0" * pad)
        for a, nbytes in data:
            f.write(a.tobytes()[:nbytes])
            f.write(b"\0" * ((-nbytes) % 32))
    w.close()


def vocab_with(i, text=None, ty=None):
    v = list(VOCAB)
    t0, y0 = v[i]
    v[i] = (text if text is not None else t0, ty if ty is not None else y0)
    return v


def doctor_cases():
    kv = base()["kv"]
    return [
        ("clean", [], "a llama model with a ChatML template, every layer and special token right", base()),
        ("special-normal", ["special-token-type"], "<|im_start|> typed NORMAL",
         base(vocab=vocab_with(3, ty=NORMAL))),
        ("eog-not-control", ["special-token-type"], "<|im_end|>, an end-of-generation text, typed USER_DEFINED",
         base(vocab=vocab_with(4, ty=USER_DEFINED))),
        ("pad-out-of-vocab", ["special-id-out-of-vocab"], "padding id 999 in an 11-token vocabulary",
         base(kv={**kv, "tokenizer.ggml.padding_token_id": 999})),
        ("pre-missing", ["pre-tokenizer-missing"], "a gpt2 (BPE) vocabulary without tokenizer.ggml.pre",
         base(model="gpt2", pre=None)),
        ("pre-unknown", ["pre-tokenizer-unknown"], "a gpt2 vocabulary whose pre-tokenizer is 'no-such-pre'",
         base(model="gpt2", pre="no-such-pre")),
        ("duplicate-token", ["duplicate-token"], "'world' at ids 8 and 9",
         base(vocab=vocab_with(9, text="world"))),
        ("scores-short", ["token-array-length"], "10 scores for 11 tokens",
         base(scores=[0.0] * (len(VOCAB) - 1))),
        ("types-float", ["token-array-type"], "token_type written as FLOAT32",
         base(types=np.array([float(t) for _, t in VOCAB], dtype=np.float32))),
        ("template-end-not-eog", ["template-end-not-eog"], "the template ends turns with <|turn_end|>, which is neither EOS nor a stop token",
         base(template=CHATML.replace("<|im_end|>", "<|turn_end|>"), kv={**kv, "tokenizer.ggml.eos_token_id": 2})),
        ("template-token-missing", ["template-token-missing"], "the template emits <|im_sep|>, not in the vocabulary",
         base(template=CHATML.replace("'\\n' + message['content']", "'<|im_sep|>' + message['content']"))),
        ("eot-not-in-template", ["eot-not-in-template"], "EOT is <|eot_id|> but the template ends turns with <|im_end|>",
         base(kv={**kv, "tokenizer.ggml.eot_token_id": 5})),
        ("template-unsafe", ["template-unsafe"], "the template reads ''.__class__.__mro__[1].__subclasses__()",
         base(template=CHATML + "{{ ''.__class__.__mro__[1].__subclasses__() }}")),
        ("template-popen", ["template-unsafe"], "the template calls cycler.__init__.__globals__.os.popen",
         base(template=CHATML + "{{ cycler.__init__.__globals__.os.popen('id').read() }}")),
        ("template-obfuscated", ["template-obfuscated"], "the template builds __class__ from '__cla' ~ 'ss__' and |attr",
         base(template=CHATML + "{% set a = '__cla' %}{{ messages|attr(a ~ 'ss__') }}")),
        ("template-reversed", ["template-obfuscated"], "the template builds __globals__ by joining a list and reversing",
         base(template=CHATML + "{{ cycler|attr(['__slab', 'olg__']|join|reverse) }}")),
        ("template-dynamic-attr", ["template-dynamic-attr"], "|attr() with a computed argument",
         base(template=CHATML + "{{ messages|attr(messages[0]['role']) }}")),
        ("layers-missing", ["layers-missing"], "block_count 3, layers 0 and 1 present",
         base(block_count=3)),
        ("layers-extra", ["layers-extra"], "block_count 1, layers 0 and 1 present",
         base(block_count=1)),
        ("layer-tensor-missing", ["layer-tensor-missing"], "blk.1.ffn_gate.weight left out",
         base(drop=["blk.1.ffn_gate.weight"])),
        ("tensor-missing", ["tensor-missing"], "output_norm.weight left out",
         base(drop=["output_norm.weight"])),
        ("reserved-short", ["overlap"], "blk.0.attn_q.weight (32 F32, 128 bytes) given 64 bytes before the next tensor",
         base(short=("blk.0.attn_q.weight", 64))),
    ]


# Recipe files: (case, layers, rule(name, layer) -> type).
def q4km_like(name, layer, n):
    if name == "token_embd.weight":
        return Q.Q8_0
    if name == "output.weight":
        return Q.Q6_K
    if name.endswith("norm.weight"):
        return Q.F32
    kind = name.split(".")[2] if layer is not None else name
    if kind == "ffn_down":
        return Q.Q6_K if layer in (0, 1, 3) or layer >= n - 2 else Q.Q4_K
    if kind == "attn_v":
        return Q.Q6_K if layer % 2 == 0 else Q.Q5_K
    return Q.Q4_K


def scattered(name, layer, n):
    if name.endswith("norm.weight"):
        return Q.F32
    if layer is None:
        return Q.F16
    kinds = [Q.Q4_0, Q.Q5_0, Q.Q8_0, Q.Q2_K, Q.Q3_K, Q.IQ4_NL]
    return kinds[(layer * 7 + len(name)) % len(kinds)]


def uniform(name, layer, n):
    return Q.F32 if name.endswith("norm.weight") else Q.Q8_0


RECIPES = [("recipe-q4km-like", 12, q4km_like), ("recipe-scattered", 9, scattered), ("recipe-uniform", 4, uniform)]


def write_recipe(path: Path, layers: int, rule):
    w = GGUFWriter(str(path), "llama")
    w.add_block_count(layers)
    names = ["token_embd.weight", "output_norm.weight", "output.weight"]
    for n in range(layers):
        names += [f"blk.{n}.{k}.weight" for k in LAYER]
    for name in names:
        layer = int(name.split(".")[1]) if name.startswith("blk.") else None
        qt = rule(name, layer, layers)
        block, size = GGML_QUANT_SIZES[qt]
        ne0 = 256
        rows = 1 if name.endswith("norm.weight") else 2
        nbytes = ne0 // block * size
        w.add_tensor(name, np.zeros((rows, nbytes), dtype=np.uint8), raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def unquote(arg):
    """`--tensor-type 'a'\\''b'` -> `a'b` (the shell's single quotes)."""
    import shlex
    words = shlex.split(arg)
    assert words[0] == "--tensor-type" and len(words) == 2, arg
    return words[1]


def apply(model, args_json):
    import re
    rules = []
    for a in json.loads(Path(args_json).read_text()):
        pattern, qtype = unquote(a).rsplit("=", 1)
        rules.append((re.compile(pattern.lower()), qtype))
    r = GGUFReader(model)
    out = {"tensors": len(r.tensors), "file": {}, "first": {}, "last": {}, "matches": {}}
    for t in r.tensors:
        hits = [q for p, q in rules if p.search(t.name)]
        out["file"][t.name] = t.tensor_type.name
        out["first"][t.name] = hits[0] if hits else None
        out["last"][t.name] = hits[-1] if hits else None
        out["matches"][t.name] = len(hits)
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--apply", nargs=2, metavar=("MODEL", "ARGS_JSON"))
    a = ap.parse_args()
    if a.apply:
        apply(*a.apply)
        return
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    doctor = []
    for case, codes, what, spec in doctor_cases():
        f = out / f"{case}.gguf"
        write(f, spec)
        GGUFReader(str(f))  # gguf-py reads every file back
        doctor.append({"case": case, "file": f.name, "codes": codes, "what": what})
    recipe = []
    for case, layers, rule in RECIPES:
        f = out / f"{case}.gguf"
        write_recipe(f, layers, rule)
        r = GGUFReader(str(f))
        recipe.append({"case": case, "file": f.name, "types": {t.name: t.tensor_type.name for t in r.tensors}})
    (out / "expected.json").write_text(json.dumps({"doctor": doctor, "recipe": recipe}, indent=1))
    print(f"doctor fixtures: {len(doctor)} findings files, {len(recipe)} recipe files in {out}")


if __name__ == "__main__":
    main()
