#!/usr/bin/env python3
"""PyTorch checkpoints written without torch, and what a reference reader finds in them and in
the real ones (lpips legacy .pth, silero-vad TorchScript), for tests/torch_files.rs and
tests/e2e/torch-files.test.mjs.

Writing: the Python standard library's pickle and zipfile write exactly what torch.save
writes: fake `torch` / `torch._utils` modules whose functions and classes carry torch's
`__module__` and `__qualname__`, a Pickler whose persistent_id returns torch's
('storage', torch.<Type>Storage, key, 'cpu', numel), protocol 2, and a zip archive of stored
members `archive/data.pkl`, `archive/byteorder`, `archive/data/<key>`, `archive/version`, each
member's bytes at a multiple of 64 (torch's `FB` padding extra field). Cases:

  state-dict.pt       an OrderedDict of every storage dtype numpy can hold, a scalar, an empty
                      tensor, tied weights (two names, one storage), a slice at a storage offset,
                      a transposed (strided) view, Parameters
  checkpoint.ckpt     a nested checkpoint: {"state_dict": ..., "optimizer": {...}, "epoch": 3}
  optimizer.pt        a training checkpoint: {"model": ..., "optimizer": {"state": {i:
                      {"step", "exp_avg", "exp_avg_sq"}}, "param_groups": [...]}, "epoch"}
  lightning.ckpt      PyTorch Lightning's layout: {"state_dict": ..., "optimizer_states":
                      [{"state": ..., "param_groups": ...}], "lr_schedulers": [...], ...}
  rezipped.pt         the same as state-dict.pt re-zipped by zipfile without padding
  zip64.pt            a small archive written with ZIP64 end records and ZIP64 extra fields
  legacy.pth          the legacy format (five pickles, then raw storages)
  big.pt              (with --big) a 500 MB checkpoint for the remote test
  malicious-*.pt      a state dict whose pickle also calls os.system / builtins.eval / imports
                      subprocess.Popen without calling it

Reading (the reference): zipfile / the legacy layout, a pickle.Unpickler whose find_class
returns stand-ins (never the real callables: nothing runs) and whose persistent_load returns
the storage's bytes, numpy views built with np.lib.stride_tricks.as_strided; names are the
dotted paths of dict keys, list indexes and object attributes (`_parameters`, `_buffers` and
`_modules` left out).

Writes DIR/<file> and DIR/expected.json:
  {"files": {file: {"path", "format", "tensors": [{"name", "dtype", "shape", "bytes",
    "contiguous", "first": [64 values as text], "last_row": [...]}], "imports": [[module, name]],
    "optimizer_state": {"tensors", "values"}}}}

The optimizer state is what the checkpoint's optimizer state dicts hold (found by the object's
structure, not by names): the tensors under the top-level "optimizer" or
"optimizer_state_dict" dict, and under each dict of Lightning's "optimizer_states" list.

Usage: torch_fixtures.py --out DIR [--big]
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import pickle
import struct
import sys
import types
import zipfile
from importlib.metadata import version
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from textvals import kind_of, vtext  # noqa: E402

DATA = Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache" / "weightpeek-data"))
RNG = np.random.default_rng(1212)
FIRST = 64

# storage type name -> (numpy dtype, safetensors-style dtype name weightpeek shows)
STORAGES = {
    "FloatStorage": (np.float32, "F32"), "DoubleStorage": (np.float64, "F64"),
    "HalfStorage": (np.float16, "F16"), "BFloat16Storage": (ml_dtypes.bfloat16, "BF16"),
    "LongStorage": (np.int64, "I64"), "IntStorage": (np.int32, "I32"),
    "ShortStorage": (np.int16, "I16"), "CharStorage": (np.int8, "I8"),
    "ByteStorage": (np.uint8, "U8"), "BoolStorage": (np.bool_, "BOOL"),
    "ComplexFloatStorage": (np.complex64, "C64"), "ComplexDoubleStorage": (np.complex128, "C128"),
}
NP_TO_STORAGE = {np.dtype(v[0]): k for k, v in STORAGES.items()}


# --- writing: fake torch ---------------------------------------------------------------------

def fake_torch():
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
        raise RuntimeError("never called")

    def _rebuild_parameter(data, requires_grad, backward_hooks):
        raise RuntimeError("never called")

    for f in (_rebuild_tensor_v2, _rebuild_parameter):
        f.__module__ = "torch._utils"
        f.__qualname__ = f.__name__
        setattr(utils, f.__name__, f)
    for name in STORAGES:
        cls = type(name, (), {})
        cls.__module__ = "torch"
        setattr(torch, name, cls)
    torch._utils = utils
    sys.modules["torch"] = torch
    sys.modules["torch._utils"] = utils
    return torch, utils


TORCH, UTILS = fake_torch()


class Storage:
    """A storage: its key and the array holding its elements."""

    def __init__(self, key: str, arr: np.ndarray):
        self.key, self.arr = key, np.ascontiguousarray(arr).ravel()


class Tensor:
    """A view of a storage, pickled as torch pickles a tensor."""

    def __init__(self, storage: Storage, offset: int, shape, stride, parameter=False):
        self.storage, self.offset, self.shape, self.stride = storage, offset, tuple(shape), tuple(stride)
        self.parameter = parameter

    def __reduce_ex__(self, proto):
        t = (UTILS._rebuild_tensor_v2,
             (self.storage, self.offset, self.shape, self.stride, self.parameter, collections.OrderedDict()))
        if not self.parameter:
            return t
        inner = Tensor(self.storage, self.offset, self.shape, self.stride)
        return (UTILS._rebuild_parameter, (inner, True, collections.OrderedDict()))


class Pickler(pickle.Pickler):
    def __init__(self, f, legacy=False):
        super().__init__(f, protocol=2)
        self.legacy = legacy
        self.storages: dict[str, Storage] = {}

    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            self.storages[obj.key] = obj
            cls = getattr(TORCH, NP_TO_STORAGE[obj.arr.dtype])
            pid = ("storage", cls, obj.key, "cpu", int(obj.arr.size))
            return pid + (None,) if self.legacy else pid
        return None


def contiguous(shape):
    s, acc = [], 1
    for n in reversed(shape):
        s.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(s))


def t(storage, shape, offset=0, stride=None, parameter=False):
    return Tensor(storage, offset, shape, stride or contiguous(shape), parameter)


def state_dict():
    """An OrderedDict covering every storage dtype and view kind."""
    k = iter(range(1000))
    sd = collections.OrderedDict()
    s = lambda arr: Storage(str(next(k)), arr)
    emb = s(RNG.normal(0, 1, (40, 16)).astype(np.float32))
    sd["embed.weight"] = t(emb, (40, 16), parameter=True)
    sd["lm_head.weight"] = t(emb, (40, 16))                         # tied: the same storage
    sd["layers.0.attn.q.weight"] = t(s(RNG.normal(0, 0.1, (8, 16)).astype(np.float16)), (8, 16), parameter=True)
    sd["layers.0.attn.q.bias"] = t(s(RNG.normal(0, 0.1, 8).astype(ml_dtypes.bfloat16)), (8,))
    big = s(RNG.normal(0, 1, 100).astype(np.float64))
    sd["layers.0.mlp.slice"] = t(big, (3, 10), offset=40)           # a view at a storage offset
    sd["layers.0.mlp.transposed"] = t(big, (10, 4), stride=(1, 10))  # strided: not one range
    sd["layers.0.norm.num_batches_tracked"] = t(s(np.array([1234567890123], np.int64)), ())
    sd["position_ids"] = t(s(np.arange(64, dtype=np.int64)), (1, 64))
    sd["mask"] = t(s(RNG.integers(0, 2, 20).astype(np.bool_)), (4, 5))
    sd["codes.u8"] = t(s(RNG.integers(0, 256, 24, dtype=np.uint8)), (2, 12))
    sd["codes.i8"] = t(s(RNG.integers(-128, 128, 24, dtype=np.int8)), (3, 8))
    sd["codes.i16"] = t(s(RNG.integers(-2**15, 2**15, 12, dtype=np.int16)), (12,))
    sd["codes.i32"] = t(s(np.array([-2**31, 2**31 - 1, 16777217, 5], np.int32)), (2, 2))
    c = np.empty(6, np.complex64)
    c.real, c.imag = RNG.normal(0, 1, 6), RNG.normal(0, 1, 6)
    sd["freqs_cis"] = t(s(c), (2, 3))
    sd["empty"] = t(s(np.zeros(0, np.float32)), (0, 4))
    c2 = np.empty(8, np.complex128)
    c2.real, c2.imag = RNG.normal(0, 1, 8), RNG.normal(0, 1e-300, 8)  # digits an f32 cannot hold
    sd["freqs_cis_f64"] = t(s(c2), (2, 4))
    return sd


def write_torch_zip(path: Path, obj, pad=True, prefix="archive"):
    buf = io.BytesIO()
    p = Pickler(buf)
    p.dump(obj)
    members = [(f"{prefix}/data.pkl", buf.getvalue()), (f"{prefix}/byteorder", b"little")]
    for key, st in sorted(p.storages.items(), key=lambda kv: int(kv[0])):
        members.append((f"{prefix}/data/{key}", st.arr.tobytes()))
    members += [(f"{prefix}/version", b"3\n"), (f"{prefix}/.data/serialization_id", b"1234567890")]
    with open(path, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            if pad:
                # torch's writer: data at the first multiple of 64 after the header, the name and
                # a 4-byte "FB" field (caffe2/serialize/inline_container.cc getPadding).
                start = f.tell() + 30 + len(name.encode()) + 4
                info.extra = b"FB" + struct.pack("<H", -start % 64) + b"Z" * (-start % 64)
            z.writestr(info, data)


def write_zip64(path: Path, obj):
    """A stored archive with ZIP64 extra fields in every central directory entry and ZIP64 end
    records (as writers do for archives over 4 GiB), small enough to keep."""
    buf = io.BytesIO()
    p = Pickler(buf)
    p.dump(obj)
    members = [("archive/data.pkl", buf.getvalue())]
    for key, st in sorted(p.storages.items(), key=lambda kv: int(kv[0])):
        members.append((f"archive/data/{key}", st.arr.tobytes()))
    out, central = bytearray(), bytearray()
    for name, data in members:
        off = len(out)
        nb = name.encode()
        crc = zipfile.crc32(data)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc, len(data), len(data), len(nb), 0)
        out += nb + data
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), off)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0x21, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(extra), 0, 0, 0, 0, 0xFFFFFFFF)
        central += nb + extra
    cd_off = len(out)
    out += central
    z64 = len(out)
    n = len(members)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), cd_off)
    out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes(bytes(out))
    with zipfile.ZipFile(path) as z:  # the standard library reads it back
        assert z.read("archive/data.pkl") == members[0][1]


def write_legacy(path: Path, obj):
    f = io.BytesIO()
    for v in (0x1950A86A20F9469CFC6C, 1001,
              dict(protocol_version=1001, little_endian=True, type_sizes=dict(short=2, int=4, long=4))):
        pickle.dump(v, f, protocol=2)
    p = Pickler(f, legacy=True)
    p.dump(obj)
    keys = sorted(p.storages, key=int)
    pickle.dump(keys, f, protocol=2)
    for k in keys:
        a = p.storages[k].arr
        f.write(struct.pack("<q", a.size))
        f.write(a.tobytes())
    path.write_bytes(f.getvalue())


class Evil:
    def __init__(self, reduce):
        self.r = reduce

    def __reduce__(self):
        return self.r


def malicious(kind: str):
    sd = collections.OrderedDict()
    sd["w"] = t(Storage("0", np.arange(6, dtype=np.float32)), (2, 3))
    if kind == "os-system":
        sd["x"] = Evil((os.system, ("echo pwned",)))
    elif kind == "eval":
        sd["x"] = Evil((eval, ("1+1",)))
    elif kind == "import-only":
        import subprocess
        sd["x"] = subprocess.Popen  # pickled as a GLOBAL, never called
    return sd


def write_attacks(out: Path):
    """Files torch.load runs code from, shaped to slip past a scanner (found by trying to break
    weightpeek): attack-*.pt. tests/torch_files.rs asserts each has a dangerous import."""
    evil = pickle.dumps(Evil((os.system, ("echo pwned",))), protocol=2)
    sd = collections.OrderedDict(w=t(Storage("0", np.arange(6, dtype=np.float32)), (2, 3)))
    b = io.BytesIO()
    p = Pickler(b)
    p.dump(sd)
    good = b.getvalue()
    data0 = p.storages["0"].arr.tobytes()

    def zipped(path, members, method=zipfile.ZIP_STORED):
        with zipfile.ZipFile(path, "w", method) as z:
            for name, data in members:
                with warnings_off():
                    z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, compress_type=method)

    # Two data.pkl members: torch reads the last.
    zipped(out / "attack-duplicate.pt", [("archive/data.pkl", good), ("archive/data/0", data0),
                                          ("archive/data.pkl", evil)])
    # Another case: torch's reader compares names without case.
    zipped(out / "attack-case.pt", [("archive/DATA.PKL", evil), ("archive/data/0", data0)])
    # A deflated data.pkl: torch inflates it.
    zipped(out / "attack-deflated.pt", [("archive/data.pkl", evil), ("archive/data/0", data0)], zipfile.ZIP_DEFLATED)
    # os reached through another module's attribute (protocol 4 dotted names).
    dotted = b"\x80\x04\x8c\x08argparse\x8c\x0a_os.system\x93\x8c\x0aecho pwned\x85R."
    zipped(out / "attack-dotted.pt", [("archive/data.pkl", dotted)])
    # A Python 2 module name Python 3 maps to http.server.
    py2 = b"\x80\x02cSimpleHTTPServer\ntest\n)R."
    zipped(out / "attack-py2-name.pt", [("archive/data.pkl", py2)])
    # An import name computed by a call (rot13) while loading.
    rot = (b"\x80\x04c_codecs\nencode\n\x8c\x02bf\x8c\x05rot13\x86R"
           b"c_codecs\nencode\n\x8c\x06flfgrz\x8c\x05rot13\x86R\x93\x8c\x0aecho pwned\x85R.")
    zipped(out / "attack-computed-name.pt", [("archive/data.pkl", rot)])
    # A plain pickle (no PyTorch magic number): torch.load unpickles it first.
    (out / "attack-plain.pt").write_bytes(evil)
    # A protocol 0 pickle.
    (out / "attack-protocol0.pt").write_bytes(pickle.dumps(Evil((os.system, ("echo pwned",))), protocol=0))


class warnings_off:
    """zipfile warns about duplicate names; the duplicate is the point."""

    def __enter__(self):
        import warnings
        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        self.w.__exit__(*a)


# --- reading: the reference ------------------------------------------------------------------

class StandBase:
    """Instances of any import: the class is a stand-in made per import (never the real one:
    nothing runs); a call or NEWOBJ records its arguments, BUILD its state."""

    module = name = ""

    def __new__(cls, *args, **kwargs):
        obj = object.__new__(cls)
        obj.args, obj.state = args, None
        return obj

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        self.state = state


def stand_in(module: str, name: str):
    return type(name.replace(".", "_"), (StandBase,), {"module": module, "name": name})


class Rebuilt:
    def __init__(self, arr, contiguous, nbytes):
        self.arr, self.contiguous, self.nbytes = arr, contiguous, nbytes


def rebuild(storage, offset, size, stride, *rest):
    arr, dt = storage
    item = arr.dtype.itemsize
    view = np.lib.stride_tricks.as_strided(arr[offset:], shape=size, strides=[s * item for s in stride]) \
        if arr.size else np.zeros(size, arr.dtype)
    n = int(np.prod(size)) if size else 1
    return Rebuilt(view, tuple(stride) == contiguous(size) or n == 0 or all(
        d == 1 or s == w for d, s, w in zip(size, stride, contiguous(size))), n * item)


class RefUnpickler(pickle.Unpickler):
    def __init__(self, f, storage_bytes):
        super().__init__(f)
        self.storage_bytes = storage_bytes
        self.imports = []

    def find_class(self, module, name):
        self.imports.append([module, name])
        if (module, name) in (("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_tensor")):
            return rebuild
        if (module, name) == ("torch._utils", "_rebuild_parameter"):
            return lambda data, *a: data
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if module == "torch" and name in STORAGES:
            return name
        return stand_in(module, name)

    def persistent_load(self, pid):
        _, type_name, key, _loc, numel = pid[:5]
        dt = np.dtype(STORAGES[type_name][0])
        raw = self.storage_bytes(key, numel * dt.itemsize)
        return (np.frombuffer(raw, dt, count=numel), STORAGES[type_name][1])


SLOTS = {"_parameters", "_buffers", "_modules"}


def walk(obj, path, out, seen):
    if isinstance(obj, Rebuilt):
        out.append((path, obj))
        return
    if id(obj) in seen:
        return
    join = lambda k: f"{path}.{k}" if path else str(k)
    if isinstance(obj, dict):
        seen.add(id(obj))
        for k, v in obj.items():
            walk(v, path if k in SLOTS else join(k), out, seen)
    elif isinstance(obj, (list, tuple)):
        seen.add(id(obj))
        for i, v in enumerate(obj):
            walk(v, join(i), out, seen)
    elif isinstance(obj, StandBase):
        seen.add(id(obj))
        if obj.state is not None:
            walk(obj.state, path, out, seen)
        if obj.module != "collections":
            walk(obj.args, path, out, seen)


def describe(path: str, found, dtypes) -> list[dict]:
    out = []
    for name, r in found:
        dt = dtypes[id(r)]
        a = r.arr
        rows = a.reshape(-1, a.shape[-1]) if a.ndim > 1 else a.reshape(1, -1)
        e = dict(name=name or "tensor", dtype=dt, shape=list(a.shape), bytes=r.nbytes,
                 contiguous=bool(r.contiguous))
        if r.contiguous and a.size:
            e["first"] = [vtext(kind_of(dt), v) for v in rows.ravel()[:FIRST]]
            e["last_row"] = [vtext(kind_of(dt), v) for v in rows[-1][:FIRST]]
        out.append(e)
    return out


def read_zip(path: Path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        main = min((n for n in names if n.endswith("data.pkl")), key=lambda n: n.count("/"))
        root = main.rsplit("/", 1)[0]
        found, imports, dtypes = [], [], {}
        for pk in (main, f"{root}/constants.pkl"):
            if pk not in names:
                continue
            stem = pk[:-4]
            u = RefUnpickler(io.BytesIO(z.read(pk)), lambda key, n, stem=stem: z.read(f"{stem}/{key}")[:n])
            obj = u.load()
            imports += u.imports
            f = []
            walk(obj, "", f, set())
            if pk.endswith("constants.pkl"):
                f = [(f"constants.{n}" if n else "constants", r) for n, r in f]
            found += f
        return found, imports


OPTIMIZER_KEYS = ("optimizer", "optimizer_state_dict")


def optimizer_state(path: Path) -> dict:
    """Tensors and values in the optimizer state dicts of a zip checkpoint's main pickle."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        main = min((n for n in names if n.endswith("data.pkl")), key=lambda n: n.count("/"))
        stem = main[:-4]
        obj = RefUnpickler(io.BytesIO(z.read(main)), lambda key, n: z.read(f"{stem}/{key}")[:n]).load()
    subtrees = []
    if isinstance(obj, dict):
        subtrees += [obj[k] for k in OPTIMIZER_KEYS if isinstance(obj.get(k), dict)]
        if isinstance(obj.get("optimizer_states"), (list, tuple)):
            subtrees += [o for o in obj["optimizer_states"] if isinstance(o, dict)]
    found = []
    for sub in subtrees:
        walk(sub, "", found, set())
    return dict(tensors=len(found), values=int(sum(r.arr.size for _, r in found)))


