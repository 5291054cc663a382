//! Property tests: any bytes, and any damage to a valid file, give a model or an error, never
//! a panic; errors always name an offset inside the file.

mod common;

use common::{GgufBuilder, W};
use proptest::prelude::*;
use weightpeek::open::OpenedModel;
use weightpeek::source::parse_bytes;
use weightpeek::summary::summarize;

fn valid_gguf() -> Vec<u8> {
    let mut b = GgufBuilder::new(3)
        .kv("general.architecture", W::s("llama"))
        .kv("llama.block_count", W::U32(2))
        .kv(
            "tokenizer.ggml.tokens",
            W::Arr(8, vec![W::s("a"), W::s("bb")]),
        )
        .kv("nested", W::Arr(9, vec![W::Arr(6, vec![W::F32(1.0)])]))
        .tensor("blk.0.attn_q.weight", &[64, 2], 8, 0)
        .tensor("blk.1.attn_q.weight", &[256], 12, 160);
    b.data_len = 400;
    b.build()
}

fn valid_safetensors() -> Vec<u8> {
    let json = br#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[16,24]}}"#;
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend(json);
    b.extend([0u8; 24]);
    b
}

fn check(bytes: &[u8]) {
    match parse_bytes(bytes).map(OpenedModel::from) {
        Ok(m) => {
            if let Some(e) = &m.error {
                assert!(e.offset <= bytes.len() as u64, "{e}");
                assert!(!e.to_string().is_empty());
            }
            let s = summarize(&m);
            serde_json::to_string(&s).unwrap();
        }
        Err(e) => assert!(e.offset <= bytes.len() as u64, "{e}"),
    }
}

/// Overwrites bytes at the given positions, cuts the file, and checks the result.
fn damage(mut b: Vec<u8>, edits: &[(usize, u8)], cut: usize) {
    for &(at, v) in edits {
        let n = b.len();
        b[at % n] = v;
    }
    let n = b.len();
    b.truncate(cut % (n + 1));
    check(&b);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_after_a_gguf_magic(version in 0u32..5, rest in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut b = b"GGUF".to_vec();
        b.extend(version.to_le_bytes());
        b.extend(rest);
        check(&b);
    }

    #[test]
    fn damaged_gguf(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>()) {
        damage(valid_gguf(), &edits, cut);
    }

    #[test]
    fn damaged_safetensors(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>()) {
        damage(valid_safetensors(), &edits, cut);
    }
}
