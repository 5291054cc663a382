//! A pickle reader that reads and never executes (issue #12).
//!
//! PyTorch checkpoints (`pytorch_model.bin`, `.pt`, `.pth`, `.ckpt`) hold Python pickles, and
//! loading one with Python runs whatever the pickle names: `os.system` is one REDUCE away. This
//! module is a pickle machine in plain Rust for the opcodes of protocols 0–5 ([`ops::OPCODES`],
//! the same table as CPython's `pickletools`) that builds an inert tree of values instead:
//!
//! - every value is a [`Node`] in one arena ([`Pickle::nodes`]), referred to by [`NodeId`]; the
//!   memo stores ids, so a value PUT once and fetched many times is one node, and a later
//!   APPENDS to a memoized list is seen by every reference (as in Python);
//! - GLOBAL, STACK_GLOBAL and INST's class are [`Node::Global`] — an import, never resolved;
//!   REDUCE, NEWOBJ, NEWOBJ_EX, INST and OBJ are [`Node::Call`] — a call that Python would make,
//!   never made; SETITEM(S), APPEND(S), ADDITEMS and BUILD applied to a call's result are kept
//!   on it ([`Node::Call`]'s `items`, `list`, `state`: `collections.OrderedDict()` followed by
//!   SETITEMS is how `torch.save` writes a state dict);
//! - every import is listed in [`Pickle::globals`] with its offset, the offsets of the calls made
//!   through it, and a [`Verdict`] from [`verdict`] (see [`safety`] for the lists and why).
//!
//! Hostile input is expected. Every length and count read from the file is checked against the
//! bytes present before anything is allocated, offsets are `u64` with checked arithmetic (wasm32
//! `usize` is 32 bits), the values built, the memo and the nesting are bounded by [`Limits`],
//! and nothing recurses over the input: the machine is a loop over opcodes, the tree is a flat
//! `Vec`, so dropping it never recurses either. Any input gives a [`Pickle`] or an
//! [`Error`] naming the opcode and its absolute offset; none panics.
//!
//! The tree can be cyclic (`a = []; a.append(a)` pickles as a list holding itself) and can be
//! deeper than [`Limits::max_depth`] through a mutation made after a value was nested (the
//! depth is checked where a value is built or extended, not for every container already holding
//! it): walk it with an explicit stack and a set of the ids on the current path.
//!
//! What Python's unpickler would refuse, this one mostly refuses too (an unknown opcode, a GET
//! of a key never PUT, a stack underflow, an unsupported protocol); where Python would go on,
//! this one goes on, so that nothing Python would reach is hidden from the report. When it is
//! more lenient (text that Python cannot decode is kept with U+FFFD and a warning; a mutation
//! of a value that is neither a container nor a call's result wraps the value, see
//! [`CallKind::Wrapped`]) it says so in [`Pickle::warnings`]. [`parse_partial`] keeps what was
//! read before an error, imports included: a truncated pickle whose `os.system` call comes
//! before the damage still runs it in Python.

#![forbid(unsafe_code)]

mod machine;
mod memo;
pub mod ops;
pub mod safety;
mod scan;
mod sinks;
mod text;

use super::error::{Error, Warning};

pub use safety::verdict;

/// Index of a node in [`Pickle::nodes`].
pub type NodeId = u32;

