#!/usr/bin/env python3
"""Pickles of every kind and what Python makes of them, for tests/pickle.rs (issue #12: a
pickle reader that never executes).

Writes DIR/<case>.pkl and DIR/expected.json:

    {"generator", "versions", "opcodes": [[byte, name, protocol], ...],   # pickletools' table
     "files": [{"file", "intent": "benign" | "malicious", "note",
                "pickles": [{"start", "end", "protocol", "value": JSON text | null,
                             "error": text | null,
                             "imports": [{"module", "name", "offset", "opcode", "calls"}]}],
                "picklescan": {"dangerous", "error", "globals": [[module, name, level]]},
                "fickling": {"severity", "dangerous"}}]}

The cases: plain values of every kind through pickle.dumps at protocols 0 to 5 (integers up
to thousands of digits, floats with nan/inf/-0.0, text with escapes and a lone surrogate,
bytes, bytearrays, tuples of 0 to 5 items, lists, dicts, sets, frozensets, shared and
recursive values, objects through copyreg and NEWOBJ_EX, out-of-band buffers, deep nesting);
PyTorch-like checkpoints pickled as torch.save does (a Pickler whose persistent_id returns
('storage', FloatStorage, '0', 'cpu', 12)) with fake torch modules in sys.modules, so torch is
not needed, and the legacy format's pickles in a row; malicious pickles (os.system, eval,
exec, subprocess.Popen, posix.system, runpy._run_code, webbrowser.open, socket.socket, INST,
STACK_GLOBAL from memoized strings, an import that is never called, getattr chains, protocol
0 text, a truncated one); state dicts calling third-party code-execution sinks (YAML loaders,
numexpr / pandas / SymPy evaluators, template engines, native-library loaders, …) and their
harmless neighbours, each also written as a zip checkpoint (DIR/<case>.pt, listed under
"checkpoints" with picklescan's verdict on the file) for the CLI test.

What each file holds is read three ways, none of which runs anything it names:

- value: the tree Python's C unpickler (what torch.load runs) builds when find_class returns
  inert stand-ins and persistent_load a marker, rendered as JSON text (the renderer below;
  tests/pickle.rs renders weightpeek's tree the same way and compares the text). The pure
  Python unpickler must render the same.
- imports: pickletools.genops' GLOBAL / INST / STACK_GLOBAL (its two strings taken from the
  opcodes before it, through the memo) with their offsets and opcode names; the offsets of
  the calls made through each come from the pure Python unpickler, whose stand-ins note the
  opcode running when they are called. Both lists must agree where both exist.
- picklescan's and fickling's verdicts on the same bytes ("dangerous": picklescan finds a
  dangerous global; fickling's severity is LIKELY_OVERTLY_MALICIOUS or OVERTLY_MALICIOUS).

Render: None -> null, bool -> true/false, int -> {"int": digits}, float -> {"float": the 16
hex digits of its big-endian IEEE bits}, str -> {"str": text with each lone surrogate as
U+FFFD}, bytes and bytearray -> {"bytes": hex}, tuple/list -> {"tuple"|"list": [...]},
dict -> {"dict": [[k, v], ...]} in order, set/frozenset -> {"set"|"frozenset": [...]} sorted
by each element's compact JSON text, an import -> {"global": [module, name]}, a call ->
{"call": callable, "args": args, "new": bool (cls.__new__ rather than a call), "kwargs"
(when not empty), "items": [[k, v], ...] (SETITEMS on it), "list": [...] (APPENDS,
ADDITEMS), "state" (when BUILD gave one)}, an import or persistent object mutated by
SETITEMS / APPENDS / BUILD -> {"wrapped": its render, "items", "list", "state"?}, a
persistent id -> {"persistent": pid}, an out-of-band buffer -> {"buffer": index, "readonly":
bool}, a container already on the path from the root -> {"cycle": true}.

Usage: pickle_cases.py --out DIR
"""

from __future__ import annotations

import argparse
import collections
import functools
import io
import json
import os
import pickle
import pickletools
import runpy
import socket
import struct
import subprocess
import sys
import types
import webbrowser
from importlib.metadata import version
from pathlib import Path

import fickling.analysis
import fickling.fickle
from picklescan.scanner import scan_pickle_bytes

sys.setrecursionlimit(20000)

# --- inert stand-ins ---------------------------------------------------------------------------

