//! The fit planner's text, shared by the page's Fit card, the element's `tab="fit"`, the API
//! and `weightpeek fit`: the plan's figures as labelled rows, the per-device table, and the
//! repository table (one row per GGUF model of a repo, largest first, the pick marked), and the
//! page's device settings ([`Settings`]: the boxes as typed, their query-string form for the
//! shareable URL and `localStorage`, and what they mean, [`inputs`]).

use serde::Serialize;

use crate::summary::fit::{
    self, devices, DeviceUse, Devices, FitError, FitOptions, FitPlan, Fits, Runtime,
};
use crate::text;
use crate::view::memory::{parse_context, KV_CHOICES};
use crate::view::spec::{
    ContextSpec, DeviceError, DeviceInput, DeviceSpec, Front, GpuSpec, Gpus, OptionsSpec, SizeSpec,
    TextSpec,
};

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

/// The verdict of a model whose header is being read.
pub const PENDING: &str = "reading the header…";

/// Why a repo model has no plan (yet); its `Display` is the row's words.
#[derive(Debug, Clone, PartialEq)]
pub enum RepoPlanError {
    /// Its header is being read: [`PENDING`].
    Pending,
    /// Its header could not be read: why, as the reader said it.
    Unreadable(String),
    /// The settings are wrong: the field's message.
    Settings(String),
    /// The planner could not plan it.
    Plan(FitError),
}

impl std::fmt::Display for RepoPlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RepoPlanError::Pending => f.write_str(PENDING),
            RepoPlanError::Unreadable(why) | RepoPlanError::Settings(why) => f.write_str(why),
            RepoPlanError::Plan(e) => write!(f, "{e}"),
        }
    }
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
    /// Whether its header is still being read (the page's table fills as headers arrive; not
    /// in the CLI's JSON).
    #[serde(skip)]
    pub pending: bool,
    /// The one to pick: the largest that fits fully on the GPUs, else the largest that fits.
    pub pick: bool,
}

/// The repo table from each model's (label, size, plan or error): largest first, the pick
/// marked. An error is any failure of the model's row (not read yet, unreadable, no plan),
/// shown in its own words.
pub fn repo_rows(models: Vec<(String, u64, Result<FitPlan, RepoPlanError>)>) -> Vec<RepoRow> {
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
                pending: false,
                pick: false,
            },
            Err(e) => RepoRow {
                label,
                size,
                fits: None,
                verdict: e.to_string(),
                gpu_layers: None,
                cpu_moe: None,
                max_context_gpu: None,
                command: None,
                error: Some(e.to_string()),
                pending: e == RepoPlanError::Pending,
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

/// `gpu`, `offload` or `no` (the verdict as a data attribute and a CSS class).
pub fn fits_name(f: Fits) -> &'static str {
    match f {
        Fits::Gpu => "gpu",
        Fits::Offload => "offload",
        Fits::No => "no",
    }
}

/// The headline of a plan: `fits fully on the GPUs at 32,768 tokens (19 of 19 layers on the
/// GPUs)`.
pub fn verdict_line(p: &FitPlan) -> String {
    let layers = if p.fits == Fits::No {
        String::new()
    } else {
        format!(
            " ({} of {} layers on the GPUs)",
            p.gpu_layers,
            p.block_count + 1
        )
    };
    format!(
        "{} at {} tokens{layers}",
        p.fits.label(),
        text::thousands(p.context)
    )
}

/// The repo table's columns after the model's name: size, verdict, `-ngl`, largest context on
/// the GPUs, command line.
pub const REPO_COLUMNS: [&str; 6] = [
    "model",
    "size",
    "will it fit?",
    "-ngl",
    "context on the GPUs",
    "command",
];

/// The cells of a repo row, in [`REPO_COLUMNS`] order.
pub fn repo_cells(r: &RepoRow) -> [String; 6] {
    [
        r.label.clone(),
        text::bytes(r.size),
        r.verdict.clone(),
        r.gpu_layers.map_or_else(|| "–".into(), |n| n.to_string()),
        r.max_context_gpu.map_or_else(
            || {
                if r.fits.is_some() {
                    "none".into()
                } else {
                    "–".into()
                }
            },
            |c| format!("{} tokens", text::thousands(c)),
        ),
        r.command.clone().unwrap_or_else(|| "–".into()),
    ]
}

/// The query parameters of the device settings (the page's URL, `localStorage`): `gpu`
/// (repeated, one per GPU in device order; `gpu=0` for none), `ram`, `ctx`, `kv`, `margin`.
pub const QUERY_KEYS: [&str; 5] = ["gpu", "ram", "ctx", "kv", "margin"];

