#!/usr/bin/env python3
"""ONNX models written with the `onnx` package, and what the `onnx` package and numpy read in
them and in the real silero-vad exports, for tests/onnx_files.rs.

Writing (onnx.helper, onnx.numpy_helper, onnx.save):

  dtypes.onnx        an initializer of every TensorProto data type weightpeek maps to a
                     safetensors dtype, in raw_data (NaN, infinities, -0.0 and the integer
                     extremes among them), a scalar, an empty tensor, an odd-length F4 one, a
                     COMPLEX128 one (pairs of doubles), and the types it lists as unknown
                     (STRING, INT4, UINT4, INT2) and FLOAT6E2M3 (listed, not previewed)
  data-fields.onnx   values in float_data, double_data (in place: packed little-endian; a
                     COMPLEX128 one is in place: pairs of doubles), and in
                     int32_data, int64_data, uint64_data (varints, decoded by the preview), also
                     as a Constant node's value
  storage.onnx       the same tensors of every previewable data type in every TensorProto
                     storage form: raw_data, the typed field onnx reads for the type packed
                     (as protobuf writes it), unpacked (a tag before each value), in two
                     packed runs, and unpacked with the name field among the values (the last
                     three encoded here, byte by byte, and parsed back by protobuf); every form
                     gives to_array's values of the raw_data one
  external.onnx      initializers in a side file, external.onnx.data (listed, not previewed
                     alone; previewed from the side file opened with it)
  external-sub.onnx  a side file in a subfolder (weights/external-sub.bin), tensors at offsets
                     other than 0, a location spelled with ./
  external-outside.onnx  one tensor inside its side file, one whose offset and length run past
                     its end (the onnx package refuses it)
  external-escape.onnx   locations outside the model's folder (../, absolute): never opened
  sparse.onnx        a sparse initializer next to a dense one
  subgraphs.onnx     If nodes (nested) and a Loop whose bodies hold Constants, inputs and outputs
                     with symbolic, unknown and no shapes, metadata_props, doc_string, domain,
                     model_version, two opsets; a ConstantOfShape and a value_float Constant
                     (neither is a tensor of the table)
  many.onnx          2,000 small Constants and 24 initializers of 256 KiB: reads stay within
                     the driver's budget
  large.onnx         8 initializers of 4 MiB: listing skips them

Reading (the reference): onnx.load(path, load_external_data=False) and
onnx.numpy_helper.to_array. The tensors of a graph are listed in weightpeek's order, which is
the order their messages end in the file; for files written by protobuf (fields in number
order) that is, per graph: each node in order (its subgraphs depth-first in attribute order,
then, for a `Constant` of the default domain, its `value` tensor named by the node's first
output), then the initializers, then the sparse initializers (named by their values' name,
shaped by their dense dims). A tensor's dtype: the safetensors name weightpeek shows, or the ONNX name of a type it lists as
unknown. A tensor is previewable when its values are in the file (raw_data, or the typed field
onnx reads for its type, in any form) and of a type weightpeek decodes; `why` names why not.
Its bytes: raw_data's length; 4 or 8 × the values of a lone packed
float_data / double_data; elements × element size for other typed fields (and for an external
tensor without a length key); the length key of an external tensor; string_data's bytes; a
sparse tensor's values and indices together. Values (first 64 of the row-major tensor and
the last row's first 64) are text as tests/reference/exact_values.py writes them, for the
tensors weightpeek previews in place. An external tensor also has `external` (location,
offset) and either `side_first` / `side_last_row` (the values
onnx.external_data_helper.load_external_data_for_tensor and to_array read from the side file)
or `side_refused` (the onnx package's error).

Metadata: onnx.ir_version, onnx.producer (name and version), onnx.domain, onnx.model_version,
onnx.doc_string, onnx.opset.<domain or ai.onnx>, onnx.graph.name, onnx.graph.inputs and
outputs (`name: elem[dims]` joined by "; ", a dim as its value, its parameter or ?),
onnx.graph.nodes (main graph), onnx.subgraphs (when any), onnx.meta.<key>.

Across formats: the silero-vad weights are also in silero_vad.jit (TorchScript, read with
torch_fixtures.py's reference reader) and silero_vad_16k.safetensors. `same` lists the groups
of tensors (of at least 16 values) whose dtype, shape and values are equal in several formats.

Writes DIR/<file>s and DIR/expected.json:
  {"files": {file: {"path", "size", "metadata": [[key, text]], "tensors": [{"name", "dtype",
    "shape", "elements", "bytes", "source", "depth", "previewable", "why", "first",
    "last_row"}]}},
   "same": [{"dtype", "shape", "members": [[file, tensor name]]}]}

Usage: onnx_fixtures.py --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import struct
import sys
from importlib.metadata import version
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, external_data_helper, helper, numpy_helper
from safetensors.numpy import load_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch_fixtures  # noqa: E402  (the TorchScript reference reader)
from textvals import kind_of, vtext  # noqa: E402  (the value texts every reference writes)

DATA = Path(os.environ.get("WEIGHTPEEK_DATA", Path.home() / ".cache" / "weightpeek-data"))
SILERO = DATA / "silero-vad"
REAL = ["silero_vad.onnx", "silero_vad_16k_op15.onnx", "silero_vad_16k_sequence.onnx",
        "silero_vad_half.onnx", "silero_vad_op18_ifless.onnx", "silero_vad_openvino_16k.onnx"]
RNG = np.random.default_rng(1213)
FIRST = 64

# TensorProto data type -> the safetensors dtype weightpeek shows (None: unknown to it).
ST_NAME = {
    TensorProto.FLOAT: "F32", TensorProto.UINT8: "U8", TensorProto.INT8: "I8",
    TensorProto.UINT16: "U16", TensorProto.INT16: "I16", TensorProto.INT32: "I32",
    TensorProto.INT64: "I64", TensorProto.BOOL: "BOOL", TensorProto.FLOAT16: "F16",
    TensorProto.DOUBLE: "F64", TensorProto.UINT32: "U32", TensorProto.UINT64: "U64",
    TensorProto.COMPLEX64: "C64", TensorProto.COMPLEX128: "C128", TensorProto.BFLOAT16: "BF16",
    TensorProto.FLOAT8E4M3FN: "F8_E4M3", TensorProto.FLOAT8E4M3FNUZ: "F8_E4M3FNUZ",
    TensorProto.FLOAT8E5M2: "F8_E5M2", TensorProto.FLOAT8E5M2FNUZ: "F8_E5M2FNUZ",
    TensorProto.FLOAT4E2M1: "F4", TensorProto.FLOAT8E8M0: "F8_E8M0",
    TensorProto.FLOAT6E2M3: "F6_E2M3", TensorProto.FLOAT6E3M2: "F6_E3M2",
}
# Bits per element of the mapped dtypes.
BITS = {"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "BOOL": 8, "U8": 8, "I8": 8, "F8_E4M3": 8,
        "F8_E4M3FNUZ": 8, "F8_E5M2": 8, "F8_E5M2FNUZ": 8, "F8_E8M0": 8, "U16": 16, "I16": 16,
        "F16": 16, "BF16": 16, "U32": 32, "I32": 32, "F32": 32, "U64": 64, "I64": 64,
        "F64": 64, "C64": 64, "C128": 128}
# weightpeek decodes these (not F6, whose packing it does not know).
PREVIEWED = set(BITS) - {"F6_E2M3", "F6_E3M2"}


def dtype_label(dt: int) -> str:
    """The safetensors dtype, or the ONNX name of a type weightpeek lists as unknown."""
    st = ST_NAME.get(dt)
    if st:
        return st
    try:
        return TensorProto.DataType.Name(dt)
    except ValueError:
        return f"data_type {dt}"


def st_bytes(st: str | None, elements: int) -> int | None:
    if st is None:
        return None
    return (elements * BITS[st] + 7) // 8


# --- writing ---------------------------------------------------------------------------------

def special_floats(a: np.ndarray) -> np.ndarray:
    flat = a.reshape(-1)
    for i, v in enumerate([np.nan, np.inf, -np.inf, -0.0]):
        if flat.size > i + 1:
            flat[i + 1] = v
    return a


def ints(dt, shape) -> np.ndarray:
    info = np.iinfo(dt)
    a = RNG.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    flat = a.reshape(-1)
    flat[:2] = [info.min, info.max]
    return a


def complexes(shape) -> np.ndarray:
    c = np.empty(shape, np.complex64)
    c.real, c.imag = floats(np.float32, shape), floats(np.float32, shape)
    return c


def floats(dt, shape, special=True) -> np.ndarray:
    a = RNG.normal(0, 2, size=shape).astype(np.float32)
    if special:
        special_floats(a)
    return a.astype(dt)


def save(model: onnx.ModelProto, path: Path, **kw) -> None:
    onnx.save(model, str(path), **kw)


def model_of(graph: onnx.GraphProto, **kw) -> onnx.ModelProto:
    kw.setdefault("opset_imports", [helper.make_opsetid("", 17)])
    m = helper.make_model(graph, producer_name="onnx_fixtures.py", producer_version="1", **kw)
    m.ir_version = 9
    return m


def every_dtype(shape) -> dict[str, np.ndarray]:
    """An array of `shape` of every data type weightpeek previews, with NaN, infinities, -0.0
    and the integer extremes among the values."""
    return {
        "f32": floats(np.float32, shape), "f64": floats(np.float64, shape),
        "f16": floats(np.float16, shape), "bf16": floats(ml_dtypes.bfloat16, shape),
        "f8_e4m3": floats(ml_dtypes.float8_e4m3fn, shape),
        "f8_e4m3fnuz": floats(ml_dtypes.float8_e4m3fnuz, shape),
        "f8_e5m2": floats(ml_dtypes.float8_e5m2, shape),
        "f8_e5m2fnuz": floats(ml_dtypes.float8_e5m2fnuz, shape),
        "f4": floats(ml_dtypes.float4_e2m1fn, shape, special=False),
        "f8_e8m0": np.exp2(RNG.integers(-20, 20, size=shape)).astype(ml_dtypes.float8_e8m0fnu),
        "u8": ints(np.uint8, shape), "i8": ints(np.int8, shape), "u16": ints(np.uint16, shape),
        "i16": ints(np.int16, shape), "u32": ints(np.uint32, shape), "i32": ints(np.int32, shape),
        "u64": ints(np.uint64, shape), "i64": ints(np.int64, shape),
        "bool": RNG.integers(0, 2, size=shape).astype(np.bool_),
        "c64": complexes(shape),
    }


def write_dtypes(path: Path) -> None:
    shape = (3, 70)
    arrays = {
        **every_dtype(shape),
        "scalar": np.array(3.5, np.float32),
        "empty": np.zeros((0, 4), np.float32),
        "f4_odd": floats(ml_dtypes.float4_e2m1fn, (7,), special=False),
        "f32_3d": floats(np.float32, (2, 3, 65)),
        "c128": (floats(np.float64, (2, 3)) + 1j).astype(np.complex128),
        "i4": RNG.integers(-8, 8, size=(4, 6)).astype(ml_dtypes.int4),
        "u4": RNG.integers(0, 16, size=(4, 6)).astype(ml_dtypes.uint4),
        "i2": RNG.integers(-2, 2, size=(4, 8)).astype(ml_dtypes.int2),
        "f6_e2m3": floats(ml_dtypes.float6_e2m3fn, (2, 8), special=False),
    }
    inits = [numpy_helper.from_array(a, name) for name, a in arrays.items()]
    inits.append(numpy_helper.from_array(np.array([b"a", b"bc", "\u00e9".encode()], dtype=object), "strings"))
    for t in inits:
        assert t.HasField("raw_data") or t.data_type == TensorProto.STRING, t.name
    g = helper.make_graph([], "dtypes", [], [], initializer=inits)
    save(model_of(g), path)


def write_data_fields(path: Path) -> None:
    mk = helper.make_tensor
    f32 = floats(np.float32, (4, 80))
    f64 = floats(np.float64, (3, 66))
    c64 = complexes((2, 65))
    inits = [
        mk("f32_float_data", TensorProto.FLOAT, f32.shape, f32.ravel().tolist()),
        mk("f64_double_data", TensorProto.DOUBLE, f64.shape, f64.ravel().tolist()),
        mk("c64_float_data", TensorProto.COMPLEX64, c64.shape, c64.ravel().tolist()),
        mk("i64_int64_data", TensorProto.INT64, [5], ints(np.int64, 5).tolist()),
        mk("i32_int32_data", TensorProto.INT32, [2, 3], ints(np.int32, 6).tolist()),
        mk("f16_int32_data", TensorProto.FLOAT16, [2, 2], floats(np.float16, 4, special=False)),
        mk("u64_uint64_data", TensorProto.UINT64, [3], ints(np.uint64, 3).tolist()),
        mk("bool_int32_data", TensorProto.BOOL, [4], [True, False, True, True]),
        mk("c128_double_data", TensorProto.COMPLEX128, [2], [1 + 2j, 3 - 4j]),
    ]
    for t in inits:
        assert not t.HasField("raw_data"), t.name
    const = helper.make_node("Constant", [], ["const_float_data"],
                             value=mk("v", TensorProto.FLOAT, [2, 3], [1, 2, 3, 4, 5, 6]))
    const_i64 = helper.make_node("Constant", [], ["const_int64_data"],
                                 value=mk("v", TensorProto.INT64, [3], [-1, 0, 1 << 40]))
    g = helper.make_graph([const, const_i64], "data-fields", [], [], initializer=inits)
    save(model_of(g), path)


TYPED_FIELDS = ("float_data", "int32_data", "int64_data", "double_data", "uint64_data")
FIELD_NUMBER = {"float_data": 4, "int32_data": 5, "int64_data": 7, "double_data": 10, "uint64_data": 11}


def typed_copy(t: onnx.TensorProto, name: str) -> onnx.TensorProto:
    """A copy of the raw_data tensor `t` with its values in the typed field onnx reads for its
    type, stored as onnx stores them there: the values themselves for the integer types
    (int8 to int32 in int32_data, int64_data, uint64_data), bit patterns for FLOAT16, BFLOAT16
    and the 8-bit floats (in int32_data), the packed bytes of FLOAT4E2M1, floats and doubles
    (complex ones as pairs) in float_data and double_data."""
    dt = t.data_type
    field = helper.tensor_dtype_to_field(dt)
    raw = t.raw_data
    a = numpy_helper.to_array(t)
    if field == "float_data":
        vals = np.frombuffer(raw, "<f4").tolist()
    elif field == "double_data":
        vals = np.frombuffer(raw, "<f8").tolist()
    elif dt in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
        vals = np.frombuffer(raw, "<u2").tolist()
    elif dt in (TensorProto.BOOL, TensorProto.FLOAT4E2M1) or a.dtype.itemsize == 1 and a.dtype.kind not in "iu":
        vals = np.frombuffer(raw, "u1").tolist()
    else:
        vals = [int(v) for v in a.ravel()]
    out = onnx.TensorProto()
    out.CopyFrom(t)
    out.name = name
    out.ClearField("raw_data")
    getattr(out, field).extend(vals)
    return out


def pb_varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if not v:
            out.append(c)
            return bytes(out)
        out.append(c | 0x80)


def pb_key(field: int, wire: int) -> bytes:
    return pb_varint(field << 3 | wire)


def encode_typed(t: onnx.TensorProto, form: str) -> bytes:
    """The TensorProto `t` (values in a typed field) encoded by hand: `unpacked` (a tag before
    each value), `runs` (two packed runs), `mixed` (unpacked, the name field among them)."""
    field = next(f for f in TYPED_FIELDS if len(getattr(t, f)))
    no = FIELD_NUMBER[field]
    vals = list(getattr(t, field))
    head = b"".join(pb_key(1, 0) + pb_varint(d) for d in t.dims) + pb_key(2, 0) + pb_varint(t.data_type)
    name = t.name.encode()
    name_f = pb_key(8, 2) + pb_varint(len(name)) + name

    def value(v) -> bytes:
        if no == 4:
            return struct.pack("<f", v)
        if no == 10:
            return struct.pack("<d", v)
        return pb_varint(int(v))

    def one(v) -> bytes:
        return pb_key(no, {4: 5, 10: 1}.get(no, 0)) + value(v)

    def packed(vs) -> bytes:
        body = b"".join(value(v) for v in vs)
        return pb_key(no, 2) + pb_varint(len(body)) + body

    h = len(vals) // 2
    if form == "unpacked":
        return head + name_f + b"".join(one(v) for v in vals)
    if form == "runs":
        return head + name_f + packed(vals[:h]) + packed(vals[h:])
    return head + b"".join(one(v) for v in vals[:h]) + name_f + b"".join(one(v) for v in vals[h:])


def write_storage(path: Path) -> None:
    arrays = {**every_dtype((3, 6)),
              "c128": (floats(np.float64, (2, 3)) + 1j).astype(np.complex128)}
    inits, encoded = [], []
    for k, a in arrays.items():
        raw = numpy_helper.from_array(a, f"{k}.raw")
        want = numpy_helper.to_array(raw)
        packed = typed_copy(raw, f"{k}.packed")
        inits += [raw, packed]
        forms = [packed]
        for form in ("unpacked", "runs", "mixed"):
            t = onnx.TensorProto()
            t.CopyFrom(packed)
            t.name = f"{k}.{form}"
            b = encode_typed(t, form)
            back = onnx.TensorProto()
            back.ParseFromString(b)
            assert back == t, (k, form)
            encoded.append(b)
            forms.append(back)
        for t in forms:
            got = numpy_helper.to_array(t)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), t.name
    g = helper.make_graph([], "storage", [], [], initializer=inits)
    m = model_of(g)
    graph = m.graph.SerializeToString() + b"".join(
        pb_key(5, 2) + pb_varint(len(b)) + b for b in encoded)
    m.ClearField("graph")
    path.write_bytes(m.SerializeToString() + pb_key(7, 2) + pb_varint(len(graph)) + graph)


def write_external(path: Path) -> None:
    inits = [numpy_helper.from_array(floats(np.float32, (64, 64)), "ext_weight"),
             numpy_helper.from_array(ints(np.int64, (300,)), "ext_ids"),
             numpy_helper.from_array(floats(np.float32, (4,)), "inline_small")]
    g = helper.make_graph([], "external", [], [], initializer=inits)
    m = model_of(g)
    side = path.name + ".data"
    (path.parent / side).unlink(missing_ok=True)
    save(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location=side,
         size_threshold=1024)


def external_tensor(a: np.ndarray, name: str, location: str, offset: int, length: int) -> onnx.TensorProto:
    """A tensor of `a`'s dtype and shape whose data is `length` bytes at `offset` of `location`."""
    t = numpy_helper.from_array(a, name)
    external_data_helper.set_external_data(t, location, offset=offset, length=length)
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    return t