/// Limits on what one pickle may build. A pickle that needs more is read up to the limit and
/// stops with an error naming it: its imports after that point are not known, so a caller
/// must call it *not fully checked* (see [`crate::format::torch::PickleInfo::stopped`]), never
/// safe. Python's unpickler has none of these limits (its memo, stack and values grow with the
/// input, and it never recurses); each default is far above what a checkpoint written by
/// Python needs, and together they keep a hostile pickle within ~200 MB and a second or so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Values built plus entries put in containers (each element of a tuple, list or set,
    /// each key–value pair, each item of a call); the stack holds at most as many. A state
    /// dict costs about 20–30 per tensor, so a checkpoint of 100,000 tensors needs ~2.5
    /// million; the default, 2²², takes ~150,000 tensors. (Python: no limit.)
    pub max_nodes: u32,
    /// Bytes the tree may take in memory: each node's `size_of::<Node>()` plus its depth
    /// (4 bytes), 8 per container entry, and the text of strings and import names. The
    /// default, 160 MiB, holds a state dict of ~130,000 tensors (~1.2 KB each) and keeps any
    /// pickle's reading under 256 MiB with the bytes it is read from. (Python: no limit; the
    /// same tree takes it several times as much.)
    pub max_tree_bytes: u64,
    /// Nesting of the tree (a value inside a container is one deeper than the container) and
    /// of open MARKs. Python's pickler recurses once per level and stops at its recursion
    /// limit, 1000 by default, so no pickle that Python wrote with default settings is
    /// deeper; its unpickler has no limit. The default is that, which also bounds any reader
    /// that walks the tree recursively.
    pub max_depth: u32,
    /// Distinct memo keys (PUT, BINPUT, LONG_BINPUT, MEMOIZE). Python's pickler memoizes
    /// each container and string once, so this is at most the number of values; the
    /// unpickler's memo grows without limit. The default, 2²⁰, is a 16 MB map.
    pub max_memo: u32,
    /// Longest single string or bytes value (length-prefixed or text). Bytes are not copied
    /// (a [`Node::Bytes`] range), strings are, once; the default is 1 GiB, above the largest
    /// in-band array anyone pickles into a checkpoint and within wasm32's memory (Python: its
    /// memory; a string is also held to [`Limits::max_tree_bytes`]).
    pub max_bytes_value: u64,
    /// Decimal digits an integer is converted to from binary (LONG1, LONG4) or from a
    /// hexadecimal, octal or binary text literal; a longer one is kept as a note (see
    /// [`Node::BigInt`]), and reading goes on. The conversion is quadratic; the default, 4300,
    /// is Python's own limit for `int` ↔ `str` (`sys.int_info.default_max_str_digits`).
    pub max_int_digits: u32,
}

