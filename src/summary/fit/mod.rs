//! Will it run here? A placement plan for a GGUF model on a person's GPUs and RAM, from the
//! header alone: how many layers llama.cpp can offload (`-ngl`), how they split across GPUs
//! (`--tensor-split`), for a MoE model how many layers keep their experts in RAM
//! (`--n-cpu-moe`), what stays in system memory, whether it fits at all, the largest context
//! that fits, and the llama.cpp command line that realises the plan.
//!
//! Inputs per part:
//! - weights: the bytes of every tensor as stored ([`costs`]: llama.cpp's grouping into the
//!   input layer, the repeating layers and the output layer);
//! - KV cache: per layer, as [`crate::summary::memory::estimate`] sizes it (llama.cpp's rules,
//!   sliding-window layers included);
//! - compute buffers: an allowance per device ([`compute`]);
//! - a margin kept free on every GPU: llama.cpp's own `--fit` keeps 1024 MiB
//!   (`common_params::fit_params_target`, common/common.h), the default here.
//!
//! The placement rules are llama.cpp's ([`place`]). The plan assumes llama-server's defaults
//! otherwise: one sequence, `n_ubatch` 512, flash attention on (`-fa on` is part of the command
//! line), KV cache with its layer, memory-mapped weights (a layer left on the CPU is read from
//! the page cache, so its bytes count against the RAM).

pub mod compute;
pub mod costs;
pub mod devices;
pub mod hf;
pub mod place;
#[cfg(test)]
mod tests;
mod vllm;

use serde::Serialize;

use crate::format::{Format, Model, Value};
use crate::open::OpenedModel;
use crate::summary::memory::{estimate, EstimateError, KvType, CELL_PAD};
pub use compute::Compute;
pub use costs::{Costs, LayerCost};
pub use devices::{default_devices, parse_size, Devices, Gpu, SizeError, PRESETS};
pub use hf::{wants_config, ConfigError};
pub use place::{DeviceLoad, Placement};

/// llama.cpp's default free-memory margin per GPU for `--fit` (1024 MiB).
pub const DEFAULT_MARGIN: u64 = 1 << 30;

/// llama.cpp's `LLM_FFN_EXPS_REGEX` (common/common.h): the expert tensors `--n-cpu-moe` moves.
pub const EXPERTS_REGEX: &str = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps";

/// What the person asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitOptions {
    /// Context length in tokens; `None`: the model's own (`{arch}.context_length`).
    pub context: Option<u64>,
    /// KV cache type.
    pub kv: KvType,
    /// Bytes kept free on every GPU.
    pub margin: u64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            context: None,
            kv: KvType::F16,
            margin: DEFAULT_MARGIN,
        }
    }
}

/// Whether the model fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fits {
    /// Every layer (and the output layer) on the GPUs; the input layer in RAM.
    Gpu,
    /// Runs with part of the model in system memory.
    Offload,
    /// Does not fit even with everything that can go to system memory there.
    No,
}

impl Fits {
    /// `fits fully on the GPUs`, `fits with offload to RAM`, `does not fit`.
    pub fn label(self) -> &'static str {
        match self {
            Fits::Gpu => "fits fully on the GPUs",
            Fits::Offload => "fits with part in system RAM",
            Fits::No => "does not fit",
        }
    }
}

/// One device's share of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceUse {
    /// `GPU 0`, … or `RAM`.
    pub name: String,
    /// The memory the person gave for it.
    pub free_bytes: u64,
    /// What the plan may use: free − margin (GPUs), all of it (RAM).
    pub budget_bytes: u64,
    /// What the plan puts there (weights + KV + compute).
    pub bytes: u64,
    /// The parts.
    pub load: DeviceLoad,
}

/// Which runtime the plan is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Runtime {
    /// llama.cpp (GGUF files): layers offloaded with `-ngl`.
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    /// vLLM (safetensors models): tensor parallel over the GPUs, `--cpu-offload-gb`.
    #[serde(rename = "vllm")]
    Vllm,
}