CURRENT = None  # the pure-Python unpickler running, for call offsets


class Mutable:
    """What SETITEM(S), APPEND(S), ADDITEMS and BUILD leave on a stand-in."""

    def _wp_init(self):
        self._wp_items, self._wp_list = [], []
        self._wp_state, self._wp_has_state = None, False

    def __setitem__(self, k, v):
        self._wp_items.append((k, v))

    def append(self, v):
        self._wp_list.append(v)

    def extend(self, vs):
        self._wp_list.extend(vs)

    def add(self, v):
        self._wp_list.append(v)

    def __setstate__(self, state):
        self._wp_state, self._wp_has_state = state, True

    def _wp_mutated(self):
        return bool(self._wp_items or self._wp_list or self._wp_has_state)


def note_call(target):
    imp = getattr(target, "_wp_import", None)
    if CURRENT is not None and imp is not None:
        imp["calls"].append(CURRENT.op_pos)


class Call(Mutable):
    def __init__(self, callable, args, kwargs, new):
        self._wp_init()
        self.callable, self.args, self.kwargs, self.new = callable, args, kwargs, new

    def __call__(self, *args, **kwargs):
        return Call(self, args, kwargs, False)


class Persistent(Mutable):
    def __init__(self, pid):
        self._wp_init()
        self.pid = pid


class Meta(type):
    """The type of every imported stand-in: calling one makes a Call."""

    def __call__(cls, *args, **kwargs):
        note_call(cls)
        return Call(cls, args, kwargs, False)

    def __setitem__(cls, k, v):
        cls._wp_items.append((k, v))


def _stand_in_new(cls, *args, **kwargs):
    note_call(cls)
    return Call(cls, args, kwargs, True)


def stand_in(module, name, record):
    ns = {"__new__": _stand_in_new, "_wp_module": module, "_wp_name": name, "_wp_import": record}
    for m in ("append", "extend", "add", "__setstate__", "_wp_mutated"):
        ns[m] = classmethod(getattr(Mutable, m))
    cls = Meta("StandIn", (), ns)
    Mutable._wp_init(cls)
    return cls


class OOB(bytearray):
    """An out-of-band buffer handed to the unpickler, with its index."""


class Reference(pickle.Unpickler):
    def __init__(self, f, buffers):
        super().__init__(f, encoding="utf-8", buffers=buffers)

    def find_class(self, module, name):
        return stand_in(module, name, None)

    def persistent_load(self, pid):
        return Persistent(pid)


class PureReference(pickle._Unpickler):
    """The pure-Python unpickler, noting the offset of each opcode it runs."""

    dispatch = {}

    def __init__(self, f, buffers):
        super().__init__(f, encoding="utf-8", buffers=buffers)
        self._file = f
        self.op_pos = 0
        self.imports = []

    def _pos(self):
        u = self._unframer
        if u.current_frame is not None:
            frame = u.current_frame
            return self._file.tell() - len(frame.getbuffer()) + frame.tell()
        return self._file.tell()

    def find_class(self, module, name):
        record = dict(module=module, name=name, offset=self.op_pos, calls=[])
        self.imports.append(record)
        return stand_in(module, name, record)

    def persistent_load(self, pid):
        return Persistent(pid)


def _wrap(f):
    def run(self):
        self.op_pos = self._pos() - 1
        f(self)

    return run


for _k, _f in pickle._Unpickler.dispatch.items():
    PureReference.dispatch[_k] = _wrap(_f)


def clean(s):
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def render(x, path=None):
    path = set() if path is None else path
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, int):
        return {"int": str(x)}
    if isinstance(x, float):
        return {"float": struct.pack(">d", x).hex()}
    if isinstance(x, str):
        return {"str": clean(x)}
    if isinstance(x, OOB):
        return {"buffer": x.index, "readonly": False}
    if isinstance(x, memoryview):
        return {"buffer": x.obj.index, "readonly": True}
    if isinstance(x, (bytes, bytearray)):
        return {"bytes": bytes(x).hex()}
    if id(x) in path:
        return {"cycle": True}
    path.add(id(x))
    try:
        if isinstance(x, tuple):
            return {"tuple": [render(e, path) for e in x]}
        if isinstance(x, list):
            return {"list": [render(e, path) for e in x]}
        if isinstance(x, dict):
            return {"dict": [[render(k, path), render(v, path)] for k, v in x.items()]}
        if isinstance(x, (set, frozenset)):
            key = "set" if isinstance(x, set) else "frozenset"
            return {key: sorted((render(e, path) for e in x), key=compact)}
        if isinstance(x, Call):
            out = {"call": render(x.callable, path), "args": render(x.args, path), "new": x.new}
            if x.kwargs:
                out["kwargs"] = render(x.kwargs, path)
            return mutations(out, x, path)
        if isinstance(x, Meta):
            inner = {"global": [x._wp_module, x._wp_name]}
        elif isinstance(x, Persistent):
            inner = {"persistent": render(x.pid, path)}
        else:
            raise TypeError(f"cannot render {type(x)}")
        if not x._wp_mutated():
            return inner
        return mutations({"wrapped": inner}, x, path)
    finally:
        path.discard(id(x))


