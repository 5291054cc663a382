//! Issue #12: the pickle machine reads what Python's unpickler reads, and runs nothing.
//!
//! `tests/reference/pickle_cases.py` writes pickles of every kind (plain values at protocols
//! 0–5, PyTorch-like checkpoints, malicious ones; under `target/pickle-fixtures` or
//! `$WEIGHTPEEK_PICKLE_FIXTURES`) with what Python makes of each: the value tree its C
//! unpickler builds with inert stand-ins, rendered as JSON text; the imports pickletools
//! finds, with the offsets of the calls made through them; picklescan's and fickling's
//! verdicts. Each file is read here and rendered the same way (see the script's docstring);
//! the text, every import and every offset must be equal, and every file that either tool
//! calls dangerous must have a Dangerous import here. No expected value is written here.
//!
//! The hostile inputs below are built in Rust: every truncation of a real pickle, lengths of
//! 2^63, 100,000 nested MARKs or lists, unknown memo keys, a memo key of 2^32-1, a million
//! APPENDS, a FRAME past the end, no STOP, random bytes.

mod common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value as J};
use weightpeek::format::pickle::{
    self, ops, parse, parse_partial, CallKind, Limits, Node, NodeId, Pickle, Verdict,
};
use weightpeek::format::ErrorKind;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_PICKLE_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pickle-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn expected(dir: &Path) -> J {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

// --- rendering, as tests/reference/pickle_cases.py renders Python's objects ------------------

struct Render<'a> {
    p: &'a Pickle,
    file: &'a [u8],
    path: HashSet<NodeId>,
}

impl Render<'_> {
    fn ids(&mut self, ids: &[NodeId]) -> Vec<J> {
        ids.iter().map(|&i| self.node(i)).collect()
    }

    fn pairs(&mut self, pairs: &[(NodeId, NodeId)]) -> Vec<J> {
        pairs
            .iter()
            .map(|&(k, v)| J::Array(vec![self.node(k), self.node(v)]))
            .collect()
    }

    fn sorted(&mut self, ids: &[NodeId]) -> Vec<J> {
        let mut v = self.ids(ids);
        v.sort_by_cached_key(|e| serde_json::to_string(e).unwrap());
        v
    }

    /// Python's `cls(*args)` on an import with no arguments is `cls.__new__(cls)` for INST and
    /// OBJ (`pickle._instantiate`).
    fn is_new(&self, kind: CallKind, callable: NodeId, args: NodeId) -> bool {
        match kind {
            CallKind::NewObj | CallKind::NewObjEx => true,
            CallKind::Inst | CallKind::Obj => {
                self.p.global_of(callable).is_some()
                    && self.p.items_of(args).is_some_and(|a| a.is_empty())
            }
            CallKind::Reduce | CallKind::Wrapped => false,
        }
    }

    fn node(&mut self, id: NodeId) -> J {
        let p = self.p;
        let node = p.node(id).expect("node id in range");
        let leaf = match node {
            Node::None => Some(J::Null),
            Node::Bool(b) => Some(J::Bool(*b)),
            Node::Int(i) => Some(json!({"int": i.to_string()})),
            Node::BigInt(s) => Some(json!({"int": s})),
            Node::Float(f) => Some(json!({"float": format!("{:016x}", f.to_bits())})),
            Node::Str(s) => Some(json!({"str": s})),
            Node::Bytes { start, len } => {
                let s = usize::try_from(*start).unwrap();
                let b = &self.file[s..s + usize::try_from(*len).unwrap()];
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                Some(json!({"bytes": hex}))
            }
            Node::Global { module, name } => Some(json!({"global": [module, name]})),
            Node::Buffer { index, readonly } => {
                Some(json!({"buffer": index, "readonly": readonly}))
            }
            _ => None,
        };
        if let Some(j) = leaf {
            return j;
        }
        if !self.path.insert(id) {
            return json!({"cycle": true});
        }
        let out = match node {
            Node::Tuple(v) => json!({"tuple": self.ids(v)}),
            Node::List(v) => json!({"list": self.ids(v)}),
            Node::Dict(v) => json!({"dict": self.pairs(v)}),
            Node::Set(v) => json!({"set": self.sorted(v)}),
            Node::FrozenSet(v) => json!({"frozenset": self.sorted(v)}),
            Node::Persistent(pid) => json!({"persistent": self.node(*pid)}),
            Node::Call {
                callable,
                args,
                kwargs,
                kind,
                items,
                list,
                state,
                ..
            } => {
                let mut o = serde_json::Map::new();
                if *kind == CallKind::Wrapped {
                    o.insert("wrapped".into(), self.node(*callable));
                } else {
                    o.insert("call".into(), self.node(*callable));
                    o.insert("args".into(), self.node(*args));
                    o.insert("new".into(), J::Bool(self.is_new(*kind, *callable, *args)));
                    let kw = kwargs.filter(|&k| p.dict_of(k).is_none_or(|d| !d.is_empty()));
                    if let Some(k) = kw {
                        o.insert("kwargs".into(), self.node(k));
                    }
                }
                o.insert("items".into(), J::Array(self.pairs(items)));
                o.insert("list".into(), J::Array(self.ids(list)));
                if let Some(s) = state {
                    o.insert("state".into(), self.node(*s));
                }
                J::Object(o)
            }
            _ => unreachable!(),
        };
        self.path.remove(&id);
        out
    }
}

