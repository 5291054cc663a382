//! One opcode's effect on the machine (CPython 3.11's `_pickle.c`, nothing imported or called).

use super::*;

impl<'a> Machine<'a, '_> {
    /// Runs one opcode; `Some(root)` at STOP.
    pub(super) fn step(&mut self, code: u8) -> R<Option<NodeId>> {
        match code {
            // Protocol and framing.
            0x80 => {
                let v = self.u8()?;
                if v > 5 {
                    return Err(
                        self.invalid(format!("unsupported pickle protocol {v} (known: 0 to 5)"))
                    );
                }
                match self.protocol {
                    None => self.protocol = Some(v),
                    Some(p) => self.warn(format!(
                        "a second PROTO ({v} after {p}): Python's pickler writes one, first"
                    )),
                }
            }
            0x95 => {
                let n = self.u64()?;
                if n > self.remaining() {
                    return Err(self.short(self.pos.saturating_add(n)));
                }
                // A frame only says how many bytes follow; its opcodes are read as usual.
            }
            b'.' => {
                let v = self.pop()?;
                return Ok(Some(v));
            }

            // Constants and numbers.
            b'N' => self.push_new(Node::None)?,
            0x88 => self.push_new(Node::Bool(true))?,
            0x89 => self.push_new(Node::Bool(false))?,
            b'J' => {
                let v = self.i32()?;
                self.push_new(Node::Int(i64::from(v)))?
            }
            b'K' => {
                let v = self.u8()?;
                self.push_new(Node::Int(i64::from(v)))?
            }
            b'M' => {
                let v = self.u16()?;
                self.push_new(Node::Int(i64::from(v)))?
            }
            b'I' => {
                let line = self.line()?;
                // _pickle.c: libc strtol first; a 2-byte line (3 with its newline) of 0 or 1
                // is a bool ("00", "01", also " 1", "+1", "-0").
                match text::c_strtol(line) {
                    Some(v @ (0 | 1)) if line.len() == 2 => self.push_new(Node::Bool(v == 1))?,
                    Some(v) => self.push_new(Node::Int(v))?,
                    None => {
                        if line.is_empty() {
                            return Err(self.invalid("empty INT argument"));
                        }
                        let v = text::py_int(line, true, self.limits.max_int_digits)
                            .map_err(|why| self.invalid(why.to_string()))?;
                        self.push_int(v)?
                    }
                }
            }
            b'L' => {
                let mut line = self.line()?;
                if line.is_empty() {
                    return Err(self.invalid("empty LONG argument"));
                }
                // Python 2 wrote "123L".
                if let [digits @ .., b'L'] = line {
                    line = digits;
                }
                let v = text::py_int(line, true, self.limits.max_int_digits)
                    .map_err(|why| self.invalid(why.to_string()))?;
                self.push_int(v)?
            }
            0x8a | 0x8b => {
                let (n, what) = if code == 0x8a {
                    (u64::from(self.u8()?), "LONG1 length")
                } else {
                    let n = self.i32()?;
                    if n < 0 {
                        return Err(self.invalid(format!("LONG4 byte count is negative ({n})")));
                    }
                    (n as u64, "LONG4 length")
                };
                let max = self.limits.max_int_digits;
                let v = text::long_le(self.take(n, what)?, max);
                self.push_int(v)?
            }
            b'F' => {
                let line = self.line()?;
                let v = text::float(line).map_err(|why| self.invalid(why.to_string()))?;
                self.push_new(Node::Float(v))?
            }
            b'G' => {
                let b = self.u64()?;
                // BINFLOAT is big-endian; the cursor read it little-endian.
                self.push_new(Node::Float(f64::from_bits(b.swap_bytes())))?
            }

            // Strings and bytes.
            b'S' => {
                let line = self.line()?;
                let raw = text::quoted_string(line).map_err(|why| self.invalid(why.to_string()))?;
                self.push_str(text::utf8(&raw), "a STRING")?
            }
            b'T' | b'U' => {
                let n = if code == b'T' {
                    let n = self.i32()?;
                    if n < 0 {
                        return Err(self.invalid(format!("BINSTRING byte count is negative ({n})")));
                    }
                    n as u64
                } else {
                    u64::from(self.u8()?)
                };
                let d = text::utf8(self.take(n, "string length")?);
                self.push_str(d, "a Python 2 string")?
            }
            b'V' => {
                let line = self.line()?;
                let d =
                    text::raw_unicode_escape(line).map_err(|why| self.invalid(why.to_string()))?;
                self.push_str(d, "a UNICODE string")?
            }
            b'X' | 0x8c | 0x8d => {
                let n = match code {
                    b'X' => u64::from(self.u32()?),
                    0x8c => u64::from(self.u8()?),
                    _ => self.u64()?,
                };
                let d = text::utf8(self.take(n, "string length")?);
                self.push_str(d, "a string")?
            }
            b'B' | b'C' | 0x8e | 0x96 => {
                let n = match code {
                    b'B' => u64::from(self.u32()?),
                    b'C' => u64::from(self.u8()?),
                    _ => self.u64()?,
                };
                let start = self.base + self.pos;
                self.take(n, "bytes length")?;
                self.push_new(Node::Bytes { start, len: n })?
            }
            0x97 => {
                let index = self.buffers;
                self.buffers = self.buffers.saturating_add(1);
                self.warn(format!(
                    "out-of-band buffer {index} (NEXT_BUFFER): its bytes are not in the pickle"
                ));
                self.push_new(Node::Buffer {
                    index,
                    readonly: false,
                })?
            }
            0x98 => {
                let id = self.top()?;
                if let Node::Buffer { readonly, .. } = &mut self.nodes[id as usize] {
                    *readonly = true;
                }
                // Anything else is already read-only or not a buffer: Python keeps it as is.
            }

            // Containers.
            b']' => self.push_new(Node::List(Vec::new()))?,
            b')' => self.push_new(Node::Tuple(Vec::new()))?,
            b'}' => self.push_new(Node::Dict(Vec::new()))?,
            0x8f => self.push_new(Node::Set(Vec::new()))?,
            b'(' => {
                if self.marks.len() as u64 >= u64::from(self.limits.max_depth) {
                    return Err(self.err(ErrorKind::TooDeep(self.limits.max_depth)));
                }
                self.marks.push(self.stack.len());
            }
            b'l' => {
                let items = self.pop_mark()?;
                self.container(Node::List, items)?
            }
            b't' => {
                let items = self.pop_mark()?;
                self.container(Node::Tuple, items)?
            }
            0x91 => {
                let items = self.pop_mark()?;
                self.container(Node::FrozenSet, items)?
            }
            0x85..=0x87 => {
                let n = usize::from(code - 0x84);
                if self.stack.len() < self.fence() + n {
                    return Err(self.underflow());
                }
                let items = self.stack.split_off(self.stack.len() - n);
                self.container(Node::Tuple, items)?
            }
            b'd' => {
                let items = self.pop_mark()?;
                let pairs = self.pairs(items, "DICT")?;
                self.spend(pairs.len() as u64)?;
                let d = self.depth_of(pairs.iter().flat_map(|&(k, v)| [k, v]));
                let id = self.add(Node::Dict(pairs), d)?;
                self.push(id)?
            }
            b'a' => {
                let v = self.pop()?;
                let target = self.top()?;
                self.extend_list(target, vec![v], "APPEND")?
            }
            b'e' => {
                let items = self.pop_mark()?;
                let target = self.top()?;
                self.extend_list(target, items, "APPENDS")?
            }
            b's' => {
                let v = self.pop()?;
                let k = self.pop()?;
                let target = self.top()?;
                self.set_items(target, vec![(k, v)], "SETITEM")?
            }
            b'u' => {
                let items = self.pop_mark()?;
                let pairs = self.pairs(items, "SETITEMS")?;
                let target = self.top()?;
                self.set_items(target, pairs, "SETITEMS")?
            }
            0x90 => {
                let items = self.pop_mark()?;
                let target = self.top()?;
                self.add_items(target, items)?
            }

            // Stack manipulation.
            b'0' => {
                if self.stack.len() > self.fence() {
                    self.stack.pop();
                } else if self.marks.pop().is_none() {
                    return Err(self.underflow());
                }
            }
            b'1' => {
                self.pop_mark()?;
            }
            b'2' => {
                let v = self.top()?;
                self.push(v)?
            }

            // Memo.
            b'g' => {
                let k = self.text_key()?;
                self.memo_get(k)?
            }
            b'h' => {
                let k = self.u8()?;
                self.memo_get(u64::from(k))?
            }
            b'j' => {
                let k = self.u32()?;
                self.memo_get(u64::from(k))?
            }
            b'p' => {
                let k = self.text_key()?;
                self.memo_put(k)?
            }
            b'q' => {
                let k = self.u8()?;
                self.memo_put(u64::from(k))?
            }
            b'r' => {
                let k = self.u32()?;
                self.memo_put(u64::from(k))?
            }
            0x94 => {
                let k = self.memo.len() as u64;
                self.memo_put(k)?
            }

            // Imports.
            b'c' => {
                let module = self.text_name("GLOBAL module")?;
                let name = self.text_name("GLOBAL name")?;
                let id = self.import(module, name, "GLOBAL")?;
                self.push(id)?
            }
            0x93 => {
                let name = self.pop()?;
                let module = self.pop()?;
                let text = |n: NodeId| match &self.nodes[n as usize] {
                    Node::Str(s) => Some(s.clone()),
                    _ => None,
                };
                let (m, n) = (text(module), text(name));
                let computed = m.is_none() || n.is_none();
                let module = m.unwrap_or_else(|| "(computed)".into());
                let name = n.unwrap_or_else(|| "(computed)".into());
                let id = self.import(module, name, "STACK_GLOBAL")?;
                if computed {
                    // The name is the result of a call (rot13 of a string, str(bytes)…): what
                    // it imports is known only by running the pickle.
                    if let Some(i) = self.globals.last_mut() {
                        i.verdict = Verdict::Dangerous;
                        i.why = "imports a name computed while loading (by a call), which only \
                                 running the pickle would reveal";
                    }
                }
                self.push(id)?
            }
            0x82..=0x84 => {
                let (code_value, opcode) = match code {
                    0x82 => (i64::from(self.u8()?), "EXT1"),
                    0x83 => (i64::from(self.u16()?), "EXT2"),
                    _ => (i64::from(self.i32()?), "EXT4"),
                };
                if code_value <= 0 {
                    return Err(
                        self.invalid(format!("extension code {code_value} is not positive"))
                    );
                }
                self.warn(format!(
                    "extension code {code_value}: what it imports is in the loading program's copyreg registry, not in the file"
                ));
                let id = self.import(
                    "copyreg._extension_registry".into(),
                    code_value.to_string(),
                    opcode,
                )?;
                self.push(id)?
            }

            // Calls.
            b'R' => {
                let args = self.pop()?;
                let callable = self.top()?;
                let id = self.call(callable, args, None, CallKind::Reduce)?;
                // top() succeeded, so the stack is not empty.
                if let Some(slot) = self.stack.last_mut() {
                    *slot = id;
                }
            }
            0x81 => {
                let args = self.pop()?;
                let cls = self.pop()?;
                let id = self.call(cls, args, None, CallKind::NewObj)?;
                self.push(id)?
            }
            0x92 => {
                let kwargs = self.pop()?;
                let args = self.pop()?;
                let cls = self.pop()?;
                let id = self.call(cls, args, Some(kwargs), CallKind::NewObjEx)?;
                self.push(id)?
            }
            b'i' => {
                let module = self.text_name("INST module")?;
                let name = self.text_name("INST name")?;
                let items = self.pop_mark()?;
                let cls = self.import(module, name, "INST")?;
                self.spend(items.len() as u64)?;
                let d = self.depth_of(items.iter().copied());
                let args = self.add(Node::Tuple(items), d)?;
                let id = self.call(cls, args, None, CallKind::Inst)?;
                self.push(id)?
            }
            b'o' => {
                let mut items = self.pop_mark()?;
                if items.is_empty() {
                    return Err(self.invalid("OBJ needs a class after its MARK"));
                }
                let cls = items.remove(0);
                self.spend(items.len() as u64)?;
                let d = self.depth_of(items.iter().copied());
                let args = self.add(Node::Tuple(items), d)?;
                let id = self.call(cls, args, None, CallKind::Obj)?;
                self.push(id)?
            }
            b'b' => {
                let state = self.pop()?;
                let target = self.top()?;
                self.build(target, state)?
            }

            // Persistent ids.
            b'P' => {
                let line = self.line()?;
                let d = text::utf8(line);
                if d.invalid || !line.is_ascii() {
                    self.warn("a protocol-0 persistent id that is not ASCII (Python refuses it)");
                }
                let pid = self.atom(Node::Str(d.text))?;
                let id = self.add(Node::Persistent(pid), 1)?;
                self.push(id)?
            }
            b'Q' => {
                let pid = self.pop()?;
                let d = self.depth_of([pid]);
                let id = self.add(Node::Persistent(pid), d)?;
                self.push(id)?
            }

            _ => {
                return Err(Error::new(
                    format!("pickle opcode 0x{code:02x}"),
                    self.base + self.op_at,
                    ErrorKind::Invalid(
                        "not a pickle opcode (protocols 0 to 5; damaged data, or not a pickle)"
                            .into(),
                    ),
                ))
            }
        }
        Ok(None)
    }
}