/// The Fit card's boxes as the person typed them; [`inputs`] says what they mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Free memory of each GPU in device order: a size (`24GiB`) or a card (`rtx4090`).
    pub gpus: Vec<String>,
    /// System RAM.
    pub ram: String,
    /// Context in tokens as [`parse_context`] reads it; blank: the model's own.
    pub ctx: String,
    /// KV cache type: `f16`, `q8_0` or `q4_0`.
    pub kv: String,
    /// Memory kept free on every GPU.
    pub margin: String,
}

impl Default for Settings {
    /// One 8 GiB GPU, 16 GiB of RAM, the model's own context, an f16 KV cache, 1 GiB margin
    /// (llama.cpp's `--fit` margin).
    fn default() -> Self {
        Settings {
            gpus: vec!["8GiB".into()],
            ram: "16GiB".into(),
            ctx: String::new(),
            kv: "f16".into(),
            margin: "1GiB".into(),
        }
    }
}

/// Most GPUs the settings hold (a longer `gpu=` list in a URL is cut here).
pub const MAX_GPUS: usize = 16;

/// A GPU entry meaning "no GPU": `0`, `none` or blank.
fn no_gpu(s: &str) -> bool {
    let t = s.trim();
    t.is_empty() || t.eq_ignore_ascii_case("none") || devices::parse_size(t) == Ok(0)
}

impl Settings {
    /// The settings of query pairs (the page's URL, `localStorage`, the element's attributes):
    /// the defaults, with every key of [`QUERY_KEYS`] present replacing its default; `gpu`
    /// values may be comma lists (the element's `gpu="24GiB,12GiB"`), and `gpu=0` (or none)
    /// means no GPU. `None` when no key is present.
    pub fn from_query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Settings> {
        let mut s = Settings::default();
        let mut gpus: Option<Vec<String>> = None;
        let mut any = false;
        for (k, v) in pairs {
            let v = v.trim();
            match k {
                "gpu" => {
                    let list = gpus.get_or_insert_with(Vec::new);
                    list.extend(
                        v.split(',')
                            .filter(|g| !no_gpu(g))
                            .map(|g| g.trim().to_string()),
                    );
                }
                "ram" => s.ram = v.to_string(),
                "ctx" => s.ctx = v.to_string(),
                "kv" => s.kv = v.to_string(),
                "margin" => s.margin = v.to_string(),
                _ => continue,
            }
            any = true;
        }
        if let Some(mut g) = gpus {
            g.truncate(MAX_GPUS);
            s.gpus = g;
        }
        any.then_some(s)
    }

    /// The query pairs that give these settings back through [`Settings::from_query`] (`ctx`
    /// only when one is typed).
    pub fn to_query(&self) -> Vec<(&'static str, String)> {
        let mut q: Vec<(&'static str, String)> = if self.gpus.is_empty() {
            vec![("gpu", "0".into())]
        } else {
            self.gpus
                .iter()
                .map(|g| ("gpu", g.trim().to_string()))
                .collect()
        };
        q.push(("ram", self.ram.trim().to_string()));
        if !self.ctx.trim().is_empty() {
            q.push(("ctx", self.ctx.trim().to_string()));
        }
        q.push(("kv", self.kv.trim().to_string()));
        q.push(("margin", self.margin.trim().to_string()));
        q
    }
}

impl Settings {
    /// The settings of a query string as the page's address and `localStorage` hold it
    /// (form-urlencoded, `gpu=24GiB&ram=64GiB`, a leading `?` ignored): [`Settings::from_query`]
    /// of its pairs. `None` when none of [`QUERY_KEYS`] is there.
    pub fn from_query_string(q: &str) -> Option<Settings> {
        let q = q.strip_prefix('?').unwrap_or(q);
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(q.as_bytes())
            .into_owned()
            .collect();
        Settings::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// [`Settings::to_query`] form-urlencoded (no `?`), as `localStorage` keeps it.
    pub fn to_query_string(&self) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.to_query())
            .finish()
    }
}

/// A box whose entry cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// `gpu`, `ram`, `ctx`, `kv` or `margin` (as in [`QUERY_KEYS`]; `ctx` never: the box's
    /// text is read leniently).
    pub field: &'static str,
    /// Which GPU (0-based), for `gpu`.
    pub index: Option<usize>,
    /// What is wrong, for the person.
    pub message: String,
}

/// What the settings mean: the devices and options of a plan, and a note on the context box
/// when it was not used as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// The GPUs (named `GPU i`, or `GPU i: <card>` for a preset, as `weightpeek fit --gpu`
    /// names them; GPUs of 0 bytes left out) and the RAM.
    pub devices: Devices,
    /// Context, KV type, margin.
    pub options: FitOptions,
    /// Said under the context box (clamped, or not a number: the model's own is used).
    pub context_note: Option<String>,
}

