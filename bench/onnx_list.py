#!/usr/bin/env python3
"""The reference way to list an ONNX model's tensors, for the speed comparison in
scripts/bench.sh (`onnx` mode): `onnx.load(path, load_external_data=False)`, then every
initializer, sparse initializer and Constant node value, subgraphs included (what weightpeek
lists). Prints one JSON line: the file, the tensor count, the median time in ms of REPEATS runs
in this process.

Usage: onnx_list.py FILE [REPEATS]
"""
import json
import statistics
import sys
import time

import onnx


def tensors(graph, out):
    out.extend(graph.initializer)
    out.extend(graph.sparse_initializer)
    for node in graph.node:
        for a in node.attribute:
            if node.op_type == "Constant" and a.name == "value":
                out.append(a.t)
            if a.type == onnx.AttributeProto.GRAPH:
                tensors(a.g, out)
            for g in a.graphs:
                tensors(g, out)
    return out


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        n = len(tensors(onnx.load(path, load_external_data=False).graph, []))
        times.append((time.perf_counter() - t) * 1e3)
    print(json.dumps(dict(file=path, tensors=n, median_ms=statistics.median(times))))


if __name__ == "__main__":
    main()
