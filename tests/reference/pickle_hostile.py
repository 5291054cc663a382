#!/usr/bin/env python3
"""Hostile pickles, zip checkpoints, tar archives, NumPy and ONNX files for
tests/pickle_hostile.rs and tests/e2e/pickle-hostile.test.mjs (issue #24, items 6, 8 and 9):
each is read by weightpeek in at most 2 s and 256 MiB with a clear message, and none is called
safe when a loader would run what was not read.

Writes DIR/<case> and DIR/expected.json:

    {"generator", "python", "cases": [{"file", "what", "verdict", "message", "check_exit"}]}

verdict: what the pickle figure must say — "dangerous" (a pickle-dangerous finding),
"unchecked" (a pickle-not-checked finding, no pickle-safe), "safe" (pickle-safe), "none" (no
pickle in the file: no pickle finding at all), or null (the file does not open as a model with
pickles: only an error). message: text that one of
the findings (or the error) must contain. check_exit: `weightpeek FILE --check`'s exit status.

Only the standard library is used (zipfile, zlib, tarfile, struct): the files are built from
the formats' own rules, so the script runs without the reference venv.

Usage: pickle_hostile.py --out DIR
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import sys
import tarfile
import zipfile
from pathlib import Path

CASES = []


def case(name, data, what, verdict, message, check_exit=1):
    CASES.append((name, data, dict(file=name, what=what, verdict=verdict, message=message,
                                   check_exit=check_exit)))


def u(s: str) -> bytes:
    """BINUNICODE of s."""
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def long1(v: int) -> bytes:
    b = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(b)]) + b


def tensor_pickle(key: str, shape, stride, numel: int, evil: bytes = b"") -> bytes:
    """A protocol-2 state dict {key: tensor} as torch.save pickles it (persistent id
    ('storage', torch.FloatStorage, '0', 'cpu', numel)); `evil` is put in as a second entry."""
    dims = lambda xs: b"(" + b"".join(long1(x) if x > 0xFFFF else b"M" + struct.pack("<H", x) for x in xs) + b"t"
    body = (b"\x80\x02}" + u(key)
            + b"ctorch._utils\n_rebuild_tensor_v2\n("
            + b"(" + u("storage") + b"ctorch\nFloatStorage\n" + u("0") + u("cpu") + long1(numel) + b"tQ"
            + b"K\x00" + dims(shape) + dims(stride) + b"\x89"
            + b"ccollections\nOrderedDict\n)R" + b"tR" + b"s")
    if evil:
        body += u("evil") + evil + b"s"
    return body + b"."


OS_SYSTEM = b"cposix\nsystem\n" + u("echo pwned") + b"\x85R"


def zip_bytes(members) -> bytes:
    """A stored zip of (name, bytes) in order."""
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)
    return f.getvalue()


def checkpoint(pkl: bytes, folder="archive", storage=b"\x00" * 16) -> list:
    return [(f"{folder}/data.pkl", pkl), (f"{folder}/data/0", storage),
            (f"{folder}/version", b"3\n")]


def deflate_bomb(path: Path, lie: bool) -> None:
    """archive/data.pkl deflated, 1 GiB when inflated (a pickle's first bytes, then zeros: a
    megabyte in the file); `lie`: the central directory says it inflates to 100 bytes."""
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        zi = zipfile.ZipInfo("archive/data.pkl")
        zi.compress_type = zipfile.ZIP_DEFLATED
        with z.open(zi, "w", force_zip64=True) as w:
            w.write(b"\x80\x02]q\x00(")
            chunk = b"\x00" * (1 << 20)
            for _ in range(1024):
                w.write(chunk)
        z.writestr("archive/version", b"3\n")
    data = bytearray(f.getvalue())
    if lie:
        at = data.find(b"PK\x01\x02")
        struct.pack_into("<I", data, at + 24, 100)
    path.write_bytes(bytes(data))


def cd_million() -> bytes:
    """A one-member zip whose ZIP64 end record claims a million entries."""
    z = bytearray(zip_bytes(checkpoint(tensor_pickle("w", (4,), (1,), 4))))
    eocd = z.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack_from("<II", z, eocd + 12)
    zip64_at = len(z) - 22
    rec = (b"PK\x06\x06" + struct.pack("<QHHII", 44, 45, 45, 0, 0)
           + struct.pack("<QQQQ", 1_000_000, 1_000_000, cd_size, cd_off))
    loc = b"PK\x06\x07" + struct.pack("<IQI", 0, eocd, 1)
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, cd_size, cd_off, 0)
    return bytes(z[:eocd]) + rec + loc + end


def zip64_beyond() -> bytes:
    """data.pkl's central directory entry says (in a ZIP64 extra field) 2^40 bytes."""
    z = bytearray(zip_bytes(checkpoint(tensor_pickle("w", (4,), (1,), 4))))
    at = z.find(b"PK\x01\x02")
    name_len, extra_len = struct.unpack_from("<HH", z, at + 28)
    struct.pack_into("<II", z, at + 20, 0xFFFFFFFF, 0xFFFFFFFF)
    extra = struct.pack("<HHQQ", 1, 16, 1 << 40, 1 << 40)
    struct.pack_into("<H", z, at + 30, extra_len + len(extra))
    ins = at + 46 + name_len + extra_len
    z[ins:ins] = extra
    eocd = z.rfind(b"PK\x05\x06")
    cd_size = struct.unpack_from("<I", z, eocd + 12)[0]
    struct.pack_into("<I", z, eocd + 12, cd_size + len(extra))
    return bytes(z)