impl Settings {
    /// The settings as specs: every box as typed (the context box read as the Memory card reads
    /// it: [`ContextSpec::Typed`]).
    pub fn specs(&self) -> (DeviceSpec, OptionsSpec) {
        (
            DeviceSpec {
                gpus: Some(Gpus::List(
                    self.gpus.iter().map(|g| GpuSpec::Text(g.clone())).collect(),
                )),
                ram: Some(SizeSpec::Text(self.ram.clone())),
            },
            OptionsSpec {
                context: Some(ContextSpec::Typed(self.ctx.clone())),
                kv: Some(TextSpec::Text(self.kv.clone())),
                margin: Some(SizeSpec::Text(self.margin.clone())),
            },
        )
    }
}

/// Reads the settings as `weightpeek fit --gpu … --ram … --ctx … --kv … --margin …` reads
/// its arguments (through the same [`DeviceSpec`] and [`OptionsSpec`]). Errors: the first box
/// that is not a size, or an unknown KV type, with the message the page shows
/// ([`DeviceError::text_for`] the page).
pub fn inputs(s: &Settings) -> Result<Inputs, FieldError> {
    let (devices, options) = s.specs();
    let field_error = |e: DeviceError| {
        let (field, index) = match e.input() {
            DeviceInput::Gpu(i) | DeviceInput::GpuBytes(i) | DeviceInput::GpuSize(i) => {
                ("gpu", Some(i))
            }
            DeviceInput::Devices | DeviceInput::Gpus => ("gpu", None),
            DeviceInput::Ram => ("ram", None),
            DeviceInput::Context => ("ctx", None),
            DeviceInput::Kv => ("kv", None),
            DeviceInput::Margin => ("margin", None),
        };
        FieldError {
            field,
            index,
            message: e.text_for(Front::Page),
        }
    };
    Ok(Inputs {
        devices: devices.to_devices().map_err(field_error)?,
        options: options.to_options().map_err(field_error)?,
        context_note: options.context_note(),
    })
}

/// The preset (option value of [`fit::PRESETS`]) a GPU box names, if it names one.
pub fn preset_of(gpu: &str) -> Option<&'static str> {
    let lower = gpu.trim().to_ascii_lowercase();
    fit::PRESETS
        .iter()
        .find(|(v, _, _)| *v == lower)
        .map(|(v, _, _)| *v)
}

/// The preset select's value for a GPU box holding `gpu`: its preset, else `""` (custom
/// size).
pub fn preset_choice(gpu: &str) -> &'static str {
    preset_of(gpu).unwrap_or("")
}

/// The form's boxes other than the GPUs' by their query key ([`QUERY_KEYS`]), in the form's
/// order: the RAM, margin and context text boxes, and the KV type select (`kv`).
pub const BOXES: [&str; 4] = ["ram", "margin", "ctx", "kv"];

impl Settings {
    /// What box `key` of [`BOXES`] shows: its text as typed; the KV select the choice of it
    /// ([`kv_choice`]). Another key: `""`.
    pub fn shown(&self, key: &str) -> &str {
        match key {
            "ram" => &self.ram,
            "margin" => &self.margin,
            "ctx" => &self.ctx,
            "kv" => kv_choice(&self.kv),
            _ => "",
        }
    }

    /// Box `key` of [`BOXES`] now holds `text` (another key: nothing).
    pub fn set_box(&mut self, key: &str, text: String) {
        match key {
            "ram" => self.ram = text,
            "margin" => self.margin = text,
            "ctx" => self.ctx = text,
            "kv" => self.kv = text,
            _ => {}
        }
    }

    /// "Add GPU": a row of [`NEW_GPU`] more; `false` (nothing
    /// added) once there are [`MAX_GPUS`].
    pub fn add_gpu(&mut self) -> bool {
        let room = self.gpus.len() < MAX_GPUS;
        if room {
            self.gpus.push(NEW_GPU.into());
        }
        room
    }

    /// GPU `i`'s "Remove" (no such GPU: nothing).
    pub fn remove_gpu(&mut self, i: usize) {
        if i < self.gpus.len() {
            self.gpus.remove(i);
        }
    }

