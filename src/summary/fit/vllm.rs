//! The vLLM plan of a safetensors model: the weights from its tensor bytes, the KV cache from
//! its `config.json` ([`super::hf`]), tensor parallel over the GPUs, `--cpu-offload-gb`.

use super::hf::{self, ConfigError};
use super::{
    budgets, largest, quote, Compute, Costs, DeviceLoad, DeviceUse, Devices, FitError, FitOptions,
    FitPlan, Fits, LayerCost, Runtime,
};
use crate::open::OpenedModel;
use crate::summary::memory::KvType;

const GIB: u64 = 1 << 30;

/// vLLM's placement of `w` weight and `k` KV bytes on `budgets` (tensor parallel: an equal
/// share per GPU) with `ram` bytes of system memory: (verdict, `--cpu-offload-gb` per GPU).
pub(super) fn vllm_fit(w: u64, k: u64, budgets: &[u64], ram: u64) -> (Fits, u64) {
    let total = w.saturating_add(k);
    let Some(&smallest) = budgets.iter().min() else {
        return (
            if total <= ram {
                Fits::Offload
            } else {
                Fits::No
            },
            0,
        );
    };
    let n = budgets.len() as u64;
    let share = total.div_ceil(n);
    if share <= smallest {
        return (Fits::Gpu, 0);
    }
    // Only weights can be offloaded, in whole GiB per GPU.
    let gib = (share - smallest).div_ceil(GIB);
    let offload = gib.saturating_mul(GIB);
    if offload <= w.div_ceil(n) && offload.saturating_mul(n) <= ram {
        (Fits::Offload, gib)
    } else {
        (Fits::No, gib)
    }
}

/// The vLLM plan of a safetensors model (see [`hf`]).
pub(super) fn plan(
    m: &OpenedModel,
    file: &str,
    devices: &Devices,
    opts: &FitOptions,
) -> Result<FitPlan, FitError> {
    let config = m.sidecar.config.as_ref().ok_or_else(|| {
        m.sidecar
            .config_error
            .clone()
            .map_or(ConfigError::NotFound, ConfigError::Unreadable)
    })?;
    let kv = hf::kv_from_config(config, opts.kv)?;
    let ctx = opts
        .context
        .or(kv.context)
        .ok_or(FitError::NoConfig(ConfigError::NoContext))?;
    let w = m
        .tensors
        .iter()
        .filter_map(|t| t.bytes)
        .fold(0u64, u64::saturating_add);
    let kv_at = |c: u64| kv.at(c).iter().fold(0u64, |a, &b| a.saturating_add(b));
    let b = budgets(devices, opts.margin);
    let k = kv_at(ctx);
    let (fits, gib) = vllm_fit(w, k, &b, devices.ram);
    let limit = kv.context.unwrap_or(ctx).max(ctx);
    let max_context_gpu = largest(limit, |c| {
        vllm_fit(w, kv_at(c), &b, devices.ram).0 == Fits::Gpu
    });
    let max_context = largest(limit, |c| {
        vllm_fit(w, kv_at(c), &b, devices.ram).0 != Fits::No
    });
    let n = b.len() as u64;
    let offload = gib.saturating_mul(GIB).min(w.div_ceil(n.max(1)));
    let mut uses: Vec<DeviceUse> = devices
        .gpus
        .iter()
        .zip(&b)
        .map(|(g, &budget)| {
            let load = DeviceLoad {
                weights: w.div_ceil(n).saturating_sub(offload),
                kv: k.div_ceil(n),
                compute: 0,
                layers: (0..kv.layers).collect(),
                output: true,
            };
            DeviceUse {
                name: g.name.clone(),
                free_bytes: g.bytes,
                budget_bytes: budget,
                bytes: load.total(),
                load,
            }
        })
        .collect();
    let cpu = if n == 0 {
        DeviceLoad {
            weights: w,
            kv: k,
            compute: 0,
            layers: (0..kv.layers).collect(),
            output: true,
        }
    } else {
        DeviceLoad {
            weights: offload.saturating_mul(n),
            ..DeviceLoad::default()
        }
    };
    uses.push(DeviceUse {
        name: "RAM".into(),
        free_bytes: devices.ram,
        budget_bytes: devices.ram,
        bytes: cpu.total(),
        load: cpu,
    });
    // vLLM serves a model folder (or a repo id), not one file.
    let lower = file.to_ascii_lowercase();
    let folder = if lower.ends_with(".safetensors") || lower.ends_with(".json") {
        file.rsplit_once('/').map_or(".", |(d, _)| d)
    } else {
        file
    };
    let mut command = format!("vllm serve {} --max-model-len {ctx}", quote(folder));
    if n > 1 {
        command.push_str(&format!(" --tensor-parallel-size {n}"));
    }
    if opts.kv == KvType::Q8_0 {
        command.push_str(" --kv-cache-dtype fp8");
    }
    if gib > 0 {
        command.push_str(&format!(" --cpu-offload-gb {gib}"));
    }
    let c = config
        .get("text_config")
        .filter(|t| t.is_object())
        .unwrap_or(config);
    let mut notes = vec![
        format!(
            "{} kept free on every GPU; vLLM profiles its activation memory at start-up and by default uses 90% of a GPU (--gpu-memory-utilization)",
            crate::text::bytes(opts.margin)
        ),
        "weights as stored in the files; KV cache from config.json as vLLM sizes it".to_string(),
    ];
    notes.extend(kv.notes.iter().cloned());
    if n > 1 {
        notes.push(format!(
            "tensor parallelism splits every layer over the {n} GPUs; the number of attention heads must divide by {n}"
        ));
    }
    let per_layer = kv.at(ctx);
    Ok(FitPlan {
        runtime: Runtime::Vllm,
        architecture: c
            .get("model_type")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .to_string(),
        context: ctx,
        cells: ctx,
        kv_type: opts.kv,
        margin: opts.margin,
        block_count: kv.layers,
        moe: false,
        fits,
        gpu_layers: if n > 0 && fits != Fits::No {
            kv.layers + 1
        } else {
            0
        },
        cpu_moe: 0,
        tensor_split: None,
        cpu_offload_gib: gib,
        devices: uses,
        command,
        command_ot: None,
        layers_only: None,
        max_context_gpu,
        max_context,
        context_limit: limit,
        costs: Costs {
            layers: per_layer
                .iter()
                .map(|&kv| LayerCost {
                    dense: 0,
                    experts: 0,
                    kv,
                })
                .collect(),
            input: 0,
            output: w,
            tied_output: 0,
            stray: vec![],
        },
        compute: Compute::default(),
        notes,
    })
}