impl Limits {
    /// The defaults (see each field).
    ///
    /// In the page (wasm32) the tree caps are half: a wasm module's memory never shrinks and a
    /// growing vector's old and new buffers are both in it, so the CLI's caps took the page to
    /// 386 MiB on a pickle of five million values (`tests/e2e/pickle-hostile.test.mjs`); half
    /// still reads a state dict of ~65,000 tensors in full, and a larger pickle is *not fully
    /// checked*, never safe.
    pub const DEFAULT: Limits = Limits {
        max_nodes: if cfg!(target_arch = "wasm32") {
            1 << 21
        } else {
            1 << 22
        },
        max_tree_bytes: if cfg!(target_arch = "wasm32") {
            80 << 20
        } else {
            160 << 20
        },
        max_depth: 1000,
        max_memo: 1 << 20,
        max_bytes_value: 1 << 30,
        max_int_digits: 4300,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// One value of the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `None`.
    None,
    /// `True` / `False` (NEWTRUE, NEWFALSE, and protocol 0's INT `01` / `00`).
    Bool(bool),
    /// An integer that fits an `i64`.
    Int(i64),
    /// An integer that does not fit an `i64` (LONG1, LONG4, a long INT or LONG text): its
    /// decimal digits with a leading `-` when negative; or, when it has more than
    /// [`Limits::max_int_digits`] digits in a base other than ten (or as bytes), a note in
    /// parentheses saying how long it is (digits never start with `(`).
    BigInt(String),
    /// A float (BINFLOAT, FLOAT text).
    Float(f64),
    /// A string: UNICODE, BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, and the Python 2 strings
    /// STRING, BINSTRING, SHORT_BINSTRING decoded as UTF-8 (what `torch.load` asks of them).
    /// Text that Python could not keep (a lone surrogate, which a Rust `String` cannot hold)
    /// or would refuse (bytes that are not UTF-8) has U+FFFD there, with a warning.
    Str(String),
    /// A bytes value (BINBYTES, SHORT_BINBYTES, BINBYTES8, or a bytearray, BYTEARRAY8): the
    /// absolute byte range within the file, not copied. (Protocols 0–2 write bytes as a call
    /// of `_codecs.encode` on a string: that is a [`Node::Call`].)
    Bytes {
        /// Absolute offset of the first byte.
        start: u64,
        /// Number of bytes.
        len: u64,
    },
    /// A tuple's elements.
    Tuple(Vec<NodeId>),
    /// A list's elements.
    List(Vec<NodeId>),
    /// A dict's key–value pairs in file order (a repeated key is kept as written; Python's
    /// dict keeps the last).
    Dict(Vec<(NodeId, NodeId)>),
    /// A set's elements (EMPTY_SET + ADDITEMS).
    Set(Vec<NodeId>),
    /// A frozenset's elements (FROZENSET).
    FrozenSet(Vec<NodeId>),
    /// An import (GLOBAL, STACK_GLOBAL, INST's class, or an EXT code, whose module is then
    /// `copyreg._extension_registry` and name the code): never resolved.
    Global {
        /// Module as written (Python 2 names such as `__builtin__` are not mapped).
        module: String,
        /// Name within the module; protocol 4 allows a dotted path (`Outer.Inner`).
        name: String,
    },
    /// A call that Python would make, not made.
    Call {
        /// What is called: usually a [`Node::Global`].
        callable: NodeId,
        /// The arguments: the tuple REDUCE or NEWOBJ found on the stack, or one built from
        /// INST's or OBJ's marked items. (Python requires a tuple; nothing is assumed here.)
        args: NodeId,
        /// NEWOBJ_EX's keyword arguments (a dict), `None` for the other kinds.
        kwargs: Option<NodeId>,
        /// Which opcode made it.
        kind: CallKind,
        /// Absolute offset of that opcode.
        offset: u64,
        /// SETITEM / SETITEMS applied to the result: (key, value) pairs in file order.
        items: Applied<(NodeId, NodeId)>,
        /// APPEND / APPENDS / ADDITEMS applied to the result, in file order.
        list: Applied<NodeId>,
        /// The last BUILD's argument (Python calls `__setstate__` with it, or updates the
        /// object's `__dict__`).
        state: Option<NodeId>,
    },
    /// PERSID / BINPERSID: the persistent id, whose meaning is the loading program's. For
    /// PyTorch it is a tuple `('storage', storage type (a Global), key, location, numel)`
    /// (a sixth element, view metadata, in the legacy format).
    Persistent(NodeId),
    /// NEXT_BUFFER: the `index`-th out-of-band buffer, whose bytes are not in the pickle (the
    /// program that wrote it passed them separately); `readonly` after READONLY_BUFFER.
    Buffer {
        /// 0 for the first NEXT_BUFFER of the pickle, 1 for the next, …
        index: u32,
        /// READONLY_BUFFER was applied to it.
        readonly: bool,
    },
}

/// What was applied to a call's result ([`Node::Call`]'s `items` and `list`): a vector that
/// takes no allocation while empty, as most calls' stay, and 8 bytes in a node rather than a
/// `Vec`'s 24 (a node is as large as its largest variant, and a pickle may hold millions).
/// Reads as a slice.
#[derive(Debug, Clone, PartialEq)]
// The box is the point: one pointer in the node instead of a Vec's three words.
#[allow(clippy::box_collection)]
pub struct Applied<T>(Option<Box<Vec<T>>>);

impl<T> Applied<T> {
    /// Nothing applied.
    pub const fn new() -> Self {
        Applied(None)
    }