/// The tree as JSON text. The renderer recurses (simple to compare with the script's), so it
/// runs on a thread with a stack for the fixtures' 400-deep lists in a debug build.
fn render(p: &Pickle, file: &[u8]) -> String {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, || {
                let mut r = Render {
                    p,
                    file,
                    path: HashSet::new(),
                };
                serde_json::to_string(&r.node(p.root)).unwrap()
            })
            .unwrap()
            .join()
            .unwrap()
    })
}

/// Where two long texts first differ, for a readable failure.
fn first_difference(a: &str, b: &str) -> String {
    let i = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let around = |s: &str| -> String {
        s.char_indices()
            .filter(|&(k, _)| k + 80 >= i && k <= i + 80)
            .map(|(_, c)| c)
            .collect()
    };
    format!(
        "at byte {i}:\n  ours:   {}\n  python: {}",
        around(a),
        around(b)
    )
}

fn imports_json(p: &Pickle) -> Vec<J> {
    p.globals
        .iter()
        .map(|g| {
            json!({"module": g.module, "name": g.name, "offset": g.offset, "opcode": g.opcode,
                   "calls": g.calls})
        })
        .collect()
}

// --- against Python ---------------------------------------------------------------------------

#[test]
fn opcode_table_is_pickletools() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let want: Vec<(u64, String, u64)> = doc["opcodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o[0].as_u64().unwrap(),
                o[1].as_str().unwrap().to_string(),
                o[2].as_u64().unwrap(),
            )
        })
        .collect();
    let got: Vec<(u64, String, u64)> = ops::OPCODES
        .iter()
        .map(|o| (u64::from(o.code), o.name.to_string(), u64::from(o.proto)))
        .collect();
    assert_eq!(got, want);
    for b in 0..=255u8 {
        assert_eq!(
            ops::name(b),
            ops::OPCODES.iter().find(|o| o.code == b).map(|o| o.name)
        );
    }
}

#[test]
fn every_fixture_reads_as_python_reads_it() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let files = doc["files"].as_array().unwrap();
    assert!(files.len() >= 40, "{} fixtures", files.len());
    let mut compared = 0;
    for f in files {
        let name = f["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let mut base = 0u64;
        for (k, want) in f["pickles"].as_array().unwrap().iter().enumerate() {
            let label = format!("{name} pickle {k}");
            assert_eq!(want["start"].as_u64(), Some(base), "{label}: start");
            let rest = &bytes[usize::try_from(base).unwrap()..];
            let (p, err) = parse_partial(rest, base, &Limits::DEFAULT);
            assert_eq!(
                imports_json(&p),
                want["imports"].as_array().unwrap().clone(),
                "{label}: imports"
            );
            match want["value"].as_str() {
                Some(value) => {
                    assert!(err.is_none(), "{label}: {}", err.unwrap());
                    assert_eq!(
                        u64::from(p.protocol),
                        want["protocol"].as_u64().unwrap(),
                        "{label}"
                    );
                    assert_eq!(Some(p.end), want["end"].as_u64(), "{label}: end");
                    let ours = render(&p, &bytes);
                    assert!(
                        ours == value,
                        "{label}: value differs {}",
                        first_difference(&ours, value)
                    );
                    compared += 1;
                    base = p.end;
                }
                None => {
                    let e = err.unwrap_or_else(|| {
                        panic!("{label}: Python fails ({}), we read it", want["error"])
                    });
                    // Python stops at the same opcode.
                    assert!(
                        e.offset >= base && e.offset < base + rest.len() as u64,
                        "{label}: {e}"
                    );
                }
            }
        }
    }
    assert!(compared >= 40, "{compared} values compared");
}

