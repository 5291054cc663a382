//! The one engine (issue #10): files given together open as one model when they form a set, a
//! part alone says so, an index alone lists its shards, strays are reported and not merged.
//! Crafted sets (expected values from their construction) through an in-memory opener, and
//! the generated reference sets (gguf-py's split writer, safetensors' save_file) from disk.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{GgufBuilder, W};
use weightpeek::open::findings::check;
use weightpeek::open::native::LocalOpener;
use weightpeek::open::read::{open, OpenError, Opener, Options};
use weightpeek::source::{block_on_ready, ByteSource, ReadPolicy, SourceError};
use weightpeek::summary::summarize;

/// Files in memory by name; `visible` says which count as found beside the given ones.
struct MemFiles {
    files: HashMap<String, Vec<u8>>,
    siblings_visible: bool,
}

struct Owned(Vec<u8>);

impl ByteSource for Owned {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= self.0.len() as u64);
        match end {
            Some(e) => Ok(self.0[offset as usize..e as usize].to_vec()),
            None => Err(SourceError::OutOfBounds {
                offset,
                len,
                size: self.size(),
            }),
        }
    }
}

impl Opener for MemFiles {
    type Source = Owned;

    fn policy(&self) -> ReadPolicy {
        ReadPolicy::LOCAL
    }

    fn available(&self, name: &str) -> bool {
        self.siblings_visible && self.files.contains_key(name)
    }

    async fn open(&self, name: &str, _first: u64) -> Result<Owned, SourceError> {
        self.files
            .get(name)
            .map(|b| Owned(b.clone()))
            .ok_or_else(|| SourceError::Unavailable(format!("{name}: no such file")))
    }

    async fn read_all(&self, name: &str, _cap: u64) -> Result<Vec<u8>, SourceError> {
        self.open(name, 0).await.map(|o| o.0)
    }
}

const PARTS: [&str; 3] = [
    "m-00001-of-00003.gguf",
    "m-00002-of-00003.gguf",
    "m-00003-of-00003.gguf",
];

/// Part `no` (0-based) of a 3-part split whose parts hold 2, 3 and 1 tensors.
fn split_part(no: usize) -> (Vec<u8>, usize) {
    let per = [2usize, 3, 1];
    let total: usize = per.iter().sum();
    let mut b = GgufBuilder::new(3)
        .kv("split.no", W::U16(no as u16))
        .kv("split.count", W::U16(3))
        .kv("split.tensors.count", W::I32(total as i32));
    if no == 0 {
        b = b.kv("general.architecture", W::s("llama"));
    }
    for i in 0..per[no] {
        b = b.tensor(&format!("t{no}.{i}"), &[8, 4], 0, i as u64 * 128);
    }
    b.data_len = 128 * per[no] as u64;
    (b.build(), per[no])
}

fn split_files() -> (HashMap<String, Vec<u8>>, Vec<usize>) {
    let mut files = HashMap::new();
    let mut counts = Vec::new();
    for (i, n) in PARTS.iter().enumerate() {
        let (bytes, count) = split_part(i);
        files.insert(n.to_string(), bytes);
        counts.push(count);
    }
    (files, counts)
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn codes(m: &weightpeek::open::OpenedModel) -> Vec<&'static str> {
    check(m).iter().map(|f| f.code).collect()
}

#[test]
fn all_parts_given_in_any_order_open_as_one_model() {
    let (files, counts) = split_files();
    let o = MemFiles {
        files,
        siblings_visible: false,
    };
    let given = names(&[PARTS[2], PARTS[0], PARTS[1]]);
    let opened = block_on_ready(open(&o, &given, Options::default())).unwrap();
    let m = &opened.model;
    assert_eq!(m.parts.len(), 3);
    assert_eq!(m.tensors.len(), counts.iter().sum::<usize>());
    let part_names: Vec<&str> = m.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(part_names, PARTS);
    let set = m.set.as_ref().unwrap();
    assert!(set.complete(), "{set:?}");
    assert_eq!(set.model_tensors, Some(counts.iter().sum::<usize>() as u64));
    assert_eq!(opened.sources.len(), 3);
    assert_eq!(opened.name, format!("{} (3 parts)", PARTS[0]));
    assert!(
        codes(m).iter().all(|c| !c.starts_with("set-")),
        "{:?}",
        codes(m)
    );
}