def write_external_sub(path: Path) -> None:
    """A side file in a subfolder, its tensors at offsets that are not 0."""
    side = Path("weights") / (path.stem + ".bin")
    (path.parent / side.parent).mkdir(exist_ok=True)
    a, b = floats(np.float16, (3, 40)), ints(np.int32, (2, 5, 7))
    pad = b"\xee" * 24
    (path.parent / side).write_bytes(pad + a.tobytes() + pad + b.tobytes())
    inits = [external_tensor(a, "sub_f16", side.as_posix(), len(pad), a.nbytes),
             external_tensor(b, "sub_i32", "./" + side.as_posix(), 2 * len(pad) + a.nbytes, b.nbytes)]
    save(model_of(helper.make_graph([], "external-sub", [], [], initializer=inits)), path)


def write_external_bad(path: Path) -> None:
    """external-outside.onnx: one tensor inside its 72-byte side file, one past its end;
    external-escape.onnx: a location outside the model's folder (never opened)."""
    a = floats(np.float32, (4, 4), special=False)
    side = path.name + ".data"
    (path.parent / side).write_bytes(a.tobytes() + b"\0" * 8)
    inits = [external_tensor(a, "inside", side, 0, 64), external_tensor(a, "outside", side, 60, 64)]
    save(model_of(helper.make_graph([], "external-outside", [], [], initializer=inits)), path)
    inits = [external_tensor(a, "escapes", "../escape.data", 0, 64),
             external_tensor(a, "absolute", "/etc/hostname", 0, 64)]
    save(model_of(helper.make_graph([], "external-escape", [], [], initializer=inits)),
         path.parent / "external-escape.onnx")


