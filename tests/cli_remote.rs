//! The CLI on URLs and repo ids (issue #10): a local Range server (and a mock Hub in front of
//! it, on another port, so another origin) serves the real Gemma file and the generated sets.
//! What is asserted comes from the reference facts and from the servers' own logs: figures
//! equal gguf-py's, bytes received at most header × 1.25 + 256 KiB, the token reaches the Hub
//! and never the file server, a tensor window is one request of exactly its bytes.

mod common;

use std::path::{Path, PathBuf};

use common::range_server::Server;
use common::{data_dir, real_file, reference};

fn cli(args: &[&str], endpoint: Option<&str>) -> (i32, String, String) {
    common::run_cli(args, None, endpoint)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn fixtures() -> Option<PathBuf> {
    common::remote_fixtures()
}

#[test]
fn a_url_reads_only_the_header_and_equals_the_reference() {
    let Some(gemma) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let Some(r) = reference("gemma-3-270m-q4_k_m") else {
        return;
    };
    let server = Server::files(gemma.parent().unwrap());
    let url = format!("{}/gemma-3-270m-q4_k_m.gguf", server.url);
    let (code, out, err) = cli(&[&url, "--json"], None);
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    for k in [
        "tensor_count",
        "parameter_count",
        "tensor_bytes",
        "metadata_count",
        "file_size",
    ] {
        assert_eq!(j[k], r[k], "{k}");
    }
    let header = r["data_offset"].as_u64().unwrap();
    let budget = header + header / 4 + (256 << 10);
    let got = server.bytes();
    assert!(got <= budget, "{got} bytes for a {header}-byte header");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(reqs.iter().all(|q| q.range.is_some() && q.status == 206));
    eprintln!(
        "gemma over HTTP: {} requests, {got} bytes, header {header}",
        reqs.len()
    );

    // One tensor window: one more request, of exactly the window's bytes (as read locally).
    let (code, local, err) = cli(
        &[
            gemma.to_str().unwrap(),
            "--tensor",
            "blk.0.attn_q.weight",
            "--rows",
            "0..4",
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let local = json(&local);
    let before = server.requests().len();
    let (code, remote, err) = cli(
        &[
            &url,
            "--tensor",
            "blk.0.attn_q.weight",
            "--rows",
            "0..4",
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let remote = json(&remote);
    assert_eq!(remote["stats"], local["stats"]);
    assert_eq!(remote["first_values"], local["first_values"]);
    let window: Vec<_> = server.requests()[before..]
        .iter()
        .skip(2) // the header's two reads
        .cloned()
        .collect();
    assert_eq!(window.len(), 1, "{window:?}");
    assert_eq!(Some(window[0].bytes), local["bytes_read"].as_u64());

    // diff of the URL and the local file: the same model.
    let (code, _, err) = cli(&["diff", &url, gemma.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_expired_signed_cdn_url_is_asked_of_the_hub_again() {
    let Some(gemma) = real_file(data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let dir = gemma.parent().unwrap();
    let cdn = Server::expiring(dir);
    let hub = Server::signed_hub(&cdn, dir);
    let url = format!(
        "{}/owner/repo/resolve/main/gemma-3-270m-q4_k_m.gguf",
        hub.url
    );
    let args = [
        "--tensor",
        "blk.0.attn_q.weight",
        "--rows",
        "0..4",
        "--json",
    ];
    let (code, local, err) = cli(&[&[gemma.to_str().unwrap()][..], &args[..]].concat(), None);
    assert_eq!(code, 0, "{err}");
    // The header's reads use the first signed URL; the window's read finds it expired (403),
    // asks the Hub again (a new signature) and reads the window there.
    let (code, remote, err) = cli(&[&[url.as_str()][..], &args[..]].concat(), None);
    assert_eq!(code, 0, "{err}");
    let (local, remote) = (json(&local), json(&remote));
    assert_eq!(remote["stats"], local["stats"]);
    assert_eq!(remote["first_values"], local["first_values"]);
    let cdn_log: Vec<(u16, String)> = cdn
        .requests()
        .iter()
        .map(|q| {
            (
                q.status,
                q.path.rsplit('?').next().unwrap_or("").to_string(),
            )
        })
        .collect();
    let hubs = hub.requests().len();
    eprintln!("expired signature: cdn {cdn_log:?}, {hubs} hub requests");
    assert_eq!(
        cdn_log.first(),
        Some(&(206, "sig=1".to_string())),
        "the header from sig=1"
    );
    // Every 403 (a signature used before) is followed by a new signature from the Hub, which
    // answers; the window's read is the last, a 206.
    let expired = cdn_log.iter().filter(|(s, _)| *s == 403).count();
    assert!(expired >= 1, "{cdn_log:?}");
    assert_eq!(hubs, 1 + expired, "one resolve to open, one after each 403");
    for pair in cdn_log.windows(2) {
        if pair[0].0 == 403 {
            assert_eq!(pair[1].0, 206, "{cdn_log:?}");
            assert_ne!(pair[1].1, pair[0].1, "a new signature after a 403");
        }
    }
    assert_eq!(cdn_log.last().map(|l| l.0), Some(206));
}

#[test]
fn a_repo_on_a_mock_hub_lists_its_models_and_opens_a_set_with_the_token_only_on_the_hub() {
    let Some(root) = fixtures() else {
        return;
    };
    let cdn = Server::files(&root);
    let hub = Server::hub(&cdn, &root);
    let (code, out, err) = cli(&["owner/repo"], Some(&hub.url));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("split-gguf/tiny-llama.gguf (3 parts)"),
        "{out}"
    );
    assert!(
        out.contains("sharded-safetensors/model.safetensors.index.json"),
        "{out}"
    );

    for (key, file) in [
        ("split-gguf", "split-gguf/tiny-llama-00001-of-00003.gguf"),
        (
            "sharded-safetensors",
            "sharded-safetensors/model.safetensors.index.json",
        ),
    ] {
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join(format!("{key}.json"))).unwrap())
                .unwrap();
        let (code, out, err) = cli(
            &[
                "owner/repo",
                "--file",
                file,
                "--json",
                "--token",
                "secret-token",
            ],
            Some(&hub.url),
        );
        assert_eq!(code, 0, "{key}: {err}");
        let j = json(&out);
        for k in ["tensor_count", "parameter_count", "tensor_bytes"] {
            assert_eq!(j[k], r[k], "{key} {k}");
        }
        assert_eq!(
            j["set"]["files_read"].as_array().unwrap().len(),
            r["parts"].as_array().unwrap().len()
        );
    }
    let hub_log = hub.requests();
    assert!(hub_log
        .iter()
        .filter(|q| q.path.contains("/resolve/"))
        .all(|q| q.authorization));
    assert!(
        cdn.requests().iter().all(|q| !q.authorization),
        "the token reached the file server"
    );

    // The URL of part 1 (a Hub URL): the other parts are its siblings.
    let url = format!(
        "{}/owner/repo/resolve/main/split-gguf/tiny-llama-00001-of-00003.gguf",
        hub.url
    );
    let r = reference_of(&root, "split-gguf");
    let (code, out, err) = cli(&[&url, "--json"], Some(&hub.url));
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["tensor_count"], r["tensor_count"]);

    // A missing file on the Hub: exit 2 with the status and the likely cause.
    let (code, _, err) = cli(&["owner/repo", "--file", "nope.gguf"], Some(&hub.url));
    assert_eq!(code, 2);
    assert!(err.contains("no model file \"nope.gguf\""), "{err}");
    let missing = format!("{}/owner/repo/resolve/main/nope.gguf", hub.url);
    let (code, _, err) = cli(&[&missing], Some(&hub.url));
    assert_eq!(code, 2);
    assert!(err.contains("HTTP 404"), "{err}");
}

#[test]
fn a_163_shard_set_by_url_takes_at_most_two_requests_per_shard() {
    let Some(root) = fixtures() else {
        return;
    };
    let r = reference_of(&root, "shards-163");
    let server = Server::files(&root);
    let url = format!("{}/shards-163/model.safetensors.index.json", server.url);
    let (code, out, err) = cli(&[&url, "--json"], None);
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(j["tensor_count"], r["tensor_count"]);
    assert_eq!(j["tensor_bytes"], r["tensor_bytes"]);
    let shards = r["parts"].as_array().unwrap().len();
    let reqs = server.requests();
    let shard_reqs = reqs
        .iter()
        .filter(|q| q.path.ends_with(".safetensors"))
        .count();
    assert!(
        shard_reqs <= 2 * shards,
        "{shard_reqs} requests for {shards} shards"
    );
    assert_eq!(reqs.len() - shard_reqs, 1, "one request for the index");
}

#[test]
fn a_repo_whose_listing_lacks_a_part_names_it_without_asking_for_it() {
    let Some(root) = fixtures() else {
        return;
    };
    let r = reference_of(&root, "split-gguf");
    let parts = common::fixture_parts(&r);
    let dir = std::env::temp_dir().join(format!("wp-listing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("m")).unwrap();
    for p in [&parts[0], &parts[2]] {
        std::fs::copy(root.join("split-gguf").join(p), dir.join("m").join(p)).unwrap();
    }
    let cdn = Server::files(&dir);
    let hub = Server::hub(&cdn, &dir);
    // The set's label without its part count picks it too.
    let (code, out, err) = cli(
        &["owner/repo", "--file", "m/tiny-llama.gguf", "--json"],
        Some(&hub.url),
    );
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(
        j["set"]["missing"][0].as_str(),
        Some(format!("m/{}", parts[1]).as_str())
    );
    assert!(
        hub.requests()
            .iter()
            .chain(cdn.requests().iter())
            .all(|q| !q.path.contains(&parts[1])),
        "the missing part was asked for"
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn reference_of(root: &Path, key: &str) -> serde_json::Value {
    common::fixture_reference(root, key)
}

#[test]
fn local_sets_open_from_any_of_their_files() {
    let Some(root) = fixtures() else {
        return;
    };
    let r = reference_of(&root, "split-gguf");
    let parts: Vec<String> = r["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            root.join("split-gguf")
                .join(p.as_str().unwrap())
                .display()
                .to_string()
        })
        .collect();
    // One part: the others are found beside it.
    let (code, out, err) = cli(&[&parts[1], "--json"], None);
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(j["tensor_count"], r["tensor_count"]);
    assert_eq!(j["parameter_count"], r["parameter_count"]);
    // All of them, in another order.
    let mut args: Vec<&str> = parts.iter().rev().map(String::as_str).collect();
    args.push("--json");
    let (code, out, err) = cli(&args, None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["tensor_count"], r["tensor_count"]);
    // The index.
    let rs = reference_of(&root, "sharded-safetensors");
    let index = root.join("sharded-safetensors/model.safetensors.index.json");
    let (code, out, err) = cli(&[index.to_str().unwrap(), "--json"], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["tensor_bytes"], rs["tensor_bytes"]);

    // A part alone (copied away from its siblings): this file's figures, the set named.
    let dir = std::env::temp_dir().join(format!("wp-part-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let alone = dir.join(Path::new(&parts[0]).file_name().unwrap());
    std::fs::copy(&parts[0], &alone).unwrap();
    let (code, out, err) = cli(&[alone.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let first_part_tensors = r["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["part"] == 1)
        .count();
    assert!(out.contains("part 1 of 3"), "{out}");
    assert!(
        out.contains(&format!(
            "{first_part_tensors} of the model's {} tensors are in this file",
            r["tensor_count"]
        )),
        "{out}"
    );
    let (code, out, _) = cli(&[alone.to_str().unwrap(), "--json"], None);
    assert_eq!(code, 0);
    let j = json(&out);
    assert_eq!(j["tensor_count"].as_u64(), Some(first_part_tensors as u64));
    assert_eq!(j["set"]["missing"].as_array().unwrap().len(), 2);
    let (code, out, _) = cli(&[alone.to_str().unwrap(), "--check"], None);
    assert_eq!(code, 0, "a missing part is a warning, not an error");
    assert!(out.contains("[set-incomplete]"), "{out}");
    std::fs::remove_dir_all(&dir).ok();

    // An index alone.
    let dir = std::env::temp_dir().join(format!("wp-index-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lone = dir.join("model.safetensors.index.json");
    std::fs::copy(&index, &lone).unwrap();
    let (code, _, err) = cli(&[lone.to_str().unwrap()], None);
    assert_eq!(code, 2);
    assert!(
        err.contains("add the shard files with it: model-00001-of-00003.safetensors"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A NumPy archive (listed by the Hub listing since the format registry names NumPy) opens
/// over HTTP Range as it opens from the disk.
#[test]
fn an_npz_url_gives_what_the_file_gives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/numpy-fixtures");
    let Some(file) = real_file(dir.join("weights.npz")) else {
        return;
    };
    let server = Server::files(&dir);
    let url = format!("{}/weights.npz", server.url);
    let (code, out, err) = cli(&[&url, "--json"], None);
    assert_eq!(code, 0, "{err}");
    let (lcode, lout, lerr) = cli(&[file.to_str().unwrap(), "--json"], None);
    assert_eq!(lcode, 0, "{lerr}");
    let (remote, local) = (json(&out), json(&lout));
    for k in [
        "tensor_count",
        "parameter_count",
        "tensor_bytes",
        "file_size",
        "tensors",
    ] {
        assert_eq!(remote[k], local[k], "{k}");
    }
    assert!(
        server.bytes() < local["file_size"].as_u64().unwrap() + 1,
        "{}",
        server.bytes()
    );
}