def mutations(out, x, path):
    out["items"] = [[render(k, path), render(v, path)] for k, v in x._wp_items]
    out["list"] = [render(e, path) for e in x._wp_list]
    if x._wp_has_state:
        out["state"] = render(x._wp_state, path)
    return out


def buffers_for(n):
    out = []
    for i in range(n):
        b = OOB(b"out-of-band %d" % i)
        b.index = i
        out.append(b)
    return out


def read_value(cls, data):
    """The rendered tree and the unpickler (or the error text)."""
    global CURRENT
    f = io.BytesIO(data)
    u = cls(f, buffers_for(8))
    CURRENT = u if isinstance(u, PureReference) else None
    try:
        return compact(render(u.load())), None, u, f.tell()
    except Exception as e:  # noqa: BLE001 - any failure is the expected result
        return None, f"{type(e).__name__}: {e}", u, None
    finally:
        CURRENT = None


STRING_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING",
              "BINSTRING", "SHORT_BINSTRING"}
PUT_OPS = {"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"}
GET_OPS = {"GET", "BINGET", "LONG_BINGET"}


def genops_imports(data):
    """Imports by pickletools.genops, with the end and protocol; (.., error) if it fails."""
    imports, ops, memo = [], [], {}
    protocol, end, error = 0, None, None
    try:
        for op, arg, pos in pickletools.genops(io.BytesIO(data)):
            ops.append((op.name, arg, pos))
            if op.name == "PROTO" and protocol == 0:
                protocol = arg
            if op.name == "STOP":
                end = pos + 1
    except Exception as e:  # noqa: BLE001
        error = f"{type(e).__name__}: {e}"
    last = None  # value pushed by the previous value-pushing opcode
    pushed = []
    for name, arg, pos in ops:
        if name in PUT_OPS:
            memo[len(memo) if name == "MEMOIZE" else arg] = last
            continue
        if name in ("GLOBAL", "INST"):
            module, _, nm = arg.partition(" ")
            imports.append(dict(module=module, name=nm, offset=pos, opcode=name))
        elif name == "STACK_GLOBAL":
            module, nm = pushed[-2], pushed[-1]
            assert isinstance(module, str) and isinstance(nm, str), (module, nm)
            imports.append(dict(module=module, name=nm, offset=pos, opcode=name))
        if name in STRING_OPS:
            last = arg if isinstance(arg, str) else arg.decode("utf-8", "replace")
        elif name in GET_OPS:
            last = memo.get(arg)
        else:
            last = None
        pushed.append(last)
    return imports, end, protocol, error


def read_pickles(data, count):
    """The first `count` pickles in data, one after another (the legacy torch format has
    several, then raw storage bytes)."""
    out, start = [], 0
    while len(out) < count:
        chunk = data[start:]
        value, error, _, c_end = read_value(Reference, chunk)
        pure_value, pure_error, pure, _ = read_value(PureReference, chunk)
        # The C unpickler (torch.load's) is the reference. The pure-Python one reads a few
        # protocol-0 forms differently (INT "010": C's strtol reads octal 8, int() refuses);
        # where both read the pickle they must agree.
        if value is None:
            assert pure_value is None, (error, pure_value)
        elif pure_value is not None:
            assert value == pure_value, "the C and pure-Python unpicklers render differently"
        imports, end, protocol, gen_error = genops_imports(chunk)
        if gen_error is not None and value is not None:
            # genops reads INT and GET text with int(): the protocol-0 forms only C reads.
            assert not imports, "genops cannot list these imports"
            end, gen_error = c_end, None
        by_offset = {r["offset"]: r for r in pure.imports}
        for imp in imports:
            rec = by_offset.get(imp["offset"])
            if rec is not None:
                assert (rec["module"], rec["name"]) == (imp["module"], imp["name"]), (rec, imp)
            imp["calls"] = [start + c for c in rec["calls"]] if rec else []
            imp["offset"] += start
        if pure_error is None:
            assert len(by_offset) == len(imports), (pure.imports, imports)
        else:
            assert error is not None or not imports, "no call offsets for these imports"
        out.append(dict(start=start, end=None if end is None else start + end, protocol=protocol,
                        value=value, error=error or gen_error, imports=imports))
        if end is None or error is not None:
            break
        start += end
    return out


