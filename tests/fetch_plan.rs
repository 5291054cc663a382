//! Fetch planning for remote files (issue #3): which ranges `read_model` asks an in-memory source
//! for under `ReadPolicy::REMOTE`, given a header size. Targets: safetensors in at most 2 reads
//! (the second exactly the missing bytes), GGUF vocabularies in 2 reads when the vocabulary's
//! companion arrays follow the tokens, at most half of `@huggingface/gguf`'s round trips (it reads
//! 2,000,000-byte chunks), and bytes read ≤ header × 1.25 + 256 KiB. Reads never overlap.

mod common;

use common::{GgufBuilder, W};
use weightpeek::format::Model;
use weightpeek::source::{block_on_ready, read_model, ByteSource, MemSource, ReadPolicy};

const KIB: u64 = 1024;
/// @huggingface/gguf 0.4.6's HTTP_CHUNK_SIZE: one request per 2,000,000 bytes of header.
const HF_CHUNK: u64 = 2_000_000;

fn remote<S: ByteSource>(src: &mut S) -> (Model, u32, u64) {
    let (m, stats) = block_on_ready(read_model(src, &ReadPolicy::REMOTE)).unwrap();
    assert!(m.error.is_none(), "{:?}", m.error);
    (m, stats.reads, stats.bytes)
}

fn contiguous(reads: &[(u64, u64)]) {
    let mut expect = 0;
    for &(off, len) in reads {
        assert_eq!(
            off, expect,
            "reads must continue where the last ended: {reads:?}"
        );
        expect += len;
    }
}

fn within_budget(bytes: u64, header: u64) {
    let budget = header + header / 4 + 256 * KIB;
    assert!(
        bytes <= budget,
        "read {bytes} bytes for a {header}-byte header (budget {budget})"
    );
}

fn safetensors_file(tensors: usize, name_len: usize, data: u64) -> Vec<u8> {
    let mut json = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
    for i in 0..tensors {
        let name = format!("{i:0>name_len$}");
        json.push_str(&format!(
            ",\"{name}\":{{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[{},{}]}}",
            i * 4,
            i * 4 + 4
        ));
    }
    json.push('}');
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.resize(b.len() + (tensors as u64 * 4).max(data) as usize, 0);
    b
}

#[test]
fn small_safetensors_header_is_one_read_of_256_kib() {
    let file = safetensors_file(50, 20, 1 << 20);
    let mut src = MemSource::new(&file);
    let (m, reads, _) = remote(&mut src);
    assert_eq!(reads, 1);
    assert_eq!(src.reads, [(0, 256 * KIB)]);
    assert_eq!(m.tensors.len(), 50);
}

#[test]
fn file_smaller_than_the_first_read_is_read_once_whole() {
    let file = safetensors_file(3, 4, 0);
    let mut src = MemSource::new(&file);
    remote(&mut src);
    assert_eq!(src.reads, [(0, file.len() as u64)]);
}

#[test]
fn large_safetensors_header_takes_exactly_the_missing_bytes() {
    let file = safetensors_file(20_000, 60, 0);
    let header = u64::from_le_bytes(file[..8].try_into().unwrap()) + 8;
    assert!(header > 256 * KIB);
    let mut src = MemSource::new(&file);
    let (m, reads, bytes) = remote(&mut src);
    assert_eq!(reads, 2);
    assert_eq!(src.reads, [(0, 256 * KIB), (256 * KIB, header - 256 * KIB)]);
    assert_eq!(bytes, header);
    assert_eq!(m.tensors.len(), 20_000);
}

/// Pseudo-random length in `0..span` for element `i` (Knuth's multiplicative hash).
fn len_of(i: usize, span: usize) -> usize {
    ((i as u64).wrapping_mul(2_654_435_761) >> 7) as usize % span
}

/// A llama.cpp-style vocabulary: tokens of `tok_len` ± half characters, then the per-token
/// arrays, then `merges` merges of about `merge_len` characters; `skew` makes later tokens
/// longer (the first read then sees only short ones: the worst case for the estimate).
#[allow(clippy::too_many_arguments)]
fn vocab_gguf_with(
    model: &str,
    n: usize,
    tok_len: usize,
    skew: bool,
    scores: bool,
    merges: usize,
    merge_len: usize,
    tensors: usize,
) -> (Vec<u8>, u64) {
    let mut b = GgufBuilder::new(3)
        .kv("general.architecture", W::s("llama"))
        .kv("general.name", W::s("planning test"))
        .kv("tokenizer.ggml.model", W::s(model));
    let tokens = (0..n)
        .map(|i| {
            let extra = if skew {
                i * tok_len / n
            } else {
                len_of(i, tok_len)
            };
            W::s(&format!("t{}{}", i, "x".repeat(extra)))
        })
        .collect();
    b = b.kv("tokenizer.ggml.tokens", W::Arr(8, tokens));
    if scores {
        b = b.kv(
            "tokenizer.ggml.scores",
            W::Arr(6, (0..n).map(|i| W::F32(-(i as f32))).collect()),
        );
    }
    b = b.kv(
        "tokenizer.ggml.token_type",
        W::Arr(5, (0..n).map(|i| W::I32((i % 6) as i32)).collect()),
    );
    if merges > 0 {
        let m = (0..merges)
            .map(|i| W::s(&format!("m{i} {}", "y".repeat(len_of(i, merge_len)))))
            .collect();
        b = b.kv("tokenizer.ggml.merges", W::Arr(8, m));
    }
    b = b.kv("tokenizer.ggml.bos_token_id", W::U32(1));
    for i in 0..tensors {
        b = b.tensor(
            &format!("blk.{}.attn_q.weight", i),
            &[64, 64],
            0,
            i as u64 * 16384,
        );
    }
    b.data_len = 4096;
    b.build_with_offset()
}