#[test]
fn verdicts_against_picklescan_and_fickling() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    // (import, picklescan's level, ours) -> files; (file, fickling's severity, ours).
    let mut by_global: std::collections::BTreeMap<(String, String, String), usize> =
        Default::default();
    let mut fickling_rows = Vec::new();
    let (mut ours_n, mut ps_n, mut fk_n) = (0, 0, 0);
    for f in doc["files"].as_array().unwrap() {
        let name = f["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let mut verdicts: HashMap<(String, String), Verdict> = HashMap::new();
        let mut base = 0u64;
        let mut worst = Verdict::Safe;
        for _ in f["pickles"].as_array().unwrap() {
            let rest = &bytes[usize::try_from(base).unwrap()..];
            let (p, err) = parse_partial(rest, base, &Limits::DEFAULT);
            for g in &p.globals {
                verdicts.insert((g.module.clone(), g.name.clone()), g.verdict);
            }
            worst = worst.max(p.verdict());
            if err.is_some() {
                break;
            }
            base = p.end;
        }
        let ps = f["picklescan"]["dangerous"].as_bool().unwrap();
        let fk = f["fickling"]["dangerous"].as_bool().unwrap();
        let malicious = f["intent"] == "malicious";
        ours_n += usize::from(worst == Verdict::Dangerous);
        ps_n += usize::from(ps);
        fk_n += usize::from(fk);
        if ps || fk || malicious {
            assert_eq!(
                worst,
                Verdict::Dangerous,
                "{name}: picklescan {ps}, fickling {fk}, intent {}",
                f["intent"]
            );
        } else {
            assert_ne!(
                worst,
                Verdict::Dangerous,
                "{name}: benign, flagged here only"
            );
        }
        // Every global picklescan calls dangerous is Dangerous here, its innocuous ones Safe.
        for g in f["picklescan"]["globals"].as_array().unwrap() {
            let key = (
                g[0].as_str().unwrap().to_string(),
                g[1].as_str().unwrap().to_string(),
            );
            let level = g[2].as_str().unwrap();
            let ours = verdicts.get(&key).copied();
            match level {
                "dangerous" => assert_eq!(ours, Some(Verdict::Dangerous), "{name}: {key:?}"),
                "innocuous" => assert_eq!(ours, Some(Verdict::Safe), "{name}: {key:?}"),
                _ => {}
            }
            let same = matches!(
                (level, ours),
                ("dangerous", Some(Verdict::Dangerous))
                    | ("innocuous", Some(Verdict::Safe))
                    | ("suspicious", Some(Verdict::Unknown))
            );
            if !same {
                let k = (
                    format!("{}.{}", key.0, key.1),
                    level.to_string(),
                    format!("{ours:?}"),
                );
                *by_global.entry(k).or_default() += 1;
            }
        }
        if fk != (worst == Verdict::Dangerous) {
            fickling_rows.push(format!(
                "  {name}: fickling {}, here {worst:?}",
                f["fickling"]["severity"]
            ));
        }
    }
    let rows: Vec<String> = by_global
        .iter()
        .map(|((g, level, ours), n)| format!("  {g}: picklescan {level}, here {ours} ({n} files)"))
        .collect();
    eprintln!(
        "dangerous files: here {ours_n}, picklescan {ps_n}, fickling {fk_n}\nimports judged otherwise than picklescan:\n{}\nfiles judged otherwise than fickling:\n{}",
        rows.join("\n"),
        fickling_rows.join("\n")
    );
}

