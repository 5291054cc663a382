//! Unit tests of the helpers; whole layouts are tested in tests/quant_safetensors.rs.

use super::bnb::{bnb_state, BnbState};
use super::ctx::group_words;
use super::*;

#[test]
fn group_words_say_per_channel_for_a_whole_row() {
    assert_eq!(group_words(Some(128), 4096), "group size 128");
    assert_eq!(group_words(Some(4096), 4096), "per-channel");
    assert_eq!(group_words(None, 4096), "");
}

#[test]
fn attach_config_keeps_the_reason_it_failed() {
    let mut m = OpenedModel::from(crate::format::model_from_safetensors(
        Default::default(),
        Vec::new(),
        0,
    ));
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
