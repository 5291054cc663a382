#!/usr/bin/env python3
"""The reference way to list a PyTorch checkpoint's tensors without running it, for the speed
comparison in scripts/bench.sh (`torch` mode): the standard library's zipfile and an
Unpickler whose find_class returns stand-ins (what scanners and inert loaders do), storages
never read; the legacy format's pickles read in a row. Prints one JSON line: the file, the
tensor count and the time in ms (median of REPEATS runs in this process, plus the process's
own start-up measured by the caller).

Usage: torch_list.py FILE [REPEATS]
"""
import collections
import io
import json
import pickle
import statistics
import sys
import time
import zipfile


class Stand:
    def __new__(cls, *a, **k):
        o = object.__new__(cls)
        o.args, o.state = a, None
        return o

    def __init__(self, *a, **k):
        pass

    def __setstate__(self, s):
        self.state = s


def rebuild(storage, offset, size, stride, *rest):
    return ("tensor", storage, offset, tuple(size), tuple(stride))


class Lister(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "torch._utils" and name.startswith("_rebuild_tensor"):
            return rebuild
        if module == "torch._utils" and name.startswith("_rebuild_parameter"):
            return lambda data, *a: data
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        return type(name, (Stand,), {})

    def persistent_load(self, pid):
        return pid[1].__name__ if isinstance(pid[1], type) else pid[1], pid[2], pid[4]


def walk(obj, path, out, seen):
    if isinstance(obj, tuple) and obj[:1] == ("tensor",):
        out.append((path, obj))
        return
    if id(obj) in seen:
        return
    seen.add(id(obj))
    j = lambda k: f"{path}.{k}" if path else str(k)
    if isinstance(obj, dict):
        for k, v in obj.items():
            walk(v, path if k in ("_parameters", "_buffers", "_modules") else j(k), out, seen)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            walk(v, j(i), out, seen)
    elif isinstance(obj, Stand):
        walk(obj.state, path, out, seen)


def list_tensors(path):
    out = []
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            main = min((n for n in names if n.endswith("data.pkl")), key=lambda n: n.count("/"))
            walk(Lister(io.BytesIO(z.read(main))).load(), "", out, set())
            constants = main[: -len("data.pkl")] + "constants.pkl"  # TorchScript's
            if constants in names:
                walk(Lister(io.BytesIO(z.read(constants))).load(), "constants", out, set())
    else:
        with open(path, "rb") as f:
            for _ in range(3):
                pickle.load(f)
            walk(Lister(f).load(), "", out, set())
    return out


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        n = len(list_tensors(path))
        times.append((time.perf_counter() - t) * 1e3)
    print(json.dumps(dict(file=path, tensors=n, median_ms=statistics.median(times))))


if __name__ == "__main__":
    main()