def picklescan_verdict(data, name):
    r = scan_pickle_bytes(io.BytesIO(data), name)
    return dict(dangerous=r.issues_count > 0, error=r.scan_err,
                globals=sorted([g.module, g.name, g.safety.value] for g in r.globals))


def fickling_verdict(data):
    try:
        stacked = fickling.fickle.StackedPickle.load(data, fail_on_decode_error=False)
        severity = max((fickling.analysis.check_safety(p).severity for p in stacked),
                       key=lambda s: s.severity)
    except Exception as e:  # noqa: BLE001 - fickling cannot read it
        return dict(severity=f"error: {type(e).__name__}", dangerous=False)
    S = fickling.analysis.Severity
    return dict(severity=severity.name,
                dangerous=severity.severity >= S.LIKELY_OVERTLY_MALICIOUS.severity)


# --- the cases ---------------------------------------------------------------------------------

CASES: list[tuple[str, bytes, str, str, int]] = []


def case(name, data, intent="benign", note="", pickles=1):
    CASES.append((name, data, intent, note, pickles))


class Reducer:
    """An object that pickles as a call of `func` with `args` (and optional state, items)."""

    def __init__(self, func, args, *rest):
        self.r = (func, args, *rest)

    def __reduce__(self):
        return self.r


# A fake module holding plain classes, registered so the pickler can name them.
fake = types.ModuleType("weightpeek_fake")
sys.modules["weightpeek_fake"] = fake


class Thing:
    def __init__(self, a):
        self.a = a


class WithNewArgs:
    def __init__(self, x, k):
        self.x, self.k = x, k

    def __getnewargs_ex__(self):
        return (self.x,), {"k": self.k}

    def __getstate__(self):
        return {"x": self.x, "k": self.k}


class Slotted:
    __slots__ = ("p", "q")

    def __init__(self):
        self.p, self.q = 1, "two"


for _c in (Thing, WithNewArgs, Slotted):
    _c.__module__ = "weightpeek_fake"
    setattr(fake, _c.__name__, _c)


def values(protocol):
    shared = [1, 2]
    text = "shared text"
    recursive = []
    recursive.append(recursive)
    rdict = {}
    rdict["self"] = rdict
    holder = []
    rtuple = (holder, "t")
    holder.append(rtuple)
    return {
        "ints": [0, 1, -1, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 2**31, 2**63 - 1, -(2**63),
                 2**63, -(2**63) - 1, 2**64, 10**40, -(10**40), 2**1000, 1 - 2**2000, 2**8000],
        "bools": [True, False, None],
        "floats": [0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, float("nan"), float("inf"),
                   float("-inf"), 0.1, 1 / 3],
        "strs": ["", "abc", "é", "日本語", "😀", "a\\b\nc\r\x00\x1a\t'\"", "\ud800x\udfff",
                 "x" * 300, "\\u0041"],
        "bytes": [b"", b"abc", bytes(range(256)), b"y" * 300],
        "bytearrays": [bytearray(b"ab"), bytearray()],
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5)],
        "lists": [[], [1], list(range(2500))],
        "dicts": [{}, {"a": 1, 2: "b", (1, 2): [3], None: 1.5}, {i: str(i) for i in range(1500)}],
        "sets": [set(), {1, 2, 3}, {"a", (1, 2)}, frozenset(), frozenset({4, 5})],
        "shared": [shared, shared, {"s": shared}, (shared, text, text)],
        "recursive": [recursive, rdict, rtuple],
        "complex": [complex(1, -2), slice(1, 9, 2)],
        "objects": [Thing(7)] + ([WithNewArgs(3, "kw"), Slotted()] if protocol >= 4 else []),
    }