    /// Appends `more`.
    pub fn extend(&mut self, more: impl IntoIterator<Item = T>) {
        let mut more = more.into_iter().peekable();
        if more.peek().is_some() {
            self.0.get_or_insert_with(Default::default).extend(more);
        }
    }
}

impl<T> Default for Applied<T> {
    fn default() -> Self {
        Applied::new()
    }
}

impl<T> std::ops::Deref for Applied<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<T> From<Vec<T>> for Applied<T> {
    fn from(v: Vec<T>) -> Self {
        Applied((!v.is_empty()).then(|| Box::new(v)))
    }
}

/// Which opcode made a [`Node::Call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// REDUCE: `callable(*args)`.
    Reduce,
    /// NEWOBJ: `cls.__new__(cls, *args)`.
    NewObj,
    /// NEWOBJ_EX: `cls.__new__(cls, *args, **kwargs)`.
    NewObjEx,
    /// INST: `cls(*args)`, or `cls.__new__(cls)` without arguments, `cls` read from the
    /// opcode's text.
    Inst,
    /// OBJ: as INST, `cls` the first marked item.
    Obj,
    /// Not a call: SETITEM(S), APPEND(S), ADDITEMS or BUILD was applied to a value that is
    /// neither a call's result nor a container of that kind (a class, a tuple, a persistent
    /// object…). The value moved to a new node, `callable`; this node, where every reference
    /// to the value points, keeps what was applied. `args` is an empty tuple.
    Wrapped,
}

/// How far an import can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Known to be what PyTorch and NumPy checkpoints legitimately import: building it runs no
    /// code but the library's own constructors.
    Safe,
    /// Not known to this tool (a model class, a library's own type): Python imports its
    /// module, which runs that module's code, and calls it.
    Unknown,
    /// Runs commands, code, file or network operations, or loads another pickle.
    Dangerous,
}

/// One import of a pickle.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Import {
    /// Module as written.
    pub module: String,
    /// Name as written.
    pub name: String,
    /// Absolute offset of the opcode that imports it.
    pub offset: u64,
    /// That opcode's name: `GLOBAL`, `STACK_GLOBAL`, `INST`, `EXT1`, `EXT2` or `EXT4`.
    pub opcode: &'static str,
    /// Absolute offsets of the REDUCE, NEWOBJ, NEWOBJ_EX, INST and OBJ opcodes whose callable
    /// is this import (directly or through the memo), in file order; empty when it is only
    /// imported (it may still be called by code it is passed to).
    pub calls: Vec<u64>,
    /// From [`verdict`].
    pub verdict: Verdict,
    /// Why, in a few words.
    pub why: &'static str,
}

/// A pickle read into a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Pickle {
    /// Every value, referred to by [`NodeId`].
    pub nodes: Vec<Node>,
    /// The value STOP returned (from [`parse_partial`] after an error: a [`Node::None`]).
    pub root: NodeId,
    /// Every import, in file order.
    pub globals: Vec<Import>,
    /// Absolute offset one past STOP (a legacy PyTorch file has several pickles in a row); from
    /// [`parse_partial`] after an error, the failing opcode's offset.
    pub end: u64,
    /// Protocol from the first PROTO (0 when absent).
    pub protocol: u8,
    /// Whether every import of the pickle is in [`Pickle::globals`]: it was read to STOP, or a
    /// cap of [`Limits`] stopped the tree but the rest, walked for its imports, holds only
    /// GLOBAL and INST imports (whose names are in the opcodes) up to STOP. Their verdicts are
    /// then the whole pickle's, though the tree (and the calls listed) stop at the cap.
    pub imports_complete: bool,
    /// What was read differently from Python or is worth knowing: text that could not be kept
    /// as written, out-of-band buffers, a value wrapped by a mutation, a second PROTO (at most
    /// [`MAX_WARNINGS`], then one saying how many more).
    pub warnings: Vec<Warning>,
}

/// Most warnings kept for one pickle.
pub const MAX_WARNINGS: usize = 64;