/// Issue #24 item 2: the checkpoints calling third-party code-execution sinks (YAML loaders,
/// expression evaluators, template engines, native-library loaders, …) are dangerous in the
/// CLI (`--check` exits 1, `--json` has the pickle-dangerous finding naming the sink); their
/// harmless neighbours and a plain state dict are not. picklescan's and fickling's verdicts on
/// the same files are printed beside ours.
#[test]
fn sink_checkpoints_are_dangerous_in_the_cli() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    let Some(rows) = doc["checkpoints"].as_array() else {
        panic!("expected.json has no checkpoints: rerun tests/reference/pickle_cases.py")
    };
    let mut table = Vec::new();
    let mut sinks = 0;
    for c in rows {
        let file = c["file"].as_str().unwrap();
        let (code, codes) = common::cli_check_codes(&dir.join(file));
        let dangerous = codes.iter().any(|c| c == "pickle-dangerous");
        if c["intent"] == "malicious" {
            sinks += 1;
            assert!(dangerous, "{file}: {codes:?}");
            assert_eq!(code, 1, "{file}: --check exit");
        } else {
            assert!(!dangerous, "{file}: benign, dangerous here");
            assert_eq!(code, 0, "{file}: --check exit");
        }
        table.push(format!(
            "  {file}: here {}, picklescan {}, fickling {}",
            if dangerous {
                "dangerous"
            } else {
                "not dangerous"
            },
            c["picklescan"]["dangerous"],
            c["fickling"]["severity"]
        ));
    }
    eprintln!(
        "sink checkpoints (ours, picklescan, fickling):\n{}",
        table.join("\n")
    );
    assert!(sinks >= 20, "{sinks} sink checkpoints");
}

