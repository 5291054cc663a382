//! After a cap of the machine ([`super::Limits`]) stops the building of the tree, the rest of
//! the pickle is still walked opcode by opcode, building nothing, for the imports it makes: a
//! pickle runs code only through what it imports (GLOBAL, INST, STACK_GLOBAL, EXT*), so when
//! every later import is a GLOBAL or INST (their names are in the opcode's text) and the walk
//! reaches STOP, every import of the pickle is known and judged, however large its tree. A
//! STACK_GLOBAL (its names come from the stack, which is no longer kept), an extension code, an
//! unknown opcode or the end of the bytes leaves the pickle *not fully checked*.

use super::{ops, text, Import};

/// What the walk found.
#[derive(Debug)]
pub(super) enum Walk {
    /// Every import from the start of the walk to STOP.
    Complete(Vec<Import>),
    /// The bytes ended before STOP.
    Truncated,
    /// An import whose names are not in the opcodes, or damage.
    Unknown,
}

/// Walks `buf` (at absolute offset `base`) from local offset `from` (an opcode's first byte)
/// to STOP for its imports (see the module's note).
pub(super) fn imports_after(buf: &[u8], from: u64, base: u64) -> Walk {
    let Ok(mut at) = usize::try_from(from) else {
        return Walk::Truncated;
    };
    let mut out = Vec::new();
    // Each reader gives `None` when the bytes end first.
    let take = |at: &mut usize, n: u64| -> Option<()> {
        let end = at.checked_add(usize::try_from(n).ok()?)?;
        (end <= buf.len()).then(|| *at = end)
    };
    let uint = |at: &mut usize, n: usize| -> Option<u64> {
        let b = buf.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
    };
    let line = |at: &mut usize| -> Option<&[u8]> {
        let rest = buf.get(*at..)?;
        let i = rest.iter().position(|&b| b == b'\n')?;
        *at += i + 1;
        Some(&rest[..i])
    };
    macro_rules! or_end {
        ($e:expr) => {
            match $e {
                Some(v) => v,
                None => return Walk::Truncated,
            }
        };
    }
    loop {
        let op_at = at;
        let code = or_end!(buf.get(at).copied());
        at += 1;
        match code {
            b'.' => return Walk::Complete(out),
            0x93 | 0x82..=0x84 => return Walk::Unknown,
            b'c' | b'i' => {
                let module = text::utf8(or_end!(line(&mut at))).text;
                let name = text::utf8(or_end!(line(&mut at))).text;
                let (verdict, why) = super::verdict(&module, &name);
                out.push(Import {
                    module,
                    name,
                    offset: base.saturating_add(op_at as u64),
                    opcode: if code == b'c' { "GLOBAL" } else { "INST" },
                    calls: Vec::new(),
                    verdict,
                    why,
                });
            }
            0x80 | b'K' | b'h' | b'q' => or_end!(take(&mut at, 1)),
            b'M' => or_end!(take(&mut at, 2)),
            b'J' | b'j' | b'r' => or_end!(take(&mut at, 4)),
            b'G' | 0x95 => or_end!(take(&mut at, 8)),
            b'U' | 0x8c | b'C' | 0x8a => {
                let n = or_end!(uint(&mut at, 1));
                or_end!(take(&mut at, n))
            }
            b'T' | b'X' | b'B' | 0x8b => {
                let n = or_end!(uint(&mut at, 4));
                // BINSTRING and LONG4 lengths are signed: a negative one is damage.
                if matches!(code, b'T' | 0x8b) && n >= 1 << 31 {
                    return Walk::Unknown;
                }
                or_end!(take(&mut at, n))
            }
            0x8d | 0x8e | 0x96 => {
                let n = or_end!(uint(&mut at, 8));
                or_end!(take(&mut at, n))
            }
            b'I' | b'L' | b'F' | b'S' | b'V' | b'g' | b'p' | b'P' => {
                or_end!(line(&mut at));
            }
            c if ops::name(c).is_some() => {}
            _ => return Walk::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pickle::Verdict;

    #[test]
    fn text_imports_are_found_and_stack_globals_stop_the_walk() {
        let p = b"K\x01]\x8c\x02ab\x94X\x01\x00\x00\x00zcposix\nsystem\n(S'x'\ntR\x95\x00\x00\x00\x00\x00\x00\x00\x00.";
        let Walk::Complete(found) = imports_after(p, 0, 100) else {
            panic!()
        };
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].module.as_str(), found[0].offset), ("posix", 114));
        assert_eq!(found[0].verdict, Verdict::Dangerous);
        let unknown = |b: &[u8]| matches!(imports_after(b, 0, 0), Walk::Unknown);
        let truncated = |b: &[u8]| matches!(imports_after(b, 0, 0), Walk::Truncated);
        assert!(unknown(b"\x8c\x02os\x8c\x06system\x93."));
        assert!(unknown(b"\xff."), "not an opcode");
        assert!(truncated(b"K\x01"), "no STOP");
        assert!(truncated(b"X\xff\xff\xff\xff."), "a length past the end");
    }
}