#[test]
fn a_part_alone_is_this_files_totals_and_names_the_missing() {
    let (files, counts) = split_files();
    let o = MemFiles {
        files,
        siblings_visible: false,
    };
    let opened = block_on_ready(open(&o, &names(&[PARTS[0]]), Options::default())).unwrap();
    let m = &opened.model;
    assert!(m.parts.is_empty(), "a part alone keeps its own offsets");
    assert_eq!(m.tensors.len(), counts[0]);
    let set = m.set.as_ref().unwrap();
    assert!(!set.complete());
    assert_eq!(set.files_expected, 3);
    assert_eq!(set.files_read, [PARTS[0]]);
    assert_eq!(set.missing, [PARTS[1], PARTS[2]]);
    assert_eq!(set.model_tensors, Some(counts.iter().sum::<usize>() as u64));
    assert_eq!(opened.name, PARTS[0]);
    assert!(codes(m).contains(&"set-incomplete"));
    let s = summarize(m);
    let f = weightpeek::view::facts::summary_facts(&s, m);
    assert_eq!(f[0].label, "set");
    assert_eq!(f[0].text, "part 1 of 3");
    let detail = f[0].detail.as_deref().unwrap();
    assert!(
        detail.starts_with(&format!(
            "{} of the model's {} tensors are in this file",
            counts[0],
            counts.iter().sum::<usize>()
        )),
        "{detail}"
    );
    assert!(
        detail.contains(PARTS[1]) && detail.contains(PARTS[2]),
        "{detail}"
    );
    assert!(f.iter().any(|x| x.label == "parameters in this file"));

    // The same part with its siblings on disk (the CLI): the whole set is read.
    let (files, counts) = split_files();
    let o = MemFiles {
        files,
        siblings_visible: true,
    };
    let opened = block_on_ready(open(&o, &names(&[PARTS[1]]), Options::default())).unwrap();
    assert_eq!(opened.model.tensors.len(), counts.iter().sum::<usize>());
    assert!(opened.model.set.as_ref().unwrap().complete());
}

fn st_file(tensors: &[&str]) -> Vec<u8> {
    let mut json = String::from("{");
    for (i, name) in tensors.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"{name}\":{{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[{},{}]}}",
            i * 16,
            i * 16 + 16
        ));
    }
    json.push('}');
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.resize(b.len() + tensors.len() * 16, 0);
    b
}

fn shard_files() -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    files.insert(
        "d/model-00001-of-00002.safetensors".to_string(),
        st_file(&["a", "b"]),
    );
    files.insert(
        "d/model-00002-of-00002.safetensors".to_string(),
        st_file(&["c"]),
    );
    files.insert(
        "d/model.safetensors.index.json".to_string(),
        br#"{"metadata": {"total_size": 48}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00001-of-00002.safetensors", "c": "model-00002-of-00002.safetensors"}}"#.to_vec(),
    );
    files.insert(
        "other-00001-of-00002.safetensors".to_string(),
        st_file(&["x"]),
    );
    files
}

#[test]
fn index_with_shards_strays_and_an_index_alone() {
    let o = MemFiles {
        files: shard_files(),
        siblings_visible: false,
    };
    let given = names(&[
        "d/model-00002-of-00002.safetensors",
        "d/model.safetensors.index.json",
        "other-00001-of-00002.safetensors",
        "d/model-00001-of-00002.safetensors",
    ]);
    let opened = block_on_ready(open(&o, &given, Options::default())).unwrap();
    let m = &opened.model;
    let tensor_names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tensor_names, ["a", "b", "c"]);
    let set = m.set.as_ref().unwrap();
    assert!(set.complete(), "{set:?}");
    assert_eq!(set.model_tensors, Some(3));
    assert_eq!(set.index.as_deref(), Some("d/model.safetensors.index.json"));
    assert_eq!(set.strays.len(), 1);
    assert_eq!(set.strays[0].name, "other-00001-of-00002.safetensors");
    assert!(codes(m).contains(&"set-stray"));
    assert!(!codes(m).contains(&"set-incomplete"));

    // The index alone, nothing beside it: the shards to add.
    let o = MemFiles {
        files: shard_files(),
        siblings_visible: false,
    };
    let err = block_on_ready(open(
        &o,
        &names(&["d/model.safetensors.index.json"]),
        Options::default(),
    ))
    .err()
    .unwrap();
    assert_eq!(
        err,
        OpenError::IndexAlone {
            name: "d/model.safetensors.index.json".into(),
            shards: names(&[
                "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors"
            ]),
        }
    );
    assert!(err.to_string().contains("add the shard files"), "{err}");

    // Numbered shards without an index, one of them twice.
    let o = MemFiles {
        files: shard_files(),
        siblings_visible: false,
    };
    let given = names(&[
        "d/model-00001-of-00002.safetensors",
        "d/model-00002-of-00002.safetensors",
        "d/model-00001-of-00002.safetensors",
    ]);
    let opened = block_on_ready(open(&o, &given, Options::default())).unwrap();
    assert_eq!(opened.model.tensors.len(), 3);
    let set = opened.model.set.unwrap();
    assert!(set.complete());
    assert_eq!(set.strays[0].why, "given twice; read once");
}

