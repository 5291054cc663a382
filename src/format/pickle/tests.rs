//! Opcode corner cases, each a hand-written pickle (the reference comparisons with Python's
//! own unpickler are in `tests/pickle.rs`).

use super::*;
use crate::format::ErrorKind;

fn ok(b: &[u8]) -> Pickle {
    parse(b, 0, &Limits::DEFAULT).unwrap_or_else(|e| panic!("{e}"))
}

fn fails(b: &[u8]) -> Error {
    match parse(b, 0, &Limits::DEFAULT) {
        Ok(p) => panic!("parsed: root {:?}", p.node(p.root)),
        Err(e) => e,
    }
}

fn invalid(b: &[u8], words: &str) {
    let e = fails(b);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains(words)),
        "{e} (wanted {words:?})"
    );
}

fn root(b: &[u8]) -> Node {
    let p = ok(b);
    p.node(p.root).unwrap().clone()
}

/// The root's elements as nodes.
fn elements(p: &Pickle) -> Vec<Node> {
    p.items_of(p.root)
        .unwrap()
        .iter()
        .map(|&i| p.node(i).unwrap().clone())
        .collect()
}

#[test]
fn protocol_0_integers_as_cpython_reads_them() {
    let p = ok(b"(I01\nI00\nI+1\nI-0\nI 1\nI010\nI0x1f\nI1_000\nI 12 \nI99999999999999999999\nL123L\nL-0x10L\nL7\nl.");
    assert_eq!(
        elements(&p),
        [
            Node::Bool(true),
            Node::Bool(false),
            Node::Bool(true),
            Node::Bool(false),
            Node::Bool(true),
            Node::Int(8),
            Node::Int(31),
            Node::Int(1000),
            Node::Int(12),
            Node::BigInt("99999999999999999999".into()),
            Node::Int(123),
            Node::Int(-16),
            Node::Int(7),
        ]
    );
    invalid(b"I1__0\n.", "invalid integer");
    invalid(b"I08\n.", "invalid integer");
    invalid(b"I\n.", "empty INT");
    invalid(b"L\n.", "empty LONG");
    invalid(b"LL\n.", "invalid integer");
}