    /// GPU `i`'s box now holds `typed`; returns the preset select's value for it
    /// ([`preset_choice`]).
    pub fn type_gpu(&mut self, i: usize, typed: String) -> &'static str {
        let choice = preset_choice(&typed);
        if let Some(g) = self.gpus.get_mut(i) {
            *g = typed;
        }
        choice
    }

    /// GPU `i`'s preset select picked `preset`, which its box then holds; `false` for the
    /// "custom size" choice (`""`), which changes nothing.
    pub fn pick_preset(&mut self, i: usize, preset: &str) -> bool {
        if preset.is_empty() {
            return false;
        }
        if let Some(g) = self.gpus.get_mut(i) {
            *g = preset.to_string();
        }
        true
    }
}

/// The `weightpeek fit` arguments of the settings (shown under the command line, so the page's
/// plan can be reproduced in a terminal).
pub fn cli_args(s: &Settings) -> String {
    // `12 GB` reads as `12GB`: one shell word.
    let word = |t: &str| t.split_whitespace().collect::<String>();
    let mut a: Vec<String> = if s.gpus.is_empty() {
        vec!["--gpu 0".into()]
    } else {
        s.gpus
            .iter()
            .map(|g| format!("--gpu {}", word(g)))
            .collect()
    };
    a.push(format!("--ram {}", word(&s.ram)));
    if let Some(c) = parse_context(&s.ctx).tokens {
        a.push(format!("--ctx {c}"));
    }
    a.push(format!("--kv {}", word(&s.kv)));
    a.push(format!("--margin {}", word(&s.margin)));
    a.join(" ")
}

/// The GPU size a new row ("Add GPU") starts with.
pub const NEW_GPU: &str = "8GiB";

