//! The pickle machine: a loop over opcodes with a stack, a mark stack and a memo of node ids,
//! building [`Node`]s in an arena. Each opcode's effect follows CPython 3.11's `_pickle.c`
//! (what `torch.load` runs), except that nothing is imported or called.

use std::collections::HashMap;

use super::memo::Memo;
use super::text::{self, Int};
use super::{ops, Applied, CallKind, Import, Limits, Node, NodeId, Pickle, Verdict, MAX_WARNINGS};
use crate::format::error::{Error, ErrorKind, Warning};

mod step;

/// Runs the machine over `bytes` (at absolute offset `base`) until STOP or an error.
pub(super) fn run(bytes: &[u8], base: u64, limits: &Limits) -> (Pickle, Option<Error>) {
    let mut m = Machine {
        buf: bytes,
        pos: 0,
        len: bytes.len() as u64,
        base,
        limits,
        nodes: Vec::new(),
        depth: Vec::new(),
        units: 0,
        tree_bytes: 0,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: Memo::default(),
        globals: Vec::new(),
        import_of: HashMap::new(),
        protocol: None,
        buffers: 0,
        warnings: Vec::new(),
        dropped_warnings: 0,
        op_at: 0,
        op_code: 0,
    };
    let result = if base.checked_add(m.len).is_none() {
        Err(Error::new(
            "pickle",
            base,
            ErrorKind::Overflow("the pickle's offset plus its length"),
        ))
    } else {
        m.run()
    };
    // A cap stopped the tree, not the pickle: walk the rest for its imports.
    let capped = result.as_ref().err().is_some_and(|e| match &e.kind {
        ErrorKind::TooDeep(_) => true,
        ErrorKind::Invalid(why) => why.contains("(Limits::max_"),
        _ => false,
    });
    let mut complete = result.is_ok();
    // The walk needs the rest of the bytes: a prefix that ends before STOP stays not fully
    // checked (a zip member's pickle is always whole).
    if capped {
        if let super::scan::Walk::Complete(more) = super::scan::imports_after(bytes, m.op_at, base)
        {
            m.globals.extend(more);
            complete = true;
        }
    }
    let mut out = m.finish(result);
    out.0.imports_complete = complete;
    out
}

struct Machine<'a, 'l> {
    buf: &'a [u8],
    /// Local position (0 = the pickle's first byte) of the next byte to read.
    pos: u64,
    len: u64,
    base: u64,
    limits: &'l Limits,
    nodes: Vec<Node>,
    /// Nesting depth of each node as built (1 for a value without children).
    depth: Vec<u32>,
    /// Nodes built plus container entries, against `limits.max_nodes`.
    units: u64,
    /// What the tree takes in memory, against `limits.max_tree_bytes`.
    tree_bytes: u64,
    stack: Vec<NodeId>,
    /// Stack lengths at each open MARK.
    marks: Vec<usize>,
    memo: Memo,
    globals: Vec<Import>,
    /// The import each Global node (or the wrapper of one) stands for.
    import_of: HashMap<NodeId, usize>,
    protocol: Option<u8>,
    buffers: u32,
    warnings: Vec<Warning>,
    dropped_warnings: u64,
    /// Local offset and byte of the opcode being run.
    op_at: u64,
    op_code: u8,
}

type R<T> = Result<T, Error>;

/// Memory of one node: the arena slot and its depth.
const NODE_BYTES: u64 = (std::mem::size_of::<Node>() + std::mem::size_of::<u32>()) as u64;
/// Memory of one container entry, at most (a key–value pair of ids).
const ENTRY_BYTES: u64 = 8;

