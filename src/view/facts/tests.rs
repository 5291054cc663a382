use super::*;
use crate::open::OpenedModel;
use crate::source::parse_bytes;
use crate::summary::summarize;
use crate::view::testutil::{gguf, Kv};

fn model() -> OpenedModel {
    let b = gguf(
        &[
            ("general.architecture", Kv::Str("llama")),
            ("general.name", Kv::Str("tiny\nthing")),
            ("llama.block_count", Kv::U32(2)),
        ],
        &[
            ("token_embd.weight", 8, vec![64, 100], 34 * 2 * 100),
            ("blk.0.attn_q.weight", 12, vec![256, 4], 144 * 4),
            ("output_norm.weight", 0, vec![64], 256),
        ],
    );
    parse_bytes(&b).unwrap().into()
}

#[test]
fn facts_carry_test_hooks_with_raw_numbers() {
    let m = model();
    let s = summarize(&m);
    let f = summary_facts(&s, &m);
    let get = |id: &str| f.iter().find(|x| x.testid == Some(id)).unwrap().clone();
    assert_eq!(get("tensor-count").value.as_deref(), Some("3"));
    let params = 64 * 100 + 256 * 4 + 64;
    assert_eq!(get("parameter-count").value, Some(params.to_string()));
    let bpw = get("bits-per-weight");
    let want = (34.0 * 200.0 + 576.0 + 256.0) * 8.0 / params as f64;
    assert_eq!(
        bpw.value.as_deref().map(|v| v.parse::<f64>().unwrap()),
        Some(want)
    );
    assert_eq!(f[0].text, "GGUF v3");
    assert_eq!(f[0].detail.as_deref(), Some("little-endian · alignment 32"));
    assert!(f.iter().all(|x| x.detail.as_deref() != Some("")));
}

#[test]
fn a_quantised_layout_is_a_figure_of_its_own() {
    // GPTQ 4-bit: qweight [in / 8, out] = [8, 16] holds 64 × 16 weights.
    let header = r#"{"l.qweight":{"dtype":"I32","shape":[8,16],"data_offsets":[0,512]},"l.qzeros":{"dtype":"I32","shape":[1,2],"data_offsets":[512,520]},"l.scales":{"dtype":"F16","shape":[1,16],"data_offsets":[520,552]}}"#;
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend(header.as_bytes());
    b.resize(b.len() + 552, 0);
    let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
    let s = summarize(&m);
    let f = summary_facts(&s, &m);
    let get = |id: &str| f.iter().find(|x| x.testid == Some(id)).unwrap().clone();
    assert_eq!(get("parameter-count").value.as_deref(), Some("1024"));
    assert_eq!(
        get("parameter-count").detail.as_deref(),
        Some("1,024 logical (146 values stored)")
    );
    let q = get("quant-layout");
    assert_eq!(q.text, "GPTQ 4-bit, per-channel");
    assert!(q
        .detail
        .unwrap()
        .starts_with("1 quantised weight; no config.json"));
    assert_eq!(
        get("bits-per-weight").value.as_deref(),
        Some((552.0 * 8.0 / 1024.0f64).to_string().as_str())
    );
}

#[test]
fn arch_card_lines_are_escaped_text() {
    let m = model();
    let s = summarize(&m);
    let (title, lines) = arch_lines(s.architecture.as_ref().unwrap());
    assert_eq!(title, "llama");
    assert_eq!(lines[0].value, "tiny\\nthing");
    assert_eq!(lines[1].label, "layers");
    assert_eq!(lines[1].value, "2");
}

#[test]
fn headline_texts() {
    let m = model();
    let s = summarize(&m);
    assert_eq!(subtitle(&s, &m), "GGUF v3 · llama · tiny\\nthing");
    assert_eq!(
        read_note(
            &ReadStats {
                reads: 1,
                bytes: 2048
            },
            1
        ),
        "read 2.0 KiB of the file in 1 slice"
    );
    assert_eq!(
        read_note(
            &ReadStats {
                reads: 3,
                bytes: 3 << 20
            },
            3
        ),
        "read 3.0 MiB of the 3 files in 3 slices"
    );
    assert_eq!(
        loading_text("a\nb.gguf", 10),
        "Reading the header of a\\nb.gguf (10 B)…"
    );
    assert_eq!(
        progress_text("m.gguf", 1 << 30, 3 << 20),
        "Reading the header of m.gguf (1.0 GiB)… 3.0 MiB read"
    );
    assert_eq!(page_title(Some("m.gguf")), "m.gguf · weightpeek");
}

#[test]
fn shape_note_names_the_order() {
    assert!(shape_order_note("gguf", false).contains("ggml order ne0"));
    assert!(shape_order_note("gguf", true).contains("PyTorch order"));
    assert!(shape_order_note("safetensors", false).contains("row-major"));
    assert_eq!(
        shape_toggle_label("gguf", false),
        Some("show PyTorch order")
    );
    assert_eq!(shape_toggle_label("safetensors", false), None);
}