/// The plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitPlan {
    /// The runtime whose rules the plan follows.
    pub runtime: Runtime,
    /// `general.architecture` (GGUF), the config's `model_type` (safetensors).
    pub architecture: String,
    /// Context asked for (tokens).
    pub context: u64,
    /// Cells of a full-attention layer's cache.
    pub cells: u64,
    /// KV cache type.
    pub kv_type: KvType,
    /// Margin kept free per GPU (bytes).
    pub margin: u64,
    /// Repeating layers (`{arch}.block_count`).
    pub block_count: u64,
    /// Whether the model has expert tensors.
    pub moe: bool,
    /// The verdict.
    pub fits: Fits,
    /// `-ngl` of the plan (repeating layers + the output layer on the GPUs).
    pub gpu_layers: u64,
    /// `--n-cpu-moe` of the plan (0 for none).
    pub cpu_moe: u64,
    /// `--tensor-split` (slots per GPU), with more than one GPU.
    pub tensor_split: Option<Vec<u64>>,
    /// vLLM: `--cpu-offload-gb` per GPU (GiB), 0 for none.
    pub cpu_offload_gib: u64,
    /// GPUs in order, then the RAM.
    pub devices: Vec<DeviceUse>,
    /// The llama.cpp command line of the plan.
    pub command: String,
    /// The same with the expert override as `-ot REGEX=CPU` instead of `--n-cpu-moe`.
    pub command_ot: Option<String>,
    /// For a MoE model whose recommended plan moves experts: the plain `-ngl` plan beside it.
    pub layers_only: Option<Box<FitPlanAlt>>,
    /// Largest context (tokens, a multiple of 256) at which everything stays on the GPUs.
    pub max_context_gpu: Option<u64>,
    /// Largest context at which the model still fits (with offload).
    pub max_context: Option<u64>,
    /// The bound of that search: the model's own context (or the one asked, if larger).
    pub context_limit: u64,
    /// Per-part costs.
    pub costs: Costs,
    /// The compute allowance.
    pub compute: Compute,
    /// What the plan assumes or leaves out.
    pub notes: Vec<String>,
}

/// The plain `-ngl` alternative shown beside a MoE plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitPlanAlt {
    /// Its verdict.
    pub fits: Fits,
    /// `-ngl`.
    pub gpu_layers: u64,
    /// Its command line.
    pub command: String,
}

/// Why there is no plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FitError {
    /// Neither GGUF (llama.cpp) nor safetensors (vLLM).
    NotGguf(String),
    /// A safetensors model without a usable `config.json` (the reason).
    NoConfig(ConfigError),
    /// No KV estimate for this model (the reason from the memory estimate).
    NoEstimate(EstimateError),
    /// No context was given and the GGUF file has no `{arch}.context_length`.
    NoContext {
        /// `general.architecture` (empty when the file has none).
        arch: String,
    },
    /// llama.cpp refuses a quantised KV cache whose block does not divide a head dimension.
    KvBlock {
        /// The cache type asked for.
        kv: KvType,
        /// `K` or `V`.
        cache: &'static str,
        /// Values per block of the cache type.
        block: u64,
        /// The head dimension.
        dim: u64,
        /// Where the head dimension comes from (a key, or `embedding_length / head_count`).
        from: String,
    },
}

impl From<ConfigError> for FitError {
    fn from(e: ConfigError) -> Self {
        FitError::NoConfig(e)
    }
}

impl From<EstimateError> for FitError {
    fn from(e: EstimateError) -> Self {
        FitError::NoEstimate(e)
    }
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::NotGguf(format) => write!(
                f,
                "no plan: plans follow llama.cpp (GGUF files) or vLLM (safetensors models); this is a {format} file"
            ),
            FitError::NoConfig(why) => write!(
                f,
                "no plan: a safetensors model's KV cache is sized from its config.json: {why}"
            ),
            FitError::NoEstimate(why) => {
                // The estimate's own "no estimate: " gives way to "no plan: ".
                let why = why.to_string();
                write!(f, "no plan: {}", why.trim_start_matches("no estimate: "))
            }
            FitError::NoContext { arch } => write!(
                f,
                "no plan: the file has no {arch}.context_length key; give a context"
            ),
            FitError::KvBlock {
                kv,
                cache,
                block,
                dim,
                from,
            } => write!(
                f,
                "no plan: llama.cpp refuses a {} {cache} cache for this model: its block of {block} values does not divide the head dimension {dim} ({from}); use f16",
                kv.name()
            ),
        }
    }
}

impl std::error::Error for FitError {}

/// The usable bytes of each GPU: free − margin (0 when the margin is larger).
fn budgets(devices: &Devices, margin: u64) -> Vec<u64> {
    devices
        .gpus
        .iter()
        .map(|g| g.bytes.saturating_sub(margin))
        .collect()
}

/// One evaluation at a context: costs, allowance, the two placements and their verdicts.
struct Eval {
    cells: u64,
    costs: Costs,
    compute: Compute,
    dense: Placement,
    moe: Option<Placement>,
}

