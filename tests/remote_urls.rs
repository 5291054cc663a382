//! Table-driven tests of what pasted URLs and repo ids point at, and of grouping a
//! repository's files into models.

use weightpeek::remote::hub::{
    endpoint_or_default, parse_input, Repo, RepoKind, Target, DEFAULT_ENDPOINT,
};
use weightpeek::remote::shards::{group, parse_tree_listing, split_name, EntryKind, RepoFile};

const HF: &str = DEFAULT_ENDPOINT;

fn file_url(input: &str) -> String {
    match parse_input(input, HF) {
        Ok(Target::File { url, .. }) => url,
        other => panic!("{input}: {other:?}"),
    }
}

fn repo(input: &str) -> Repo {
    match parse_input(input, HF) {
        Ok(Target::Repo(r)) => r,
        other => panic!("{input}: {other:?}"),
    }
}

#[test]
fn hub_file_urls_normalise_to_resolve() {
    let g =
        "https://huggingface.co/ggml-org/gemma-3-270m-GGUF/resolve/main/gemma-3-270m-Q4_K_M.gguf";
    let cases = [
        ("https://huggingface.co/ggml-org/gemma-3-270m-GGUF/blob/main/gemma-3-270m-Q4_K_M.gguf", g),
        ("https://huggingface.co/ggml-org/gemma-3-270m-GGUF/resolve/main/gemma-3-270m-Q4_K_M.gguf?download=true", g),
        ("https://hf.co/ggml-org/gemma-3-270m-GGUF/blob/main/gemma-3-270m-Q4_K_M.gguf", g),
        ("hf.co/ggml-org/gemma-3-270m-GGUF/resolve/main/gemma-3-270m-Q4_K_M.gguf", g),
        ("  https://huggingface.co/ggml-org/gemma-3-270m-GGUF/raw/main/gemma-3-270m-Q4_K_M.gguf\n", g),
        ("https://huggingface.co/ggml-org/gemma-3-270m-GGUF?show_file_info=gemma-3-270m-Q4_K_M.gguf", g),
        ("https://huggingface.co/ggml-org/gemma-3-270m-GGUF/tree/main?show_tensors=gemma-3-270m-Q4_K_M.gguf", g),
        (
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/blob/refs%2Fpr%2F7/onnx/model.safetensors",
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/refs%2Fpr%2F7/onnx/model.safetensors",
        ),
        (
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/blob/refs/pr/7/model.safetensors",
            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/refs%2Fpr%2F7/model.safetensors",
        ),
        (
            "https://huggingface.co/datasets/owner/data/blob/v1.0/sub%20dir/x.safetensors",
            "https://huggingface.co/datasets/owner/data/resolve/v1.0/sub%20dir/x.safetensors",
        ),
        (
            "https://huggingface.co/spaces/owner/demo/resolve/main/model.gguf",
            "https://huggingface.co/spaces/owner/demo/resolve/main/model.gguf",
        ),
        (
            "https://example.org/files/model.gguf?x=1",
            "https://example.org/files/model.gguf?x=1",
        ),
        ("http://127.0.0.1:8000/a.gguf", "http://127.0.0.1:8000/a.gguf"),
    ];
    for (input, want) in cases {
        assert_eq!(file_url(input), want, "{input}");
    }
}

#[test]
fn hub_file_targets_carry_repo_and_path() {
    let Ok(Target::File { repo, path, .. }) = parse_input(
        "https://huggingface.co/datasets/owner/data/blob/refs%2Fconvert%2Fparquet/a/b.gguf",
        HF,
    ) else {
        panic!()
    };
    assert_eq!(
        repo,
        Some(Repo {
            kind: RepoKind::Dataset,
            id: "owner/data".into(),
            revision: "refs/convert/parquet".into()
        })
    );
    assert_eq!(path.as_deref(), Some("a/b.gguf"));
}

#[test]
fn repo_ids_and_pages_list_the_repository() {
    let cases = [
        (
            "ggml-org/gemma-3-270m-GGUF",
            RepoKind::Model,
            "ggml-org/gemma-3-270m-GGUF",
            "main",
        ),
        (
            "ggml-org/gemma-3-270m-GGUF@v2",
            RepoKind::Model,
            "ggml-org/gemma-3-270m-GGUF",
            "v2",
        ),
        (
            "datasets/owner/data",
            RepoKind::Dataset,
            "owner/data",
            "main",
        ),
        (
            "https://huggingface.co/Qwen/Qwen3-0.6B",
            RepoKind::Model,
            "Qwen/Qwen3-0.6B",
            "main",
        ),
        (
            "https://huggingface.co/Qwen/Qwen3-0.6B/tree/dev",
            RepoKind::Model,
            "Qwen/Qwen3-0.6B",
            "dev",
        ),
        (
            "https://huggingface.co/spaces/o/s",
            RepoKind::Space,
            "o/s",
            "main",
        ),
    ];
    for (input, kind, id, rev) in cases {
        let r = repo(input);
        assert_eq!(
            (r.kind, r.id.as_str(), r.revision.as_str()),
            (kind, id, rev),
            "{input}"
        );
    }
    let r = repo("owner/name@refs/pr/3");
    assert_eq!(
        r.tree_api_url(HF),
        "https://huggingface.co/api/models/owner/name/tree/refs%2Fpr%2F3?recursive=true"
    );
    assert_eq!(
        repo("datasets/o/d").tree_api_url("https://hf-mirror.example/"),
        "https://hf-mirror.example/api/datasets/o/d/tree/main?recursive=true"
    );
}