def nested(depth):
    v = "bottom"
    for _ in range(depth):
        v = [v]
    return v


def plain_cases():
    for p in range(6):
        case(f"values-p{p}", pickle.dumps(values(p), protocol=p),
             note=f"values of every kind, protocol {p}")
        case(f"nested-p{p}", pickle.dumps(nested(400), protocol=p), note="lists 400 deep")
    bufs = [pickle.PickleBuffer(bytearray(b"writable")), pickle.PickleBuffer(b"read-only")]
    case("out-of-band-p5", pickle.dumps(bufs, protocol=5, buffer_callback=lambda b: False),
         note="NEXT_BUFFER and READONLY_BUFFER")
    case("in-band-buffers-p5", pickle.dumps(bufs, protocol=5), note="PickleBuffer in band")
    # Protocol 0 text that pickle.dumps does not write (Python 2, hand-made).
    case("text-p0", b"(lp0\n"
         b"I01\naI00\naI+1\naI010\naI0x1f\naI1_000\naI 12 \naL123L\naL-0x10L\na"
         b"I99999999999999999999\naF1.5\naFnan\naF-inf\na"
         b"S'a\\x41\\101\\n\\'q'\naS\"d'q\"\naS'\\xc3\\xa9'\na"
         b"Vcaf\xe9 \\u20ac \\\\u0041\naNa"
         b"I5\np7\nag7\naI6\np 8\nag8\na(I1\nI2\ntp9\nag9\na(dp10\nS'k'\np11\nI3\nsa"
         b"(I1\nI2\nda(I4\n00.",
         note="protocol 0 text opcodes as Python 2 wrote them, and odd forms CPython accepts")
    case("stack-ops-p1", b"(I1\nI2\n1K\x05(K\x0600]q\x01h\x01K\x09a2\x87\x86.",
         note="POP_MARK, POP of a mark, BINGET of a list then APPEND, DUP, TUPLE2/3")


def fake_torch():
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")
    tensor_mod = types.ModuleType("torch._tensor")
    torch._utils, torch._tensor = utils, tensor_mod

    def stub(mod, name):
        def f(*args):
            raise AssertionError(f"{mod}.{name} must never run")

        f.__module__, f.__name__, f.__qualname__ = mod, name, name
        return f

    for n in ("_rebuild_tensor_v2", "_rebuild_parameter"):
        setattr(utils, n, stub("torch._utils", n))
    tensor_mod._rebuild_from_type_v2 = stub("torch._tensor", "_rebuild_from_type_v2")
    for n in ("FloatStorage", "HalfStorage", "LongStorage", "BFloat16Storage"):
        setattr(torch, n, type(n, (), {"__module__": "torch"}))

    class dtype:
        def __init__(self, name):
            self.name = name

        def __reduce__(self):
            return self.name

    class device:
        def __init__(self, name):
            self.name = name

        def __reduce__(self):
            return (device, (self.name,))

    dtype.__module__ = device.__module__ = "torch"
    device.__qualname__ = "device"
    torch.device = device
    torch.float32 = dtype("float32")
    torch.Tensor = type("Tensor", (), {"__module__": "torch"})
    sys.modules.update({"torch": torch, "torch._utils": utils, "torch._tensor": tensor_mod})
    return torch


class Storage:
    def __init__(self, kind, key, numel):
        self.kind, self.key, self.numel = kind, key, numel


class Tensor:
    def __init__(self, torch, storage, offset, size, stride):
        self.torch, self.s, self.offset, self.size, self.stride = torch, storage, offset, size, stride

    def __reduce_ex__(self, proto):
        return (self.torch._utils._rebuild_tensor_v2,
                (self.s, self.offset, self.size, self.stride, False, collections.OrderedDict()))


class Param:
    def __init__(self, torch, tensor):
        self.torch, self.t = torch, tensor

    def __reduce_ex__(self, proto):
        return (self.torch._utils._rebuild_parameter, (self.t, True, collections.OrderedDict()))


class TorchPickler(pickle.Pickler):
    """torch.save's persistent_id: a storage becomes ('storage', type, key, location, numel)."""

    legacy = False

    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            pid = ("storage", obj.kind, obj.key, "cpu", obj.numel)
            return pid + (None,) if self.legacy else pid
        return None