/// llama.cpp refuses a quantised KV cache whose block does not divide every head dimension
/// (`llama_init_from_model`, src/llama-context.cpp: "K cache type … does not divide
/// n_embd_head_k"). Head dimensions are `{arch}.attention.key_length` / `value_length` (and
/// their `_swa` forms), default `embedding_length / head_count`.
fn check_kv_blocks(m: &Model, arch: &str, kv: KvType) -> Result<(), FitError> {
    let block = match kv {
        KvType::F16 => return Ok(()),
        KvType::Q8_0 | KvType::Q4_0 => 32,
    };
    let k = |name: &str| m.get(&format!("{arch}.{name}")).and_then(Value::as_u64);
    let default = k("embedding_length")
        .zip(k("attention.head_count"))
        .and_then(|(e, h)| e.checked_div(h));
    for (cache, key) in [
        ("K", "attention.key_length"),
        ("V", "attention.value_length"),
        ("K", "attention.key_length_swa"),
        ("V", "attention.value_length_swa"),
    ] {
        let (dim, from) = match k(key) {
            Some(d) => (Some(d), format!("{arch}.{key}")),
            None if key.ends_with("_swa") => (None, String::new()),
            None => (default, format!("{arch}.embedding_length / head_count")),
        };
        if let Some(d) = dim.filter(|d| d % block != 0) {
            return Err(FitError::KvBlock {
                kv,
                cache,
                block,
                dim: d,
                from,
            });
        }
    }
    Ok(())
}

fn evaluate(
    m: &OpenedModel,
    arch: &str,
    devices: &Devices,
    opts: &FitOptions,
    ctx: u64,
) -> Result<Eval, FitError> {
    let e = estimate(m, Some(ctx), opts.kv)?;
    let costs = costs::costs(m, &e.kv_per_layer);
    let compute = compute::allowance(m, arch, e.cells);
    let b = budgets(devices, opts.margin);
    let dense = place::most_layers(&costs, &compute, &b);
    let moe = place::fewest_cpu_moe(&costs, &compute, &b);
    Ok(Eval {
        cells: e.cells,
        costs,
        compute,
        dense,
        moe,
    })
}

/// The verdict of a placement.
fn verdict(p: &Placement, slots: u64, ram: u64) -> Fits {
    if p.cpu.total() > ram {
        Fits::No
    } else if p.gpu_layers == slots && p.cpu_moe == 0 {
        Fits::Gpu
    } else {
        Fits::Offload
    }
}

impl Eval {
    /// The recommended placement: the MoE one when the plain one leaves layers behind.
    fn best(&self, ram: u64) -> (&Placement, Fits) {
        let slots = self.costs.layers.len() as u64 + 1;
        let dense = (&self.dense, verdict(&self.dense, slots, ram));
        match &self.moe {
            // Moving experts is worth it only when more layers then run on the GPUs.
            Some(moe) if dense.1 != Fits::Gpu && moe.gpu_layers > self.dense.gpu_layers => {
                let v = verdict(moe, slots, ram);
                if v != Fits::No || dense.1 == Fits::No {
                    (moe, v)
                } else {
                    dense
                }
            }
            _ => dense,
        }
    }
}

/// The llama.cpp command line for a placement of `file`.
fn command(file: &str, ctx: u64, kv: KvType, p: &Placement, slots: u64, ot: bool) -> String {
    let mut c = format!(
        "llama-server -m {} -c {ctx} -ngl {} -fa on",
        quote(file),
        p.gpu_layers
    );
    if kv != KvType::F16 {
        c.push_str(&format!(" -ctk {0} -ctv {0}", kv.name()));
    }
    if p.gpus.len() > 1 && p.gpu_layers > 0 {
        let split: Vec<String> = p.split().iter().map(u64::to_string).collect();
        c.push_str(&format!(" -ts {}", split.join(",")));
    }
    if p.cpu_moe > 0 {
        if !ot {
            c.push_str(&format!(" --n-cpu-moe {}", p.cpu_moe));
        } else if p.cpu_moe + 1 >= slots {
            c.push_str(&format!(" -ot '{EXPERTS_REGEX}=CPU'"));
        } else {
            let layers: Vec<String> = (0..p.cpu_moe).map(|l| l.to_string()).collect();
            c.push_str(&format!(
                " -ot 'blk\\.({}){EXPERTS_REGEX}=CPU'",
                layers.join("|")
            ));
        }
    }
    c
}

/// A file name for a shell: single-quoted when it holds anything but `[A-Za-z0-9._/-]`.
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/'))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The largest multiple of 256 tokens in `[256, limit]` for which `ok` holds (`ok` is
/// monotone: true up to some context, false after), or `None` when not even 256 does.
fn largest(limit: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    let (mut lo, mut hi) = (1u64, limit.div_ceil(CELL_PAD).max(1));
    if !ok(lo * CELL_PAD) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid * CELL_PAD) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo * CELL_PAD)
}