/// The KV select's value for the typed KV type: one of [`KV_CHOICES`] (case and spaces
/// ignored), else `f16`.
pub fn kv_choice(kv: &str) -> &'static str {
    let kv = kv.trim().to_ascii_lowercase();
    KV_CHOICES
        .iter()
        .find(|(v, _)| *v == kv)
        .map_or("f16", |(v, _)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::memory::KvType;

    #[test]
    fn the_boxes_show_and_take_their_settings() {
        let mut s = Settings {
            kv: " Q8_0 ".into(),
            ..Settings::default()
        };
        let shown: Vec<&str> = BOXES.iter().map(|k| s.shown(k)).collect();
        assert_eq!(shown, ["16GiB", "1GiB", "", "q8_0"]);
        assert_eq!(s.shown("gpu"), "");
        for (k, v) in BOXES.iter().zip(["64GiB", "2GiB", "8k", "q4_0"]) {
            s.set_box(k, v.to_string());
        }
        s.set_box("gpu", "9GiB".into());
        assert_eq!(
            s,
            Settings {
                gpus: vec!["8GiB".into()],
                ram: "64GiB".into(),
                margin: "2GiB".into(),
                ctx: "8k".into(),
                kv: "q4_0".into(),
            }
        );
        assert!(BOXES.iter().all(|k| QUERY_KEYS.contains(k)));
    }

    #[test]
    fn the_gpu_rows_are_added_removed_typed_and_picked() {
        let mut s = Settings::default();
        assert!(s.add_gpu());
        assert_eq!(s.gpus, ["8GiB", "8GiB"]);
        assert_eq!(s.type_gpu(1, " RTX4090 ".into()), "rtx4090");
        assert_eq!(s.gpus[1], " RTX4090 ");
        assert_eq!(s.type_gpu(0, "12GiB".into()), "");
        assert_eq!(s.type_gpu(5, "rtx3060".into()), "rtx3060");
        assert_eq!(s.gpus, ["12GiB", " RTX4090 "]);
        assert!(!s.pick_preset(0, ""));
        assert_eq!(s.gpus[0], "12GiB");
        assert!(s.pick_preset(0, "rtx3060"));
        assert_eq!(s.gpus, ["rtx3060", " RTX4090 "]);
        s.remove_gpu(7);
        s.remove_gpu(0);
        assert_eq!(s.gpus, [" RTX4090 "]);
        s.gpus = vec!["1GiB".into(); MAX_GPUS];
        assert!(!s.add_gpu());
        assert_eq!(s.gpus.len(), MAX_GPUS);
        assert_eq!(
            (preset_choice("rtx3060"), preset_choice("3GiB")),
            ("rtx3060", "")
        );
    }

    #[test]
    fn settings_round_trip_through_the_query() {
        let s = Settings {
            gpus: vec!["24GiB".into(), "rtx3060".into()],
            ram: "64GiB".into(),
            ctx: "32768".into(),
            kv: "q8_0".into(),
            margin: "512MiB".into(),
        };
        let q = s.to_query();
        assert_eq!(
            q.iter().filter(|(k, _)| *k == "gpu").count(),
            2,
            "one gpu= per GPU"
        );
        let back = Settings::from_query(q.iter().map(|(k, v)| (*k, v.as_str())));
        assert_eq!(back, Some(s.clone()));
        let none = Settings { gpus: vec![], ..s };
        let q = none.to_query();
        assert_eq!(q[0], ("gpu", "0".to_string()));
        assert_eq!(
            Settings::from_query(q.iter().map(|(k, v)| (*k, v.as_str()))),
            Some(none)
        );
        assert_eq!(Settings::from_query([("url", "x"), ("tensor", "y")]), None);
        // The element's comma list; defaults for what is not given.
        let e = Settings::from_query([("gpu", "24GiB, 12GiB")]).unwrap();
        assert_eq!(e.gpus, ["24GiB", "12GiB"]);
        assert_eq!(e.ram, Settings::default().ram);
        // As the address and localStorage hold them: form-urlencoded, spaces as `+`.
        let typed = Settings {
            gpus: vec!["12 GB".into(), "rtx4090".into()],
            ..Settings::default()
        };
        let q = typed.to_query_string();
        assert_eq!(q, "gpu=12+GB&gpu=rtx4090&ram=16GiB&kv=f16&margin=1GiB");
        assert_eq!(Settings::from_query_string(&format!("?{q}")), Some(typed));
        let addr = Settings::from_query_string("?url=x&gpu=24GiB&ram=64%20GiB&gpu=8GiB").unwrap();
        assert_eq!(
            (addr.gpus.join(","), addr.ram.as_str()),
            ("24GiB,8GiB".into(), "64 GiB")
        );
        assert_eq!(Settings::from_query_string("?url=x"), None);
    }

    #[test]
    fn inputs_read_as_the_cli_reads_its_arguments() {
        let s = Settings {
            gpus: vec!["rtx4090".into(), "0".into(), "12 GB".into()],
            ram: "64GiB".into(),
            ctx: "8k".into(),
            kv: "q8_0".into(),
            margin: "0".into(),
        };
        let i = inputs(&s).unwrap();
        let names: Vec<&str> = i.devices.gpus.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["GPU 0: RTX 4090 (24 GiB)", "GPU 2"]);
        assert_eq!(i.devices.gpus[1].bytes, 12 << 30);
        assert_eq!(i.devices.ram, 64 << 30);
        assert_eq!(i.options.context, Some(8192));
        assert_eq!(i.options.kv, KvType::Q8_0);
        assert_eq!(i.options.margin, 0);
        let bad = inputs(&Settings {
            ram: "lots".into(),
            ..Settings::default()
        })
        .unwrap_err();
        assert_eq!((bad.field, bad.index), ("ram", None));
        let bad = inputs(&Settings {
            gpus: vec!["8GiB".into(), "x".into()],
            ..Settings::default()
        })
        .unwrap_err();
        assert_eq!((bad.field, bad.index), ("gpu", Some(1)));
        assert_eq!(
            inputs(&Settings {
                kv: "q5".into(),
                ..Settings::default()
            })
            .unwrap_err()
            .field,
            "kv"
        );
        let d = inputs(&Settings::default()).unwrap();
        assert_eq!(d.devices, fit::default_devices());
        assert_eq!(d.options, FitOptions::default());
        assert_eq!(preset_of(" RTX4090 "), Some("rtx4090"));
        assert_eq!(preset_of("24GiB"), None);
        assert_eq!(
            cli_args(&s),
            "--gpu rtx4090 --gpu 0 --gpu 12GB --ram 64GiB --ctx 8192 --kv q8_0 --margin 0"
        );
    }

    #[test]
    fn layer_ranges_read_compactly() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "blk.0–2, 5, 7–8");
        assert_eq!(ranges(&[3]), "blk.3");
    }

    #[test]
    fn the_pick_is_the_largest_that_fits_fully() {
        let err = |l: &str, s| {
            let why = RepoPlanError::Unreadable("no plan".into());
            (l.to_string(), s, Err(why))
        };
        let rows = repo_rows(vec![err("a", 5), err("b", 9)]);
        assert_eq!(rows[0].label, "b");
        assert!(rows.iter().all(|r| !r.pick));
        // A model without a plan shows its error and dashes, never a made-up figure.
        let cells = repo_cells(&rows[0]);
        assert_eq!(cells[0], "b");
        assert_eq!(cells[2], "no plan");
        assert_eq!(&cells[3..], ["–", "–", "–"]);
        assert_eq!(fits_name(Fits::Offload), "offload");
        assert_eq!(exit_status([Fits::No, Fits::Offload]), 1);
        assert_eq!(exit_status([]), 3);
    }
}
