//! Tokens that repeat an earlier token's bytes (llama.cpp refuses such a vocabulary: "duplicate
//! token in vocabulary"), found in one pass over the vocabulary.
//!
//! [`hashed`] hashes every token's bytes, splits the tokens by the hash's top bits into buckets
//! of a few hundred (one sequential pass, in id order), then finds equal hashes inside each
//! bucket with a small open-addressing table that stays in the CPU's cache: a few nanoseconds
//! a token, where one table for the whole vocabulary would wait on a cache miss per token. The
//! hash is not keyed (the page has no random seed to give it), so a crafted vocabulary can
//! make its tokens collide; the tables then give up after [`PROBES_PER_TOKEN`] probes per token
//! on average and [`sorted`] answers instead, in O(n log n) whatever the texts. Both give the
//! same repeats.

use crate::format::token_index::TokenIndex;

/// Probes (slot visits and byte comparisons) the tables may spend per token before they are
/// taken to be under attack. A table at most half full averages under two probes per insert
/// for a hash that spreads real text; eight leaves room for unlucky vocabularies.
pub const PROBES_PER_TOKEN: u64 = 8;

/// Tokens per bucket aimed at: a bucket's table (twice as many 4-byte slots) fits in the
/// first-level cache.
const BUCKET_TOKENS: u64 = 256;