def torch_dumps(obj, protocol, legacy=False):
    f = io.BytesIO()
    p = TorchPickler(f, protocol=protocol)
    p.legacy = legacy
    p.dump(obj)
    return f.getvalue()


def state_dict(torch, evil=None):
    s0 = Storage(torch.FloatStorage, "0", 12)
    s1 = Storage(torch.HalfStorage, "1", 4)
    sd = collections.OrderedDict()
    sd["linear.weight"] = Tensor(torch, s0, 0, (3, 4), (4, 1))
    sd["linear.bias"] = Tensor(torch, s1, 0, (4,), (1,))
    sd["tied.weight"] = sd["linear.weight"]
    sd["view"] = Tensor(torch, s0, 4, (2, 4), (4, 1))
    sd["param"] = Param(torch, Tensor(torch, Storage(torch.BFloat16Storage, "2", 6), 0, (6,), (1,)))
    sd["steps"] = Tensor(torch, Storage(torch.LongStorage, "3", 1), 0, (), ())
    if evil is not None:
        sd["evil"] = evil
    sd._metadata = collections.OrderedDict([("", {"version": 1}), ("linear", {"version": 1})])
    return sd


def torch_cases():
    torch = fake_torch()
    for p in (2, 4):
        case(f"torch-state-dict-p{p}", torch_dumps(state_dict(torch), p),
             note=f"a state dict as torch.save writes data.pkl (protocol {p})")
    ckpt = {"model": state_dict(torch), "epoch": 3, "dtype": torch.float32,
            "device": torch.device("cpu"), "args": {"lr": 0.001}}
    case("torch-checkpoint-p2", torch_dumps(ckpt, 2), note="a training checkpoint dict")
    magic = 0x1950A86A20F9469CFC6C
    sys_info = dict(protocol_version=1001, little_endian=True,
                    type_sizes=dict(short=2, int=4, long=8))
    legacy = (pickle.dumps(magic, protocol=2) + pickle.dumps(1001, protocol=2)
              + pickle.dumps(sys_info, protocol=2) + torch_dumps(state_dict(torch), 2, legacy=True)
              + pickle.dumps(["0", "1", "2", "3"], protocol=2))
    case("torch-legacy", legacy + b"\x00" * 64,
         note="the legacy format: magic, version, sys info, data, storage keys, then raw data",
         pickles=5)
    evil = Reducer(os.system, ("echo pwned",))
    case("malicious-torch-state-dict", torch_dumps(state_dict(torch, evil), 2), "malicious",
         "a state dict with one entry that calls os.system")
    hidden = Reducer(torch._tensor._rebuild_from_type_v2, (os.system, torch.Tensor, ("echo",), {}))
    case("malicious-rebuild-from-type", torch_dumps(state_dict(torch, hidden), 2), "malicious",
         "os.system passed to torch._tensor._rebuild_from_type_v2, which calls it")