def training_state(k) -> dict:
    """An Adam optimizer's state for two parameters of shapes (8, 16) and (8,)."""
    s = lambda arr: Storage(str(next(k)), arr)
    state = {}
    for i, shape in enumerate([(8, 16), (8,)]):
        n = int(np.prod(shape))
        state[i] = {"step": t(s(np.array([100.0], np.float32)), ()),
                    "exp_avg": t(s(RNG.normal(0, 0.01, n).astype(np.float32)), shape),
                    "exp_avg_sq": t(s(RNG.random(n).astype(np.float32) * 1e-4), shape)}
    return {"state": state, "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0, 1]}]}


def write_training(out: Path) -> None:
    k = iter(range(2000, 3000))
    s = lambda arr: Storage(str(next(k)), arr)
    model = collections.OrderedDict()
    model["fc.weight"] = t(s(RNG.normal(0, 0.1, (8, 16)).astype(np.float32)), (8, 16))
    model["fc.bias"] = t(s(np.zeros(8, np.float32)), (8,))
    write_torch_zip(out / "optimizer.pt", {"model": model, "optimizer": training_state(k), "epoch": 7})
    write_torch_zip(out / "lightning.ckpt", {
        "epoch": 1, "global_step": 10, "pytorch-lightning_version": "2.4.0", "state_dict": model,
        "optimizer_states": [training_state(k)], "lr_schedulers": [{"step_size": 30}]})


def read_legacy(path: Path):
    """torch/serialization.py _legacy_load's layout: three small pickles, the object (its
    storages by persistent id, one array per key), the list of keys, then each storage as an
    8-byte element count and its bytes, in key order."""
    f = open(path, "rb")
    for _ in range(3):
        pickle.load(f)  # magic number, protocol version, sys_info: plain values only
    holders: dict[str, np.ndarray] = {}

    def lazy(pid):
        _, type_name, key, _loc, numel = pid[:5]
        if key not in holders:
            holders[key] = np.zeros(numel, np.dtype(STORAGES[type_name][0]))
        return (holders[key], STORAGES[type_name][1])

    class Lazy(RefUnpickler):
        def persistent_load(self, pid):
            return lazy(pid)

    u = Lazy(f, None)
    obj = u.load()
    keys = pickle.load(f)
    for k in keys:
        (n,) = struct.unpack("<q", f.read(8))
        h = holders[k]
        assert n == h.size, (k, n, h.size)
        h[:] = np.frombuffer(f.read(n * h.dtype.itemsize), h.dtype, count=n)
    found = []
    walk(obj, "", found, set())
    return found, u.imports


def storage_totals(path: Path) -> dict:
    """The distinct storages the file's pickles name by persistent id ('storage', type, key,
    location, numel), each once however many tensors view it (tied weights, slices): their
    count and bytes (numel x the storage type's item size), read without torch. Keys are per
    pickle (a TorchScript archive's data/ and constants/ are separate folders)."""
    seen = {}

    class Keys(RefUnpickler):
        def __init__(self, f, scope):
            super().__init__(f, None)
            self.scope = scope

        def persistent_load(self, pid):
            _, type_name, key, _loc, numel = pid[:5]
            dt = np.dtype(STORAGES[type_name][0])
            seen[(self.scope, key)] = numel * dt.itemsize
            return (np.zeros(numel, dt), STORAGES[type_name][1])

    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            main = min((n for n in names if n.endswith("data.pkl")), key=lambda n: n.count("/"))
            root = main.rsplit("/", 1)[0]
            for pk in (main, f"{root}/constants.pkl"):
                if pk in names:
                    Keys(io.BytesIO(z.read(pk)), pk[:-4]).load()
    else:
        with open(path, "rb") as f:
            for _ in range(3):
                pickle.load(f)  # magic number, protocol version, sys_info
            Keys(f, "").load()
    return dict(count=len(seen), bytes=sum(seen.values()))


def dtypes_of(found):
    return {id(r): NP_DT.get(r.arr.dtype, "?") for _, r in found}


NP_DT = {np.dtype(v[0]): v[1] for v in STORAGES.values()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--big", action="store_true", help="also write big.pt (500 MB)")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    sd = state_dict()
    write_torch_zip(a.out / "state-dict.pt", sd)
    write_torch_zip(a.out / "rezipped.pt", sd, pad=False, prefix="state-dict")
    write_torch_zip(a.out / "checkpoint.ckpt", {"state_dict": sd, "epoch": 3, "optimizer": {
        "state": {0: {"step": t(Storage("900", np.array([10.0], np.float32)), ())}},
        "param_groups": [{"lr": 0.001, "params": [0]}]}})
    write_zip64(a.out / "zip64.pt", sd)
    write_training(a.out)
    write_legacy(a.out / "legacy.pth", sd)
    for kind in ("os-system", "eval", "import-only"):
        write_torch_zip(a.out / f"malicious-{kind}.pt", malicious(kind))
    write_attacks(a.out)
    # transformers' sharded checkpoint: pytorch_model-0000N-of-00002.bin and the index.
    shards = a.out / "sharded"
    shards.mkdir(exist_ok=True)
    items = list(sd.items())
    weight_map = {}
    for i, part in enumerate((items[:7], items[7:])):
        fname = f"pytorch_model-{i + 1:05d}-of-00002.bin"
        write_torch_zip(shards / fname, collections.OrderedDict(part))
        weight_map.update({k: fname for k, _ in part})
    (shards / "pytorch_model.bin.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 0}, "weight_map": weight_map}, indent=1))
    if a.big:
        big = collections.OrderedDict()
        for i in range(25):  # 25 x 20 MB of F32
            big[f"layers.{i}.weight"] = t(Storage(str(i), RNG.normal(0, 1, 5 << 20).astype(np.float32)), (5 << 10, 1 << 10))
        write_torch_zip(a.out / "big.pt", big)

    files = {}
    real = {"lpips-alex.pth": DATA / "lpips/v0.1/alex.pth", "lpips-squeeze.pth": DATA / "lpips/v0.1/squeeze.pth",
            "lpips-vgg.pth": DATA / "lpips/v0.1/vgg.pth", "silero_vad.jit": DATA / "silero-vad/silero_vad.jit"}
    sharded = {}
    for fname in sorted(p.name for p in shards.iterdir() if p.suffix == ".bin"):
        found, imports = read_zip(shards / fname)
        sharded[fname] = describe(fname, found, dtypes_of(found))
    local = sorted(p.name for p in a.out.iterdir()
                   if p.suffix in (".pt", ".ckpt", ".pth") and not p.name.startswith("attack-"))
    for name in local + list(real):
        path = real.get(name, a.out / name)
        if not path.is_file():
            print(f"error: {path} missing", file=sys.stderr)
            return 1
        is_zip = zipfile.is_zipfile(path)
        found, imports = read_zip(path) if is_zip else read_legacy(path)
        files[name] = dict(path=str(path), format="pytorch" if is_zip else "pytorch-legacy",
                           tensors=describe(name, found, dtypes_of(found)), imports=imports,
                           optimizer_state=optimizer_state(path) if is_zip else dict(tensors=0, values=0),
                           storages=storage_totals(path))
    doc = dict(generator="tests/reference/torch_fixtures.py",
               versions={k: version(k) for k in ("numpy", "ml_dtypes")}, files=files,
               sharded=dict(dir=str(shards), parts=sharded))
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False))
    tmp.replace(a.out / "expected.json")
    print(f"torch fixtures: {len(files)} files, {sum(len(f['tensors']) for f in files.values())} tensors in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