/// Every token (non-empty) whose bytes equal an earlier token's, as `(first id, id)` in id
/// order; `None` when the vocabulary does not suit the tables (over `u32::MAX` tokens, a token
/// past the bytes) or the probe budget runs out.
pub fn hashed(index: &TokenIndex, bytes: &[u8]) -> Option<Vec<(u64, u64)>> {
    let n = index.len();
    if n >= u64::from(u32::MAX) {
        return None;
    }
    // Top bits of the hash pick the bucket: 2^bits buckets of about BUCKET_TOKENS each.
    let bits = (n / BUCKET_TOKENS).max(1).ilog2().min(16);
    let bucket = |h: u64| {
        if bits == 0 {
            0
        } else {
            (h >> (64 - bits)) as usize
        }
    };
    // Each token's hash, 0 for an empty token (exempt: llama.cpp renames those).
    let mut hashes = Vec::with_capacity(usize::try_from(n).ok()?);
    let mut starts = vec![0u32; (1usize << bits) + 1];
    for id in 0..n {
        let t = index.bytes_at(bytes, id)?;
        let h = if t.is_empty() { 0 } else { hash(t).max(1) };
        if h != 0 {
            starts[bucket(h) + 1] += 1;
        }
        hashes.push(h);
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    // Each bucket's (low 32 bits of the hash, id), in id order: the bucket's slots and tags.
    let mut fill = starts.clone();
    let mut entries = vec![(0u32, 0u32); starts[starts.len() - 1] as usize];
    for (id, &h) in hashes.iter().enumerate() {
        if h != 0 {
            let at = &mut fill[bucket(h)];
            entries[*at as usize] = (h as u32, id as u32);
            *at += 1;
        }
    }
    drop(hashes);
    let mut budget = n.saturating_mul(PROBES_PER_TOKEN).saturating_add(64);
    let mut out = Vec::new();
    // Each slot: the entry's place in its bucket + 1 (0 is an empty slot).
    let mut table: Vec<u32> = Vec::new();
    for w in starts.windows(2) {
        let group = &entries[w[0] as usize..w[1] as usize];
        let slots = (group.len() * 2).max(4).next_power_of_two();
        let mask = slots as u32 - 1;
        table.clear();
        table.resize(slots, 0);
        for (i, &(h, id)) in group.iter().enumerate() {
            let mut at = h & mask;
            loop {
                budget = budget.checked_sub(1)?;
                let slot = table[at as usize];
                if slot == 0 {
                    table[at as usize] = i as u32 + 1;
                    break;
                }
                let (fh, first) = group[slot as usize - 1];
                // Equal low bits in one bucket: compare the bytes (a true repeat, almost
                // always; a miss costs one comparison from the budget).
                if fh == h {
                    budget = budget.checked_sub(1)?;
                    let same = index.bytes_at(bytes, u64::from(first))?
                        == index.bytes_at(bytes, u64::from(id))?;
                    if same {
                        out.push((u64::from(first), u64::from(id)));
                        break;
                    }
                }
                at = (at + 1) & mask;
            }
        }
    }
    out.sort_unstable_by_key(|&(_, id)| id);
    Some(out)
}

/// As [`hashed`], by sorting every token's bytes: O(n log n) comparisons for any vocabulary.
pub fn sorted(index: &TokenIndex, bytes: &[u8]) -> Vec<(u64, u64)> {
    // Sorted by bytes, then id (a stable sort keeps id order): each run of equal texts starts
    // with its first id.
    let mut all: Vec<(&[u8], u64)> = (0..index.len())
        .filter_map(|id| Some((index.bytes_at(bytes, id)?, id)))
        .filter(|(b, _)| !b.is_empty())
        .collect();
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = Vec::new();
    for run in all.chunk_by(|a, b| a.0 == b.0) {
        out.extend(run[1..].iter().map(|&(_, id)| (run[0].1, id)));
    }
    out.sort_unstable_by_key(|&(_, id)| id);
    out
}

/// A 64-bit hash of a token's bytes: eight bytes at a time, multiplied and folded, then
/// mixed (MurmurHash3's finaliser) so the low bits that pick a slot depend on every byte.
fn hash(t: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (t.len() as u64).wrapping_mul(K);
    let mut chunks = t.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    // The last 0..=7 bytes, little-endian, shifted in (no copy through memory).
    let last = chunks
        .remainder()
        .iter()
        .rev()
        .fold(0u64, |w, &b| (w << 8) | u64::from(b));
    h = (h ^ last).wrapping_mul(K);
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::value::Layout;
    use crate::format::{ArrayRef, Endian, ValueType};

    /// A GGUF v3 string array of `tokens` (8-byte lengths) and its index.
    fn vocab(tokens: &[Vec<u8>]) -> (Vec<u8>, TokenIndex) {
        let mut bytes = Vec::new();
        for t in tokens {
            bytes.extend_from_slice(&(t.len() as u64).to_le_bytes());
            bytes.extend_from_slice(t);
        }
        let a = ArrayRef {
            elem: ValueType::String,
            len: tokens.len() as u64,
            start: 0,
            end: bytes.len() as u64,
            layout: Layout {
                endian: Endian::Little,
                len_width: 8,
            },
        };
        let index = TokenIndex::build(&a, &bytes).expect("index");
        (bytes, index)
    }

    #[test]
    fn hashed_and_sorted_agree() {
        // Repeats of short and long texts, of the empty token (exempt), out of order.
        let words = [
            "a",
            "",
            "hello",
            "▁the",
            "a",
            "",
            "a long token of many bytes",
            "hello",
        ];
        let mut tokens: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
        tokens.push(b"a long token of many bytes".to_vec());
        tokens.extend((0..5000u32).map(|i| format!("t{}", i % 4000).into_bytes()));
        let (bytes, index) = vocab(&tokens);
        let want = sorted(&index, &bytes);
        assert_eq!(want.len(), 3 + 1000);
        assert_eq!(&want[..4], &[(0, 4), (2, 7), (6, 8), (9, 4009)]);
        assert_eq!(hashed(&index, &bytes), Some(want));
    }

    #[test]
    fn colliding_vocabulary_falls_back_to_sorting() {
        // 64 distinct tokens (one bucket) whose hashes pick the same slot of the 128-slot
        // table: the probes run past the budget, so the table gives up and the sort answers.
        let n = 64;
        let mask = 127;
        let target = hash(b"x0") & mask;
        let tokens: Vec<Vec<u8>> = (0u64..)
            .map(|i| format!("x{i}").into_bytes())
            .filter(|t| hash(t) & mask == target)
            .take(n)
            .collect();
        let (bytes, index) = vocab(&tokens);
        assert_eq!(hashed(&index, &bytes), None);
        assert!(sorted(&index, &bytes).is_empty());
    }
}
