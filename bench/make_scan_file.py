"""A generated GGUF of mixed block types for `bash scripts/bench.sh scan` (issue #22): tensors
of 64 MiB of random Q4_K, Q8_0 and F16 data in turn (finite f16 scales of model-like size, real
bytes: no sparse holes), SIZE GiB in all; with TYPE (Q4_K, Q8_0 or F16) of that type only.
Usage: make_scan_file.py OUT SIZE_GIB [TYPE]"""
import sys
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFWriter

RNG = np.random.default_rng(22)
TENSOR = 64 << 20
# (type, block values, block bytes, f16 scale offsets)
TYPES = [(T.Q4_K, 256, 144, [0, 2]), (T.Q8_0, 32, 34, [0]), (T.F16, 1, 2, None)]


def tensor(ty, bs, ts, scales):
    if scales is None:
        v = RNG.normal(0, 0.02, TENSOR // 2).astype(np.float16)
        return v.reshape(-1, 4096)
    n = TENSOR // ts
    raw = RNG.integers(0, 256, size=(n, ts), dtype=np.uint8)
    for off in scales:
        d = (RNG.uniform(1e-4, 1e-2, n)).astype(np.float16)
        raw[:, off:off + 2] = d.view(np.uint8).reshape(n, 2)
    row_blocks = 4096 // bs
    return raw[: n // row_blocks * row_blocks].reshape(-1, row_blocks * ts)


def main() -> None:
    out, gib = Path(sys.argv[1]), float(sys.argv[2])
    types = [t for t in TYPES if len(sys.argv) < 4 or t[0].name == sys.argv[3]]
    if not types:
        sys.exit(f"no type {sys.argv[3]}: Q4_K, Q8_0 or F16")
    if out.exists() and out.stat().st_size >= gib * (1 << 30) * 0.95:
        print(f"{out} is there")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    w = GGUFWriter(str(out), "scan-bench")
    for i in range(int(gib * (1 << 30) // TENSOR)):
        ty, bs, ts, scales = types[i % len(types)]
        a = tensor(ty, bs, ts, scales)
        w.add_tensor(f"blk.{i}.{ty.name.lower()}", a, raw_dtype=None if ty == T.F16 else ty)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