#[test]
fn truncated_malicious_fixtures_keep_their_imports() {
    let Some(dir) = fixtures() else { return };
    let doc = expected(&dir);
    for f in doc["files"].as_array().unwrap() {
        if f["intent"] != "malicious" {
            continue;
        }
        let name = f["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        // With a bad opcode for its STOP, Python runs every call and then fails (a frame
        // keeps its length, so it is read first); the report still has them all.
        let mut cut = bytes.clone();
        if f["pickles"][0]["end"].is_null() {
            continue; // already damaged
        }
        *cut.last_mut().unwrap() = 0xff;
        let (p, err) = parse_partial(&cut, 0, &Limits::DEFAULT);
        assert!(err.is_some(), "{name}");
        assert_eq!(p.verdict(), Verdict::Dangerous, "{name}: {:?}", p.globals);
        let want = f["pickles"][0]["imports"].as_array().unwrap();
        assert_eq!(imports_json(&p), want.clone(), "{name}");
    }
}

// --- hostile inputs --------------------------------------------------------------------------

/// A protocol-2 state dict as torch.save writes it, by hand: OrderedDict, SETITEMS, two
/// tensors sharing a persistent storage, BUILD with `_metadata`, and most binary opcodes.
fn state_dict_p2() -> Vec<u8> {
    let mut b =
        b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01(X\x06\x00\x00\x00weightq\x02".to_vec();
    b.extend_from_slice(b"ctorch._utils\n_rebuild_tensor_v2\nq\x03((X\x07\x00\x00\x00storageq\x04");
    b.extend_from_slice(
        b"ctorch\nFloatStorage\nq\x05X\x01\x00\x00\x000q\x06X\x03\x00\x00\x00cpuq\x07K\x0ctq\x08Q",
    );
    b.extend_from_slice(b"K\x00K\x03K\x04\x86q\tK\x04K\x01\x86q\n\x89h\x00)Rq\x0btq\x0cRq\r");
    b.extend_from_slice(
        b"X\x04\x00\x00\x00biasq\x0eh\x03(h\x08QK\x04K\x04\x85K\x01\x85\x88h\x00)Rtq\x0fR",
    );
    b.extend_from_slice(b"X\x01\x00\x00\x00nq\x10\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00");
    b.extend_from_slice(
        b"X\x01\x00\x00\x00fG?\xf8\x00\x00\x00\x00\x00\x00u}q\x11X\t\x00\x00\x00_metadataq\x12}sb.",
    );
    b
}

#[test]
fn the_hand_built_state_dict_reads() {
    let b = state_dict_p2();
    let p = parse(&b, 0, &Limits::DEFAULT).unwrap();
    assert_eq!(p.end, b.len() as u64);
    assert_eq!(p.protocol, 2);
    let d = p.dict_of(p.root).unwrap();
    let keys: Vec<&str> = d.iter().map(|&(k, _)| p.str_of(k).unwrap()).collect();
    assert_eq!(keys, ["weight", "bias", "n", "f"]);
    let Some(Node::Call { state: Some(_), .. }) = p.node(p.root) else {
        panic!("BUILD state on the OrderedDict")
    };
    assert_eq!(
        p.node(d[2].1),
        Some(&Node::BigInt("9223372036854775808".into()))
    );
    assert_eq!(p.node(d[3].1), Some(&Node::Float(1.5)));
    let names: Vec<String> = p
        .globals
        .iter()
        .map(|g| format!("{}.{}", g.module, g.name))
        .collect();
    assert_eq!(
        names,
        [
            "collections.OrderedDict",
            "torch._utils._rebuild_tensor_v2",
            "torch.FloatStorage"
        ]
    );
    assert!(p.globals.iter().all(|g| g.verdict == Verdict::Safe));
    assert_eq!(p.globals[0].calls.len(), 3);
    assert_eq!(p.globals[1].calls.len(), 2);
    assert!(p.globals[2].calls.is_empty());
    // Both tensors' storages are persistent ids with the same tuple (BINGET of the memoized
    // pid), a node shared, not copied.
    let pid = |k: usize| match p.node(d[k].1) {
        Some(Node::Call { args, .. }) => match p.node(p.items_of(*args).unwrap()[0]) {
            Some(Node::Persistent(pid)) => *pid,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(pid(0), pid(1));
    assert_eq!(p.str_of(p.items_of(pid(0)).unwrap()[3]), Some("cpu"));
}

#[test]
fn every_truncation_is_an_error_with_an_offset() {
    // Every prefix of the small ones; of the values of every kind (tens of KB, every opcode
    // of its protocol) every prefix up to 4 KiB and then every 61st.
    let mut inputs = vec![(state_dict_p2(), 1)];
    if let Some(dir) = fixtures() {
        for (f, step) in [
            ("torch-state-dict-p2.pkl", 1),
            ("torch-state-dict-p4.pkl", 1),
            ("torch-checkpoint-p2.pkl", 1),
            ("text-p0.pkl", 1),
            ("values-p0.pkl", 61),
            ("values-p2.pkl", 61),
            ("values-p5.pkl", 61),
        ] {
            inputs.push((std::fs::read(dir.join(f)).unwrap(), step));
        }
    }
    for (full, step) in &inputs {
        let whole = parse(full, 500, &Limits::DEFAULT).unwrap();
        let cuts = (0..full.len()).filter(|&n| n < 4096 || n % step == 0);
        for n in cuts {
            let (p, err) = parse_partial(&full[..n], 500, &Limits::DEFAULT);
            let e = err.unwrap_or_else(|| panic!("a {n}-byte prefix parsed"));
            assert!(e.offset >= 500 && e.offset <= 500 + n as u64, "{n}: {e}");
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                ),
                "{n}: {e}"
            );
            // What was read before the cut is what the whole pickle has there.
            assert!(p.globals.len() <= whole.globals.len());
            for (a, b) in p.globals.iter().zip(&whole.globals) {
                assert_eq!(
                    (&a.module, &a.name, a.offset),
                    (&b.module, &b.name, b.offset)
                );
            }
        }
    }
}

fn err_of(b: &[u8], limits: &Limits) -> weightpeek::format::Error {
    match parse(b, 0, limits) {
        Ok(p) => panic!("parsed: {:?}", p.nodes.len()),
        Err(e) => e,
    }
}

#[test]
fn huge_lengths_are_refused_before_allocating() {
    for (op, name) in [
        (0x8e, "BINBYTES8"),
        (0x8d, "BINUNICODE8"),
        (0x96, "BYTEARRAY8"),
    ] {
        let mut b = vec![0x80, 4, op];
        b.extend_from_slice(&(1u64 << 63).to_le_bytes());
        b.push(b'.');
        let e = err_of(&b, &Limits::DEFAULT);
        assert_eq!(e.offset, 2, "{name}");
        assert!(e.field.contains(name), "{e}");
        assert!(
            matches!(e.kind, ErrorKind::CountTooLarge { count, max: 1, .. } if count == 1 << 63),
            "{e}"
        );
    }
    let mut b = vec![0x80, 2, 0x8b];
    b.extend_from_slice(&0x7fff_ffffi32.to_le_bytes());
    let e = err_of(&b, &Limits::DEFAULT);
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                count: 0x7fff_ffff,
                ..
            }
        ),
        "{e}"
    );
    let mut b = vec![0x80, 2, 0x8b];
    b.extend_from_slice(&(-5i32).to_le_bytes());
    assert!(matches!(
        err_of(&b, &Limits::DEFAULT).kind,
        ErrorKind::Invalid(_)
    ));
    // A value within the bytes but above the limit for one value.
    let small = Limits {
        max_bytes_value: 4,
        ..Limits::DEFAULT
    };
    let e = err_of(b"C\x05abcde.", &small);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("max_bytes_value")),
        "{e}"
    );
}