#[test]
fn a_mirror_endpoint_is_a_hub_host() {
    let m = "https://hf-mirror.example";
    let Ok(Target::File { url, .. }) =
        parse_input("https://hf-mirror.example/o/r/blob/main/m.gguf", m)
    else {
        panic!()
    };
    assert_eq!(url, "https://hf-mirror.example/o/r/resolve/main/m.gguf");
    // A public Hub URL pasted while a mirror is configured reads through the mirror.
    assert_eq!(
        match parse_input("https://huggingface.co/o/r/blob/main/m.gguf", m) {
            Ok(Target::File { url, .. }) => url,
            other => panic!("{other:?}"),
        },
        "https://hf-mirror.example/o/r/resolve/main/m.gguf"
    );
    // hf.co (which cannot resolve in the browser tests) maps to the configured endpoint too,
    // datasets/ and spaces/ included, with or without a scheme; so does its repo listing.
    let local = "http://127.0.0.1:4567";
    for (input, want) in [
        (
            "https://hf.co/datasets/o/d/blob/main/sub/x.gguf",
            "http://127.0.0.1:4567/datasets/o/d/resolve/main/sub/x.gguf",
        ),
        (
            "hf.co/spaces/o/s/resolve/v2/model.safetensors?download=true",
            "http://127.0.0.1:4567/spaces/o/s/resolve/v2/model.safetensors",
        ),
        (
            "https://hf.co/o/r?show_file_info=m.gguf",
            "http://127.0.0.1:4567/o/r/resolve/main/m.gguf",
        ),
    ] {
        match parse_input(input, local) {
            Ok(Target::File { url, .. }) => assert_eq!(url, want, "{input}"),
            other => panic!("{input}: {other:?}"),
        }
    }
    match parse_input("hf.co/datasets/o/d", local) {
        Ok(Target::Repo(r)) => assert_eq!(
            r.tree_api_url(local),
            "http://127.0.0.1:4567/api/datasets/o/d/tree/main?recursive=true"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_inputs_say_why() {
    for input in ["", "   ", "just words", "ftp://x/y.gguf", "a/b/c/d", "o/r@"] {
        let e = parse_input(input, HF).unwrap_err();
        assert!(!e.0.is_empty(), "{input}");
    }
    assert!(parse_input("https://huggingface.co/models", HF).is_err());
}

#[test]
fn split_names_follow_gguf_split_and_transformers() {
    assert_eq!(
        split_name("q/m-00002-of-00003.gguf", ".gguf"),
        Some(("q/m", 2, 3))
    );
    assert_eq!(
        split_name("model-00001-of-00163.safetensors", ".safetensors"),
        Some(("model", 1, 163))
    );
    assert_eq!(split_name("m-1-of-3.gguf", ".gguf"), None);
    assert_eq!(split_name("model.gguf", ".gguf"), None);
}

#[test]
fn a_listing_groups_into_models() {
    let json = r#"[
      {"type":"directory","path":"Q8_0","size":0},
      {"type":"file","path":"README.md","size":120},
      {"type":"file","path":"m-Q4_K_M.gguf","size":10,"lfs":{"size":1000,"oid":"x","pointerSize":130}},
      {"type":"file","path":"Q8_0/m-Q8_0-00001-of-00003.gguf","size":1,"lfs":{"size":500}},
      {"type":"file","path":"Q8_0/m-Q8_0-00002-of-00003.gguf","size":1,"lfs":{"size":500}},
      {"type":"file","path":"Q8_0/m-Q8_0-00003-of-00003.gguf","size":1,"lfs":{"size":100}},
      {"type":"file","path":"model.safetensors.index.json","size":300},
      {"type":"file","path":"model-00001-of-00002.safetensors","size":1,"lfs":{"size":700}},
      {"type":"file","path":"model-00002-of-00002.safetensors","size":1,"lfs":{"size":70}},
      {"type":"file","path":"x/a-00001-of-00002.gguf","size":5},
      {"type":"file","path":"arrays/W.NPZ","size":40}
    ]"#;
    let files: Vec<RepoFile> = parse_tree_listing(json).unwrap();
    assert_eq!(files.len(), 10);
    let e = group(&files);
    let summary: Vec<(&str, EntryKind, usize, u64)> = e
        .iter()
        .map(|x| (x.label.as_str(), x.kind, x.files.len(), x.size))
        .collect();
    assert_eq!(
        summary,
        [
            ("Q8_0/m-Q8_0.gguf (3 parts)", EntryKind::GgufSplit, 3, 1100),
            ("arrays/W.NPZ", EntryKind::Numpy, 1, 40),
            ("m-Q4_K_M.gguf", EntryKind::Gguf, 1, 1000),
            (
                "model.safetensors.index.json",
                EntryKind::SafetensorsShards,
                2,
                770
            ),
            ("x/a.gguf (2 parts)", EntryKind::GgufSplit, 1, 5),
        ]
    );
    assert_eq!(e[4].missing, ["x/a-00002-of-00002.gguf"]);
    assert_eq!(e[3].index.as_deref(), Some("model.safetensors.index.json"));
}

#[test]
fn endpoint_typed_is_trimmed_or_the_default() {
    assert_eq!(endpoint_or_default(None), DEFAULT_ENDPOINT);
    assert_eq!(endpoint_or_default(Some("   ")), DEFAULT_ENDPOINT);
    assert_eq!(endpoint_or_default(Some("/")), DEFAULT_ENDPOINT);
    assert_eq!(
        endpoint_or_default(Some(" http://127.0.0.1:8000// ")),
        "http://127.0.0.1:8000"
    );
}