#[test]
fn the_summary_and_architecture_cards_of_the_sample() {
    let m = crate::open::OpenedModel::from(
        parse_bytes(include_bytes!("../../../www/sample.gguf")).unwrap(),
    );
    let s = summarize(&m);
    let stats = ReadStats {
        bytes: 2048,
        reads: 1,
    };
    let c = summary_card("a\nb.gguf", &s, &m, &stats);
    assert_eq!((c.tag, c.class.as_str()), ("section", "card summary"));
    assert_eq!(c.get_attr("data-testid"), Some("summary"));
    let name = &c.find_class("file-name")[0];
    assert_eq!((name.tag, name.text.as_deref()), ("h2", Some("a\\nb.gguf")));
    assert_eq!(c.find_class("file-sub")[0].text, Some(subtitle(&s, &m)));
    assert_eq!(
        c.find_class("read-note")[0].text.as_deref(),
        Some("read 2.0 KiB of the file in 1 slice")
    );
    let count = c.find_testid("tensor-count").unwrap();
    assert_eq!((count.tag, count.class.as_str()), ("dd", "fact-value"));
    assert_eq!(
        count.get_attr("data-value"),
        Some(s.tensor_count.to_string().as_str())
    );
    let facts = summary_facts(&s, &m);
    let items = c.find_class("fact");
    assert_eq!(items.len(), facts.len());
    assert_eq!(items[0].children[0].text.as_deref(), Some(facts[0].label));
    assert_eq!(items[0].children[2].text, facts[0].detail);

    let a = arch_card(s.architecture.as_ref().unwrap());
    assert_eq!(a.class, "card arch");
    let (title, lines) = arch_lines(s.architecture.as_ref().unwrap());
    assert_eq!(a.find_class("badge")[0].text, Some(title));
    let dl = &a.find_class("kv")[0];
    assert_eq!(dl.children.len(), 2 * lines.len());
    assert_eq!(
        dl.children[0].get_attr("title"),
        Some(lines[0].key.as_str())
    );
    assert_eq!(dl.children[1].text, Some(lines[0].value.clone()));
}

/// The format has one name: the line under the file name starts with the format figure's
/// text, for each kind of archive (silero_vad.jit read "PyTorch (zip)" above a "TorchScript
/// (zip)" figure).
#[test]
fn the_subtitle_names_the_format_as_the_format_figure_does() {
    use crate::format::archive::Archive;
    use crate::format::Detail;
    for (kind, name) in [
        ("torchscript", "TorchScript (zip)"),
        ("pickle", "Python pickle"),
        ("npz", "NumPy (.npz)"),
    ] {
        let mut m = model();
        m.detail = Detail::Archive(Archive {
            kind,
            ..Archive::default()
        });
        let mut s = summarize(&m);
        s.format = "pytorch";
        s.architecture = None;
        assert_eq!(format_name(&s, &m), name);
        assert_eq!(summary_facts(&s, &m)[0].text, name);
        assert_eq!(subtitle(&s, &m), name);
    }
    let m = model();
    let s = summarize(&m);
    assert_eq!(summary_facts(&s, &m)[0].text, "GGUF v3");
    assert!(subtitle(&s, &m).starts_with("GGUF v3 · "));
}

/// The pickle verdict's figure carries its severity (`data-severity`, class `severity-…`):
/// danger for dangerous imports, caution for unknown imports or pickles not read whole, safe
/// otherwise; its words say the same.
#[test]
fn the_pickle_verdict_carries_its_severity() {
    use crate::format::archive::{Archive, PickleInfo};
    use crate::format::pickle::{Import, Verdict};
    let import = |module: &str, name: &str, verdict| Import {
        module: module.into(),
        name: name.into(),
        offset: 0,
        opcode: "GLOBAL",
        calls: Vec::new(),
        verdict,
        why: "",
    };
    let archive = |imports: Vec<Import>, stopped: Option<String>| Archive {
        kind: "zip",
        pickles: vec![PickleInfo {
            imports,
            stopped,
            ..PickleInfo::default()
        }],
        ..Archive::default()
    };
    let safe = import("torch._utils", "_rebuild_tensor_v2", Verdict::Safe);
    let cases = [
        (
            archive(
                vec![safe.clone(), import("os", "system", Verdict::Dangerous)],
                None,
            ),
            "dangerous",
            Severity::Danger,
        ),
        (
            archive(vec![safe.clone(), import("a", "B", Verdict::Unknown)], None),
            "unknown imports",
            Severity::Caution,
        ),
        (
            archive(vec![safe.clone()], Some("cut".into())),
            "not fully checked",
            Severity::Caution,
        ),
        (archive(vec![safe.clone()], None), "safe", Severity::Safe),
    ];
    for (a, text, severity) in cases {
        let f = pickle_fact(&a);
        assert_eq!((f.text.as_str(), f.severity), (text, Some(severity)));
        let mut m = model();
        m.detail = crate::format::Detail::Archive(a);
        let s = summarize(&m);
        let card = summary_card("m.pt", &s, &m, &ReadStats::default());
        let verdict = card.find_testid("pickle-verdict").unwrap();
        assert_eq!(verdict.text.as_deref(), Some(text));
        let item = card
            .find_class("fact")
            .into_iter()
            .find(|n| {
                n.children
                    .iter()
                    .any(|c| c.get_attr("data-testid") == Some("pickle-verdict"))
            })
            .unwrap();
        assert_eq!(item.get_attr("data-severity"), Some(severity.name()));
        assert_eq!(item.class, format!("fact severity-{}", severity.name()));
    }
    assert_eq!(
        [Severity::Danger, Severity::Caution, Severity::Safe].map(Severity::name),
        ["danger", "caution", "safe"]
    );
}