def malicious_cases():
    for p in (0, 2, 4):
        case(f"malicious-os-system-p{p}", pickle.dumps(Reducer(os.system, ("echo pwned",)), p),
             "malicious", "os.system through REDUCE (pickled as posix.system)")
        case(f"malicious-eval-p{p}", pickle.dumps(Reducer(eval, ("1+1",)), p), "malicious",
             "builtins.eval")
    case("malicious-exec-p4", pickle.dumps(Reducer(exec, ("import os",)), 4), "malicious",
         "builtins.exec")
    case("malicious-popen-p4", pickle.dumps(Reducer(subprocess.Popen, (["echo", "x"],)), 4),
         "malicious", "subprocess.Popen")
    case("malicious-run-code-p2", pickle.dumps(Reducer(runpy._run_code, ("print(1)", {})), 2),
         "malicious", "runpy._run_code")
    case("malicious-webbrowser-p3",
         pickle.dumps(Reducer(webbrowser.open, ("http://example.invalid",)), 3), "malicious",
         "webbrowser.open")
    case("malicious-socket-p4", pickle.dumps(Reducer(socket.socket, ()), 4), "malicious",
         "socket.socket")
    case("malicious-partial-p4", pickle.dumps({"f": functools.partial(os.system, "echo")}, 4),
         "malicious", "functools.partial around os.system, never called")
    case("malicious-import-only-p2", pickle.dumps({"f": os.system}, 2), "malicious",
         "posix.system imported, never called")
    case("malicious-os-system-text", b"cos\nsystem\n(S'echo pwned'\ntR.", "malicious",
         "protocol 0: GLOBAL os system, REDUCE")
    case("malicious-os-system-unicode", b"cos\nsystem\n(Vecho pwned\ntR.", "malicious",
         "protocol 0 with UNICODE")
    case("malicious-inst", b"(S'echo pwned'\nios\nsystem\n.", "malicious",
         "INST of os system")
    case("malicious-obj", b"(cos\nsystem\nS'echo pwned'\no.", "malicious", "OBJ of os system")
    body = b"\x8c\x05posix\x8c\x06system\x93\x8c\x0aecho pwned\x85R."
    case("malicious-posix-stack-global", b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body,
         "malicious", "STACK_GLOBAL posix system in a frame")
    case("malicious-memo-stack-global",
         b"\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x8c\x04junk0h\x00h\x01\x93\x8c\x04echo\x85R.",
         "malicious", "STACK_GLOBAL whose strings come from the memo")
    case("malicious-getattr-chain",
         b"c__builtin__\ngetattr\n(c__builtin__\n__import__\n(S'os'\ntRS'system'\ntR"
         b"(S'echo pwned'\ntR.", "malicious", "getattr(__import__('os'), 'system')('echo')")
    case("malicious-dotted-name-p4",
         b"\x80\x04\x8c\x08builtins\x8c\x15object.__subclasses__\x93)R.", "malicious",
         "a dotted STACK_GLOBAL name through a special attribute")
    case("malicious-build-on-global",
         b"\x80\x02cos\nsystem\nq\x00}q\x01X\x01\x00\x00\x00kK\x01sb.", "malicious",
         "BUILD applied to an imported object (Python calls its __setstate__)")
    case("malicious-truncated", b"\x80\x02cposix\nsystem\nX\x04\x00\x00\x00echo\x85R\xff",
         "malicious", "os.system called, then a byte that is not an opcode: Python runs the call")


# Third-party code-execution sinks (src/format/pickle/sinks.rs): each called from a state dict
# checkpoint as torch.save would pickle it. The libraries need not be installed: the pickle
# names a stand-in, whose GLOBAL is then rewritten to the sink's module and name (protocol 2
# has no frames or lengths over the opcodes, so the rewrite keeps the pickle valid).
SINKS = [
    ("yaml", "unsafe_load", ("!!python/object/apply:os.system ['echo pwned']",),
     "PyYAML's unsafe loader builds any object"),
    ("yaml", "load", ("!!python/object/apply:os.system ['echo pwned']",),
     "yaml.load with its default (full or unsafe) loader"),
    ("ruamel.yaml", "load", ("!!python/object/apply:os.system ['echo']",), "ruamel.yaml's load"),
    ("numexpr", "evaluate", ("__import__('os').system('echo pwned')",),
     "numexpr.evaluate calls eval (CVE-2023-39631)"),
    ("pandas", "eval", ("__import__('os').system('echo')",), "pandas.eval"),
    ("pandas.core.computation.eval", "eval", ("1+1",), "pandas' eval by its module"),
    ("sympy", "sympify", ("__import__('os').system('echo')",), "sympy.sympify calls eval"),
    ("sympy.parsing.sympy_parser", "parse_expr", ("__import__('os')",), "sympy's parse_expr"),
    ("sympy", "lambdify", ("x", "__import__('os')"), "sympy.lambdify compiles code"),
    ("asteval", "Interpreter", (), "asteval's interpreter"),
    ("jinja2", "Template", ("{{ cycler.__init__.__globals__.os.popen('id').read() }}",),
     "a Jinja2 template (server-side template injection)"),
    ("mako.template", "Template", ("<% import os %>",), "a Mako template (Python code)"),
    ("torch.ops", "load_library", ("/tmp/evil.so",), "torch.ops.load_library loads a .so"),
    ("torch._classes", "load_library", ("/tmp/evil.so",), "torch.classes.load_library"),
    ("tensorflow", "load_op_library", ("/tmp/evil.so",), "TensorFlow's op library loader"),
    ("tensorflow.python.framework.load_library", "load_op_library", ("/tmp/evil.so",),
     "TensorFlow's op library loader by its module"),
    ("ctypes", "CDLL", ("/tmp/evil.so",), "ctypes loads a shared library"),
    ("llvmlite.binding", "load_library_permanently", ("/tmp/evil.so",), "llvmlite"),
    ("keras.layers", "Lambda", ("marshalled code",), "a Keras Lambda layer's bytecode"),
    ("torch.fx.graph_module", "reduce_graph_module", ({"code": "import os"}, "m"),
     "torch.fx reducers exec the pickled code"),
    ("jsonpickle", "decode", ('{"py/reduce": []}',), "jsonpickle builds any object"),
    ("pexpect", "spawn", ("sh",), "pexpect starts programs"),
    ("paramiko", "SSHClient", (), "paramiko opens SSH connections"),
    ("huggingface_hub", "hf_hub_download", ("evil/repo", "x.py"), "downloads files"),
    ("IPython", "get_ipython", (), "IPython's shell runs code"),
]


