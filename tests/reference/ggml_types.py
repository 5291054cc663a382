#!/usr/bin/env python3
"""Print gguf-py's ggml type table and file-type enum as JSON, for a Rust test to compare against.

Usage: python tests/reference/ggml_types.py > types.json

Output:
{ "reference": "gguf X.Y.Z",
  "quant_types": [{"id": int, "name": "Q4_K", "block_size": int, "type_size": int}, ...]  by id,
  "quant_types_without_size": [{"id", "name"}]   GGMLQuantizationType members absent from
                                                 GGML_QUANT_SIZES (removed/never-stored types),
  "file_types": [{"id": int, "name": "MOSTLY_Q4_K_M"}, ...]  LlamaFileType, by id }
Everything is read from gguf.constants (GGMLQuantizationType, GGML_QUANT_SIZES, LlamaFileType).
Note: gguf-py lists Q8_1 as (32, 40) although ggml's block_q8_1 is 36 bytes (two fp16 scales);
Q8_1 is an activation-only type never stored in files. Compare knowingly.
"""
import json
from importlib.metadata import version

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType, LlamaFileType


def main() -> None:
    quant = [{"id": int(t), "name": t.name, "block_size": GGML_QUANT_SIZES[t][0], "type_size": GGML_QUANT_SIZES[t][1]}
             for t in sorted(GGML_QUANT_SIZES, key=int)]
    missing = [{"id": int(t), "name": t.name} for t in sorted(GGMLQuantizationType, key=int) if t not in GGML_QUANT_SIZES]
    files = [{"id": int(t), "name": t.name} for t in sorted(LlamaFileType, key=int)]
    print(json.dumps({"reference": f"gguf {version('gguf')}", "quant_types": quant,
                      "quant_types_without_size": missing, "file_types": files}, indent=1))


if __name__ == "__main__":
    main()
