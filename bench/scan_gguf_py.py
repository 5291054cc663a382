"""The reference scan for `bash scripts/bench.sh scan` (issue #22): gguf-py's GGUFReader and
`quants.dequantize`, then numpy in float64 per tensor (NaN, Inf and zero counts, min, max, mean,
std over the finite values) — what tests/reference/scan_reference.py computes, timed. Prints
one JSON line {"tool", "file", "seconds", "tensors", "bytes"}."""
import json
import sys
import time

import numpy as np
from gguf import GGUFReader, quants

PLAIN = {"F32", "F16", "F64", "I8", "I16", "I32", "I64"}


def scan(path: str) -> tuple[int, int]:
    r = GGUFReader(path)
    n_bytes = 0
    for t in r.tensors:
        name = t.tensor_type.name
        if name == "BF16":
            raw = np.ascontiguousarray(t.data).view(np.uint16).astype(np.uint32) << 16
            x = raw.view(np.float32).astype(np.float64)
        elif name in PLAIN:
            x = np.asarray(t.data).astype(np.float64)
        else:
            x = quants.dequantize(np.asarray(t.data).view(np.uint8), t.tensor_type).astype(np.float64)
        x = x.ravel()
        finite = x[np.isfinite(x)]
        _ = (np.isnan(x).sum(), np.isinf(x).sum(), (finite == 0).sum())
        if finite.size:
            _ = (finite.min(), finite.max(), finite.mean(), finite.std())
        n_bytes += int(t.n_bytes)
    return len(r.tensors), n_bytes


if __name__ == "__main__":
    for f in sys.argv[1:]:
        t0 = time.perf_counter()
        n, b = scan(f)
        print(json.dumps({"tool": "gguf-py dequantize + numpy float64", "file": f,
                          "seconds": time.perf_counter() - t0, "tensors": n, "bytes": b}))