/// Plans `m` (named `file` in the command line) on `devices`.
pub fn plan(
    m: &OpenedModel,
    file: &str,
    devices: &Devices,
    opts: &FitOptions,
) -> Result<FitPlan, FitError> {
    if m.format == Format::Safetensors {
        return vllm::plan(m, file, devices, opts);
    }
    if m.format != Format::Gguf {
        return Err(FitError::NotGguf(m.format.name().to_string()));
    }
    let arch = m
        .get("general.architecture")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let own = m
        .get(&format!("{arch}.context_length"))
        .and_then(Value::as_u64);
    let ctx = match opts.context.or(own) {
        Some(c) => c,
        None => return Err(FitError::NoContext { arch }),
    };
    check_kv_blocks(m, &arch, opts.kv)?;
    let eval = evaluate(m, &arch, devices, opts, ctx)?;
    let n = eval.costs.layers.len() as u64;
    let slots = n + 1;
    let (best, fits) = eval.best(devices.ram);
    let best = best.clone();

    let limit = own.unwrap_or(ctx).max(ctx);
    let at = |c: u64| evaluate(m, &arch, devices, opts, c).ok();
    let max_context_gpu = largest(limit, |c| {
        at(c).is_some_and(|e| e.best(devices.ram).1 == Fits::Gpu)
    });
    let max_context = largest(limit, |c| {
        at(c).is_some_and(|e| e.best(devices.ram).1 != Fits::No)
    });

    let b = budgets(devices, opts.margin);
    let mut uses: Vec<DeviceUse> = devices
        .gpus
        .iter()
        .zip(&b)
        .zip(&best.gpus)
        .map(|((g, &budget), load)| DeviceUse {
            name: g.name.clone(),
            free_bytes: g.bytes,
            budget_bytes: budget,
            bytes: load.total(),
            load: load.clone(),
        })
        .collect();
    uses.push(DeviceUse {
        name: "RAM".into(),
        free_bytes: devices.ram,
        budget_bytes: devices.ram,
        bytes: best.cpu.total(),
        load: best.cpu.clone(),
    });

    let moe = eval.costs.layers.iter().any(|l| l.experts > 0);
    let layers_only = (best.cpu_moe > 0).then(|| {
        Box::new(FitPlanAlt {
            fits: verdict(&eval.dense, slots, devices.ram),
            gpu_layers: eval.dense.gpu_layers,
            command: command(file, ctx, opts.kv, &eval.dense, slots, false),
        })
    });
    let mut notes = vec![format!(
        "{} kept free on every GPU (llama.cpp's --fit margin); compute buffers are an allowance (see the formula), not llama.cpp's own measurement",
        crate::text::bytes(opts.margin)
    )];
    notes.push(eval.compute.formula.clone());
    if eval.costs.tied_output > 0 {
        notes.push(format!(
            "the file has no output.weight: llama.cpp loads token_embd.weight again as the output tensor, {} more on the GPU that holds the output layer",
            crate::text::bytes(eval.costs.tied_output)
        ));
    }
    if !eval.costs.stray.is_empty() {
        notes.push(format!(
            "{} tensors are numbered at or past the block count {n} (e.g. {}) and are counted with the output layer",
            eval.costs.stray.len(),
            eval.costs.stray[0]
        ));
    }
    if best.gpu_layers == 0 && !devices.gpus.is_empty() {
        notes.push("with -ngl 0 llama.cpp may still allocate a compute buffer on the GPU for prompt processing; it is not counted".into());
    }
    if let Some(set) = m
        .set
        .as_ref()
        .filter(|s| !s.kind.is_empty() && !s.complete())
    {
        notes.push(format!(
            "only {} of the model's {} files were read: the plan is for those tensors alone",
            set.files_read.len(),
            set.files_expected
        ));
    }
    Ok(FitPlan {
        runtime: Runtime::LlamaCpp,
        architecture: arch,
        context: ctx,
        cells: eval.cells,
        kv_type: opts.kv,
        margin: opts.margin,
        block_count: n,
        moe,
        fits,
        gpu_layers: best.gpu_layers,
        cpu_moe: best.cpu_moe,
        tensor_split: (devices.gpus.len() > 1 && best.gpu_layers > 0).then(|| best.split()),
        cpu_offload_gib: 0,
        command: command(file, ctx, opts.kv, &best, slots, false),
        command_ot: (best.cpu_moe > 0).then(|| command(file, ctx, opts.kv, &best, slots, true)),
        layers_only,
        devices: uses,
        max_context_gpu,
        max_context,
        context_limit: limit,
        costs: eval.costs,
        compute: eval.compute,
        notes,
    })
}
