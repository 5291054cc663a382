//! Unit tests of the helpers; whole layouts are tested in tests/quant_safetensors.rs.

use super::bnb::{bnb_state, BnbState};
use super::ctx::group_words;
use super::*;

#[test]
fn pick_local_finds_the_model_and_its_config() {
    let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        pick_local(&n(&["config.json", "model.safetensors"])),
        Some((1, Some(0)))
    );
    assert_eq!(pick_local(&n(&["Model.SafeTensors"])), Some((0, None)));
    assert_eq!(
        pick_local(&n(&["quantize_config.json", "x.gguf", "config.json"])),
        Some((1, Some(2)))
    );
    assert_eq!(
        pick_local(&n(&["quantize_config.json", "w.bin"])),
        Some((1, Some(0)))
    );
    assert_eq!(pick_local(&n(&["config.json"])), None);
    assert_eq!(pick_local(&[]), None);
}

#[test]
fn group_words_say_per_channel_for_a_whole_row() {
    assert_eq!(group_words(Some(128), 4096), "group size 128");
    assert_eq!(group_words(Some(4096), 4096), "per-channel");
    assert_eq!(group_words(None, 4096), "");
}

#[test]
fn config_url_is_the_sibling_config_json() {
    assert_eq!(
        config_url("https://huggingface.co/o/r/resolve/main/model.safetensors?download=1")
            .as_deref(),
        Some("https://huggingface.co/o/r/resolve/main/config.json")
    );
    assert_eq!(
        config_url("http://127.0.0.1:8080/a/b/x.safetensors").as_deref(),
        Some("http://127.0.0.1:8080/a/b/config.json")
    );
    assert_eq!(config_url("https://host"), None);
    assert_eq!(config_url("https://host/"), None);
    assert_eq!(config_url("https://host/dir/"), None);
}

#[test]
fn attach_config_keeps_the_reason_it_failed() {
    let mut m = crate::format::model_from_safetensors(Default::default(), Vec::new(), 0);
    attach_config(&mut m, b"{\"quantization\": {\"bits\": 4}}", "c.json");
    assert!(m.sidecar.config.is_some());
    attach_config(&mut m, b"{ nope", "c.json");
    assert!(m.sidecar.config.is_none());
    assert!(m
        .sidecar
        .config_error
        .as_deref()
        .unwrap()
        .starts_with("c.json: not JSON"));
}

#[test]
fn bnb_state_reads_the_shape() {
    let st = bnb_state(br#"{"quant_type":"nf4","blocksize":64,"shape":[7,9]}"#).unwrap();
    assert_eq!(
        st,
        BnbState {
            shape: vec![7, 9],
            blocksize: Some(64),
            quant_type: Some("nf4".into())
        }
    );
    assert!(bnb_state(b"{\"shape\":[-1]}").is_err());
    assert!(bnb_state(b"\xff").is_err());
}
