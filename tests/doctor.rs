//! The doctor's findings (issue #14): every file `tests/reference/doctor_fixtures.py` crafts with
//! gguf-py's GGUFWriter gives exactly the finding it was built for (the clean one none), and the
//! real files give only the findings that are real by llama.cpp's loader rules.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use weightpeek::check::{check_one_file as check, Finding};

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_DOCTOR_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/doctor-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

fn codes(findings: &[Finding]) -> Vec<&'static str> {
    let mut c: Vec<_> = findings.iter().map(|f| f.code).collect();
    c.sort_unstable();
    c
}

#[test]
fn each_crafted_file_gives_exactly_its_finding() {
    let Some(dir) = fixtures() else { return };
    let doc: Json =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let cases = doc["doctor"].as_array().unwrap();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for case in cases {
        let file = dir.join(case["file"].as_str().unwrap());
        // check() reads only the header bytes already held: no source is passed to it.
        let (m, _) = common::open_model(&file);
        let f = check(&m);
        let mut want: Vec<&str> = case["codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        want.sort_unstable();
        assert_eq!(
            codes(&f),
            want,
            "{} ({}): {f:#?}",
            case["case"],
            case["what"]
        );
        for x in &f {
            assert!(
                x.offset.is_some(),
                "{}: {} names no byte offset",
                case["case"],
                x.code
            );
        }
    }
}

/// The real findings, each checked by hand against llama.cpp's `llama_vocab::impl::load`:
/// gpt-neox and the v2 falcon file predate `tokenizer.ggml.pre` (llama.cpp: "missing
/// pre-tokenizer type ... GENERATION QUALITY WILL BE DEGRADED"); deepseek-coder types its three
/// FIM tokens USER_DEFINED and the v2 falcon file its `<|endoftext|>` NORMAL, which llama.cpp
/// overrides to CONTROL with "this is probably a bug in the model".
const REAL: &[(&str, &[&str])] = &[
    ("ggml-vocab-deepseek-coder.gguf", &["special-token-type"]),
    ("ggml-vocab-gpt-neox.gguf", &["pre-tokenizer-missing"]),
    (
        "ggml-vocab-falcon.v2.gguf",
        &["pre-tokenizer-missing", "special-token-type"],
    ),
];

#[test]
fn real_files_give_only_real_findings() {
    let vocab = common::shared_dir().join("data/vocab");
    let Some(_) = common::real_file(vocab.join("ggml-vocab-phi-3.gguf")) else {
        return;
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for d in [vocab.clone(), vocab.join("history")] {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "gguf") {
                files.push(p);
            }
        }
    }
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf"));
    if let Some(g) = common::real_file(common::data_dir().join("gemma-3-270m-q4_k_m.gguf")) {
        files.push(g);
    }
    files.sort();
    assert_eq!(files.len(), 16, "{files:?}");
    let mut templates = 0;
    for p in &files {
        let (m, _) = common::open_model(p);
        templates += m
            .metadata
            .iter()
            .filter(|e| e.key.starts_with("tokenizer.chat_template"))
            .count();
        let name = p.file_name().unwrap().to_str().unwrap();
        let got: Vec<&str> = codes(&check(&m))
            .into_iter()
            .filter(|c| weightpeek::check::doctor::is_doctor_code(c))
            .collect();
        let want: Vec<&str> = REAL
            .iter()
            .find(|(f, _)| *f == name)
            .map_or(vec![], |(_, c)| c.to_vec());
        assert_eq!(got, want, "{name}");
    }
    // The one real chat template (phi-3's) is scanned and clean.
    assert_eq!(templates, 1);
}

/// Every real GGUF file (the shared vocabularies, their history, the damaged one, Gemma) and
/// every crafted doctor file.
fn every_gguf_file() -> Vec<PathBuf> {
    let data = common::shared_dir().join("data");
    let mut files = Vec::new();
    let mut dirs = vec![data];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "gguf") {
                files.push(p);
            }
        }
    }
    files.extend(common::real_file(
        common::data_dir().join("gemma-3-270m-q4_k_m.gguf"),
    ));
    if let Some(dir) = fixtures() {
        files.extend(
            std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "gguf")),
        );
    }
    files.sort();
    files
}

/// The page draws a model with `summarize_open` and adds the doctor's findings after the first
/// view (issue #23): the findings it then shows are exactly `summarize`'s and `check`'s, in the
/// same order, for every real and crafted file; the first view holds every finding but the
/// doctor's, in the same order too.
#[test]
fn lazily_added_doctor_findings_equal_the_eager_ones() {
    use weightpeek::check::doctor::{doctor_findings, is_doctor_code};
    use weightpeek::summary::{summarize, summarize_open};
    let files = every_gguf_file();
    assert!(files.len() >= 12, "{} files", files.len());
    let mut with_doctor = 0;
    for file in &files {
        let (m, _) = common::open_model(file);
        let eager = summarize(&m);
        let mut lazy = summarize_open(&m);
        let container: Vec<&Finding> = eager
            .findings
            .iter()
            .filter(|f| !is_doctor_code(f.code))
            .collect();
        assert_eq!(
            lazy.findings.iter().collect::<Vec<_>>(),
            container,
            "{}",
            file.display()
        );
        lazy.add_doctor(&m);
        assert_eq!(lazy, eager, "{}", file.display());
        assert_eq!(eager.findings, check(&m), "{}", file.display());
        // The doctor's findings, in the doctor's order within each severity.
        let mut doctor = Vec::new();
        doctor_findings(&m, &mut doctor);
        doctor.sort_by_key(|f| f.severity);
        let shown: Vec<&Finding> = eager
            .findings
            .iter()
            .filter(|f| is_doctor_code(f.code))
            .collect();
        assert_eq!(
            shown,
            doctor.iter().collect::<Vec<_>>(),
            "{}",
            file.display()
        );
        with_doctor += usize::from(!doctor.is_empty());
    }
    // The crafted files each carry a doctor finding (the clean one aside).
    if fixtures().is_some() {
        assert!(
            with_doctor >= 10,
            "{with_doctor} files with doctor findings"
        );
    }
}