#[test]
fn nothing_to_open_and_unreadable_parts() {
    let o = MemFiles {
        files: HashMap::new(),
        siblings_visible: false,
    };
    let err = block_on_ready(open(&o, &names(&["README.md"]), Options::default()))
        .err()
        .unwrap();
    assert_eq!(
        err,
        OpenError::NothingToOpen {
            ignored: names(&["README.md"])
        }
    );
    // A set whose parts are all unreadable.
    let err = block_on_ready(open(&o, &names(&[PARTS[0], PARTS[1]]), Options::default()))
        .err()
        .unwrap();
    assert!(matches!(err, OpenError::NoPart { .. }), "{err:?}");
    // Part 2 given but not readable, parts 1 and 3 fine: opened with part 2 reported
    // unreadable (it was given: not missing), and the set incomplete.
    let (mut files, counts) = split_files();
    files.remove(PARTS[1]);
    let o = MemFiles {
        files,
        siblings_visible: false,
    };
    let opened = block_on_ready(open(&o, &names(&PARTS), Options::default())).unwrap();
    assert_eq!(opened.model.tensors.len(), counts[0] + counts[2]);
    let set = opened.model.set.as_ref().unwrap();
    assert!(set.missing.is_empty());
    assert_eq!(set.unreadable[0].name, PARTS[1]);
    assert!(!set.complete());
    assert!(codes(&opened.model).contains(&"part-unreadable"));
    assert_eq!(opened.name, format!("{} (2 of 3 files)", PARTS[0]));

    // A file named as part 2 whose header has no split keys (another model): not merged.
    let (mut files, counts) = split_files();
    let other = GgufBuilder::new(3)
        .kv("general.architecture", W::s("other"))
        .tensor("x", &[8, 4], 0, 0);
    let mut other = other;
    other.data_len = 128;
    files.insert(PARTS[1].to_string(), other.build());
    let o = MemFiles {
        files,
        siblings_visible: false,
    };
    let opened = block_on_ready(open(&o, &names(&PARTS), Options::default())).unwrap();
    assert_eq!(opened.model.tensors.len(), counts[0] + counts[2]);
    let set = opened.model.set.as_ref().unwrap();
    assert_eq!(set.missing, [PARTS[1]]);
    assert_eq!(set.strays[0].name, PARTS[1]);
    assert!(
        set.strays[0].why.contains("no split.* keys"),
        "{}",
        set.strays[0].why
    );
}

/// The generated sets (tests/reference/remote_fixtures.py) opened from disk as the CLI does,
/// from one file: every part is found beside it, and the merged figures equal the reference.
#[test]
fn generated_sets_from_disk_equal_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/remote-fixtures");
    for (key, first) in [
        ("split-gguf", "split-gguf/tiny-llama-00001-of-00003.gguf"),
        (
            "sharded-safetensors",
            "sharded-safetensors/model.safetensors.index.json",
        ),
    ] {
        let Some(path) = common::real_file(root.join(first)) else {
            continue;
        };
        let reference: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join(format!("{key}.json"))).unwrap())
                .unwrap();
        let given = vec![path.display().to_string()];
        let opened = block_on_ready(open(&LocalOpener, &given, Options::default())).unwrap();
        let s = summarize(&opened.model);
        assert_eq!(
            Some(s.tensor_count),
            reference["tensor_count"].as_u64(),
            "{key}"
        );
        assert_eq!(
            Some(s.parameter_count),
            reference["parameter_count"].as_u64(),
            "{key}"
        );
        assert_eq!(
            Some(s.tensor_bytes),
            reference["tensor_bytes"].as_u64(),
            "{key}"
        );
        let parts: Vec<String> = opened
            .model
            .parts
            .iter()
            .map(|p| weightpeek::open::recognise::file_name(&p.name).to_string())
            .collect();
        let want: Vec<String> = reference["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        assert_eq!(parts, want, "{key}");
        assert!(opened.model.set.as_ref().unwrap().complete(), "{key}");
        // The generated sets are tiny stand-ins, not loadable llamas: the doctor's structure
        // findings about them are beside the point here.
        let bad: Vec<_> = check(&opened.model)
            .into_iter()
            .filter(|f| f.severity == weightpeek::check::Severity::Error)
            .filter(|f| !weightpeek::check::doctor::is_doctor_code(f.code))
            .collect();
        assert!(bad.is_empty(), "{key}: {bad:?}");
    }
}