def sink_stand_in(*args):
    raise AssertionError("a sink stand-in must never run")


sink_stand_in.__module__ = "weightpeek_fake"
sink_stand_in.__qualname__ = sink_stand_in.__name__ = "sink_stand_in"
fake.sink_stand_in = sink_stand_in
STAND_IN = b"cweightpeek_fake\nsink_stand_in\n"


def sink_cases():
    torch = fake_torch()
    for module, name, args, note in SINKS:
        data = torch_dumps(state_dict(torch, Reducer(sink_stand_in, args)), 2)
        assert data.count(STAND_IN) == 1, "protocol 2 writes the stand-in's GLOBAL once"
        data = data.replace(STAND_IN, f"c{module}\n{name}\n".encode())
        case(f"malicious-sink-{module}-{name}".replace(".", "_"), data, "malicious",
             f"a state dict calling {module}.{name}: {note}")
    # Their safe neighbours: imported by a checkpoint, never Dangerous (Unknown at most).
    for module, name in (("yaml", "safe_load"), ("numexpr", "set_num_threads"),
                         ("sympy", "Symbol"), ("jinja2", "Markup")):
        data = torch_dumps(state_dict(torch, Reducer(sink_stand_in, ("x",))), 2)
        data = data.replace(STAND_IN, f"c{module}\n{name}\n".encode())
        case(f"neighbour-{module}-{name}", data, "benign",
             f"{module}.{name}: a library's harmless function, not known to be safe")


def write_checkpoints(out: Path) -> list:
    """Each sink case as a zip checkpoint (archive/data.pkl, as torch.save writes it), for the
    CLI test: the file, its intent, picklescan's verdict on the whole file."""
    import zipfile
    from picklescan.scanner import scan_file_path

    rows = []
    for name, data, intent, note, _ in CASES:
        if not (name.startswith("malicious-sink-") or name.startswith("neighbour-")
                or name.startswith("torch-state-dict")):
            continue
        path = out / f"{name}.pt"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            z.writestr("archive/data.pkl", data)
            z.writestr("archive/version", b"3\n")
            z.writestr("archive/data/0", b"\x00" * 48)
            z.writestr("archive/data/1", b"\x00" * 8)
            z.writestr("archive/data/2", b"\x00" * 12)
            z.writestr("archive/data/3", b"\x00" * 8)
        r = scan_file_path(str(path))
        rows.append(dict(file=path.name, intent=intent, note=note,
                         picklescan=dict(dangerous=r.issues_count > 0, error=r.scan_err),
                         fickling=fickling_verdict(data)))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    plain_cases()
    torch_cases()
    malicious_cases()
    sink_cases()
    files = []
    for name, data, intent, note, count in CASES:
        (a.out / f"{name}.pkl").write_bytes(data)
        files.append(dict(file=f"{name}.pkl", intent=intent, note=note, size=len(data),
                          pickles=read_pickles(data, count), picklescan=picklescan_verdict(data, name),
                          fickling=fickling_verdict(data)))
    opcodes = [[ord(op.code.encode("latin-1")), op.name, op.proto] for op in pickletools.opcodes]
    doc = dict(generator="tests/reference/pickle_cases.py",
               versions=dict(python=sys.version.split()[0], picklescan=version("picklescan"),
                             fickling=version("fickling")),
               opcodes=opcodes, files=files, checkpoints=write_checkpoints(a.out))
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    tmp.replace(a.out / "expected.json")
    flagged = sum(f["picklescan"]["dangerous"] or f["fickling"]["dangerous"] for f in files)
    print(f"pickle cases: {len(files)} files in {a.out} ({flagged} flagged by picklescan or fickling)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
