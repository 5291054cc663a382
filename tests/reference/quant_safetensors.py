#!/usr/bin/env python3
"""Build small quantised safetensors files, one per layout, and write the expected logical
parameter counts and effective bits per weight computed from the construction (the original,
unpacked shapes), not from the files' headers.

Usage:
    python tests/reference/quant_safetensors.py --out DIR

Writes DIR/<case>/model.safetensors (and DIR/<case>/config.json where the layout has one) and
DIR/expected.json:
    {"cases": [{"case", "file", "config", "scheme", "layout", "quantised_weights",
                "logical_parameters", "bits_per_weight", "tensor_bytes",
                "logical_parameters_header_only", "bits_per_weight_header_only"}]}
`logical_parameters` is the exact count (it needs the data of the bitsandbytes quant_state and
compressed-tensors weight_shape tensors where a shape cannot be derived from the packing);
`*_header_only` is what the header (and config) alone give, as each layout's convention derives
it: bitsandbytes packed bytes x 2, compressed-tensors packed columns x (32 / bits).

Packing follows the writers' conventions, done here with numpy: AutoGPTQ (qweight packed along
the input dimension, qzeros along the output), AutoAWQ GEMM (both along the output dimension),
bitsandbytes Params4bit (two 4-bit codes a byte, [n/2, 1], absmax per block, nested absmax for
compress_statistics), LLM.int8() (SCB row scales), DeepSeek-V3 FP8 (128x128 block
weight_scale_inv), compressed-tensors float-quantized and pack-quantized (weight_shape holds
the logical shape), gpt-oss MXFP4 (_blocks [..., n/32, 16], _scales E8M0) and mlx-lm
(U32 packed along the last dimension, scales and biases per group).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

RNG = np.random.default_rng(6)
HIDDEN, INTER, VOCAB, LAYERS = 256, 512, 320, 2
# (module, out_features, in_features) of one decoder layer's linear layers.
LINEARS = [
    ("self_attn.q_proj", HIDDEN, HIDDEN),
    ("self_attn.k_proj", 128, HIDDEN),
    ("self_attn.v_proj", 128, HIDDEN),
    ("self_attn.o_proj", HIDDEN, HIDDEN),
    ("mlp.gate_proj", INTER, HIDDEN),
    ("mlp.up_proj", INTER, HIDDEN),
    ("mlp.down_proj", HIDDEN, INTER),
]


class Case:
    """Tensors of one file plus the logical parameter count of its construction."""

    def __init__(self, name: str, scheme: str, layout: str):
        self.name, self.scheme, self.layout = name, scheme, layout
        self.tensors: dict[str, np.ndarray] = {}
        self.logical = 0          # exact logical parameters
        self.logical_header = 0   # what header + config derive
        self.quantised = 0
        self.config: dict | None = None

    def plain(self, name: str, shape: tuple[int, ...], dtype=np.float16) -> None:
        a = RNG.standard_normal(shape).astype(dtype)
        self.tensors[name] = a
        self.logical += a.size
        self.logical_header += a.size

    def extra(self, name: str, a: np.ndarray) -> None:
        """A companion: bytes, no parameters."""
        self.tensors[name] = np.ascontiguousarray(a)

    def quant(self, logical_shape: tuple[int, ...], header_elements: int | None = None) -> None:
        n = math.prod(logical_shape)
        self.logical += n
        self.logical_header += n if header_elements is None else header_elements
        self.quantised += 1

    def write(self, out: Path) -> dict:
        d = out / self.name
        d.mkdir(parents=True, exist_ok=True)
        f = d / "model.safetensors"
        save_file(self.tensors, str(f), metadata={"format": "pt"})
        if self.config is not None:
            (d / "config.json").write_text(json.dumps(self.config, indent=1))
        # Read back with the reference reader: every tensor there, bytes as constructed.
        with safe_open(str(f), "np") as r:
            assert sorted(r.keys()) == sorted(self.tensors), self.name
        tensor_bytes = sum(a.nbytes for a in self.tensors.values())
        header = int.from_bytes(f.read_bytes()[:8], "little")
        assert f.stat().st_size == 8 + header + tensor_bytes, self.name
        return {
            "case": self.name,
            "file": f"{self.name}/model.safetensors",
            "config": self.config is not None,
            "scheme": self.scheme,
            "layout": self.layout,
            "quantised_weights": self.quantised,
            "tensor_count": len(self.tensors),
            "stored_elements": int(sum(a.size for a in self.tensors.values())),
            "tensor_bytes": tensor_bytes,
            "logical_parameters": self.logical,
            "bits_per_weight": tensor_bytes * 8 / self.logical,
            "logical_parameters_header_only": self.logical_header,
            "bits_per_weight_header_only": tensor_bytes * 8 / self.logical_header,
        }


def pack(values: np.ndarray, bits: int, axis: int) -> np.ndarray:
    """Packs unsigned `bits`-bit integers into int32 along `axis`, low bits first (AutoGPTQ,
    AutoAWQ without its interleave, MLX, compressed-tensors); pads the axis with zeros."""
    per = 32 // bits
    v = np.moveaxis(values.astype(np.uint32), axis, -1)
    pad = (-v.shape[-1]) % per
    v = np.concatenate([v, np.zeros(v.shape[:-1] + (pad,), np.uint32)], axis=-1)
    v = v.reshape(v.shape[:-1] + (v.shape[-1] // per, per))
    packed = np.zeros(v.shape[:-1], np.uint32)
    for j in range(per):
        packed |= v[..., j] << np.uint32(bits * j)
    return np.moveaxis(packed, -1, axis).view(np.int32)


def codes(shape: tuple[int, ...], bits: int) -> np.ndarray:
    return RNG.integers(0, 1 << bits, size=shape, dtype=np.uint32)


def decoder(case: Case, quantise, embed_dtype=np.float16) -> None:
    """A 2-layer llama-like model: embeddings, norms and lm_head as they are, the linear layers
    through `quantise(case, prefix, out, in)`."""
    case.plain("model.embed_tokens.weight", (VOCAB, HIDDEN), embed_dtype)
    for layer in range(LAYERS):
        p = f"model.layers.{layer}"
        case.plain(f"{p}.input_layernorm.weight", (HIDDEN,))
        case.plain(f"{p}.post_attention_layernorm.weight", (HIDDEN,))
        for module, out_f, in_f in LINEARS:
            quantise(case, f"{p}.{module}", out_f, in_f)
    case.plain("model.norm.weight", (HIDDEN,))
    case.plain("lm_head.weight", (VOCAB, HIDDEN))


def gptq(bits: int, group: int, config: bool, name: str) -> Case:
    c = Case(name, "gptq", f"GPTQ {bits}-bit, group size {group}")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        groups = math.ceil(in_f / group)
        w = codes((in_f, out_f), bits)                         # [in, out]
        case.extra(f"{p}.qweight", pack(w, bits, 0))           # [in * bits / 32, out]
        case.extra(f"{p}.qzeros", pack(codes((groups, out_f), bits), bits, 1))
        case.extra(f"{p}.scales", RNG.random((groups, out_f)).astype(np.float16))
        case.extra(f"{p}.g_idx", (np.arange(in_f) // group).astype(np.int32))
        case.quant((out_f, in_f))

    decoder(c, q)
    if config:
        c.config = {"architectures": ["LlamaForCausalLM"], "quantization_config": {
            "quant_method": "gptq", "bits": bits, "group_size": group, "desc_act": False,
            "sym": True}}
    return c


def awq(bits: int, group: int, config: bool, name: str) -> Case:
    c = Case(name, "awq", f"AWQ {bits}-bit, group size {group}")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        groups = in_f // group
        case.extra(f"{p}.qweight", pack(codes((in_f, out_f), bits), bits, 1))   # [in, out/8]
        case.extra(f"{p}.qzeros", pack(codes((groups, out_f), bits), bits, 1))
        case.extra(f"{p}.scales", RNG.random((groups, out_f)).astype(np.float16))
        case.quant((out_f, in_f))

    decoder(c, q)
    if config:
        c.config = {"quantization_config": {"quant_method": "awq", "bits": bits,
                                            "group_size": group, "version": "gemm",
                                            "zero_point": True}}
    return c


def bnb4(quant_type: str, nested: bool, name: str) -> Case:
    blocksize = 64
    layout = f"bitsandbytes {quant_type.upper()}, block size {blocksize}"
    c = Case(name, f"bnb-{quant_type}", layout + (", nested absmax" if nested else ""))

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        n = out_f * in_f
        packed = math.ceil(n / 2)
        case.extra(f"{p}.weight", RNG.integers(0, 256, (packed, 1), dtype=np.uint8))
        blocks = math.ceil(n / blocksize)
        state = {"quant_type": quant_type, "blocksize": blocksize, "dtype": "bfloat16",
                 "shape": [out_f, in_f]}
        if nested:
            case.extra(f"{p}.weight.absmax", RNG.integers(0, 256, blocks, dtype=np.uint8))
            case.extra(f"{p}.weight.nested_absmax",
                       RNG.random(math.ceil(blocks / 256)).astype(np.float32))
            case.extra(f"{p}.weight.nested_quant_map", RNG.random(256).astype(np.float32))
            state.update({"nested_blocksize": 256, "nested_offset": 0.01,
                          "nested_dtype": "float32"})
        else:
            case.extra(f"{p}.weight.absmax", RNG.random(blocks).astype(np.float32))
        case.extra(f"{p}.weight.quant_map", RNG.random(16).astype(np.float32))
        case.extra(f"{p}.weight.quant_state.bitsandbytes__{quant_type}",
                   np.frombuffer(json.dumps(state).encode(), np.uint8))
        # The header shows only the packed bytes: x 2 is one too many for an odd count.
        case.quant((out_f, in_f), header_elements=packed * 2)

    decoder(c, q)
    # An odd-sized weight: 7 x 9 = 63 values in 32 bytes.
    q(c, "model.extra.odd_proj", 7, 9)
    c.config = {"quantization_config": {
        "quant_method": "bitsandbytes", "load_in_4bit": True,
        "bnb_4bit_quant_type": quant_type, "bnb_4bit_use_double_quant": nested}}
    return c


def bnb8(name: str) -> Case:
    c = Case(name, "bnb-int8", "bitsandbytes LLM.int8(), per-row scales")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        case.extra(f"{p}.weight", RNG.integers(-127, 128, (out_f, in_f), dtype=np.int8))
        case.extra(f"{p}.SCB", RNG.random(out_f).astype(np.float32))
        case.extra(f"{p}.weight_format", np.array(0, np.uint8))
        case.quant((out_f, in_f))

    decoder(c, q)
    c.config = {"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": True}}
    return c


def fp8_blocks(name: str) -> Case:
    block = 128
    c = Case(name, "fp8", f"FP8, F8_E4M3, block {block}×{block} scales")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        w = RNG.standard_normal((out_f, in_f)).astype(ml_dtypes.float8_e4m3fn)
        case.extra(f"{p}.weight", w)
        case.extra(f"{p}.weight_scale_inv",
                   RNG.random((math.ceil(out_f / block), math.ceil(in_f / block))).astype(np.float32))
        case.quant((out_f, in_f))

    decoder(c, q)
    # A 320 x 200 weight: partial blocks at both edges.
    q(c, "model.extra.edge_proj", 320, 200)
    c.config = {"quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                        "activation_scheme": "dynamic",
                                        "weight_block_size": [block, block]}}
    return c


def fp8_tensor(name: str) -> Case:
    c = Case(name, "fp8", "FP8, F8_E4M3, per-tensor scale")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        case.extra(f"{p}.weight", RNG.standard_normal((out_f, in_f)).astype(ml_dtypes.float8_e4m3fn))
        case.extra(f"{p}.weight_scale", RNG.random(1).astype(np.float32))
        case.extra(f"{p}.input_scale", RNG.random(1).astype(np.float32))
        case.quant((out_f, in_f))

    decoder(c, q)
    c.config = {"quantization_config": {
        "quant_method": "compressed-tensors", "format": "float-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": True},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "tensor"}}}}}
    return c


def mxfp4(name: str) -> Case:
    experts, hidden, inter = 4, 128, 128
    c = Case(name, "mxfp4", "MXFP4, 32-value blocks, E8M0 scales")
    c.plain("model.embed_tokens.weight", (VOCAB, hidden))
    for layer in range(LAYERS):
        p = f"model.layers.{layer}"
        c.plain(f"{p}.self_attn.q_proj.weight", (hidden, hidden))
        c.plain(f"{p}.self_attn.q_proj.bias", (hidden,))
        c.plain(f"{p}.mlp.router.weight", (experts, hidden))
        for proj, rows, cols in (("gate_up_proj", 2 * inter, hidden), ("down_proj", hidden, inter)):
            base = f"{p}.mlp.experts.{proj}"
            c.extra(f"{base}_blocks",
                    RNG.integers(0, 256, (experts, rows, cols // 32, 16), dtype=np.uint8))
            c.extra(f"{base}_scales",
                    RNG.integers(118, 130, (experts, rows, cols // 32), dtype=np.uint8))
            c.plain(f"{base}_bias", (experts, rows))
            c.quant((experts, rows, cols))
    c.config = {"quantization_config": {"quant_method": "mxfp4",
                                        "modules_to_not_convert": ["model.layers.*.self_attn"]}}
    return c


def mlx(config: bool, name: str) -> Case:
    bits, group = 4, 64
    override = "model.layers.1.mlp.down_proj"
    c = Case(name, "mlx", f"MLX {bits}-bit, group size {group}")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        b = 8 if (config and p == override) else bits
        case.extra(f"{p}.weight", pack(codes((out_f, in_f), b), b, 1).view(np.uint32))
        case.extra(f"{p}.scales", RNG.random((out_f, in_f // group)).astype(np.float16))
        case.extra(f"{p}.biases", RNG.random((out_f, in_f // group)).astype(np.float16))
        case.quant((out_f, in_f))

    case_embed = "model.embed_tokens"
    q(c, case_embed, VOCAB, HIDDEN)
    for layer in range(LAYERS):
        p = f"model.layers.{layer}"
        c.plain(f"{p}.input_layernorm.weight", (HIDDEN,))
        for module, out_f, in_f in LINEARS:
            q(c, f"{p}.{module}", out_f, in_f)
    c.plain("model.norm.weight", (HIDDEN,))
    if config:
        quant = {"group_size": group, "bits": bits,
                 override: {"group_size": group, "bits": 8}}
        c.config = {"model_type": "llama", "quantization": quant, "quantization_config": quant}
    return c


def compressed(name: str) -> Case:
    bits, group = 4, 128
    per = 32 // bits
    c = Case(name, "compressed-tensors", f"compressed-tensors {bits}-bit, group size {group}")

    def q(case: Case, p: str, out_f: int, in_f: int) -> None:
        groups = math.ceil(in_f / group)
        case.extra(f"{p}.weight_packed", pack(codes((out_f, in_f), bits), bits, 1))
        case.extra(f"{p}.weight_scale", RNG.random((out_f, groups)).astype(np.float16))
        case.extra(f"{p}.weight_zero_point", pack(codes((out_f, groups), bits), bits, 0))
        case.extra(f"{p}.weight_shape", np.array([out_f, in_f], np.int64))
        # Without weight_shape's data the packing says ceil(in / 8) x 8 columns.
        case.quant((out_f, in_f), header_elements=out_f * math.ceil(in_f / per) * per)

    decoder(c, q)
    q(c, "model.extra.odd_proj", 64, 300)   # 300 inputs pack into 38 I32 = 304 slots
    c.config = {"quantization_config": {
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": bits, "type": "int", "strategy": "group", "group_size": group,
            "symmetric": False}}}}}
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    out: Path = args.out
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cases = [
        gptq(4, 128, True, "gptq-4bit-g128"),
        gptq(8, 64, True, "gptq-8bit-g64"),
        gptq(4, 128, False, "gptq-4bit-no-config"),
        awq(4, 128, True, "awq-4bit-g128"),
        awq(4, 64, False, "awq-4bit-no-config"),
        bnb4("nf4", True, "bnb-nf4-nested"),
        bnb4("fp4", False, "bnb-fp4"),
        bnb8("bnb-int8"),
        fp8_blocks("fp8-block"),
        fp8_tensor("fp8-per-tensor"),
        mxfp4("mxfp4"),
        mlx(True, "mlx-4bit-mixed"),
        mlx(False, "mlx-no-config"),
        compressed("compressed-tensors-w4a16"),
    ]
    docs = [c.write(tmp) for c in cases]
    (tmp / "expected.json").write_text(json.dumps({"cases": docs}, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    for d in docs:
        print(f"{d['case']:<28} {d['logical_parameters']:>9} params  "
              f"{d['bits_per_weight']:.4f} bpw  ({d['quantised_weights']} quantised weights)")


if __name__ == "__main__":
    main()
