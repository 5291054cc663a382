//! The fit planner's text, shared by the page's Fit card, the element's `tab="fit"`, the API
//! and `weightpeek fit`: the plan's figures as labelled rows, the per-device table, and the
//! repository table (one row per GGUF model of a repo, largest first, the pick marked).

use serde::Serialize;

use crate::summary::fit::{DeviceUse, FitPlan, Fits, Runtime};
use crate::text;

/// One labelled figure of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// What it is.
    pub label: String,
    /// Its value, with units.
    pub value: String,
}

fn row(label: &str, value: String) -> Row {
    Row {
        label: label.to_string(),
        value,
    }
}

/// `1.2 GiB (1,288,490,188 bytes)`.
pub fn bytes_exact(n: u64) -> String {
    format!("{} ({} bytes)", text::bytes(n), text::thousands(n))
}

/// `12,288 tokens`, or `none` when not even 256 tokens fit.
fn tokens(n: Option<u64>) -> String {
    n.map_or_else(
        || "none".to_string(),
        |n| format!("{} tokens", text::thousands(n)),
    )
}

/// The plan's figures: verdict, layers on the GPUs, context, largest contexts, command line.
pub fn rows(p: &FitPlan) -> Vec<Row> {
    let slots = p.block_count + 1;
    let mut out = vec![row("verdict", p.fits.label().to_string())];
    if p.runtime == Runtime::Vllm {
        let gpus = p.devices.len().saturating_sub(1);
        out.push(row(
            "runtime",
            format!(
                "vLLM, {}",
                match gpus {
                    0 => "on the CPU".to_string(),
                    1 => "one GPU".to_string(),
                    n => format!("tensor parallel over {n} GPUs"),
                }
            ),
        ));
        if p.cpu_offload_gib > 0 {
            out.push(row(
                "CPU offload (--cpu-offload-gb)",
                format!(
                    "{} GiB of weights per GPU in system memory",
                    p.cpu_offload_gib
                ),
            ));
        }
    }
    if p.runtime == Runtime::LlamaCpp {
        out.push(row(
            "GPU layers (-ngl)",
            format!(
                "{} of {} ({} repeating layers + the output layer)",
                p.gpu_layers, slots, p.block_count
            ),
        ));
    }
    if p.cpu_moe > 0 {
        out.push(row(
            "experts in RAM (--n-cpu-moe)",
            format!(
                "layers 0 to {} keep their expert tensors in system memory",
                p.cpu_moe - 1
            ),
        ));
    }
    if let Some(split) = &p.tensor_split {
        let s: Vec<String> = split.iter().map(u64::to_string).collect();
        out.push(row("tensor split (-ts)", s.join(",")));
    }
    let cells = if p.cells == p.context {
        String::new()
    } else {
        format!(" ({} cells)", text::thousands(p.cells))
    };
    out.push(row(
        "context",
        format!(
            "{} tokens{cells}, KV cache {}",
            text::thousands(p.context),
            p.kv_type.name()
        ),
    ));
    out.push(row(
        "largest context on the GPUs",
        tokens(p.max_context_gpu),
    ));
    out.push(row("largest context that fits", tokens(p.max_context)));
    out.push(row("command", p.command.clone()));
    if let Some(ot) = &p.command_ot {
        out.push(row("same with -ot", ot.clone()));
    }
    if let Some(alt) = &p.layers_only {
        out.push(row(
            "without moving experts",
            format!(
                "{} with -ngl {}: {}",
                alt.fits.label(),
                alt.gpu_layers,
                alt.command
            ),
        ));
    }
    out
}

/// One device's row: name, use of budget, and the parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceRow {
    /// `GPU 0`, `RAM`.
    pub name: String,
    /// `6.1 GiB of 7.0 GiB`.
    pub used: String,
    /// Per mille of the budget used (for a bar), capped at 1000.
    pub permille: u64,
    /// Over its budget.
    pub over: bool,
    /// `weights 5.0 GiB · KV 768 MiB · compute 300 MiB`.
    pub parts: String,
    /// `blk.0–27 + output`, `input layer`, …
    pub holds: String,
}

/// `blk.3–27`, or `blk.0, 2–4` for gaps.
fn ranges(layers: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < layers.len() {
        let mut j = i;
        while j + 1 < layers.len() && layers[j + 1] == layers[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            layers[i].to_string()
        } else {
            format!("{}–{}", layers[i], layers[j])
        });
        i = j + 1;
    }
    format!("blk.{}", parts.join(", "))
}