def npy_header(descr: str, shape) -> bytes:
    """An .npy version 1.0 header as numpy writes it (padded to 64 bytes, ending in a newline)."""
    dims = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")" if len(shape) != 1 else f"({shape[0]},)"
    text = "{'descr': %r, 'fortran_order': False, 'shape': %s, }" % (descr, dims)
    pad = -(10 + len(text) + 1) % 64
    text += " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin-1")


def npz_bomb(path: Path, header: bytes, first: bytes) -> None:
    """An .npz of one deflated member a.npy: `header`, `first`, then zeros to 1 GiB inflated
    (a megabyte in the file)."""
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        zi = zipfile.ZipInfo("a.npy")
        zi.compress_type = zipfile.ZIP_DEFLATED
        with z.open(zi, "w", force_zip64=True) as w:
            w.write(header + first)
            chunk = b"\x00" * (1 << 20)
            for _ in range(1024):
                w.write(chunk)
    path.write_bytes(f.getvalue())


def varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def pb(field: int, value) -> bytes:
    """A protobuf field: an int as a varint, bytes as length-delimited."""
    if isinstance(value, int):
        return varint(field << 3) + varint(value)
    return varint(field << 3 | 2) + varint(len(value)) + value


def onnx_model(initializers) -> bytes:
    """ModelProto {ir_version 8, opset 17, graph "g" with these TensorProto initializers}."""
    graph = pb(2, b"g") + b"".join(pb(5, t) for t in initializers)
    return pb(1, 8) + pb(8, pb(2, 17)) + pb(7, graph)


def onnx_external(name: str, location: str) -> bytes:
    """A float32 [16] initializer whose data is in `location` (data_location EXTERNAL)."""
    entry = lambda k, v: pb(13, pb(1, k.encode()) + pb(2, v.encode()))
    return (pb(1, 16) + pb(2, 1) + pb(8, name.encode()) + entry("location", location)
            + entry("offset", "0") + entry("length", "64") + pb(14, 1))