def write_sparse(path: Path) -> None:
    values = helper.make_tensor("sp", TensorProto.FLOAT, [3], [1.5, -2.0, 3.25])
    indices = helper.make_tensor("sp_indices", TensorProto.INT64, [3], [0, 5, 9])
    sp = helper.make_sparse_tensor(values, indices, [2, 5])
    raw_values = numpy_helper.from_array(floats(np.float32, (4,)), "sp_raw")
    raw_indices = numpy_helper.from_array(np.array([[0, 1], [2, 3], [4, 0], [5, 5]], np.int64), "sp_raw_idx")
    sp2 = helper.make_sparse_tensor(raw_values, raw_indices, [6, 6])
    dense = numpy_helper.from_array(floats(np.float32, (2, 70)), "dense")
    g = helper.make_graph([], "sparse", [], [], initializer=[dense], sparse_initializer=[sp, sp2])
    save(model_of(g), path)


def const(name: str, a: np.ndarray) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(a, name + "_t"))


def write_subgraphs(path: Path) -> None:
    vi = helper.make_tensor_value_info
    deep_then = helper.make_graph([const("deep_then", ints(np.int64, (3,)))], "deep_then", [], [vi("deep_then", TensorProto.INT64, [3])])
    deep_else = helper.make_graph([const("deep_else", ints(np.int64, (3,)))], "deep_else", [], [vi("deep_else", TensorProto.INT64, [3])])
    then_g = helper.make_graph(
        [const("then_c", floats(np.float32, (2, 3))),
         helper.make_node("If", ["cond"], ["deep_out"], then_branch=deep_then, else_branch=deep_else)],
        "then", [], [vi("then_c", TensorProto.FLOAT, [2, 3])],
        initializer=[numpy_helper.from_array(floats(np.float32, (5,)), "then_init")])
    else_g = helper.make_graph([const("else_c", floats(np.float16, (5, 70)))], "else", [],
                               [vi("else_c", TensorProto.FLOAT16, [5, 70])])
    body = helper.make_graph([const("loop_c", ints(np.int32, (4, 4)))], "body",
                             [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, [])],
                             [vi("c", TensorProto.BOOL, [])])
    nodes = [
        const("c0", floats(np.float32, (4,))),
        helper.make_node("If", ["cond"], ["if_out"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["", "cond"], ["loop_out"], body=body),
        helper.make_node("ConstantOfShape", ["shape"], ["zeros"],
                         value=numpy_helper.from_array(np.array([0.0], np.float32))),
        helper.make_node("Constant", [], ["a_float"], value_float=2.5),
        const("c_last", ints(np.uint8, (2, 70))),
    ]
    inputs = [vi("x", TensorProto.FLOAT, ["batch", 512, None]), vi("cond", TensorProto.BOOL, []),
              vi("shape", TensorProto.INT64, None)]
    outputs = [vi("y", TensorProto.FLOAT16, ["batch", None]), vi("loop_out", TensorProto.INT32, [4, 4])]
    inits = [numpy_helper.from_array(floats(np.float32, (8, 70)), "w"),
             numpy_helper.from_array(ints(np.int64, (2,)), "shape_init")]
    g = helper.make_graph(nodes, "subgraphs", inputs, outputs, initializer=inits)
    m = model_of(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.doc_string = "A test model."
    m.domain = "org.weightpeek"
    m.model_version = 7
    helper.set_model_props(m, {"author": "weightpeek tests", "license": "MIT"})
    save(m, path)


def write_many(path: Path) -> None:
    nodes = [const(f"small.{i}", floats(np.float32, (4,), special=False)) for i in range(2000)]
    inits = [numpy_helper.from_array(floats(np.float32, (256, 256), special=False), f"layer.{i}")
             for i in range(24)]
    g = helper.make_graph(nodes, "many", [], [], initializer=inits)
    save(model_of(g), path)


def write_large(path: Path) -> None:
    inits = [numpy_helper.from_array(floats(np.float32, (1024, 1024), special=False), f"big.{i}")
             for i in range(8)]
    g = helper.make_graph([], "large", [], [], initializer=inits)
    save(model_of(g), path)


# --- reading ---------------------------------------------------------------------------------

def dim_text(d) -> str:
    if d.HasField("dim_value"):
        return str(d.dim_value)
    if d.HasField("dim_param"):
        return d.dim_param
    return "?"


def type_text(t: onnx.TypeProto) -> str:
    which = t.WhichOneof("value")
    if which in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(t, which)
        try:
            s = TensorProto.DataType.Name(tt.elem_type).lower()
        except ValueError:
            s = f"data_type {tt.elem_type}"
        if which == "sparse_tensor_type":
            s = "sparse " + s
        if tt.HasField("shape"):
            s += "[" + ",".join(dim_text(d) for d in tt.shape.dim) + "]"
        return s
    return {"sequence_type": "sequence", "map_type": "map", "optional_type": "optional",
            "opaque_type": "opaque"}.get(which, "?")


def value_info_text(v: onnx.ValueInfoProto) -> str:
    return f"{v.name}: {type_text(v.type) if v.HasField('type') else '?'}"


def subgraphs_of(node: onnx.NodeProto):
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def count_subgraphs(g: onnx.GraphProto) -> int:
    return sum(1 + count_subgraphs(s) for n in g.node for s in subgraphs_of(n))


def metadata(m: onnx.ModelProto) -> list[list[str]]:
    out = []
    if m.HasField("ir_version"):
        out.append(["onnx.ir_version", str(m.ir_version)])
    producer = " ".join(x for x in (m.producer_name, m.producer_version) if x)
    if producer:
        out.append(["onnx.producer", producer])
    if m.domain:
        out.append(["onnx.domain", m.domain])
    if m.HasField("model_version"):
        out.append(["onnx.model_version", str(m.model_version)])
    if m.doc_string:
        out.append(["onnx.doc_string", m.doc_string])
    for o in m.opset_import:
        out.append([f"onnx.opset.{o.domain or 'ai.onnx'}", str(o.version)])
    g = m.graph
    if g.name:
        out.append(["onnx.graph.name", g.name])
    out.append(["onnx.graph.inputs", "; ".join(value_info_text(v) for v in g.input)])
    out.append(["onnx.graph.outputs", "; ".join(value_info_text(v) for v in g.output)])
    out.append(["onnx.graph.nodes", str(len(g.node))])
    n = count_subgraphs(g)
    if n:
        out.append(["onnx.subgraphs", str(n)])
    for p in m.metadata_props:
        out.append([f"onnx.meta.{p.key}", p.value])
    return out


def stored_bytes(t: onnx.TensorProto) -> tuple[int | None, bool, str | None]:
    """(bytes, in place, why not) of a tensor's data, as weightpeek lists it."""
    st = ST_NAME.get(t.data_type)
    elements = int(np.prod(t.dims, dtype=np.int64)) if len(t.dims) else 1
    if t.data_location == TensorProto.EXTERNAL:
        ext = {e.key: e.value for e in t.external_data}
        length = int(ext["length"]) if "length" in ext else st_bytes(st, elements)
        return length, False, "external"
    if t.HasField("raw_data"):
        return len(t.raw_data), True, None
    typed = [f for f in TYPED_FIELDS if len(getattr(t, f))]
    if typed:
        # The field onnx.numpy_helper.to_array reads for the type.
        field = helper.tensor_dtype_to_field(t.data_type)
        if field not in typed:
            return st_bytes(st, elements), False, "does not read"
        if st not in PREVIEWED:
            return st_bytes(st, elements), False, "not previewed"
        if typed == ["float_data"] and t.data_type in (TensorProto.FLOAT, TensorProto.COMPLEX64):
            return 4 * len(t.float_data), True, None
        if typed == ["double_data"] and t.data_type in (TensorProto.DOUBLE, TensorProto.COMPLEX128):
            return 8 * len(t.double_data), True, None
        return st_bytes(st, elements), True, None
    if len(t.string_data):
        return sum(len(s) for s in t.string_data), False, "strings"
    return (0 if elements == 0 else None), True, None


def values(st: str, a: np.ndarray) -> tuple[list, list]:
    rows = a.reshape(-1, a.shape[-1]) if a.ndim > 1 else a.reshape(1, -1)
    k = kind_of(st)
    return ([vtext(k, v) for v in rows.ravel()[:FIRST]], [vtext(k, v) for v in rows[-1][:FIRST]])


def describe(name: str, t: onnx.TensorProto, source: str, depth: int, arrays: dict,
             sparse: onnx.SparseTensorProto | None = None, base: Path = Path(".")) -> dict:
    st = ST_NAME.get(t.data_type)
    shape = list(sparse.dims) if sparse is not None else list(t.dims)
    elements = int(np.prod(shape, dtype=np.int64)) if shape else 1
    nbytes, in_place, why = stored_bytes(t)
    if sparse is not None:
        ib = stored_bytes(sparse.indices)[0] if sparse.HasField("indices") else 0
        nbytes = None if nbytes is None or ib is None else nbytes + ib
        in_place, why = False, "sparse"
    e = dict(name=name, dtype=dtype_label(t.data_type), shape=shape, elements=elements,
             bytes=nbytes, source=source, depth=depth, previewable=in_place, why=why)
    if t.data_location == TensorProto.EXTERNAL and st is not None:
        # The values the onnx package reads from the side file (or why it refuses to).
        ext = {x.key: x.value for x in t.external_data}
        e["external"] = dict(location=ext.get("location"), offset=int(ext.get("offset", 0)))
        loaded = onnx.TensorProto()
        loaded.CopyFrom(t)
        try:
            external_data_helper.load_external_data_for_tensor(loaded, str(base))
            a = numpy_helper.to_array(loaded)
            e["side_first"], e["side_last_row"] = values(st, a)
        except Exception as exc:  # noqa: BLE001  (the refusal is the reference)
            e["side_refused"] = f"{type(exc).__name__}: {exc}"
    if not in_place or st is None:
        return e
    if t.data_location != TensorProto.EXTERNAL:
        a = numpy_helper.to_array(t)
        assert list(a.shape) == shape, (name, a.shape, shape)
        arrays[name] = a
        even = st != "F4" or (shape[-1] if shape else 1) % 2 == 0
        if a.size and st in PREVIEWED and even:
            e["first"], e["last_row"] = values(st, a)
    return e


def tensors_of(g: onnx.GraphProto, depth: int, out: list, arrays: dict, base: Path) -> None:
    for node in g.node:
        for s in subgraphs_of(node):
            tensors_of(s, depth + 1, out, arrays, base)
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            vals = [a for a in node.attribute if a.name == "value" and a.HasField("t")]
            if vals:
                t = vals[-1].t
                name = next((n for n in (node.output[0] if node.output else "", t.name, node.name) if n), "constant")
                out.append(describe(name, t, "Constant", depth, arrays, base=base))
    for t in g.initializer:
        out.append(describe(t.name, t, "Initializer", depth, arrays, base=base))
    for sp in g.sparse_initializer:
        out.append(describe(sp.values.name or "sparse", sp.values, "SparseInitializer", depth, arrays, sparse=sp))


def read(path: Path) -> tuple[dict, dict]:
    m = onnx.load(str(path), load_external_data=False)
    out, arrays = [], {}
    tensors_of(m.graph, 0, out, arrays, path.parent)
    return dict(path=str(path.resolve()), size=path.stat().st_size, metadata=metadata(m), tensors=out), arrays


def same_groups(onnx_arrays: dict[str, dict]) -> list[dict]:
    """Tensors (of at least 16 values) equal in dtype, shape and bytes across the formats."""
    groups: dict[tuple, list] = {}

    def add(file: str, name: str, a: np.ndarray) -> None:
        if a.size < 16 or a.dtype not in (np.float32, np.int64):
            return
        key = (a.dtype.str, a.shape, hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
        groups.setdefault(key, []).append([file, name])

    for file, arrays in onnx_arrays.items():
        for name, a in arrays.items():
            add(file, name, a)
    found, _ = torch_fixtures.read_zip(SILERO / "silero_vad.jit")
    for name, r in found:
        if r.contiguous:
            add("silero_vad.jit", name or "tensor", r.arr)
    for name, a in load_file(str(SILERO / "silero_vad_16k.safetensors")).items():
        add("silero_vad_16k.safetensors", name, a)
    out = []
    for (dt, shape, _), members in groups.items():
        kinds = {Path(f).suffix for f, _ in members}
        if len(kinds) >= 2:
            out.append(dict(dtype={"<f4": "F32", "<i8": "I64"}[dt], shape=list(shape), members=members))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    writers = {"dtypes.onnx": write_dtypes, "data-fields.onnx": write_data_fields,
               "storage.onnx": write_storage,
               "external.onnx": write_external, "sparse.onnx": write_sparse,
               "subgraphs.onnx": write_subgraphs, "many.onnx": write_many, "large.onnx": write_large,
               "external-sub.onnx": write_external_sub, "external-outside.onnx": write_external_bad}
    for name, w in writers.items():
        w(a.out / name)
    files, arrays = {}, {}
    for name in list(writers) + ["external-escape.onnx"] + REAL:
        path = SILERO / name if name in REAL else a.out / name
        if not path.is_file():
            print(f"error: {path} missing", file=sys.stderr)
            return 1
        files[name], arrays[name] = read(path)
    same = same_groups({k: v for k, v in arrays.items() if k in REAL})
    doc = dict(generator="tests/reference/onnx_fixtures.py",
               versions={k: version(k) for k in ("onnx", "protobuf", "numpy", "ml_dtypes")},
               files=files, same=same)
    tmp = a.out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False))
    tmp.replace(a.out / "expected.json")
    print(f"onnx fixtures: {len(files)} files, {sum(len(f['tensors']) for f in files.values())} tensors, "
          f"{len(same)} groups of tensors equal across formats, in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