/// The devices of a plan, GPUs first, then the RAM.
pub fn device_rows(p: &FitPlan) -> Vec<DeviceRow> {
    p.devices
        .iter()
        .map(|d: &DeviceUse| {
            let ram = d.name == "RAM";
            let mut holds: Vec<String> = Vec::new();
            if p.runtime == Runtime::Vllm {
                holds.push(if ram && d.load.kv == 0 {
                    "offloaded weights".to_string()
                } else {
                    "a share of every layer and its KV cache".to_string()
                });
            } else if ram {
                holds.push("input layer".into());
            }
            if p.runtime == Runtime::LlamaCpp {
                if !d.load.layers.is_empty() {
                    holds.push(ranges(&d.load.layers));
                }
                if d.load.output {
                    holds.push("output layer".into());
                }
            }
            if ram && p.cpu_moe > 0 {
                holds.push(format!("experts of blk.0–{}", p.cpu_moe - 1));
            }
            let budget = if ram {
                text::bytes(d.budget_bytes)
            } else {
                format!(
                    "{} ({} free − {} margin)",
                    text::bytes(d.budget_bytes),
                    text::bytes(d.free_bytes),
                    text::bytes(p.margin)
                )
            };
            DeviceRow {
                name: d.name.clone(),
                used: format!("{} of {budget}", text::bytes(d.bytes)),
                permille: (u128::from(d.bytes) * 1000)
                    .checked_div(u128::from(d.budget_bytes))
                    .map_or(if d.bytes > 0 { 1000 } else { 0 }, |x| x.min(1000) as u64),
                over: d.bytes > d.budget_bytes,
                parts: format!(
                    "weights {} · KV {} · compute {}",
                    text::bytes(d.load.weights),
                    text::bytes(d.load.kv),
                    text::bytes(d.load.compute)
                ),
                holds: if holds.is_empty() {
                    "nothing".into()
                } else {
                    holds.join(" + ")
                },
            }
        })
        .collect()
}

/// One model of a repository against the devices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepoRow {
    /// The model's label (a file, or a split set as one row).
    pub label: String,
    /// Total bytes of its files.
    pub size: u64,
    /// The verdict, or `None` when there is no plan (`error` says why).
    pub fits: Option<Fits>,
    /// `fits fully`, `fits, 20 of 29 layers on the GPUs`, `does not fit`, or the error.
    pub verdict: String,
    /// `-ngl` of its plan.
    pub gpu_layers: Option<u64>,
    /// `--n-cpu-moe` of its plan.
    pub cpu_moe: Option<u64>,
    /// Largest context on the GPUs.
    pub max_context_gpu: Option<u64>,
    /// The command line.
    pub command: Option<String>,
    /// Why there is no plan.
    pub error: Option<String>,
    /// The one to pick: the largest that fits fully on the GPUs, else the largest that fits.
    pub pick: bool,
}

/// The repo table from each model's (label, size, plan or error): largest first, the pick
/// marked.
pub fn repo_rows(models: Vec<(String, u64, Result<FitPlan, String>)>) -> Vec<RepoRow> {
    let mut rows: Vec<RepoRow> = models
        .into_iter()
        .map(|(label, size, plan)| match plan {
            Ok(p) => RepoRow {
                label,
                size,
                fits: Some(p.fits),
                verdict: match p.fits {
                    Fits::Gpu => "fits fully on the GPUs".into(),
                    Fits::Offload if p.cpu_moe > 0 => {
                        format!("fits, experts of {} layers in RAM", p.cpu_moe)
                    }
                    Fits::Offload => format!(
                        "fits, {} of {} layers on the GPUs",
                        p.gpu_layers,
                        p.block_count + 1
                    ),
                    Fits::No => "does not fit".into(),
                },
                gpu_layers: Some(p.gpu_layers),
                cpu_moe: Some(p.cpu_moe),
                max_context_gpu: p.max_context_gpu,
                command: Some(p.command),
                error: None,
                pick: false,
            },
            Err(e) => RepoRow {
                label,
                size,
                fits: None,
                verdict: e.clone(),
                gpu_layers: None,
                cpu_moe: None,
                max_context_gpu: None,
                command: None,
                error: Some(e),
                pick: false,
            },
        })
        .collect();
    rows.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.label.cmp(&b.label)));
    let pick = rows
        .iter()
        .position(|r| r.fits == Some(Fits::Gpu))
        .or_else(|| rows.iter().position(|r| r.fits == Some(Fits::Offload)));
    if let Some(i) = pick {
        rows[i].pick = true;
    }
    rows
}

/// The exit status of `weightpeek fit`: 0 fits fully on the GPUs, 1 only with offload, 3 does
/// not fit (a repo table: the best of its rows; 3 without any plan).
pub fn exit_status(fits: impl IntoIterator<Item = Fits>) -> u8 {
    fits.into_iter()
        .map(|f| match f {
            Fits::Gpu => 0,
            Fits::Offload => 1,
            Fits::No => 3,
        })
        .min()
        .unwrap_or(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_ranges_read_compactly() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "blk.0–2, 5, 7–8");
        assert_eq!(ranges(&[3]), "blk.3");
    }

    #[test]
    fn the_pick_is_the_largest_that_fits_fully() {
        let err = |l: &str, s| (l.to_string(), s, Err("no plan".to_string()));
        let rows = repo_rows(vec![err("a", 5), err("b", 9)]);
        assert_eq!(rows[0].label, "b");
        assert!(rows.iter().all(|r| !r.pick));
        assert_eq!(exit_status([Fits::No, Fits::Offload]), 1);
        assert_eq!(exit_status([]), 3);
    }
}
