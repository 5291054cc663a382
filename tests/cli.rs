//! The CLI as a user runs it: text, --json (checked against the reference facts), --query,
//! --tensors, --check exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{reference, shared_dir, GgufBuilder, W};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("www/sample.gguf")
}

/// Writes `bytes` to a file of the temporary directory named for this test process.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("wp-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .args(args)
        .output()
        .expect("run weightpeek");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn json_matches_the_reference() {
    let Some(r) = reference("sample") else { return };
    let (code, out) = run(&[sample().to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["format"], "gguf");
    for k in [
        "version",
        "file_size",
        "metadata_count",
        "tensor_count",
        "parameter_count",
        "tensor_bytes",
    ] {
        assert_eq!(j[k], r[k], "{k}");
    }
    assert_eq!(
        j["tensors"].as_array().unwrap().len(),
        r["tensors"].as_array().unwrap().len()
    );
    assert_eq!(j["tensors"][3]["name"], r["tensors"][3]["name"]);
    assert_eq!(j["tensors"][3]["shape"], r["tensors"][3]["shape"]);
    let bpw = r["tensor_bytes"].as_f64().unwrap() * 8.0 / r["parameter_count"].as_f64().unwrap();
    assert_eq!(j["bits_per_weight"].as_f64(), Some(bpw));
    assert_eq!(
        j["dtypes"].as_array().unwrap().len(),
        r["dtypes"].as_array().unwrap().len()
    );
    assert_eq!(
        j["metadata"].as_array().unwrap().len(),
        r["metadata"].as_array().unwrap().len()
    );
}

#[test]
fn query_filters_metadata_and_tensors() {
    let (code, out) = run(&[
        sample().to_str().unwrap(),
        "--tensors",
        "--query",
        "ffn_down",
    ]);
    assert_eq!(code, 0);
    let tensor_lines: Vec<&str> = out.lines().filter(|l| l.contains("blk.")).collect();
    assert!(!tensor_lines.is_empty());
    assert!(tensor_lines.iter().all(|l| l.contains("ffn_down")), "{out}");
    assert!(!out.contains("general.name"), "metadata is filtered too");
}

#[test]
fn check_exit_codes() {
    let (code, out) = run(&[sample().to_str().unwrap(), "--check"]);
    assert_eq!(
        (code, out.starts_with("no problems found")),
        (0, true),
        "{out}"
    );
    let corrupt = shared_dir().join("data/corrupt/ggml-vocab-bert-bge.mangled.gguf");
    if common::real_file(corrupt.clone()).is_none() {
        return;
    }
    let (code, out) = run(&[corrupt.to_str().unwrap(), "--check"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("error [header-incomplete]"), "{out}");
    assert!(out.contains("at byte 212"), "{out}");
    let (code, out) = run(&[corrupt.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("everything above was read before the error"),
        "{out}"
    );
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg("/nonexistent/model.gguf")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No such file"));
}

#[test]
fn csv_and_markdown_exports() {
    let Some(r) = reference("sample") else { return };
    let (code, csv) = run(&[sample().to_str().unwrap(), "--csv"]);
    assert_eq!(code, 0);
    let rows: Vec<&str> = csv.trim_end().split("\r\n").collect();
    assert_eq!(rows[0], "name,type,shape,elements,bytes,offset,part");
    let tensors = r["tensors"].as_array().unwrap();
    assert_eq!(rows.len() - 1, tensors.len());
    for (row, t) in rows[1..].iter().zip(tensors) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[0], t["name"].as_str().unwrap());
        assert_eq!(cells[1], t["dtype"].as_str().unwrap());
        assert_eq!(cells[4], t["bytes"].to_string());
        assert_eq!(cells[5], t["offset"].to_string());
    }
    let (code, md) = run(&[sample().to_str().unwrap(), "--markdown"]);
    assert_eq!(code, 0);
    assert!(md.starts_with("# sample.gguf\n"), "{md}");
    let count_row = format!("| tensors | {} |", r["tensor_count"]);
    assert!(md.contains(&count_row), "{md}");
    for d in r["dtypes"].as_array().unwrap() {
        let prefix = format!("| {} | {} |", d["dtype"].as_str().unwrap(), d["tensors"]);
        assert!(md.contains(&prefix), "{prefix} not in {md}");
    }
}

#[test]
fn json_metadata_values_are_typed_and_filtered() {
    let Some(r) = reference("sample") else { return };
    let (_, out) = run(&[
        sample().to_str().unwrap(),
        "--json",
        "--query",
        "BLOCK_count",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let meta = j["metadata"].as_array().unwrap();
    assert_eq!(meta.len(), 1, "{meta:?}");
    let want = r["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == meta[0]["key"])
        .unwrap();
    assert_eq!(
        meta[0]["value"], want["value"],
        "a number, not display text"
    );
}

#[test]
fn diff_of_two_files_against_the_reference_names() {
    let (Some(ra), Some(rb)) = (reference("sample"), reference("gemma-3-270m-q4_k_m")) else {
        return;
    };
    let gemma = common::data_dir().join("gemma-3-270m-q4_k_m.gguf");
    let Some(gemma) = common::real_file(gemma) else {
        return;
    };
    let (code, out) = run(&[
        "diff",
        sample().to_str().unwrap(),
        gemma.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1, "the files differ, as diff(1): {out}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names = |r: &serde_json::Value, key: &str, field: &str| -> Vec<String> {
        r[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t[field].as_str().unwrap().to_string())
            .collect()
    };
    let (ta, tb) = (names(&ra, "tensors", "name"), names(&rb, "tensors", "name"));
    let only_b: Vec<&String> = tb.iter().filter(|n| !ta.contains(n)).collect();
    let only_a: Vec<&String> = ta.iter().filter(|n| !tb.contains(n)).collect();
    let got = |k: &str| -> Vec<String> {
        d[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(got("tensors_added").iter().collect::<Vec<_>>(), only_b);
    assert_eq!(got("tensors_removed").iter().collect::<Vec<_>>(), only_a);
    let (ka, kb) = (names(&ra, "metadata", "key"), names(&rb, "metadata", "key"));
    let keys_only_b: Vec<&String> = kb.iter().filter(|n| !ka.contains(n)).collect();
    assert_eq!(got("keys_added").iter().collect::<Vec<_>>(), keys_only_b);
    let bpw_b =
        rb["tensor_bytes"].as_f64().unwrap() * 8.0 / rb["parameter_count"].as_f64().unwrap();
    assert_eq!(d["bpw"][1].as_f64(), Some(bpw_b));

    let (code, out) = run(&[
        "diff",
        sample().to_str().unwrap(),
        sample().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let same: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in [
        "keys_added",
        "keys_removed",
        "keys_changed",
        "tensors_added",
        "tensors_removed",
        "tensors_changed",
    ] {
        assert_eq!(same[k].as_array().map(Vec::len), Some(0), "{k}");
    }
}

#[test]
fn memory_estimate_follows_the_kv_formula_from_the_reference_keys() {
    let Some(r) = reference("gemma-3-270m-q4_k_m") else {
        return;
    };
    let gemma = common::data_dir().join("gemma-3-270m-q4_k_m.gguf");
    let Some(gemma) = common::real_file(gemma) else {
        return;
    };
    let (code, out) = run(&[
        gemma.to_str().unwrap(),
        "--memory",
        "--ctx",
        "4096",
        "--kv",
        "q8_0",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    let key = |k: &str| {
        r["metadata"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["key"] == k)
            .unwrap()["value"]
            .as_u64()
            .unwrap()
    };
    let (layers, kv_heads) = (
        key("gemma3.block_count"),
        key("gemma3.attention.head_count_kv"),
    );
    let (dk, dv) = (
        key("gemma3.attention.key_length"),
        key("gemma3.attention.value_length"),
    );
    let window = key("gemma3.attention.sliding_window");
    // Q8_0: 34 bytes per 32 values (ggml block_q8_0), per K row and per V row.
    let per_cell = (kv_heads * dk).div_ceil(32) * 34 + (kv_heads * dv).div_ceil(32) * 34;
    // llama.cpp (models/gemma3.cpp): every sixth layer full attention, the others a sliding
    // window cached at GGML_PAD(min(n_ctx, n_swa + n_ubatch 512), 256) cells.
    let full = (0..layers).filter(|il| il % 6 == 5).count() as u64;
    let swa_cells = 4096u64.min(window + 512).div_ceil(256) * 256;
    let kv = full * 4096 * per_cell + (layers - full) * swa_cells * per_cell;
    assert_eq!(e["kv_bytes"].as_u64(), Some(kv));
    assert_eq!(
        e["kv_full_context_bytes"].as_u64(),
        Some(layers * 4096 * per_cell)
    );
    assert_eq!(e["sliding_window"]["cells"].as_u64(), Some(swa_cells));
    assert_eq!(e["sliding_window"]["full_layers"].as_u64(), Some(full));
    assert_eq!(e["weights_bytes"], r["tensor_bytes"]);
    assert_eq!(
        e["total_bytes"].as_u64(),
        Some(kv + r["tensor_bytes"].as_u64().unwrap())
    );
    let (code, out) = run(&[sample().to_str().unwrap(), "--memory"]);
    assert_eq!(code, 1);
    assert!(out.contains("encoder"), "{out}");
}

#[test]
fn tokenizer_prints_the_chat_template_verbatim() {
    let p = shared_dir().join("data/vocab/ggml-vocab-phi-3.gguf");
    let Some(p) = common::real_file(p) else {
        return;
    };
    let Some(r) = reference("ggml-vocab-phi-3") else {
        return;
    };
    let template = r["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "tokenizer.chat_template")
        .unwrap()["value"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, out) = run(&[p.to_str().unwrap(), "--tokenizer", "--json"]);
    assert_eq!(code, 0);
    let t: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(t["chat_templates"][0][0], "default");
    assert_eq!(t["chat_templates"][0][1].as_str(), Some(template.as_str()));
    let (_, text) = run(&[p.to_str().unwrap(), "--tokenizer"]);
    // The page's count: lines split on `\n` only (a trailing newline starts an empty line).
    let lines = template.split('\n').count();
    let plural = if lines == 1 { "" } else { "s" };
    assert!(
        text.contains(&format!("chat template default ({lines} line{plural}):")),
        "{text}"
    );
}

#[test]
fn tokenizer_template_lines_are_the_pages() {
    // CRLF line ends, a tab, trailing spaces and a trailing newline; a one-line variant; and a
    // variant with terminal escapes, BEL and a bidi override.
    let default = "{% for m in messages %}\r\n\t{{ m.content }}  \r\n{% endfor %}  \n";
    let hostile = "a\u{1b}[2J\u{1b}[Hb\u{7}\u{202e}c\td";
    let b = GgufBuilder::new(3)
        .kv("general.architecture", W::s("llama"))
        .kv("tokenizer.ggml.model", W::s("gpt2"))
        // A variant before the default in the file: the default is still listed first.
        .kv("tokenizer.chat_template.tool_use", W::s("x"))
        .kv("tokenizer.chat_template", W::s(default))
        .kv("tokenizer.chat_template.evil", W::s(hostile))
        .build();
    let p = temp_file("template.gguf", &b);
    let (code, out) = run(&[p.to_str().unwrap(), "--tokenizer"]);
    std::fs::remove_file(&p).ok();
    assert_eq!(code, 0, "{out}");
    let want = [
        "chat template default (4 lines):",
        "    1  {% for m in messages %}\\r",
        "    2  \t{{ m.content }}  \\r",
        "    3  {% endfor %}  ",
        "    4  ",
        "",
        "chat template tool_use (1 line):",
        "    1  x",
        "",
        "chat template evil (1 line):",
        "    1  a\\u{1b}[2J\\u{1b}[Hb\\u{7}\\u{202e}c\td",
    ]
    .join("\n");
    assert!(out.contains(&want), "{out}");
    // No escape sequence, bell, bidi override or bare CR reaches the terminal.
    assert!(
        !out.contains(['\u{1b}', '\u{7}', '\u{202e}', '\r']),
        "{out:?}"
    );
    // The same lines and count as the page's view-model.
    use weightpeek::view::tokenizer::{template_label, template_lines};
    let lines = template_lines(default);
    assert_eq!(template_label("default", default), "default (4 lines)");
    assert!(
        out.contains(&format!(
            "chat template {}:\n",
            template_label("default", default)
        )),
        "the heading is the selector's label: {out}"
    );
    for (n, line) in &lines {
        assert!(out.contains(&format!("{n:>5}  {line}\n")), "{n}: {line:?}");
    }
}

#[test]
fn diff_exit_status_is_that_of_diff1() {
    let base = GgufBuilder::new(3)
        .kv("general.architecture", W::s("llama"))
        .tensor("blk.0.attn_q.weight", &[32, 2], 0, 0);
    let a = temp_file("diff-a.gguf", &base.clone().build());
    let same = temp_file("diff-same.gguf", &base.clone().build());
    let other_key = temp_file(
        "diff-key.gguf",
        &base.clone().kv("general.name", W::s("b")).build(),
    );
    let other_type = temp_file(
        "diff-type.gguf",
        &GgufBuilder::new(3)
            .kv("general.architecture", W::s("llama"))
            .tensor("blk.0.attn_q.weight", &[32, 2], 8, 0)
            .build(),
    );
    let full = base
        .clone()
        .kv("general.name", W::s("a long enough name"))
        .build();
    let cut = temp_file("diff-cut.gguf", &full[..full.len() - 40]);
    let not_model = temp_file("diff-text.gguf", b"hello, not a model file at all\n");
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let status = |x: &PathBuf, y: &PathBuf, json: bool| {
        let (x, y) = (path(x), path(y));
        let mut args = vec!["diff", x.as_str(), y.as_str()];
        if json {
            args.push("--json");
        }
        run(&args)
    };
    for json in [false, true] {
        let (code, out) = status(&a, &same, json);
        assert_eq!(code, 0, "no differences: {out}");
        let (code, out) = status(&a, &other_key, json);
        assert_eq!(code, 1, "a key only in B: {out}");
        assert!(out.contains("general.name"), "{out}");
        let (code, out) = status(&other_key, &a, json);
        assert_eq!(code, 1, "a key only in A: {out}");
        let (code, out) = status(&a, &other_type, json);
        assert_eq!(code, 1, "a tensor type differs: {out}");
        assert_eq!(status(&a, &cut, json).0, 2, "B's header cut short");
        assert_eq!(status(&not_model, &a, json).0, 2, "A is not a model");
        let missing = PathBuf::from("/nonexistent/model.gguf");
        assert_eq!(status(&a, &missing, json).0, 2, "B cannot be opened");
    }
    for p in [a, same, other_key, other_type, cut, not_model] {
        std::fs::remove_file(p).ok();
    }
}

/// Runs the binary; (status, stdout, stderr).
fn run_all(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .args(args)
        .output()
        .expect("run weightpeek");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A safetensors file of `(name, dtype, shape, bytes)` entries laid end to end.
fn safetensors(entries: &[(&str, &str, &[u64], u64)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut at = 0u64;
    for (name, dtype, shape, bytes) in entries {
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [at, at + bytes]}),
        );
        at += bytes;
    }
    let text = serde_json::Value::Object(header).to_string();
    let mut b = (text.len() as u64).to_le_bytes().to_vec();
    b.extend(text.as_bytes());
    b.resize(b.len() + at as usize, 0);
    b
}

#[test]
fn no_control_or_bidi_character_from_a_file_reaches_the_terminal() {
    // ESC (a terminal escape sequence), BEL and RIGHT-TO-LEFT OVERRIDE, in everything a file
    // names: the architecture, a key and its value, tensor names, tokens, a chat template, and
    // (safetensors) a dtype label.
    const RAW: [char; 3] = ['\u{1b}', '\u{7}', '\u{202e}'];
    const ESCAPED: [&str; 3] = ["\\u{1b}", "\\u{7}", "\\u{202e}"];
    let arch = "ar\u{1b}[2Jch\u{7}\u{202e}";
    let key = "evil.\u{1b}]0;title\u{7}.\u{202e}key";
    let shown = |s: &str| {
        s.replace('\u{1b}', "\\u{1b}")
            .replace('\u{7}', "\\u{7}")
            .replace('\u{202e}', "\\u{202e}")
    };
    let previewed = "blk.0.\u{1b}[31mattn_q\u{7}\u{202e}.weight";
    let outside = "blk.1.\u{202e}ffn\u{1b}.weight";
    let gguf = |value: &str, extra: &str| {
        GgufBuilder::new(3)
            .kv("general.architecture", W::s(arch))
            .kv(&format!("{arch}.block_count"), W::U32(2))
            .kv(key, W::s(value))
            .kv("tokenizer.ggml.model", W::s("ll\u{1b}ama"))
            .kv(
                "tokenizer.ggml.tokens",
                W::Arr(8, vec![W::s("<s>"), W::s("\u{1b}[2J\u{7}\u{202e}")]),
            )
            .kv("tokenizer.ggml.bos_token_id", W::U32(1))
            .kv(
                "tokenizer.chat_template",
                W::s("{{ \u{1b}[2J }}\u{7}\u{202e}"),
            )
            .kv(
                &format!("tokenizer.chat_template.v\u{1b}{extra}"),
                W::s("x"),
            )
            // F32 [4]: 16 bytes in the file; the next tensor's data lies past its end (a
            // finding naming it).
            .tensor(previewed, &[4], 0, 0)
            .tensor(outside, &[1024], 0, 32)
            .tensor(&format!("{extra}\u{7}"), &[4], 0, 0)
    };
    let mut a = gguf("a\u{1b}[0m\u{7}", "a");
    a.data_len = 16;
    let mut b = gguf("b\u{202e}", "b");
    b.data_len = 16;
    let ga = temp_file("hostile-a.gguf", &a.build());
    let gb = temp_file("hostile-b.gguf", &b.build());
    let st_name = "emb\u{1b}[2J\u{7}\u{202e}.weight";
    let sa = temp_file(
        "hostile-a.safetensors",
        &safetensors(&[
            (st_name, "F8\u{1b}[5m\u{7}\u{202e}", &[2], 2),
            ("norm\u{1b}\u{202e}", "F32", &[2], 8),
        ]),
    );
    let sb = temp_file(
        "hostile-b.safetensors",
        &safetensors(&[(st_name, "Q\u{7}\u{202e}", &[2], 2)]),
    );
    let (ga, gb, sa, sb) = (
        ga.to_str().unwrap().to_string(),
        gb.to_str().unwrap().to_string(),
        sa.to_str().unwrap().to_string(),
        sb.to_str().unwrap().to_string(),
    );
    let clean = |what: &str, out: &str, err: &str| {
        for c in RAW {
            assert!(!out.contains(c), "{what}: {c:?} raw in stdout: {out:?}");
            assert!(!err.contains(c), "{what}: {c:?} raw in stderr: {err:?}");
        }
    };
    // (arguments, exit status, what the output must show escaped)
    let runs: Vec<(Vec<&str>, i32, Vec<String>)> = vec![
        (
            vec![&ga],
            0,
            vec![
                format!("architecture: {}", shown(arch)),
                shown(key),
                format!("\"{}\"", shown("a\u{1b}[0m\u{7}")),
                // The checks name the tensor whose data lies outside the file.
                format!("tensor \"{}\"", shown(outside)),
            ],
        ),
        (
            vec![&ga, "--tensors"],
            0,
            vec![shown(previewed), shown(outside), shown("a\u{7}")],
        ),
        (
            vec![&ga, "--markdown"],
            0,
            vec![format!("## Architecture: {}", shown(arch))],
        ),
        (
            vec![&ga, "--csv"],
            0,
            vec![shown(previewed), shown(outside)],
        ),
        (vec![&ga, "--check"], 1, vec![shown(outside)]),
        (
            vec![&ga, "--tokenizer"],
            0,
            vec![
                shown("ll\u{1b}ama"),
                format!("\"{}\"", shown("\u{1b}[2J\u{7}\u{202e}")),
                shown("{{ \u{1b}[2J }}\u{7}\u{202e}"),
                format!("chat template {} (1 line):", shown("v\u{1b}a")),
            ],
        ),
        (vec![&ga, "--memory"], 1, vec![]),
        (
            vec![&ga, "--tensor", previewed],
            0,
            vec![format!("{} (F32, shape [4];", shown(previewed))],
        ),
        (
            vec!["diff", &ga, &gb],
            1,
            vec![
                shown(key),
                format!("A: \"{}\"", shown("a\u{1b}[0m\u{7}")),
                format!("B: \"{}\"", shown("b\u{202e}")),
                shown("a\u{7}"),
                shown("b\u{7}"),
            ],
        ),
        (
            vec![&sa],
            0,
            vec![format!("{} (unknown)", shown("F8\u{1b}[5m\u{7}\u{202e}"))],
        ),
        (
            vec![&sa, "--tensors"],
            0,
            vec![shown(st_name), shown("norm\u{1b}\u{202e}")],
        ),
        (
            vec![&sa, "--markdown"],
            0,
            vec![format!("{} (unknown)", shown("F8\u{1b}[5m\u{7}\u{202e}"))],
        ),
        (
            vec![&sa, "--csv"],
            0,
            vec![
                shown(st_name),
                format!("{} (unknown)", shown("F8\u{1b}[5m\u{7}\u{202e}")),
            ],
        ),
        (vec![&sa, "--check"], 0, vec![]),
        (
            vec![&sa, "--tensor", "norm\u{1b}\u{202e}"],
            0,
            vec![format!("{} (F32, shape [2];", shown("norm\u{1b}\u{202e}"))],
        ),
        (
            vec!["diff", &sa, &sb],
            1,
            vec![
                shown(st_name),
                format!("{} (unknown) [2]", shown("F8\u{1b}[5m\u{7}\u{202e}")),
                format!("{} (unknown) [2]", shown("Q\u{7}\u{202e}")),
            ],
        ),
    ];
    for (args, code, want) in &runs {
        let (got, out, err) = run_all(args);
        let what = args.iter().map(|a| shown(a)).collect::<Vec<_>>().join(" ");
        clean(&what, &out, &err);
        assert_eq!(got, *code, "{what}: {out}{err}");
        for w in want {
            assert!(out.contains(w.as_str()), "{what}: {w} not in {out}");
        }
        if !want.is_empty() {
            assert!(ESCAPED.iter().any(|e| out.contains(e)), "{what}: {out}");
        }
    }
    // Errors naming file text go to stderr escaped too: a tensor that is not there, one whose
    // dtype cannot be decoded.
    for (args, said) in [
        (
            vec![ga.as_str(), "--tensor", "no\u{1b}[2Jne\u{7}\u{202e}"],
            "no\\u{1b}[2Jne",
        ),
        (vec![sa.as_str(), "--tensor", st_name], "emb\\u{1b}[2J"),
    ] {
        let (code, out, err) = run_all(&args);
        clean("an error", &out, &err);
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(said), "{err}");
    }
    for p in [ga, gb, sa, sb] {
        std::fs::remove_file(p).ok();
    }
}