fn vocab_gguf(
    model: &str,
    n: usize,
    scores: bool,
    merges: usize,
    tensors: usize,
) -> (Vec<u8>, u64) {
    vocab_gguf_with(model, n, 12, false, scores, merges, 20, tensors)
}

#[test]
fn spm_vocabulary_takes_two_reads() {
    // tokens + scores + token_type: the companions are estimated from the token count.
    let (file, header) = vocab_gguf("llama", 262_144, true, 0, 300);
    let mut src = MemSource::new(&file);
    let (m, reads, bytes) = remote(&mut src);
    contiguous(&src.reads);
    assert_eq!(reads, 2, "{:?} for a {header}-byte header", src.reads);
    assert_eq!(src.reads[0], (0, 256 * KIB));
    within_budget(bytes, header);
    assert_eq!(m.tensors.len(), 300);
}

#[test]
fn skewed_vocabulary_costs_one_more_read_not_more_bytes() {
    // Token length grows through the list: the first 256 KiB underestimate the rest.
    let (file, header) = vocab_gguf_with("llama", 262_144, 12, true, true, 0, 0, 300);
    let mut src = MemSource::new(&file);
    let (_, reads, bytes) = remote(&mut src);
    contiguous(&src.reads);
    assert!(reads <= 3, "{:?} for a {header}-byte header", src.reads);
    within_budget(bytes, header);
}

#[test]
fn bpe_vocabulary_with_merges_takes_at_most_half_of_2_mb_chunking() {
    // ~24 MB header: 300,000 tokens and 300,000 merges (measured once they start).
    let (file, header) = vocab_gguf_with("gpt2", 300_000, 60, false, false, 300_000, 40, 500);
    assert!(header > 20_000_000, "{header}");
    let hf_reads = header.div_ceil(HF_CHUNK);
    let mut src = MemSource::new(&file);
    let (_, reads, bytes) = remote(&mut src);
    contiguous(&src.reads);
    assert!(
        u64::from(reads) * 2 <= hf_reads,
        "{reads} reads vs {hf_reads} for 2 MB chunks: {:?}",
        src.reads
    );
    within_budget(bytes, header);
}

#[test]
fn header_without_vocabulary_is_one_read() {
    let (file, header) = vocab_gguf("llama", 10, true, 0, 1000);
    assert!(header < 256 * KIB);
    let mut src = MemSource::new(&file);
    let (_, reads, _) = remote(&mut src);
    assert_eq!(reads, 1);
}

#[test]
fn many_tensors_are_extrapolated_from_the_first_ones() {
    // No vocabulary, 12,000 tensor infos (~600 KB): 2 reads.
    let (file, header) = vocab_gguf("llama", 10, true, 0, 12_000);
    assert!(header > 256 * KIB);
    let mut src = MemSource::new(&file);
    let (_, reads, bytes) = remote(&mut src);
    contiguous(&src.reads);
    assert_eq!(reads, 2, "{:?} for a {header}-byte header", src.reads);
    within_budget(bytes, header);
}

#[test]
fn planned_len_respects_needed_end_size_and_caps() {
    let p = ReadPolicy::REMOTE;
    // No estimate: the local doubling rule.
    assert_eq!(
        p.planned_len(256 * KIB, 300 * KIB, None, 1 << 30),
        256 * KIB
    );
    // An estimate below what is needed still reads what is needed.
    assert_eq!(p.planned_len(1000, 5000, Some(10), 1 << 30), 64 * KIB);
    assert_eq!(
        p.planned_len(1000, 900 * KIB, Some(10), 1 << 30),
        900 * KIB - 1000
    );
    // Never past the file.
    assert_eq!(p.planned_len(1000, 2000, Some(1 << 40), 4000), 3000);
    // At most max_read per read, unless more is needed.
    assert_eq!(p.planned_len(0, 10, Some(1 << 40), 1 << 41), p.max_read);
    // Estimate plus slack: 1 MiB unread -> + 128 KiB + 64 KiB.
    let have = 256 * KIB;
    let est = have + (1 << 20);
    assert_eq!(
        p.planned_len(have, have + 1, Some(est), 1 << 30),
        (1 << 20) + (128 << 10) + (64 << 10)
    );
}

#[test]
fn real_gemma_header_takes_two_reads_within_budget() {
    let Some(path) = common::real_file(common::data_dir().join("gemma-3-270m-q4_k_m.gguf")) else {
        return;
    };
    let Some(r) = common::reference("gemma-3-270m-q4_k_m") else {
        return;
    };
    let header = r["data_offset"].as_u64().unwrap();
    let mut src = common::CountingFile::open(&path);
    let (m, reads, bytes) = remote(&mut src);
    contiguous(&src.reads);
    assert_eq!(m.tensors.len() as u64, r["tensor_count"].as_u64().unwrap());
    let hf_reads = header.div_ceil(HF_CHUNK);
    assert!(
        u64::from(reads) * 2 <= hf_reads,
        "{reads} reads vs {hf_reads}: {:?}",
        src.reads
    );
    within_budget(bytes, header);
}

#[test]
fn real_minilm_header_is_one_read() {
    let Some(path) =
        common::real_file(common::data_dir().join("all-MiniLM-L6-v2/model.safetensors"))
    else {
        return;
    };
    let mut src = common::CountingFile::open(&path);
    let (_, reads, _) = remote(&mut src);
    assert_eq!(reads, 1);
}