#[test]
fn deep_nesting_is_too_deep_not_a_stack_overflow() {
    let marks = vec![b'('; 100_000];
    let e = err_of(&marks, &Limits::DEFAULT);
    assert!(matches!(e.kind, ErrorKind::TooDeep(1000)), "{e}");
    assert_eq!(e.offset, 1000);
    // ]]]]…aaaa: each list appended into the one below it.
    let mut lists = vec![b']'; 100_000];
    lists.extend(vec![b'a'; 99_999]);
    lists.push(b'.');
    let e = err_of(&lists, &Limits::DEFAULT);
    assert!(matches!(e.kind, ErrorKind::TooDeep(1000)), "{e}");
    // (]( ]… : lists inside MARKs, closed by LIST.
    let mut b = Vec::new();
    for _ in 0..50_000 {
        b.extend_from_slice(b"(]");
    }
    b.extend(vec![b'l'; 50_000]);
    b.push(b'.');
    assert!(matches!(
        err_of(&b, &Limits::DEFAULT).kind,
        ErrorKind::TooDeep(_)
    ));
    // Within the limit it reads, and dropping the tree does not recurse.
    let mut ok = vec![b']'; 900];
    ok.extend(vec![b'a'; 899]);
    ok.push(b'.');
    let p = parse(&ok, 0, &Limits::DEFAULT).unwrap();
    assert_eq!(p.nodes.len(), 900);
    // 100,000 lists side by side on the stack are not deep.
    let mut wide = vec![b']'; 100_000];
    wide.push(b'.');
    assert_eq!(parse(&wide, 0, &Limits::DEFAULT).unwrap().root, 99_999);
}

#[test]
fn memo_keys() {
    for b in [
        &b"\x80\x02h\x05."[..],
        b"\x80\x02j\xff\xff\xff\xff.",
        b"g12\n.",
        b"N\x94h\x01.",
    ] {
        let e = err_of(b, &Limits::DEFAULT);
        assert!(
            matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("never stored")),
            "{e}"
        );
    }
    // The largest LONG_BINPUT key is just a key (Python's C unpickler would allocate 2^32
    // memo slots).
    let p = parse(
        b"\x80\x02K\x07r\xff\xff\xff\xff0j\xff\xff\xff\xff.",
        0,
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(p.int_of(p.root), Some(7));
    let e = err_of(b"K\x01p-1\n.", &Limits::DEFAULT);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("negative")),
        "{e}"
    );
    let few = Limits {
        max_memo: 3,
        ..Limits::DEFAULT
    };
    let e = err_of(b"N\x94\x94\x94\x94.", &few);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("max_memo")),
        "{e}"
    );
    // A key PUT again is not a new key.
    parse(b"Nq\x01q\x01q\x01q\x01.", 0, &few).unwrap();
}

