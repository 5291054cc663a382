//! The compute-buffer allowance: scratch memory llama.cpp's graph allocator reserves on each
//! device for the worst-case batch, beside the weights and the KV cache.
//!
//! llama.cpp measures it by reserving the prompt-processing graph for `n_ubatch` tokens with
//! every token an output (`llama_context::llama_context` → `graph_reserve(n_tokens, n_seqs,
//! n_outputs = min(n_tokens, n_batch))`, src/llama-context.cpp). This estimate follows the
//! tensors of that graph that are alive at its peaks, all f32 (4 bytes), `T = min(cells,
//! n_ubatch 512)` tokens, flash attention on (llama.cpp's `auto` turns it on wherever the
//! backend supports it, which the CPU, CUDA, Metal and Vulkan backends do):
//!
//! ```text
//! layer  = 4 T (3 n_embd + max(attention, ffn))      on each device that runs layers
//!   attention = n_head d_k + 2 n_head_kv d_k + n_head d_v   (Q, K, V, attention output)
//!   ffn       = 3 n_ff                                         (gate, up, their product)
//!             = 3 n_ff_exp n_expert_used + n_expert + 3 n_ff_shexp   (MoE)
//! logits = 4 T (n_vocab + 2 n_embd)                  on the output layer's device
//!                                                    (logits of every token, the final norm)
//! host   = 4 T n_embd + 2 T cells                    on the CPU when every layer is offloaded
//!                                                    (input embeddings, f16 attention mask)
//! ```
//!
//! The output phase is what llama.cpp reserves exactly for a dense model; the layer phase is an
//! upper bound (ggml's allocator reuses the layers' scratch for the logits, so the true peak is
//! nearer the larger of the two than their sum). `tests/fit.rs` compares the CPU figure
//! (layer + logits) with the compute buffer llama.cpp itself reports (`CPU compute buffer
//! size`, recorded in tests/reference/llama_cpp_fit.json by `llama_cpp_memory.py --fit`) for
//! four architectures at four settings: never below it, at most 5% + 1 MiB above.

use serde::Serialize;

use crate::format::{Model, Value};
use crate::summary::memory::N_UBATCH;

/// The allowance per device role, in bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Compute {
    /// On a GPU that runs at least one layer.
    pub gpu: u64,
    /// In addition, on the device of the output layer.
    pub logits: u64,
    /// On the CPU when it runs layers (or everything).
    pub cpu: u64,
    /// On the CPU when every layer is offloaded.
    pub host: u64,
    /// Tokens per batch assumed (`T`).
    pub tokens: u64,
    /// The figures with this model's numbers.
    pub formula: String,
}

/// The largest integer of a scalar or a per-layer array key.
fn max_of(m: &Model, key: &str) -> Option<u64> {
    match m.get(key)? {
        Value::Array(a) => {
            let n = a.len.min(100_000);
            a.values(&m.bytes, 0, n)
                .ok()?
                .iter()
                .filter_map(Value::as_u64)
                .max()
        }
        v => v.as_u64(),
    }
}

/// The allowance for `m` with full-attention caches of `cells` cells. Hyper-parameters that
/// are missing count as 0 (their term drops out), so the allowance never fails.
pub fn allowance(m: &Model, arch: &str, cells: u64) -> Compute {
    let k = |name: &str| max_of(m, &format!("{arch}.{name}"));
    let n_embd = k("embedding_length").unwrap_or(0);
    let n_head = k("attention.head_count").unwrap_or(0);
    let n_head_kv = k("attention.head_count_kv").unwrap_or(n_head);
    let default_dim = n_embd.checked_div(n_head).unwrap_or(0);
    let dk = k("attention.key_length").unwrap_or(default_dim);
    let dv = k("attention.value_length").unwrap_or(default_dim);
    let n_ff = k("feed_forward_length").unwrap_or(0);
    let n_expert = k("expert_count").unwrap_or(0);
    let n_used = k("expert_used_count").unwrap_or(0);
    let n_ff_exp = k("expert_feed_forward_length").unwrap_or(n_ff);
    let n_ff_shexp = k("expert_shared_feed_forward_length").unwrap_or(0);
    // ggml order: token_embd is [n_embd, n_vocab].
    let n_vocab = m
        .tensors
        .iter()
        .find(|t| t.name == "output.weight")
        .or_else(|| m.tensors.iter().find(|t| t.name == "token_embd.weight"))
        .and_then(|t| t.shape.get(1).copied())
        .unwrap_or(0);
    let t = cells.clamp(1, N_UBATCH);
    let mul = |a: u64, b: u64| a.saturating_mul(b);
    let attention = mul(n_head, dk)
        .saturating_add(mul(2, mul(n_head_kv, dk)))
        .saturating_add(mul(n_head, dv));
    let ffn = if n_expert > 0 && n_used > 0 {
        mul(3, mul(n_ff_exp, n_used))
            .saturating_add(n_expert)
            .saturating_add(mul(3, n_ff_shexp))
    } else {
        mul(3, n_ff)
    };
    let layer = mul(4 * t, mul(3, n_embd).saturating_add(attention.max(ffn)));
    let logits = mul(4 * t, n_vocab.saturating_add(mul(2, n_embd)));
    let host = mul(4 * t, n_embd).saturating_add(mul(2 * t, cells));
    let formula = format!(
        "compute: 4 B × {t} tokens × (3 × {n_embd} + max(attention {attention}, ffn {ffn})) = {layer} bytes per device running layers; logits 4 B × {t} × ({n_vocab} + 2 × {n_embd}) = {logits} bytes on the output layer's device; {host} bytes on the host when everything is offloaded"
    );
    Compute {
        gpu: layer,
        logits,
        cpu: layer,
        host,
        tokens: t,
        formula,
    }
}