/// Reads one pickle from `bytes`, whose first byte is at absolute file offset `base`; offsets
/// in nodes, imports and errors are absolute. Reading stops at STOP: bytes after it are not
/// looked at ([`Pickle::end`] says where the next pickle would start).
///
/// The error names the opcode (`pickle opcode 0x8c (SHORT_BINUNICODE)`) or what was being
/// read, its absolute offset, and why: [`ErrorKind::Truncated`](crate::format::ErrorKind) when
/// the bytes end first (also for a pickle without STOP), `CountTooLarge` for a length longer
/// than the bytes that remain, `TooDeep` past [`Limits::max_depth`], `Overflow`, and `Invalid`
/// for everything else (an unknown opcode, a memo key never stored, a stack underflow, a
/// limit).
pub fn parse(bytes: &[u8], base: u64, limits: &Limits) -> Result<Pickle, Error> {
    match parse_partial(bytes, base, limits) {
        (p, None) => Ok(p),
        (_, Some(e)) => Err(e),
    }
}

/// As [`parse`], but keeps what was read before an error: the nodes, the imports and their
/// calls so far (their verdicts stand: Python would have run every call before the damage),
/// with the error beside it.
pub fn parse_partial(bytes: &[u8], base: u64, limits: &Limits) -> (Pickle, Option<Error>) {
    machine::run(bytes, base, limits)
}

impl Pickle {
    /// The node `id`.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id as usize)
    }

    /// The text of a [`Node::Str`].
    pub fn str_of(&self, id: NodeId) -> Option<&str> {
        match self.node(id)? {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a [`Node::Int`].
    pub fn int_of(&self, id: NodeId) -> Option<i64> {
        match self.node(id)? {
            Node::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of a [`Node::Bool`].
    pub fn bool_of(&self, id: NodeId) -> Option<bool> {
        match self.node(id)? {
            Node::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The elements of a [`Node::Tuple`] or [`Node::List`].
    pub fn items_of(&self, id: NodeId) -> Option<&[NodeId]> {
        match self.node(id)? {
            Node::Tuple(v) | Node::List(v) => Some(v),
            _ => None,
        }
    }

    /// Module and name of a [`Node::Global`].
    pub fn global_of(&self, id: NodeId) -> Option<(&str, &str)> {
        match self.node(id)? {
            Node::Global { module, name } => Some((module, name)),
            _ => None,
        }
    }

    /// The key–value pairs of a dict: a [`Node::Dict`]'s, or those of a call of
    /// `collections.OrderedDict` (its first argument's pairs, when it has one that is a list
    /// or tuple of 2-tuples, then the SETITEMS applied to it), or of a wrapped dict
    /// ([`CallKind::Wrapped`]) with the pairs set on it after.
    pub fn dict_of(&self, id: NodeId) -> Option<Vec<(NodeId, NodeId)>> {
        match self.node(id)? {
            Node::Dict(pairs) => Some(pairs.clone()),
            Node::Call {
                callable,
                args,
                kind,
                items,
                ..
            } => {
                let mut out = Vec::new();
                match kind {
                    CallKind::Wrapped => match self.node(*callable)? {
                        Node::Dict(pairs) => out.extend_from_slice(pairs),
                        _ => return None,
                    },
                    _ => {
                        if self.global_of(*callable) != Some(("collections", "OrderedDict")) {
                            return None;
                        }
                        let first = self.items_of(*args).and_then(|a| a.first().copied());
                        for &pair in first.and_then(|f| self.items_of(f)).unwrap_or(&[]) {
                            if let Some(&[k, v]) = self.items_of(pair) {
                                out.push((k, v));
                            }
                        }
                    }
                }
                out.extend_from_slice(items);
                Some(out)
            }
            _ => None,
        }
    }

    /// The most serious verdict among the imports ([`Verdict::Safe`] when there are none).
    pub fn verdict(&self) -> Verdict {
        self.globals
            .iter()
            .map(|g| g.verdict)
            .max()
            .unwrap_or(Verdict::Safe)
    }
}

#[cfg(test)]
mod tests;