#[test]
fn binary_integers_and_floats() {
    let p = ok(b"\x80\x02(J\xff\xff\xff\xffK\xffM\xff\xff\x8a\x00\x8a\x01\x80\x8b\x02\x00\x00\x00\x00\x01G\xc0\x04\x00\x00\x00\x00\x00\x00F-0.0\nFnan\nF1e999\nl.");
    assert_eq!(
        elements(&p)[..6],
        [
            Node::Int(-1),
            Node::Int(255),
            Node::Int(65535),
            Node::Int(0),
            Node::Int(-128),
            Node::Int(256),
        ]
    );
    let floats: Vec<u64> = elements(&p)[6..]
        .iter()
        .map(|n| match n {
            Node::Float(f) => f.to_bits(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        floats,
        [
            (-2.5f64).to_bits(),
            (-0.0f64).to_bits(),
            f64::NAN.to_bits(),
            f64::INFINITY.to_bits()
        ]
    );
    invalid(b"F1.5x\n.", "invalid float");
    invalid(b"\x8b\xfb\xff\xff\xff.", "negative");
    // A huge hexadecimal text is kept as a note past max_int_digits.
    let few = Limits {
        max_int_digits: 10,
        ..Limits::DEFAULT
    };
    let p = parse(b"I0xffffffffffffffffffffffff\n.", 0, &few).unwrap();
    assert!(
        matches!(p.node(p.root), Some(Node::BigInt(n)) if n.starts_with("(an integer of 24 base-16 digits"))
    );
}

#[test]
fn strings_and_their_decodings() {
    let p = ok(b"(S'a\\x41\\n'\nS\"q'\"\nU\x02\xc3\xa9T\x01\x00\x00\x00zVcaf\xe9 \\u20ac\nX\x03\x00\x00\x00\xe2\x82\xac\x8c\x01x\x8d\x01\x00\x00\x00\x00\x00\x00\x00yl.");
    let texts: Vec<String> = elements(&p)
        .into_iter()
        .map(|n| match n {
            Node::Str(s) => s,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["aA\n", "q'", "é", "z", "café €", "€", "x", "y"]);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    invalid(b"S'abc\n.", "must be quoted");
    invalid(b"Vab\\u12\n.", "truncated");
    invalid(b"T\xff\xff\xff\xff.", "negative");
    // Text Python would refuse, or cannot hold in UTF-8, is kept with U+FFFD and a warning.
    let p = ok(b"X\x04\x00\x00\x00a\xff\xed\xa0.");
    assert_eq!(p.str_of(p.root), Some("a\u{fffd}\u{fffd}\u{fffd}"));
    assert_eq!(p.warnings.len(), 1);
    assert!(
        p.warnings[0].message.contains("not UTF-8"),
        "{:?}",
        p.warnings
    );
    let p = ok(b"X\x03\x00\x00\x00\xed\xa0\x80.");
    assert_eq!(p.str_of(p.root), Some("\u{fffd}"));
    assert!(p.warnings[0].message.contains("surrogate"));
}

#[test]
fn bytes_are_ranges_of_the_file() {
    let p = parse(
        b"\x80\x05(C\x03abcB\x01\x00\x00\x00d\x8e\x00\x00\x00\x00\x00\x00\x00\x00\x96\x02\x00\x00\x00\x00\x00\x00\x00efl.",
        100,
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(
        elements(&p),
        [
            Node::Bytes { start: 105, len: 3 },
            Node::Bytes { start: 113, len: 1 },
            Node::Bytes { start: 123, len: 0 },
            Node::Bytes { start: 132, len: 2 },
        ]
    );
}

#[test]
fn marks_and_the_stack() {
    // POP_MARK drops what follows the mark; POP pops a mark with nothing above it; DUP.
    let p = ok(b"(K\x01K\x021K\x05(0K\x062\x86\x86.");
    let Node::Tuple(outer) = p.node(p.root).unwrap() else {
        panic!()
    };
    assert_eq!(p.int_of(outer[0]), Some(5));
    assert_eq!(p.items_of(outer[1]).unwrap().len(), 2);
    // Below a mark is out of reach.
    invalid(b"K\x01(a.", "after the last MARK");
    invalid(b"K\x01(\x86.", "after the last MARK");
    invalid(b"a.", "does not hold");
    invalid(b"0.", "does not hold");
    invalid(b"1.", "could not find MARK");
    invalid(b"(.", "after the last MARK");
    invalid(b"(K\x01d.", "odd number of items for DICT");
    invalid(b"}(K\x01u.", "odd number of items for SETITEMS");
    invalid(b"(o.", "OBJ needs a class");
    // Leftovers on the stack at STOP are fine (Python ignores them).
    assert_eq!(root(b"K\x01K\x02."), Node::Int(2));
}

#[test]
fn the_memo_shares_nodes() {
    // A memoized list put inside another, then extended: both references see it.
    let p = ok(b"]q\x00]h\x00ah\x00K\x05a0.");
    let inner = p.items_of(p.root).unwrap()[0];
    assert_eq!(p.items_of(inner).map(<[_]>::len), Some(1));
    // A list holding itself.
    let p = ok(b"]q\x00h\x00a.");
    assert_eq!(p.items_of(p.root), Some(&[p.root][..]));
    // Text keys, MEMOIZE's implicit key (the number of entries).
    let p = ok(b"K\x07p 3\n0N\x94K\x08\x94(g3\nh\x01h\x02l.");
    let v: Vec<Option<i64>> = p
        .items_of(p.root)
        .unwrap()
        .iter()
        .map(|&i| p.int_of(i))
        .collect();
    assert_eq!(v, [Some(7), None, Some(8)]);
    invalid(b"g9\n.", "memo key 9 was never stored");
    invalid(b"K\x01p-1\n.", "negative memo key");
    invalid(b"K\x01px\n.", "invalid integer");
    assert!(matches!(
        fails(b"K\x01p99999999999999999999\n.").kind,
        ErrorKind::Overflow(_)
    ));
    invalid(b"p1\n.", "does not hold");
}

#[test]
fn containers() {
    let p = ok(b"\x80\x04(\x8f(K\x01K\x02\x90(K\x03\x91}(K\x01K\x02K\x03K\x04u)t.");
    let Some(Node::Tuple(t)) = p.node(p.root) else {
        panic!()
    };
    assert!(matches!(p.node(t[0]), Some(Node::Set(v)) if v.len() == 2));
    assert!(matches!(p.node(t[1]), Some(Node::FrozenSet(v)) if v.len() == 1));
    assert_eq!(p.dict_of(t[2]).map(|d| d.len()), Some(2));
    assert!(p.node(t[2]).is_some_and(|n| matches!(n, Node::Dict(_))));
    assert_eq!(p.items_of(t[3]).map(<[_]>::len), Some(0));
}

#[test]
fn calls_are_recorded_not_made() {
    // GLOBAL + REDUCE, INST, OBJ, NEWOBJ, NEWOBJ_EX; calls through a memoized import count.
    let b = b"\x80\x04(cm\nf\nq\x00)R(K\x01im\nC\n(h\x00K\x02o\x8c\x01m\x8c\x01D\x93)\x81h\x00)}(\x8c\x01kK\x03u\x92l.";
    let p = ok(b);
    assert_eq!(p.globals.len(), 3);
    assert_eq!(
        (
            p.globals[0].opcode,
            p.globals[1].opcode,
            p.globals[2].opcode
        ),
        ("GLOBAL", "INST", "STACK_GLOBAL")
    );
    assert_eq!(p.globals[0].offset, 3);
    assert_eq!(p.globals[0].calls.len(), 3); // REDUCE, OBJ, NEWOBJ_EX
    assert_eq!(p.globals[1].calls, [p.globals[1].offset]); // INST calls where it imports
    assert_eq!(p.globals[2].calls.len(), 1);
    let kinds: Vec<(CallKind, bool)> = p
        .items_of(p.root)
        .unwrap()
        .iter()
        .map(|&i| match p.node(i) {
            Some(Node::Call { kind, kwargs, .. }) => (*kind, kwargs.is_some()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (CallKind::Reduce, false),
            (CallKind::Inst, false),
            (CallKind::Obj, false),
            (CallKind::NewObj, false),
            (CallKind::NewObjEx, true),
        ]
    );
    let Some(Node::Call { args, offset, .. }) = p.node(p.items_of(p.root).unwrap()[1]) else {
        panic!()
    };
    assert_eq!(p.items_of(*args).map(<[_]>::len), Some(1));
    assert_eq!(*offset, p.globals[1].offset);
    // STACK_GLOBAL of names that are not strings (computed by a call while loading): an
    // import of "(computed)", dangerous, since only running the pickle would tell what it is.
    let p = ok(b"K\x01K\x02\x93.");
    assert_eq!(
        (p.globals[0].module.as_str(), p.globals[0].name.as_str()),
        ("(computed)", "(computed)")
    );
    assert_eq!(p.globals[0].verdict, Verdict::Dangerous);
    // Calling a call's result is a call whose callable is not an import.
    let p = ok(b"cm\nf\n)R)R.");
    assert_eq!(p.globals[0].calls.len(), 1);
    assert_eq!(p.verdict(), Verdict::Unknown);
}

#[test]
fn mutations_of_call_results() {
    // collections.OrderedDict() then SETITEMS, BUILD: a torch state dict's shape.
    let p = ok(
        b"\x80\x02ccollections\nOrderedDict\n)R(X\x01\x00\x00\x00aK\x01X\x01\x00\x00\x00bK\x02u}b.",
    );
    let Some(Node::Call {
        items,
        state: Some(_),
        list,
        ..
    }) = p.node(p.root)
    else {
        panic!("{:?}", p.node(p.root))
    };
    assert_eq!((items.len(), list.len()), (2, 0));
    let d = p.dict_of(p.root).unwrap();
    assert_eq!(p.str_of(d[1].0), Some("b"));
    assert_eq!(p.verdict(), Verdict::Safe);
    // APPENDS, APPEND and ADDITEMS on a call go to its list.
    let p = ok(b"\x80\x04cm\nL\n)R(K\x01K\x02eK\x03a(K\x04\x90.");
    let Some(Node::Call { list, .. }) = p.node(p.root) else {
        panic!()
    };
    assert_eq!(list.len(), 4);
    // OrderedDict called with a list of pairs (protocol 0 style).
    let p = ok(b"ccollections\nOrderedDict\n((lp0\n(S'k'\nI1\ntatR.");
    assert_eq!(p.dict_of(p.root).map(|d| d.len()), Some(1));
    assert_eq!(p.dict_of(p.globals.len() as NodeId + 100), None);
}

#[test]
fn mutations_of_other_values_wrap_them() {
    // BUILD on an import: every reference (here the memo) sees the wrapper, and calling it
    // still counts as a call of the import.
    let p = ok(b"cos\nsystem\nq\x00}bh\x00)R.");
    let Some(Node::Call {
        callable,
        kind: CallKind::Reduce,
        ..
    }) = p.node(p.root)
    else {
        panic!()
    };
    let Some(Node::Call {
        callable: inner,
        kind: CallKind::Wrapped,
        state: Some(_),
        ..
    }) = p.node(*callable)
    else {
        panic!("{:?}", p.node(*callable))
    };
    assert_eq!(p.global_of(*inner), Some(("os", "system")));
    assert_eq!(p.globals[0].calls.len(), 1);
    assert!(p.warnings[0]
        .message
        .contains("BUILD applied to an imported object"));
    assert_eq!(p.verdict(), Verdict::Dangerous);
    // SETITEM on a tuple, APPEND on a persistent object.
    let p = ok(b"(K\x01K\x02K\x03s)K\x04K\x05s.");
    assert!(
        matches!(p.node(p.root), Some(Node::Call { kind: CallKind::Wrapped, items, .. }) if items.len() == 1)
    );
    let p = ok(b"Pid\nK\x01a.");
    let Some(Node::Call { callable, list, .. }) = p.node(p.root) else {
        panic!()
    };
    assert_eq!(list.len(), 1);
    assert!(
        matches!(p.node(*callable), Some(Node::Persistent(pid)) if p.str_of(*pid) == Some("id"))
    );
    // A list takes SETITEM only through a wrapper too; a dict APPEND likewise.
    assert!(matches!(
        root(b"]K\x00K\x01s."),
        Node::Call {
            kind: CallKind::Wrapped,
            ..
        }
    ));
    assert!(matches!(
        root(b"}K\x00a."),
        Node::Call {
            kind: CallKind::Wrapped,
            ..
        }
    ));
}

#[test]
fn persistent_ids() {
    let p = ok(b"\x80\x02(X\x07\x00\x00\x00storagecmod\nFloatStorage\nX\x01\x00\x00\x000K\x0ctQ.");
    let Some(Node::Persistent(pid)) = p.node(p.root) else {
        panic!()
    };
    assert_eq!(p.items_of(*pid).map(<[_]>::len), Some(4));
    assert_eq!(p.globals[0].name, "FloatStorage");
    assert!(p.globals[0].calls.is_empty());
    let p = ok(b"P\xc3\xa9\n.");
    assert!(p.warnings[0].message.contains("ASCII"));
}

#[test]
fn protocol_frames_buffers_and_extensions() {
    let mut b = vec![0x80, 5, 0x95];
    b.extend_from_slice(&4u64.to_le_bytes());
    b.extend_from_slice(b"(\x97\x97\x98l\x80\x04.");
    let p = ok(&b);
    assert_eq!(p.protocol, 5);
    assert_eq!(
        elements(&p),
        [
            Node::Buffer {
                index: 0,
                readonly: false
            },
            Node::Buffer {
                index: 1,
                readonly: true
            }
        ]
    );
    let messages: Vec<&str> = p.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[2].contains("second PROTO"));
    invalid(b"\x80\x06.", "unsupported pickle protocol 6");
    // READONLY_BUFFER on something else leaves it.
    assert_eq!(root(b"K\x01\x98."), Node::Int(1));
    // EXT codes import from the loading program's registry.
    let p = ok(b"\x82\xf0.");
    assert_eq!(
        (
            p.globals[0].module.as_str(),
            p.globals[0].name.as_str(),
            p.globals[0].opcode
        ),
        ("copyreg._extension_registry", "240", "EXT1")
    );
    assert_eq!(p.globals[0].verdict, Verdict::Unknown);
    assert_eq!(ok(b"\x84\x00\x00\x01\x00.").globals[0].name, "65536");
    invalid(b"\x82\x00.", "not positive");
    invalid(b"\x84\xff\xff\xff\xff.", "not positive");
    // Warnings are capped.
    let mut b = b"(".to_vec();
    b.extend(vec![0x97; 100]);
    b.extend_from_slice(b"l.");
    let p = ok(&b);
    assert_eq!(p.warnings.len(), MAX_WARNINGS + 1);
    assert!(p.warnings[MAX_WARNINGS].message.starts_with("36 more"));
}

#[test]
fn errors_name_the_opcode_and_its_offset() {
    let e = parse(b"\x80\x02X\x05\x00\x00\x00ab", 1000, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.field, "pickle opcode 0x58 (BINUNICODE)");
    assert_eq!(e.offset, 1002);
    assert_eq!(
        e.kind,
        ErrorKind::CountTooLarge {
            count: 5,
            what: "string length",
            max: 2
        }
    );
    let e = parse(b"\x80\x02X\x05\x00", 1000, &Limits::DEFAULT).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed_end: 1007,
            file_size: 1005
        }
    );
    let e = fails(b"K\x01\xb0.");
    assert_eq!(e.to_string(), "pickle opcode 0xb0 at byte 2: not a pickle opcode (protocols 0 to 5; damaged data, or not a pickle)");
    let e = fails(b"I12");
    assert!(e.field.contains("INT"), "{e}");
    // At the top of u64 nothing wraps.
    let (_, e) = parse_partial(b"N", u64::MAX - 1, &Limits::DEFAULT);
    assert!(matches!(
        e.unwrap().kind,
        ErrorKind::Truncated {
            needed_end: u64::MAX,
            ..
        }
    ));
    let (_, e) = parse_partial(b"X\x09\x00\x00\x00ab", u64::MAX - 7, &Limits::DEFAULT);
    assert!(matches!(
        e.unwrap().kind,
        ErrorKind::CountTooLarge { count: 9, .. }
    ));
    // parse_partial keeps what came before, the root a None node.
    let (p, e) = parse_partial(b"\x80\x02cos\nsystem\n)R\xb0", 0, &Limits::DEFAULT);
    assert_eq!(e.unwrap().offset, 15);
    assert_eq!(p.end, 15);
    assert_eq!(p.globals[0].calls, [14]);
    assert_eq!(p.node(p.root), Some(&Node::None));
}

#[test]
fn limits_hold() {
    let tiny = Limits {
        max_nodes: 5,
        ..Limits::DEFAULT
    };
    assert!(parse(b"(K\x01K\x02l.", 0, &tiny).is_ok()); // 3 nodes, 2 entries
    let e = parse(b"(K\x01K\x02K\x03l.", 0, &tiny).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("max_nodes")),
        "{e}"
    );
    let shallow = Limits {
        max_depth: 3,
        ..Limits::DEFAULT
    };
    assert!(parse(b"]]]aa.", 0, &shallow).is_ok());
    assert!(matches!(
        parse(b"]]]]aaa.", 0, &shallow).unwrap_err().kind,
        ErrorKind::TooDeep(3)
    ));
    assert!(matches!(
        parse(b"((((", 0, &shallow).unwrap_err().kind,
        ErrorKind::TooDeep(3)
    ));
    // A list appended into itself is a cycle, not a level.
    let mut b = b"]q\x00".to_vec();
    for _ in 0..10 {
        b.extend_from_slice(b"h\x00a");
    }
    b.push(b'.');
    assert!(parse(&b, 0, &shallow).is_ok());
}

#[test]
fn dotted_names_are_judged_split_by_split_in_linear_time() {
    use super::safety::verdict;
    // An attribute path through a dangerous module, as the protocol-4 `getattr` chain reaches it.
    assert_eq!(verdict("collections", "x.os.system").0, Verdict::Dangerous);
    assert_eq!(
        verdict("torch._utils", "_rebuild_tensor_v2").0,
        Verdict::Safe
    );
    // The fuzzer's slow input (tests/data/fuzz/pickle/): a name of thousands of dots took
    // 1.3 s; now it is refused at once as no library's name.
    let name = ".".repeat(5000);
    let t = std::time::Instant::now();
    assert_eq!(verdict("pksix", &name).0, Verdict::Dangerous);
    let ok = "a.".repeat(63) + "b";
    assert_ne!(verdict("pksix", &ok).1, verdict("pksix", &name).1);
    assert!(t.elapsed().as_millis() < 500, "{:?}", t.elapsed());
}
