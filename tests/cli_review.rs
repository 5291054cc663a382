//! What a new user's review of the CLI found (issue #10), each pinned by a test: a FIFO is
//! refused without waiting for a writer; a URL that names no file says why; a bad HF_ENDPOINT
//! is named; config.json alone is not "no file"; a part from another folder is a stray and the
//! part beside part 1 is read; a renamed part says its own number; a tensor in a shard that
//! was not read names that shard; a closed stderr is no panic. Expected values come from the
//! generated sets' reference JSON.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn cli_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::run_cli(args, Some(dir), None)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wp-review-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixtures() -> Option<PathBuf> {
    common::remote_fixtures()
}

fn reference(root: &Path, key: &str) -> serde_json::Value {
    common::fixture_reference(root, key)
}

#[test]
fn inputs_that_are_not_model_files_say_why() {
    let d = tmp("inputs");
    let fifo = d.join("f.gguf");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        // Without a writer, opening a FIFO would block: the type is checked first.
        let (code, _, err) = cli_in(&d, &["f.gguf"]);
        assert_eq!(code, 2);
        assert!(err.contains("not a regular file"), "{err}");
    }
    std::fs::create_dir_all(d.join("adir")).unwrap();
    let (code, _, err) = cli_in(&d, &["adir"]);
    assert_eq!(code, 2);
    assert!(err.contains("a directory"), "{err}");
    let (code, _, err) = cli_in(&d, &["https://huggingface.co/"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is a Hugging Face page, not a repository or file"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg("owner/repo")
        .env("HF_ENDPOINT", "127.0.0.1:1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("HF_ENDPOINT \"127.0.0.1:1\" is not an http")
    );
    std::fs::write(d.join("config.json"), b"{}").unwrap();
    let (code, _, err) = cli_in(&d, &["config.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("none of these is a model file: config.json"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn parts_from_two_folders_and_renamed_parts() {
    let Some(root) = fixtures() else {
        return;
    };
    let r = reference(&root, "split-gguf");
    let parts = common::fixture_parts(&r);
    let d = tmp("folders");
    std::fs::create_dir_all(d.join("a")).unwrap();
    std::fs::create_dir_all(d.join("b")).unwrap();
    for p in &parts {
        std::fs::copy(root.join("split-gguf").join(p), d.join("a").join(p)).unwrap();
    }
    // A damaged copy of part 2 in another folder.
    std::fs::write(d.join("b").join(&parts[1]), b"GGUF\x03\0\0\0").unwrap();
    let a1 = format!("a/{}", parts[0]);
    let b2 = format!("b/{}", parts[1]);
    let (code, out, err) = cli_in(&d, &[&a1, &b2, "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["tensor_count"], r["tensor_count"],
        "the set beside part 1 is read"
    );
    assert_eq!(j["set"]["strays"][0]["name"], b2.as_str());
    let why = j["set"]["strays"][0]["why"].as_str().unwrap();
    assert_eq!(
        why,
        "part 2 from another folder (b/); the set is read from a/"
    );
    let read: Vec<&str> = j["set"]["files_read"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!read.contains(&b2.as_str()), "{read:?}");
    // The same file under two spellings is given twice.
    let dot = format!("./a/{}", parts[0]);
    let (code, out, _) = cli_in(&d, &[&a1, &dot, "--json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["set"]["strays"][0]["why"], "given twice; read once");

    // A renamed part alone says its own number (from split.no).
    std::fs::copy(
        root.join("split-gguf").join(&parts[1]),
        d.join("second.gguf"),
    )
    .unwrap();
    let (code, out, _) = cli_in(&d, &["second.gguf"]);
    assert_eq!(code, 0);
    assert!(out.contains(&format!("part 2 of {}", parts.len())), "{out}");
    // A part whose name says another count than its split.count: a warning naming both.
    let wrong = format!("tiny-llama-00001-of-{:05}.gguf", parts.len() + 1);
    std::fs::copy(root.join("split-gguf").join(&parts[0]), d.join(&wrong)).unwrap();
    let (code, out, _) = cli_in(&d, &[&wrong, "--check"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!(
            "[split-count-mismatch] split.count says {} parts; the file's name says {}",
            parts.len(),
            parts.len() + 1
        )),
        "{out}"
    );
    // The first part alone (renamed, so no sibling is found): the memory note says whose
    // weights these are.
    std::fs::copy(
        root.join("split-gguf").join(&parts[0]),
        d.join("first.gguf"),
    )
    .unwrap();
    let (code, out, _) = cli_in(&d, &["first.gguf", "--memory"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!(
            "the weights are those of the 1 of the model's {} files read",
            parts.len()
        )),
        "{out}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_tensor_in_a_shard_not_read_names_the_shard() {
    let Some(root) = fixtures() else {
        return;
    };
    let dir = root.join("sharded-safetensors");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("model.safetensors.index.json")).unwrap())
            .unwrap();
    let d = tmp("shard");
    std::fs::copy(
        dir.join("model.safetensors.index.json"),
        d.join("model.safetensors.index.json"),
    )
    .unwrap();
    let map = index["weight_map"].as_object().unwrap();
    let (tensor, shard) = map.iter().next().unwrap();
    let shard = shard.as_str().unwrap();
    // Copy every shard but the one holding the first tensor.
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let n = f.file_name().to_string_lossy().into_owned();
        if n.ends_with(".safetensors") && n != shard {
            std::fs::copy(f.path(), d.join(&n)).unwrap();
        }
    }
    let (code, _, err) = cli_in(&d, &["model.safetensors.index.json", "--tensor", tensor]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "the index places it in {shard}, which was not read"
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_closed_stderr_is_no_panic() {
    let d = tmp("stderr");
    // A truncated GGUF: the CLI prints what it read and a line on stderr.
    std::fs::write(d.join("t.gguf"), b"GGUF\x03\0\0\0\x01\0\0\0\0\0\0\0").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg("t.gguf")
        .current_dir(&d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take()); // the reader goes away before anything is written
    let status = child.wait().unwrap();
    assert_ne!(status.code(), Some(101), "a panic");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn flags_that_ask_for_two_outputs_are_refused_and_diff_names_itself() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf");
    let s = sample.to_str().unwrap();
    let d = std::env::temp_dir();
    for extra in [
        ["--tokenizer", "--memory"],
        ["--check", "--markdown"],
        ["--csv", "--tokenizer"],
        ["--rows", "0..2"],
    ] {
        let mut args = vec![s];
        args.extend(extra);
        let (code, out, err) = cli_in(&d, &args);
        assert_eq!(code, 2, "{extra:?}: {out}");
        assert!(err.contains("error:"), "{extra:?}: {err}");
    }
    let (code, _, err) = cli_in(&d, &["diff"]);
    assert_eq!(code, 2);
    assert!(err.contains("Usage: weightpeek diff <A> <B>"), "{err}");
    let Some(minilm) =
        common::real_file(common::data_dir().join("all-MiniLM-L6-v2/model.safetensors"))
    else {
        return;
    };
    let (code, out, _) = cli_in(&d, &[minilm.to_str().unwrap(), "--memory"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("reads a GGUF file's hyper-parameters"),
        "{out}"
    );
}

/// Issue #11: a safetensors `__metadata__` value that is not a string is shown as its JSON
/// text with a warning naming the key, and the file's tensors as for any other (exit 0).
#[test]
fn metadata_values_that_are_not_strings_are_shown() {
    let d = tmp("stmeta");
    let values = serde_json::json!({"format": "pt", "step": 1200, "cfg": {"lr": 0.1}});
    let header = format!(
        r#"{{"__metadata__":{values},"w":{{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}}}"#
    );
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend([0u8; 16]);
    std::fs::write(d.join("m.safetensors"), &bytes).unwrap();
    let (code, out, err) = cli_in(&d, &["m.safetensors", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["tensor_count"], 1);
    let meta: Vec<(String, String)> = j["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["key"].as_str().unwrap().into(),
                e["value"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = values
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    assert_eq!(meta, want);
    let (code, out, _) = cli_in(&d, &["m.safetensors", "--check"]);
    assert_eq!(code, 0, "warnings only");
    for k in ["step", "cfg"] {
        assert!(
            out.contains(&format!("__metadata__.{k} at byte 8: is a")),
            "{out}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}