#[test]
fn a_million_appends_are_bounded() {
    // The memoized list appended to itself a million times: a million entries, one node.
    let mut b = b"\x80\x02]q\x00".to_vec();
    for _ in 0..1_000_000 {
        b.extend_from_slice(b"h\x00a");
    }
    b.push(b'.');
    let p = parse(&b, 0, &Limits::DEFAULT).unwrap();
    assert_eq!(p.items_of(p.root).unwrap().len(), 1_000_000);
    assert!(p.items_of(p.root).unwrap().iter().all(|&i| i == p.root));
    // Past the budget of values and entries, an error naming the limit.
    // (each append is a value and an entry: two)
    let mut b = b"\x80\x02]q\x00".to_vec();
    for _ in 0..Limits::DEFAULT.max_nodes / 2 + 100_000 {
        b.extend_from_slice(b"K\x01a");
    }
    b.push(b'.');
    let e = err_of(&b, &Limits::DEFAULT);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("max_nodes")),
        "{e}"
    );
    let tiny = Limits {
        max_nodes: 1000,
        ..Limits::DEFAULT
    };
    let mut b = b"]".to_vec();
    for _ in 0..1000 {
        b.extend_from_slice(b"2");
    }
    let e = err_of(&b, &tiny);
    assert!(
        matches!(&e.kind, ErrorKind::Invalid(w) if w.contains("stack")),
        "{e}"
    );
}

#[test]
fn frames_stops_and_unknown_opcodes() {
    let mut b = vec![0x80, 4, 0x95];
    b.extend_from_slice(&100u64.to_le_bytes());
    b.extend_from_slice(b"N.");
    let e = err_of(&b, &Limits::DEFAULT);
    assert!(e.field.contains("FRAME"), "{e}");
    assert!(
        matches!(
            e.kind,
            ErrorKind::Truncated {
                needed_end: 111,
                file_size: 13
            }
        ),
        "{e}"
    );
    let mut b = vec![0x80, 4, 0x95];
    b.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        err_of(&b, &Limits::DEFAULT).kind,
        ErrorKind::Truncated { .. }
    ));
    let e = parse(b"\x80\x02N", 40, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.to_string(), "pickle (no STOP opcode) at byte 43: the file ends at byte 43 but this field needs bytes up to 44 (truncated or damaged file)");
    let e = parse(b"\x80\x02N\xff.", 40, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.offset, 43);
    assert_eq!(e.field, "pickle opcode 0xff");
    let e = err_of(b"\x80\x06N.", &Limits::DEFAULT);
    assert!(
        e.to_string().contains("unsupported pickle protocol 6"),
        "{e}"
    );
    assert!(parse(b"", 0, &Limits::DEFAULT).is_err());
    // Bytes after STOP are not read.
    let p = parse(b"K\x01.\xff\xff", 7, &Limits::DEFAULT).unwrap();
    assert_eq!(p.end, 10);
    // Offsets near the top of u64 are refused, not wrapped.
    assert!(matches!(
        parse(b"N.", u64::MAX - 1, &Limits::DEFAULT)
            .unwrap_err()
            .kind,
        ErrorKind::Overflow(_)
    ));
}

#[test]
fn a_dangerous_import_that_is_only_imported_has_no_calls() {
    let p = parse(
        b"\x80\x02}X\x01\x00\x00\x00fcposix\nsystem\ns.",
        0,
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(p.globals.len(), 1);
    assert_eq!(p.globals[0].verdict, Verdict::Dangerous);
    assert!(p.globals[0].calls.is_empty());
    let p = parse(
        b"cposix\nsystem\nq\x00(X\x01\x00\x00\x00xtRh\x00)R.",
        0,
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(p.globals[0].calls, [24, 28]);
    assert_eq!(pickle::verdict("posix", "system").1, p.globals[0].why);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        let (p, err) = parse_partial(&b, 3, &Limits::DEFAULT);
        if let Some(e) = err {
            prop_assert!(e.offset >= 3 && e.offset <= 3 + b.len() as u64 + 1);
        } else {
            prop_assert!(p.end <= 3 + b.len() as u64);
        }
    }

    #[test]
    fn mutated_pickles_never_panic(i in 0usize..400, v in any::<u8>(), cut in 0usize..400) {
        let mut b = state_dict_p2();
        let i = i % b.len();
        b[i] = v;
        b.truncate(cut.max(1).min(b.len()));
        let _ = parse_partial(&b, 0, &Limits::DEFAULT);
    }
}