def tar_of(members, v7: bool) -> bytes:
    f = io.BytesIO()
    with tarfile.open(fileobj=f, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    b = bytearray(f.getvalue())
    if v7:
        # No ustar magic: an old V7 header, which tarfile (and so torch.load) still reads.
        b[257:265] = b"\x00" * 8
        b[148:156] = b" " * 8
        b[148:156] = b"%06o\x00 " % sum(b[:512])
        assert tarfile.open(fileobj=io.BytesIO(bytes(b))).getnames()[0] == members[0][0]
    return bytes(b)


def build(out: Path) -> None:
    # --- the pickle machine's caps: not fully checked, never safe ---
    n = 5_000_000
    big = bytearray(b"\x80\x02](")
    for i in range(n):
        big += b"J" + struct.pack("<i", i)
        if i % 1000 == 999:
            big += b"e("
    big += b"e" + b"cposix\nsystem\n" + u("echo pwned") + b"\x85R" + b"a."
    case("huge-list.pkl", bytes(big),
         "a list of five million ints, then os.system: read to the node cap", "unchecked",
         "Limits::max_nodes")
    case("huge-list.pt", zip_bytes(checkpoint(bytes(big))),
         "the same list as a zip checkpoint's data.pkl: the tree stops at the cap, the walk for "
         "imports past it finds os.system", "dangerous", "posix.system")
    case("huge-string.pkl", b"\x80\x04\x8d" + struct.pack("<Q", 1 << 40) + b"abc.",
         "a BINUNICODE8 claiming 2^40 bytes", "unchecked", "string length")
    case("huge-bytes.pkl", b"\x80\x04\x8e" + struct.pack("<Q", (1 << 64) - 1) + b".",
         "a BINBYTES8 claiming 2^64-1 bytes", "unchecked", "bytes length")
    memo = bytearray(b"\x80\x04")
    for _ in range(2_000_000):
        memo += b"N\x94" + b"0"
    memo += b"N."
    case("huge-memo.pkl", bytes(memo), "two million memo entries", "unchecked", "max_memo")
    case("deep-lists.pkl", b"\x80\x02" + b"]" * 1_000_000 + b"a" * 999_999 + b".",
         "lists nested a million levels", "unchecked", "nested more than")
    case("deep-marks.pkl", b"\x80\x02" + b"(" * 1_000_000 + b"N.",
         "a million open MARKs", "unchecked", "nested more than")
    case("damaged-after-import.pkl", b"\x80\x02ctorch\nFloatStorage\n\xff.",
         "a safe import, then a byte that is not an opcode", "unchecked", "not a pickle opcode")
    # --- zip checkpoints ---
    deflate_bomb(out / "deflate-bomb.pt", lie=False)
    CASES.append(("deflate-bomb.pt", None, dict(
        file="deflate-bomb.pt", what="data.pkl deflated, 1 GiB inflated", verdict="unchecked",
        message="more than this tool reads", check_exit=1)))
    deflate_bomb(out / "deflate-bomb-lying.pt", lie=True)
    CASES.append(("deflate-bomb-lying.pt", None, dict(
        file="deflate-bomb-lying.pt",
        what="data.pkl deflated to 1 GiB, its directory entry saying 100 bytes",
        verdict="unchecked", message="inflates to more than", check_exit=1)))
    case("cd-million.pt", cd_million(), "a ZIP64 end record claiming a million entries", None,
         "zip entries")
    case("zip64-beyond.pt", zip64_beyond(),
         "data.pkl's ZIP64 sizes say 2^40 bytes, beyond the file", "unchecked",
         "more than this tool reads")
    huge = 1 << 32
    case("dims-overflow.pt", zip_bytes(checkpoint(tensor_pickle("w", (huge, huge, huge), (1, 1, 1), 4))),
         "a tensor of shape (2^32, 2^32, 2^32): its element count overflows u64", "safe",
         "overflows 64 bits", check_exit=1)
    # --- which pickle the loader runs (item 9) ---
    benign = tensor_pickle("w", (4,), (1,), 4)
    evil = tensor_pickle("w", (4,), (1,), 4, OS_SYSTEM)
    members = [("b/version", b"3\n"), ("data.pkl", benign)]
    members += [(f"a{i}/data.pkl", benign) for i in range(20)]
    members += [("b/data.pkl", evil), ("b/data/0", b"\x00" * 16)]
    case("first-folder.pt", zip_bytes(members),
         "PyTorch loads b/data.pkl (the first member's folder), after a root data.pkl and 20 "
         "other pickles", "dangerous", "b/data.pkl imports posix.system")
    many = checkpoint(benign) + [(f"archive/extra{i}.pkl", benign) for i in range(300)]
    case("many-pickles.pt", zip_bytes(many),
         "300 pickles besides data.pkl: past the count read, not fully checked", "unchecked",
         "pickle past the")
    case("not-in-folder.pt", zip_bytes([("data.pkl", evil), ("data/0", b"\x00" * 16)]),
         "data.pkl at the archive's root (PyTorch refuses it; pickle.load of it runs)",
         "dangerous", "posix.system")
    # --- tar archives (torch.save before 0.1.10), with and without the ustar magic ---
    tar_members = [("sys_info", b"\x80\x02}."), ("pickle", OS_SYSTEM + b"."),
                   ("tensors", b"\x80\x02K\x00."), ("storages", b"\x80\x02K\x00.")]
    case("tar-ustar.pt", tar_of(tar_members, v7=False), "a ustar tar checkpoint", "unchecked",
         "tar")
    case("tar-v7.pt", tar_of(tar_members, v7=True),
         "a tar checkpoint without the ustar magic", "unchecked", "tar")
    # Its first member's name starts like a pickle: still a tar, as torch.load tries tar first.
    tricky = [("\x80\x02cposix\nsystem", b"x")] + tar_members
    case("tar-v7-pickle-name.pt", tar_of(tricky, v7=True),
         "a V7 tar whose first member name is a pickle's first bytes", "unchecked", "tar")


    # --- NumPy and ONNX (item 6) ---
    npz_bomb(out / "npz-bomb.npz", npy_header("<f4", (1 << 28,)), b"")
    CASES.append(("npz-bomb.npz", None, dict(
        file="npz-bomb.npz", what="an .npz member deflated, 1 GiB inflated (a float32 array)",
        verdict="none", message=None, check_exit=0)))
    npz_bomb(out / "npz-object-bomb.npz", npy_header("|O", (1,)),
             b"\x80\x04\x8e" + struct.pack("<Q", (1 << 30) - 64))
    CASES.append(("npz-object-bomb.npz", None, dict(
        file="npz-object-bomb.npz",
        what="an object array's pickle in a deflated .npz member: a 1 GiB bytes value",
        verdict="unchecked", message="bytes this tool reads of it", check_exit=1)))
    case("npy-dims-overflow.npy", npy_header("<f4", (huge, huge, huge)) + b"\x00" * 16,
         "an .npy of shape (2^32, 2^32, 2^32): its element count overflows u64", "none",
         "overflows 64 bits")
    case("onnx-length-past.onnx", pb(1, 8) + varint(7 << 3 | 2) + varint(1 << 40) + b"\x0a\x01g",
         "an ONNX graph whose length says 2^40 bytes", None, "the file ends at byte 12")
    w = pb(1, huge) * 3 + pb(2, 1) + pb(8, b"w") + pb(9, b"\x00" * 16)
    case("onnx-dims-overflow.onnx", onnx_model([w]),
         "an ONNX initializer of shape (2^32, 2^32, 2^32)", "none", "overflows 64 bits")
    case("onnx-external-escape.onnx",
         onnx_model([onnx_external("escapes", "../escape.data"),
                     onnx_external("absolute", "/etc/hostname")]),
         "external data locations outside the model's folder (../, absolute)", "none",
         "is not a file inside the model's folder")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder to write (created)")
    out = ap.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    build(out)
    for name, data, _ in CASES:
        if data is not None:
            (out / name).write_bytes(data)
    doc = dict(generator="tests/reference/pickle_hostile.py", python=sys.version.split()[0],
               cases=[c for _, _, c in CASES])
    tmp = out / "expected.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(out / "expected.json")
    print(f"pickle hostile: {len(CASES)} files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
