//! Placing a model's layers on devices as llama.cpp does, and the search for the most that
//! fits.
//!
//! `-ngl N` (`llama_model::load_tensors`, src/llama-model.cpp): the layers are `blk.0` …
//! `blk.{n-1}` and then the output layer, n + 1 slots; `i_gpu_start = max(n + 1 - N, 0)`, and
//! slots from `i_gpu_start` on go to the GPUs, so the output layer is the first to be offloaded
//! and `-ngl n+1` puts everything but the input layer on the GPUs. Slot `il` goes to the first
//! GPU `g` whose cumulative split fraction exceeds `(il - i_gpu_start) / N`; with
//! `--tensor-split` given as whole layer counts per GPU that is exactly those counts, in order.
//! Each layer's KV cache lives with its layer (`offload_kqv`, on by default).
//!
//! `--n-cpu-moe K` adds a CPU override for the expert tensors of layers 0 … K-1
//! (`llm_add_n_cpu_ffn_overrides`, common/common.h): their bytes move to system memory while
//! the rest of those layers stays on the GPU.
//!
//! The search fills GPU 0 with as many consecutive slots as its budget holds (its compute
//! allowance included), then GPU 1, and so on; [`most_layers`] takes the largest `N` whose
//! last `N` slots all find room, [`fewest_cpu_moe`] the smallest `K` with every slot on a GPU.
//! A GPU that would take no slot gets a share of 0 in the split. More budget never places
//! fewer layers: a packing that fits keeps fitting when a budget grows.

use serde::Serialize;

use super::compute::Compute;
use super::costs::Costs;

/// What one device holds under a placement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeviceLoad {
    /// Weight bytes (tensors as stored in the file).
    pub weights: u64,
    /// KV cache bytes.
    pub kv: u64,
    /// Compute-buffer allowance (bytes).
    pub compute: u64,
    /// Repeating layers (`blk.N`) whose tensors are here (for the CPU: not on any GPU).
    pub layers: Vec<u64>,
    /// Whether the output layer is here.
    pub output: bool,
}

impl DeviceLoad {
    /// weights + kv + compute.
    pub fn total(&self) -> u64 {
        self.weights
            .saturating_add(self.kv)
            .saturating_add(self.compute)
    }
}

/// Where everything goes for one `-ngl` / `--n-cpu-moe` setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The `-ngl` value: slots (repeating layers + the output layer) on the GPUs.
    pub gpu_layers: u64,
    /// The `--n-cpu-moe` value: layers 0 … K-1 keep their expert tensors in system memory.
    pub cpu_moe: u64,
    /// Per GPU, in the order given.
    pub gpus: Vec<DeviceLoad>,
    /// System memory: the input layer, the layers not offloaded, moved expert tensors.
    pub cpu: DeviceLoad,
}

impl Placement {
    /// Repeating layers per GPU (the `--tensor-split` counts; the output layer is not one).
    pub fn split(&self) -> Vec<u64> {
        self.gpus
            .iter()
            .map(|g| g.layers.len() as u64 + u64::from(g.output))
            .collect()
    }
}

/// Bytes of slot `il` (a layer index, or `n` for the output layer) on a GPU, as (weights, kv).
fn slot_cost(c: &Costs, il: usize, cpu_moe: u64) -> (u64, u64) {
    match c.layers.get(il) {
        Some(l) => {
            let experts = if (il as u64) < cpu_moe { 0 } else { l.experts };
            (l.dense.saturating_add(experts), l.kv)
        }
        None => (c.output.saturating_add(c.tied_output), 0),
    }
}

