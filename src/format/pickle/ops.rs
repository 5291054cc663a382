//! The pickle opcodes of protocols 0–5, as CPython's `pickletools.opcodes` lists them (same
//! order, names and protocols; `tests/pickle.rs` compares this table with the one
//! `tests/reference/pickle_cases.py` takes from `pickletools`).

/// One opcode: its byte, its `pickletools` name and the protocol that introduced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opcode {
    /// The opcode byte.
    pub code: u8,
    /// The name `pickletools` gives it (`SHORT_BINUNICODE`).
    pub name: &'static str,
    /// The first protocol that writes it (0–5).
    pub proto: u8,
}

const fn op(code: u8, name: &'static str, proto: u8) -> Opcode {
    Opcode { code, name, proto }
}

/// Every opcode of protocols 0–5, in `pickletools.opcodes` order.
pub const OPCODES: [Opcode; 68] = [
    op(b'I', "INT", 0),
    op(b'J', "BININT", 1),
    op(b'K', "BININT1", 1),
    op(b'M', "BININT2", 1),
    op(b'L', "LONG", 0),
    op(0x8a, "LONG1", 2),
    op(0x8b, "LONG4", 2),
    op(b'S', "STRING", 0),
    op(b'T', "BINSTRING", 1),
    op(b'U', "SHORT_BINSTRING", 1),
    op(b'B', "BINBYTES", 3),
    op(b'C', "SHORT_BINBYTES", 3),
    op(0x8e, "BINBYTES8", 4),
    op(0x96, "BYTEARRAY8", 5),
    op(0x97, "NEXT_BUFFER", 5),
    op(0x98, "READONLY_BUFFER", 5),
    op(b'N', "NONE", 0),
    op(0x88, "NEWTRUE", 2),
    op(0x89, "NEWFALSE", 2),
    op(b'V', "UNICODE", 0),
    op(0x8c, "SHORT_BINUNICODE", 4),
    op(b'X', "BINUNICODE", 1),
    op(0x8d, "BINUNICODE8", 4),
    op(b'F', "FLOAT", 0),
    op(b'G', "BINFLOAT", 1),
    op(b']', "EMPTY_LIST", 1),
    op(b'a', "APPEND", 0),
    op(b'e', "APPENDS", 1),
    op(b'l', "LIST", 0),
    op(b')', "EMPTY_TUPLE", 1),
    op(b't', "TUPLE", 0),
    op(0x85, "TUPLE1", 2),
    op(0x86, "TUPLE2", 2),
    op(0x87, "TUPLE3", 2),
    op(b'}', "EMPTY_DICT", 1),
    op(b'd', "DICT", 0),
    op(b's', "SETITEM", 0),
    op(b'u', "SETITEMS", 1),
    op(0x8f, "EMPTY_SET", 4),
    op(0x90, "ADDITEMS", 4),
    op(0x91, "FROZENSET", 4),
    op(b'0', "POP", 0),
    op(b'2', "DUP", 0),
    op(b'(', "MARK", 0),
    op(b'1', "POP_MARK", 1),
    op(b'g', "GET", 0),
    op(b'h', "BINGET", 1),
    op(b'j', "LONG_BINGET", 1),
    op(b'p', "PUT", 0),
    op(b'q', "BINPUT", 1),
    op(b'r', "LONG_BINPUT", 1),
    op(0x94, "MEMOIZE", 4),
    op(0x82, "EXT1", 2),
    op(0x83, "EXT2", 2),
    op(0x84, "EXT4", 2),
    op(b'c', "GLOBAL", 0),
    op(0x93, "STACK_GLOBAL", 4),
    op(b'R', "REDUCE", 0),
    op(b'b', "BUILD", 0),
    op(b'i', "INST", 0),
    op(b'o', "OBJ", 1),
    op(0x81, "NEWOBJ", 2),
    op(0x92, "NEWOBJ_EX", 4),
    op(0x80, "PROTO", 2),
    op(b'.', "STOP", 0),
    op(0x95, "FRAME", 4),
    op(b'P', "PERSID", 0),
    op(b'Q', "BINPERSID", 1),
];

/// Opcode names by byte (`None`: not an opcode), built from [`OPCODES`] at compile time.
const BY_BYTE: [Option<&str>; 256] = {
    let mut t = [None; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        t[OPCODES[i].code as usize] = Some(OPCODES[i].name);
        i += 1;
    }
    t
};

/// The name of opcode byte `code`, or `None` for a byte that is not an opcode.
pub fn name(code: u8) -> Option<&'static str> {
    BY_BYTE[code as usize]
}