impl<'a> Machine<'a, '_> {
    fn finish(mut self, result: R<NodeId>) -> (Pickle, Option<Error>) {
        if self.dropped_warnings > 0 {
            self.warnings.push(Warning {
                field: "pickle".into(),
                offset: self.base,
                message: format!("{} more warnings not listed", self.dropped_warnings),
            });
        }
        let (root, end, error) = match result {
            Ok(root) => (root, self.base + self.pos, None),
            Err(e) => {
                self.nodes.push(Node::None);
                let root = (self.nodes.len() - 1) as NodeId;
                (root, self.base.saturating_add(self.op_at), Some(e))
            }
        };
        let pickle = Pickle {
            nodes: self.nodes,
            root,
            globals: self.globals,
            end,
            protocol: self.protocol.unwrap_or(0),
            imports_complete: false,
            warnings: self.warnings,
        };
        (pickle, error)
    }

    // --- errors and warnings -------------------------------------------------------------

    fn field(&self) -> String {
        match ops::name(self.op_code) {
            Some(n) => format!("pickle opcode 0x{:02x} ({n})", self.op_code),
            None => format!("pickle opcode 0x{:02x}", self.op_code),
        }
    }

    fn err(&self, kind: ErrorKind) -> Error {
        Error::new(self.field(), self.base + self.op_at, kind)
    }

    fn invalid(&self, why: impl Into<String>) -> Error {
        self.err(ErrorKind::Invalid(why.into()))
    }

    /// The pickle ends before local offset `needed_end`.
    fn short(&self, needed_end: u64) -> Error {
        self.err(ErrorKind::Truncated {
            needed_end: self.base.saturating_add(needed_end),
            file_size: self.base + self.len,
        })
    }

    fn warn(&mut self, message: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(Warning {
                field: self.field(),
                offset: self.base + self.op_at,
                message: message.into(),
            });
        } else {
            self.dropped_warnings += 1;
        }
    }

    // --- reading arguments ---------------------------------------------------------------

    /// The next `n` bytes; a truncation error when the pickle ends first.
    fn bytes(&mut self, n: u64) -> R<&'a [u8]> {
        let end = self.pos.saturating_add(n);
        if end > self.len {
            return Err(self.short(end));
        }
        // Both bounds are <= buf.len(), so they fit in usize.
        let s = &self.buf[self.pos as usize..end as usize];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> R<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N as u64)?);
        Ok(out)
    }

    fn u8(&mut self) -> R<u8> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> R<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> R<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn i32(&mut self) -> R<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> R<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    /// `n` bytes (a length read from the file): refused before anything is taken when it is
    /// longer than the bytes that remain or than [`Limits::max_bytes_value`].
    fn take(&mut self, n: u64, what: &'static str) -> R<&'a [u8]> {
        let remaining = self.remaining();
        if n > remaining {
            return Err(self.err(ErrorKind::CountTooLarge {
                count: n,
                what,
                max: remaining,
            }));
        }
        if n > self.limits.max_bytes_value {
            return Err(self.invalid(format!(
                "{what} is {n}, above the limit of {} bytes for one value (Limits::max_bytes_value)",
                self.limits.max_bytes_value
            )));
        }
        self.bytes(n)
    }

    /// A text argument: the bytes up to the next `\n` (not included; the `\n` is consumed).
    fn line(&mut self) -> R<&'a [u8]> {
        // pos <= buf.len(), so it fits usize.
        let rest = &self.buf[self.pos as usize..];
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.pos += i as u64 + 1;
                Ok(&rest[..i])
            }
            None => Err(self.short(self.len + 1)),
        }
    }

    // --- nodes, budget, depth ------------------------------------------------------------

    fn spend(&mut self, n: u64) -> R<()> {
        self.units = self.units.saturating_add(n);
        if self.units > u64::from(self.limits.max_nodes) {
            return Err(self.invalid(format!(
                "the pickle builds more than {} values and container entries (Limits::max_nodes)",
                self.limits.max_nodes
            )));
        }
        self.spend_bytes(n.saturating_mul(ENTRY_BYTES))
    }

    /// Counts `n` bytes of the tree against [`Limits::max_tree_bytes`].
    fn spend_bytes(&mut self, n: u64) -> R<()> {
        self.tree_bytes = self.tree_bytes.saturating_add(n);
        if self.tree_bytes > self.limits.max_tree_bytes {
            return Err(self.invalid(format!(
                "the pickle's values would take more than {} bytes of memory here \
                 (Limits::max_tree_bytes)",
                self.limits.max_tree_bytes
            )));
        }
        Ok(())
    }

    fn check_depth(&self, depth: u32) -> R<()> {
        if depth > self.limits.max_depth {
            return Err(self.err(ErrorKind::TooDeep(self.limits.max_depth)));
        }
        Ok(())
    }

    fn depth_of(&self, ids: impl IntoIterator<Item = NodeId>) -> u32 {
        ids.into_iter()
            .map(|i| self.depth.get(i as usize).copied().unwrap_or(1))
            .max()
            .unwrap_or(0)
    }

    /// Adds a node one deeper than its deepest child in `children`.
    fn add(&mut self, node: Node, children_depth: u32) -> R<NodeId> {
        self.spend(1)?;
        let text = match &node {
            Node::Str(t) | Node::BigInt(t) => t.len(),
            Node::Global { module, name } => module.len() + name.len(),
            _ => 0,
        };
        // The entry `spend` counted is the node's own slot here.
        self.spend_bytes(NODE_BYTES.saturating_sub(ENTRY_BYTES) + text as u64)?;
        let depth = children_depth.saturating_add(1);
        self.check_depth(depth)?;
        let id = self.nodes.len() as NodeId; // < max_nodes <= u32::MAX
        self.nodes.push(node);
        self.depth.push(depth);
        Ok(id)
    }

    fn atom(&mut self, node: Node) -> R<NodeId> {
        self.add(node, 0)
    }

    fn push(&mut self, id: NodeId) -> R<()> {
        if self.stack.len() as u64 >= u64::from(self.limits.max_nodes) {
            return Err(self.invalid(format!(
                "the stack holds more than {} values (Limits::max_nodes)",
                self.limits.max_nodes
            )));
        }
        self.stack.push(id);
        Ok(())
    }

    fn push_new(&mut self, node: Node) -> R<()> {
        let id = self.atom(node)?;
        self.push(id)
    }

    fn push_str(&mut self, d: text::Decoded, what: &str) -> R<()> {
        if d.surrogates {
            self.warn(format!(
                "{what} holds a lone surrogate (allowed in Python, not in UTF-8): shown as U+FFFD"
            ));
        }
        if d.invalid {
            self.warn(format!(
                "{what} is not UTF-8 (Python refuses the file here): shown with U+FFFD"
            ));
        }
        self.push_new(Node::Str(d.text))
    }

    fn push_int(&mut self, v: Int) -> R<()> {
        match v {
            Int::Small(v) => self.push_new(Node::Int(v)),
            Int::Big(s) => self.push_new(Node::BigInt(s)),
        }
    }

    // --- the stack -----------------------------------------------------------------------

    fn fence(&self) -> usize {
        self.marks.last().copied().unwrap_or(0)
    }

    fn underflow(&self) -> Error {
        if self.marks.is_empty() {
            self.invalid("stack underflow: the opcode needs a value the stack does not hold")
        } else {
            self.invalid("stack underflow: the opcode needs a value pushed after the last MARK")
        }
    }

    fn pop(&mut self) -> R<NodeId> {
        if self.stack.len() <= self.fence() {
            return Err(self.underflow());
        }
        self.stack.pop().ok_or_else(|| self.underflow())
    }

    fn top(&self) -> R<NodeId> {
        if self.stack.len() <= self.fence() {
            return Err(self.underflow());
        }
        self.stack.last().copied().ok_or_else(|| self.underflow())
    }

    fn pop_mark(&mut self) -> R<Vec<NodeId>> {
        match self.marks.pop() {
            Some(at) => Ok(self.stack.split_off(at.min(self.stack.len()))),
            None => Err(self.invalid("no MARK to pop (could not find MARK)")),
        }
    }

    // --- memo ----------------------------------------------------------------------------

    fn memo_get(&mut self, key: u64) -> R<()> {
        match self.memo.get(key) {
            Some(id) => self.push(id),
            None => Err(self.invalid(format!(
                "memo key {key} was never stored (PUT, BINPUT, LONG_BINPUT, MEMOIZE)"
            ))),
        }
    }

    fn memo_put(&mut self, key: u64) -> R<()> {
        let id = self.top()?;
        if !self.memo.contains(key) && self.memo.len() as u64 >= u64::from(self.limits.max_memo) {
            return Err(self.invalid(format!(
                "more than {} memo keys (Limits::max_memo)",
                self.limits.max_memo
            )));
        }
        self.memo.insert(key, id);
        Ok(())
    }

    /// A PUT or GET key in text: a non-negative decimal (`int(text)`).
    fn text_key(&mut self) -> R<u64> {
        let line = self.line()?;
        match text::py_int(line, false, self.limits.max_int_digits) {
            Ok(Int::Small(k)) if k >= 0 => Ok(k as u64),
            Ok(Int::Small(_)) => Err(self.invalid("negative memo key")),
            Ok(Int::Big(_)) => Err(self.err(ErrorKind::Overflow("memo key"))),
            Err(why) => Err(self.invalid(why.to_string())),
        }
    }

    // --- imports and calls ---------------------------------------------------------------

    fn import(&mut self, module: String, name: String, opcode: &'static str) -> R<NodeId> {
        let (verdict, why) = super::verdict(&module, &name);
        let id = self.atom(Node::Global {
            module: module.clone(),
            name: name.clone(),
        })?;
        self.import_of.insert(id, self.globals.len());
        self.globals.push(Import {
            module,
            name,
            offset: self.base + self.op_at,
            opcode,
            calls: Vec::new(),
            verdict,
            why,
        });
        Ok(id)
    }

    fn text_name(&mut self, what: &str) -> R<String> {
        let line = self.line()?;
        let d = text::utf8(line);
        if d.invalid {
            self.warn(format!(
                "the {what} is not UTF-8 (Python refuses the file here)"
            ));
        }
        Ok(d.text)
    }

    fn call(
        &mut self,
        callable: NodeId,
        args: NodeId,
        kwargs: Option<NodeId>,
        kind: CallKind,
    ) -> R<NodeId> {
        let offset = self.base + self.op_at;
        if let Some(&i) = self.import_of.get(&callable) {
            self.globals[i].calls.push(offset);
        }
        let d = self.depth_of([callable, args].into_iter().chain(kwargs));
        self.add(
            Node::Call {
                callable,
                args,
                kwargs,
                kind,
                offset,
                items: Applied::new(),
                list: Applied::new(),
                state: None,
            },
            d,
        )
    }

    // --- mutations -----------------------------------------------------------------------

    /// Turns `target` into a [`CallKind::Wrapped`] node holding what it was (moved to a new
    /// node), so that every reference to it sees the mutation about to be applied.
    fn wrap(&mut self, target: NodeId, what: &str) -> R<()> {
        let i = target as usize;
        let kind = match &self.nodes[i] {
            Node::None => "None",
            Node::Bool(_) => "a bool",
            Node::Int(_) | Node::BigInt(_) => "an int",
            Node::Float(_) => "a float",
            Node::Str(_) => "a str",
            Node::Bytes { .. } => "a bytes value",
            Node::Tuple(_) => "a tuple",
            Node::List(_) => "a list",
            Node::Dict(_) => "a dict",
            Node::Set(_) => "a set",
            Node::FrozenSet(_) => "a frozenset",
            Node::Global { .. } => "an imported object",
            Node::Call { .. } => "a call's result",
            Node::Persistent(_) => "a persistent object",
            Node::Buffer { .. } => "an out-of-band buffer",
        };
        self.warn(format!(
            "{what} applied to {kind}: kept on a wrapper (Python would call that object's method, or fail)"
        ));
        // The wrapper costs two nodes: refuse before anything moves.
        if self.units.saturating_add(2) > u64::from(self.limits.max_nodes) {
            return self.spend(2);
        }
        let old_depth = self.depth[i];
        let moved_node = std::mem::replace(&mut self.nodes[i], Node::None);
        let moved = self.add(moved_node, old_depth.saturating_sub(1))?;
        if let Some(&g) = self.import_of.get(&target) {
            self.import_of.insert(moved, g);
        }
        let args = self.atom(Node::Tuple(Vec::new()))?;
        self.nodes[i] = Node::Call {
            callable: moved,
            args,
            kwargs: None,
            kind: CallKind::Wrapped,
            offset: self.base + self.op_at,
            items: Applied::new(),
            list: Applied::new(),
            state: None,
        };
        self.depth[i] = old_depth.saturating_add(1);
        self.check_depth(self.depth[i])
    }

    /// The depth of the deepest of `ids` other than `target` itself (a value put into itself,
    /// `a.append(a)`, is a cycle, not a level).
    fn depth_in(&self, target: NodeId, ids: impl IntoIterator<Item = NodeId>) -> u32 {
        self.depth_of(ids.into_iter().filter(|&i| i != target))
    }

    /// Records that `target` now holds children whose deepest is `children_depth` deep.
    fn deepen(&mut self, target: NodeId, children_depth: u32) -> R<()> {
        let d = children_depth.saturating_add(1);
        self.check_depth(d)?;
        let slot = &mut self.depth[target as usize];
        *slot = (*slot).max(d);
        Ok(())
    }

    /// APPEND, APPENDS.
    fn extend_list(&mut self, target: NodeId, items: Vec<NodeId>, what: &str) -> R<()> {
        self.spend(items.len() as u64)?;
        let d = self.depth_in(target, items.iter().copied());
        if !matches!(
            self.nodes[target as usize],
            Node::List(_) | Node::Call { .. }
        ) {
            self.wrap(target, what)?;
        }
        self.deepen(target, d)?;
        match &mut self.nodes[target as usize] {
            Node::List(v) => v.extend(items),
            Node::Call { list: v, .. } => v.extend(items),
            _ => {}
        }
        Ok(())
    }

    /// ADDITEMS.
    fn add_items(&mut self, target: NodeId, items: Vec<NodeId>) -> R<()> {
        self.spend(items.len() as u64)?;
        let d = self.depth_in(target, items.iter().copied());
        if !matches!(
            self.nodes[target as usize],
            Node::Set(_) | Node::Call { .. }
        ) {
            self.wrap(target, "ADDITEMS")?;
        }
        self.deepen(target, d)?;
        match &mut self.nodes[target as usize] {
            Node::Set(v) => v.extend(items),
            Node::Call { list: v, .. } => v.extend(items),
            _ => {}
        }
        Ok(())
    }

    /// SETITEM, SETITEMS.
    fn set_items(&mut self, target: NodeId, pairs: Vec<(NodeId, NodeId)>, what: &str) -> R<()> {
        self.spend(pairs.len() as u64)?;
        let d = self.depth_in(target, pairs.iter().flat_map(|&(k, v)| [k, v]));
        if !matches!(
            self.nodes[target as usize],
            Node::Dict(_) | Node::Call { .. }
        ) {
            self.wrap(target, what)?;
        }
        self.deepen(target, d)?;
        match &mut self.nodes[target as usize] {
            Node::Dict(v) => v.extend(pairs),
            Node::Call { items: v, .. } => v.extend(pairs),
            _ => {}
        }
        Ok(())
    }

    /// BUILD.
    fn build(&mut self, target: NodeId, state: NodeId) -> R<()> {
        self.spend(1)?;
        let d = self.depth_in(target, [state]);
        if !matches!(self.nodes[target as usize], Node::Call { .. }) {
            self.wrap(target, "BUILD")?;
        }
        self.deepen(target, d)?;
        if let Node::Call { state: s, .. } = &mut self.nodes[target as usize] {
            *s = Some(state);
        }
        Ok(())
    }

    fn pairs(&self, items: Vec<NodeId>, what: &str) -> R<Vec<(NodeId, NodeId)>> {
        if items.len() % 2 != 0 {
            return Err(self.invalid(format!("odd number of items for {what}")));
        }
        Ok(items.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    fn container(&mut self, make: fn(Vec<NodeId>) -> Node, items: Vec<NodeId>) -> R<()> {
        self.spend(items.len() as u64)?;
        let d = self.depth_of(items.iter().copied());
        let id = self.add(make(items), d)?;
        self.push(id)
    }

    // --- the loop ------------------------------------------------------------------------

    fn run(&mut self) -> R<NodeId> {
        loop {
            self.op_at = self.pos;
            self.op_code = 0;
            let code = match self.buf.get(self.pos as usize) {
                Some(&c) => {
                    self.pos += 1;
                    c
                }
                None => {
                    return Err(Error::new(
                        "pickle (no STOP opcode)",
                        self.base + self.op_at,
                        ErrorKind::Truncated {
                            needed_end: (self.base + self.len).saturating_add(1),
                            file_size: self.base + self.len,
                        },
                    ))
                }
            };
            self.op_code = code;
            if let Some(root) = self.step(code)? {
                return Ok(root);
            }
        }
    }
}