/// Places the last `gpu_layers` slots on GPUs with the byte `budgets`, moving the experts of
/// the first `cpu_moe` layers to system memory. `None` when some slot finds no room.
pub fn place(
    c: &Costs,
    compute: &Compute,
    budgets: &[u64],
    gpu_layers: u64,
    cpu_moe: u64,
) -> Option<Placement> {
    let n = c.layers.len();
    let slots = n as u64 + 1;
    let ngl = if budgets.is_empty() {
        0
    } else {
        gpu_layers.min(slots)
    };
    let start = (slots - ngl) as usize;
    let mut gpus = vec![DeviceLoad::default(); budgets.len()];
    let mut g = 0usize;
    for il in start..=n {
        let (w, kv) = slot_cost(c, il, cpu_moe);
        let is_output = il == n;
        loop {
            let load = gpus.get(g)?;
            let budget = budgets[g];
            let mut add = w.saturating_add(kv);
            let mut add_compute = 0;
            if load.layers.is_empty() && !load.output {
                add_compute = compute.gpu;
            }
            if is_output {
                add_compute = add_compute.saturating_add(compute.logits);
            }
            add = add.saturating_add(add_compute);
            if load.total().saturating_add(add) <= budget {
                let load = &mut gpus[g];
                load.weights = load.weights.saturating_add(w);
                load.kv = load.kv.saturating_add(kv);
                load.compute = load.compute.saturating_add(add_compute);
                if is_output {
                    load.output = true;
                } else {
                    load.layers.push(il as u64);
                }
                break;
            }
            g += 1;
        }
    }
    // System memory: the input layer, the slots left on the CPU, moved experts.
    let mut cpu = DeviceLoad {
        weights: c.input,
        ..DeviceLoad::default()
    };
    for (il, l) in c.layers.iter().enumerate() {
        if il < start {
            cpu.weights = cpu
                .weights
                .saturating_add(l.dense)
                .saturating_add(l.experts);
            cpu.kv = cpu.kv.saturating_add(l.kv);
            cpu.layers.push(il as u64);
        } else if (il as u64) < cpu_moe {
            cpu.weights = cpu.weights.saturating_add(l.experts);
        }
    }
    if start == n + 1 {
        // The output layer on the CPU: its tied copy of the token embedding is the same
        // mapped bytes as the input layer's.
        cpu.weights = cpu.weights.saturating_add(c.output);
        cpu.output = true;
    }
    let cpu_has_layers = start > 0 || (cpu_moe > 0 && c.layers.iter().any(|l| l.experts > 0));
    cpu.compute = if cpu_has_layers || budgets.is_empty() || ngl == 0 {
        compute.cpu
    } else {
        compute.host
    };
    if cpu.output {
        cpu.compute = cpu.compute.saturating_add(compute.logits);
    }
    Some(Placement {
        gpu_layers: ngl,
        cpu_moe,
        gpus,
        cpu,
    })
}

/// The placement with the most slots on the GPUs (`-ngl` as large as fits, no expert moved).
pub fn most_layers(c: &Costs, compute: &Compute, budgets: &[u64]) -> Placement {
    let slots = c.layers.len() as u64 + 1;
    (0..=slots)
        .rev()
        .find_map(|ngl| place(c, compute, budgets, ngl, 0))
        .unwrap_or_else(|| {
            // -ngl 0 always places: nothing goes to a GPU.
            place(c, compute, &[], 0, 0).expect("-ngl 0 places every slot on the CPU")
        })
}

/// For a MoE model: every slot on the GPUs with the experts of the fewest first layers moved
/// to system memory (`-ngl all --n-cpu-moe K`); when even all experts moved leaves no room,
/// every expert in system memory and as many slots as fit. `None` without expert tensors.
pub fn fewest_cpu_moe(c: &Costs, compute: &Compute, budgets: &[u64]) -> Option<Placement> {
    let n = c.layers.len() as u64;
    if budgets.is_empty() || c.layers.iter().all(|l| l.experts == 0) {
        return None;
    }
    (0..=n)
        .find_map(|k| place(c, compute, budgets, n + 1, k))
        .or_else(|| {
            (0..=n)
                .rev()
                .find_map(|ngl| place(c, compute, budgets, ngl, n))
        })
}
