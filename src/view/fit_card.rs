//! The page's fit cards as [`Node`] trees: the device settings form ([`form`], its GPU rows
//! [`gpu_rows`] and which boxes to mark [`marks`]), the Fit card of a GGUF model ([`card`],
//! its plan [`plan_nodes`] and [`plan_attrs`]), and a Hub repo's "Will it fit?" table
//! ([`repo_card`], [`repo_row`], [`repo_plan`], [`repo_status`]). The texts and figures come
//! from [`crate::view::fit`]; the page renders these and wires the listeners.

use crate::open::OpenedModel;
use crate::summary::fit::{plan, FitPlan, Fits, PRESETS};
use crate::view::errors::Failure;
use crate::view::fit::{
    cli_args, device_rows, fits_name, inputs, repo_cells, rows, verdict_line, FieldError, Inputs,
    RepoPlanError, RepoRow, Settings, BOXES, REPO_COLUMNS,
};
use crate::view::memory::{parse_context, KV_CHOICES};
use crate::view::node::{self, Node};

/// `"true"` or `"false"`, as `aria-*` and `data-*` attributes say it.
pub fn bool_text(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// A text box (`input.filter.fit-input`, `data-testid` = `testid`, tooltip `title`) in a
/// `label.field` headed `label`.
fn text_field(label: &str, testid: &str, title: &str) -> Node {
    node::el("label", "field")
        .child(node::text("span", "muted", label))
        .child(
            node::el("input", "")
                .attr("type", "text")
                .attr("class", "filter fit-input")
                .testid(testid)
                .attr("spellcheck", "false")
                .attr("title", title),
        )
}

/// The settings form (`div.fit-form`, `data-testid="fit-form"`): an empty `div.fit-gpu-list`
/// (filled with [`gpu_rows`]) and "Add GPU" (`fit-gpu-add`); the RAM, margin and context boxes
/// (`fit-ram`, `fit-margin`, `fit-ctx`) and the KV select (`fit-kv`, one option per
/// [`KV_CHOICES`]); the hidden error line (`fit-input-error`, `role="alert"`). The boxes are
/// empty: the page sets their values.
pub fn form() -> Node {
    let mut ctx = text_field(
        "context (tokens)",
        "fit-ctx",
        "tokens of context; blank: the model's own; 8k = 8192",
    );
    ctx.children[1] = ctx.children[1]
        .clone()
        .attr("inputmode", "numeric")
        .attr("placeholder", "model's own");
    let kv = node::el("select", "select").testid("fit-kv").children(
        KV_CHOICES
            .iter()
            .map(|(v, label)| node::text("option", "", label).attr("value", *v)),
    );
    let fields = node::el("div", "fit-fields")
        .child(text_field(
            "system RAM",
            "fit-ram",
            "system memory, e.g. 16GiB, 64 GB",
        ))
        .child(text_field(
            "kept free per GPU",
            "fit-margin",
            "memory left free on every GPU (llama.cpp's --fit keeps 1 GiB)",
        ))
        .child(ctx)
        .child(
            node::el("label", "field")
                .child(node::text("span", "muted", "KV cache type"))
                .child(kv),
        );
    let gpus = node::el("div", "fit-gpus")
        .child(node::el("div", "fit-gpu-list"))
        .child(
            node::text("button", "button small", "Add GPU")
                .attr("type", "button")
                .testid("fit-gpu-add"),
        );
    node::el("div", "fit-form")
        .testid("fit-form")
        .child(gpus)
        .child(fields)
        .child(
            node::el("p", "note warn")
                .testid("fit-input-error")
                .attr("role", "alert")
                .attr("hidden", ""),
        )
}

/// What `div.fit-gpu-list` holds for `gpus` GPUs: "No GPU: …" for none, else one
/// `div.fit-gpu` per GPU (`data-testid="fit-gpu"`, `data-index`) with its size box
/// (`fit-gpu-size`), its card select (`fit-gpu-preset`: "custom size" then [`PRESETS`]) and
/// Remove (`fit-gpu-remove`). The boxes and selects are empty: the page sets their values.
pub fn gpu_rows(gpus: usize) -> Vec<Node> {
    if gpus == 0 {
        return vec![node::text(
            "p",
            "muted fit-no-gpu",
            "No GPU: everything runs in system RAM.",
        )];
    }
    (0..gpus)
        .map(|i| {
            let select = node::el("select", "select")
                .testid("fit-gpu-preset")
                .attr("aria-label", format!("GPU {i} card"))
                .child(node::text("option", "", "custom size").attr("value", ""))
                .children(
                    PRESETS
                        .iter()
                        .map(|(v, label, _)| node::text("option", "", label).attr("value", *v)),
                );
            node::el("div", "fit-gpu")
                .testid("fit-gpu")
                .attr("data-index", i.to_string())
                .child(text_field(
                    &format!("GPU {i} free memory"),
                    "fit-gpu-size",
                    "free memory, e.g. 24GiB, 12 GB, 8192MiB, or a card",
                ))
                .child(
                    node::el("label", "field")
                        .child(node::text("span", "muted", "card"))
                        .child(select),
                )
                .child(
                    node::text("button", "button small fit-gpu-remove", "Remove")
                        .attr("type", "button")
                        .testid("fit-gpu-remove")
                        .attr("aria-label", format!("remove GPU {i}")),
                )
        })
        .collect()
}

/// What the settings form does after an event on one of its controls ([`form_edit`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormStep {
    /// Plan again with the settings: `Some(true)` at once, `Some(false)` once typing pauses;
    /// `None`: nothing changed.
    pub apply: Option<bool>,
    /// The GPU rows are drawn again ([`gpu_rows`]: one was added or removed).
    pub redraw: bool,
    /// The other control of the GPU row (its `data-testid`) now shows this value: the preset
    /// select the choice for the size typed, the size box the preset picked.
    pub row_value: Option<(&'static str, String)>,
}

/// The form's step after `event` (`input`, `change` or `click`) on its control `testid` (the
/// target's `data-testid`) in GPU row `row` (its `data-index`; none outside a row), whose
/// value is now `value`; `s` takes the edit. An edit of a box of [`BOXES`] takes what every
/// one of them shows (`boxes(key)`: so a KV type the select cannot show becomes its choice).
/// Typing in a box applies once it pauses; the KV select, a preset, "Add GPU" and "Remove"
/// apply at once. What the form does not act on (a box's `change`, a select's `input`, "Add
/// GPU" past [`MAX_GPUS`](crate::view::fit::MAX_GPUS), the "custom size" choice) is
/// [`FormStep::default`].
pub fn form_edit(
    s: &mut Settings,
    event: &str,
    testid: &str,
    row: Option<usize>,
    value: String,
    boxes: &dyn Fn(&str) -> String,
) -> FormStep {
    let step = |now: bool, redraw: bool, row_value: Option<(&'static str, String)>| FormStep {
        apply: Some(now),
        redraw,
        row_value,
    };
    let box_edit = |s: &mut Settings, now: bool| {
        for k in BOXES {
            s.set_box(k, boxes(k));
        }
        step(now, false, None)
    };
    match (event, testid, row) {
        ("input", "fit-ram" | "fit-margin" | "fit-ctx", _) => box_edit(s, false),
        ("change", "fit-kv", _) => box_edit(s, true),
        ("click", "fit-gpu-add", _) if s.add_gpu() => step(true, true, None),
        ("click", "fit-gpu-remove", Some(i)) => {
            s.remove_gpu(i);
            step(true, true, None)
        }
        ("input", "fit-gpu-size", Some(i)) => {
            let choice = s.type_gpu(i, value);
            step(false, false, Some(("fit-gpu-preset", choice.to_string())))
        }
        ("change", "fit-gpu-preset", Some(i)) if s.pick_preset(i, &value) => {
            step(true, false, Some(("fit-gpu-size", value)))
        }
        _ => FormStep::default(),
    }
}

/// Which boxes of the form are marked `aria-invalid`, and the error line's text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Marks {
    /// The error line (the error, else the context note); `None`: hidden.
    pub text: Option<String>,
    /// The context box: its note is shown because its text could not be read.
    pub ctx: bool,
    /// The RAM box.
    pub ram: bool,
    /// The margin box.
    pub margin: bool,
    /// The KV select.
    pub kv: bool,
    /// Each GPU's size box, in order.
    pub gpus: Vec<bool>,
}

impl Marks {
    /// Whether box `key` of [`BOXES`] is marked.
    pub fn marked(&self, key: &str) -> bool {
        match key {
            "ram" => self.ram,
            "margin" => self.margin,
            "ctx" => self.ctx,
            "kv" => self.kv,
            _ => false,
        }
    }
}

/// The marks for the settings' error `e` (or none) and the context box's `note` (clamped or not
/// read as typed), the context box holding `ctx` and the form `gpus` GPU rows.
pub fn marks(e: Option<&FieldError>, note: Option<&str>, ctx: &str, gpus: usize) -> Marks {
    let on = |field: &str| e.is_some_and(|e| e.field == field);
    Marks {
        text: e.map(|e| e.message.clone()).or(note.map(str::to_string)),
        ctx: e.is_none() && note.is_some() && parse_context(ctx).invalid,
        ram: on("ram"),
        margin: on("margin"),
        kv: on("kv"),
        gpus: (0..gpus)
            .map(|i| e.is_some_and(|e| e.field == "gpu" && e.index == Some(i)))
            .collect(),
    }
}

/// The Fit card (`section.card.fit`, `data-testid="fit"`): the [`form`] and the empty
/// `div.fit-out` (a polite live region) that [`plan_nodes`] fills.
pub fn card() -> Node {
    let mut c = node::card("Will it run here?", "fit").testid("fit");
    c.body().push(form());
    c.body()
        .push(node::el("div", "fit-out").attr("aria-live", "polite"));
    c
}

/// What `div.fit-out` says when the model cannot be planned: `why`.
pub fn no_plan(why: &str) -> Node {
    node::text("p", "no-estimate", why)
}

/// The plan's figures as the card's data attributes: `data-fits` ([`fits_name`]),
/// `data-gpu-layers`, `data-cpu-moe`, `data-context` (tokens), `data-max-context-gpu` and
/// `data-max-context` (tokens; empty when none fits).
pub fn plan_attrs(p: &FitPlan) -> Vec<(&'static str, String)> {
    let opt = |n: Option<u64>| n.map_or_else(String::new, |n| n.to_string());
    vec![
        ("data-fits", fits_name(p.fits).to_string()),
        ("data-gpu-layers", p.gpu_layers.to_string()),
        ("data-cpu-moe", p.cpu_moe.to_string()),
        ("data-context", p.context.to_string()),
        ("data-max-context-gpu", opt(p.max_context_gpu)),
        ("data-max-context", opt(p.max_context)),
    ]
}

/// What the Fit card shows for the plan of `model` (named `file` in the command lines) on
/// settings `s`.
#[derive(Debug)]
pub struct CardOut {
    /// The card's `data-state`: `input-error`, `no-plan` or `ready`.
    pub state: &'static str,
    /// The settings' error (the form marks its box and says it), or none.
    pub error: Option<FieldError>,
    /// The context box's note (clamped, or not read as typed), once the settings are read.
    pub note: Option<String>,
    /// The plan's data attributes ([`plan_attrs`]); none without a plan.
    pub attrs: Vec<(&'static str, String)>,
    /// What `div.fit-out` holds: the plan ([`plan_nodes`]), why there is none ([`no_plan`]),
    /// or nothing while the settings are wrong.
    pub nodes: Vec<Node>,
    /// The command line its copy button copies.
    pub command: Option<String>,
}

/// The Fit card's state and contents for `model` on settings `s` ([`CardOut`]).
pub fn card_out(model: &OpenedModel, file: &str, s: &Settings) -> CardOut {
    let none = |state, error, note| CardOut {
        state,
        error,
        note,
        attrs: Vec::new(),
        nodes: Vec::new(),
        command: None,
    };
    let i = match inputs(s) {
        Ok(i) => i,
        Err(e) => return none("input-error", Some(e), None),
    };
    match plan(model, file, &i.devices, &i.options) {
        Ok(p) => CardOut {
            attrs: plan_attrs(&p),
            nodes: plan_nodes(&p, file, s),
            command: Some(p.command),
            ..none("ready", None, i.context_note)
        },
        Err(e) => CardOut {
            nodes: vec![no_plan(&e.to_string())],
            ..none("no-plan", None, i.context_note)
        },
    }
}

/// A Copy button (`data-testid` = `testid`) and its status line (`<testid>-status`, a polite
/// live region the page writes "copied" into).
pub fn copy_button(testid: &str) -> [Node; 2] {
    [
        node::text("button", "button small", "Copy")
            .attr("type", "button")
            .testid(testid)
            .attr("title", "copy the command line to the clipboard"),
        // Not `.copy-status`: the tokenizer card's status is found by that class.
        node::el("span", "muted fit-copy-status")
            .attr("aria-live", "polite")
            .testid(&format!("{testid}-status")),
    ]
}

/// One device's row (`div.fit-device`, `.over` past its budget) with its `data-*` figures, its
/// name and use, a meter bar (per mille of the budget) and what it holds.
fn device_node(d: &crate::view::fit::DeviceRow, bytes: u64, budget: u64) -> Node {
    let permille = d.permille.to_string();
    node::el(
        "div",
        if d.over {
            "fit-device over"
        } else {
            "fit-device"
        },
    )
    .testid("fit-device")
    .attr("data-name", d.name.as_str())
    .attr("data-bytes", bytes.to_string())
    .attr("data-budget", budget.to_string())
    .attr("data-permille", permille.as_str())
    .attr("data-over", bool_text(d.over))
    .child(
        node::el("div", "fit-device-head")
            .child(node::text("strong", "fit-device-name", &d.name))
            .child(node::text("span", "fit-device-used", &d.used)),
    )
    .child(
        node::el("div", "fit-bar")
            .attr("role", "meter")
            .attr("aria-label", format!("{} used", d.name))
            .attr("aria-valuemin", "0")
            .attr("aria-valuemax", "1000")
            .attr("aria-valuenow", permille)
            .child(
                node::el("div", "fit-bar-fill")
                    .style("width", format!("{}%", d.permille as f64 / 10.0)),
            ),
    )
    .child(node::text(
        "p",
        "muted fit-device-holds",
        &format!("{}; {}", d.holds, d.parts),
    ))
}

/// What `div.fit-out` holds for the plan of `file` on settings `s`: the verdict
/// (`fit-verdict`), the figures (`dl.fit-figures`, without the verdict and the command), one
/// row per device (`fit-devices`), the command line with its copy button (`fit-command`,
/// `fit-copy`) and the same plan as a `weightpeek fit` line (`fit-cli`), and the notes.
pub fn plan_nodes(p: &FitPlan, file: &str, s: &Settings) -> Vec<Node> {
    let verdict = node::text(
        "p",
        &format!("fit-verdict fits-{}", fits_name(p.fits)),
        &verdict_line(p),
    )
    .testid("fit-verdict");
    let mut dl = node::el("dl", "kv fit-figures");
    // The verdict is the headline above; the command has its own box below.
    for r in rows(p)
        .iter()
        .filter(|r| r.label != "command" && r.label != "verdict")
    {
        dl.push(node::text("dt", "", &r.label));
        dl.push(node::text("dd", "", &r.value));
    }
    let devices = node::el("div", "fit-devices")
        .testid("fit-devices")
        .children(
            device_rows(p)
                .iter()
                .zip(&p.devices)
                .map(|(d, u)| device_node(d, u.bytes, u.budget_bytes)),
        );
    let command = node::el("div", "fit-command-box")
        .child(
            node::el("div", "fit-command-bar")
                .child(node::text("span", "muted", "llama.cpp command"))
                .children(copy_button("fit-copy")),
        )
        .child(node::text("pre", "mono fit-command", &p.command).testid("fit-command"))
        .child(
            node::text(
                "p",
                "muted fit-cli",
                &format!(
                    "the same plan in a terminal: weightpeek fit {file} {}",
                    cli_args(s)
                ),
            )
            .testid("fit-cli"),
        );
    let notes =
        node::el("ul", "notes").children(p.notes.iter().map(|n| node::text("li", "note", n)));
    vec![verdict, dl, devices, command, notes]
}

/// A Hub repo's "Will it fit?" card (`data-testid="repo-fit"`) for repo `repo_id`: what it
/// shows, the [`form`], the status line (`repo-fit-status`) and the table
/// (`table.repo-fit-table`, head [`REPO_COLUMNS`], empty body for [`repo_row`]s).
pub fn repo_card(repo_id: &str) -> Node {
    let mut c = node::card("Will it fit?", "fit repo-fit-card").testid("repo-fit");
    let head = node::el("tr", "").children(REPO_COLUMNS.iter().map(|c| node::text("th", "", c)));
    let body = c.body();
    body.push(node::text(
        "p",
        "muted",
        &format!(
            "Every GGUF model of {repo_id} on these devices, from its header alone (largest first; ★ the largest that fits)."
        ),
    ));
    body.push(form());
    body.push(
        node::el("p", "muted fit-repo-status")
            .attr("role", "status")
            .testid("repo-fit-status"),
    );
    body.push(
        node::el("div", "table-scroll").child(
            node::el("table", "table repo-fit-table")
                .child(node::el("thead", "").child(head))
                .child(node::el("tbody", "")),
        ),
    );
    c
}

/// The repo table's status line (`N of M headers read`) and the card's `data-state`
/// (`loading` until every header is read, then `ready`).
pub fn repo_status(read: usize, models: usize) -> (String, &'static str) {
    (
        format!("{read} of {models} headers read"),
        if read == models { "ready" } else { "loading" },
    )
}

/// The plan of one repo model `file`: [`RepoPlanError::Pending`] while its header is read
/// (`model` `None`), its read error, the settings' error, or the plan's own error.
pub fn repo_plan(
    model: Option<Result<&OpenedModel, &Failure>>,
    inputs: &Result<Inputs, FieldError>,
    file: &str,
) -> Result<FitPlan, RepoPlanError> {
    match (model, inputs) {
        (None, _) => Err(RepoPlanError::Pending),
        (Some(Err(e)), _) => Err(RepoPlanError::Unreadable(e.to_string())),
        (Some(Ok(_)), Err(e)) => Err(RepoPlanError::Settings(e.message.clone())),
        (Some(Ok(m)), Ok(i)) => plan(m, file, &i.devices, &i.options).map_err(RepoPlanError::Plan),
    }
}

/// One row of the repo table (`tr.repo-fit-row`, `.pick` for the pick) with its `data-*`
/// figures and `data-state` (`loading`, `error`, `ready`), the cells of [`repo_cells`] (the
/// pick starred, the command with a copy button, `repo-fit-copy`).
pub fn repo_row(r: &RepoRow) -> Node {
    let state = match (&r.error, r.pending) {
        (_, true) => "loading",
        (Some(_), false) => "error",
        (None, false) => "ready",
    };
    let mut tr = node::el(
        "tr",
        if r.pick {
            "repo-fit-row pick"
        } else {
            "repo-fit-row"
        },
    )
    .testid("repo-fit-row")
    .attr("data-label", r.label.as_str())
    .attr("data-size", r.size.to_string())
    .attr("data-fits", r.fits.map_or("", fits_name))
    .attr("data-pick", bool_text(r.pick))
    .attr("data-state", state);
    if let Some(n) = r.gpu_layers {
        tr = tr.attr("data-gpu-layers", n.to_string());
    }
    if let Some(c) = r.max_context_gpu {
        tr = tr.attr("data-max-context-gpu", c.to_string());
    }
    for (k, cell) in repo_cells(r).into_iter().enumerate() {
        let class = match k {
            0 => "col-name",
            1 | 3 | 4 => "num",
            2 => r.fits.map_or("muted", |f| match f {
                Fits::Gpu => "fits-gpu",
                Fits::Offload => "fits-offload",
                Fits::No => "fits-no",
            }),
            _ => "mono fit-row-command",
        };
        tr.push(if k == 0 && r.pick {
            node::el("td", class)
                .child(node::text("span", "pick-mark", "★ ").attr("title", "the largest that fits"))
                .child(node::text("span", "", &cell))
        } else if k == 5 && r.command.is_some() {
            node::el("td", class)
                .child(node::text("code", "", &cell))
                .children(copy_button("repo-fit-copy"))
        } else {
            node::text("td", class, &cell)
        });
    }
    tr
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::fit::{kv_choice, repo_rows, PENDING};
    use crate::view::testutil::tiny_llama;

    #[test]
    fn the_form_acts_on_each_control_as_a_person_uses_it() {
        use crate::view::fit::{MAX_GPUS, NEW_GPU};
        let preset = PRESETS[0].0;
        let mut s = Settings::default();
        let gpus = s.gpus.len();
        // What the boxes show: the RAM, context and KV typed below, the margin as it was.
        let margin = s.margin.clone();
        let shown = move |k: &str| match k {
            "ram" => "64GiB".to_string(),
            "ctx" => "8k".to_string(),
            "kv" => "q8_0".to_string(),
            _ => margin.clone(),
        };
        let edit = |s: &mut Settings, ev: &str, id: &str, row: Option<usize>, v: &str| {
            form_edit(s, ev, id, row, v.to_string(), &shown)
        };
        let typed = |row_value| FormStep {
            apply: Some(false),
            redraw: false,
            row_value,
        };
        let now = |redraw, row_value| FormStep {
            apply: Some(true),
            redraw,
            row_value,
        };
        // Typing waits for a pause; the KV select applies at once.
        assert_eq!(edit(&mut s, "input", "fit-ram", None, "64GiB"), typed(None));
        assert_eq!(edit(&mut s, "input", "fit-ctx", None, "8k"), typed(None));
        assert_eq!(
            edit(&mut s, "change", "fit-kv", None, "q8_0"),
            now(false, None)
        );
        assert_eq!(
            (s.ram.as_str(), s.ctx.as_str(), s.kv.as_str()),
            ("64GiB", "8k", "q8_0")
        );
        // A KV type the select cannot show (a link's `kv=q5`) becomes its choice once a box is
        // typed in, as the select shows it.
        s.kv = "q5".into();
        assert_eq!(
            edit(&mut s, "input", "fit-margin", None, "2GiB"),
            typed(None)
        );
        assert_eq!(s.kv, "q8_0");
        // A box's change (on blur) and a select's input event are the typing already taken.
        for (ev, id) in [
            ("change", "fit-ram"),
            ("input", "fit-kv"),
            ("click", "fit-form"),
        ] {
            assert_eq!(
                edit(&mut s, ev, id, None, "1"),
                FormStep::default(),
                "{ev} {id}"
            );
        }
        assert_eq!(s.ram, "64GiB");
        // Add a GPU (redrawn), type a card's name into it (its select follows), pick a
        // preset (its box follows), remove it.
        assert_eq!(
            edit(&mut s, "click", "fit-gpu-add", None, ""),
            now(true, None)
        );
        assert_eq!(s.gpus.len(), gpus + 1);
        assert_eq!(s.gpus[gpus], NEW_GPU);
        let select = Some(("fit-gpu-preset", preset.to_string()));
        assert_eq!(
            edit(&mut s, "input", "fit-gpu-size", Some(gpus), preset),
            typed(select)
        );
        let custom = Some(("fit-gpu-preset", String::new()));
        assert_eq!(
            edit(&mut s, "input", "fit-gpu-size", Some(gpus), "9GiB"),
            typed(custom)
        );
        assert_eq!(s.gpus[gpus], "9GiB");
        let size = Some(("fit-gpu-size", preset.to_string()));
        assert_eq!(
            edit(&mut s, "change", "fit-gpu-preset", Some(gpus), preset),
            now(false, size)
        );
        assert_eq!(s.gpus[gpus], preset);
        // "custom size" keeps the size typed.
        let kept = edit(&mut s, "change", "fit-gpu-preset", Some(gpus), "");
        assert_eq!((kept, s.gpus[gpus].as_str()), (FormStep::default(), preset));
        assert_eq!(
            edit(&mut s, "click", "fit-gpu-remove", Some(gpus), ""),
            now(true, None)
        );
        assert_eq!(s.gpus.len(), gpus);
        // No row past the last: "Add GPU" does nothing.
        while s.gpus.len() < MAX_GPUS {
            s.add_gpu();
        }
        assert_eq!(
            edit(&mut s, "click", "fit-gpu-add", None, ""),
            FormStep::default()
        );
        assert_eq!(s.gpus.len(), MAX_GPUS);
    }

    #[test]
    fn the_form_has_every_box_and_a_row_per_gpu() {
        let f = form();
        for id in ["fit-ram", "fit-margin", "fit-ctx", "fit-kv", "fit-gpu-add"] {
            assert!(f.find_testid(id).is_some(), "{id}");
        }
        let ctx = f.find_testid("fit-ctx").unwrap();
        assert_eq!(ctx.get_attr("placeholder"), Some("model's own"));
        assert_eq!(ctx.get_attr("class"), Some("filter fit-input"));
        assert_eq!(f.find_testid("fit-kv").unwrap().children.len(), 3);
        let err = f.find_testid("fit-input-error").unwrap();
        assert_eq!(
            (err.get_attr("role"), err.get_attr("hidden")),
            (Some("alert"), Some(""))
        );
        assert_eq!(f.find_class("fit-gpu-list")[0].children.len(), 0);

        let none = gpu_rows(0);
        assert_eq!(none.len(), 1);
        assert!(none[0].has_class("fit-no-gpu"));
        let two = gpu_rows(2);
        assert_eq!(two[1].get_attr("data-index"), Some("1"));
        let sel = two[1].find_testid("fit-gpu-preset").unwrap();
        assert_eq!(sel.get_attr("aria-label"), Some("GPU 1 card"));
        assert_eq!(sel.children.len(), PRESETS.len() + 1);
        assert_eq!(sel.children[0].get_attr("value"), Some(""));
        assert_eq!(
            two[1]
                .find_testid("fit-gpu-remove")
                .unwrap()
                .get_attr("aria-label"),
            Some("remove GPU 1")
        );
        assert_eq!(
            two[0].text_content(),
            "GPU 0 free memorycardcustom size".to_string()
                + &PRESETS.iter().map(|(_, l, _)| *l).collect::<String>()
                + "Remove"
        );
        assert_eq!(kv_choice(" Q8_0 "), "q8_0");
        assert_eq!(kv_choice("q5"), "f16");
    }

    #[test]
    fn marks_follow_the_error_or_the_context_note() {
        let bad = inputs(&Settings {
            gpus: vec!["8GiB".into(), "x".into()],
            ..Settings::default()
        })
        .unwrap_err();
        let m = marks(Some(&bad), Some("ignored"), "abc", 2);
        assert_eq!(m.gpus, [false, true]);
        assert!(!m.ram && !m.ctx && !m.kv && !m.margin);
        let bad_ram = inputs(&Settings {
            ram: "lots".into(),
            ..Settings::default()
        })
        .unwrap_err();
        let ram = marks(Some(&bad_ram), None, "", 1);
        let marked: Vec<bool> = ["ram", "margin", "ctx", "kv", "gpu"]
            .iter()
            .map(|k| ram.marked(k))
            .collect();
        assert_eq!(marked, [true, false, false, false, false]);
        assert_eq!(m.text.as_deref(), Some(bad.message.as_str()));
        // A context box that is not a number: its note shows and the box is marked.
        let m = marks(None, Some("not a number"), "abc", 1);
        assert_eq!((m.text.as_deref(), m.ctx), (Some("not a number"), true));
        // Clamped: the note shows, the box is not wrong.
        assert!(!marks(None, Some("clamped"), "99999999999", 1).ctx);
        assert_eq!(marks(None, None, "", 0), Marks::default());
    }

    #[test]
    fn the_plan_draws_its_figures_devices_and_command() {
        let b = tiny_llama();
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let s = Settings::default();
        let i = inputs(&s).unwrap();
        let p = plan(&m, "m.gguf", &i.devices, &i.options).unwrap();
        let out = node::el("div", "").children(plan_nodes(&p, "m.gguf", &s));
        let v = out.find_testid("fit-verdict").unwrap();
        assert_eq!(v.class, format!("fit-verdict fits-{}", fits_name(p.fits)));
        assert_eq!(v.text.as_deref(), Some(verdict_line(&p).as_str()));
        let dts: Vec<String> = out
            .descendants()
            .iter()
            .filter(|n| n.tag == "dt")
            .map(|n| n.text_content())
            .collect();
        assert!(!dts.contains(&"command".to_string()) && !dts.contains(&"verdict".to_string()));
        assert_eq!(dts.len(), rows(&p).len() - 2);
        let devs = out.find_testid("fit-devices").unwrap();
        assert_eq!(devs.children.len(), p.devices.len());
        let gpu = &devs.children[0];
        assert_eq!(gpu.get_attr("data-name"), Some("GPU 0"));
        assert_eq!(
            gpu.get_attr("data-budget"),
            Some(p.devices[0].budget_bytes.to_string().as_str())
        );
        let bar = &gpu.find_class("fit-bar")[0];
        assert_eq!(bar.get_attr("aria-valuenow"), gpu.get_attr("data-permille"));
        assert_eq!(bar.children[0].styles[0].0, "width");
        assert_eq!(
            out.find_testid("fit-command").unwrap().text.as_deref(),
            Some(p.command.as_str())
        );
        assert_eq!(
            out.find_testid("fit-cli").unwrap().text_content(),
            format!(
                "the same plan in a terminal: weightpeek fit m.gguf {}",
                cli_args(&s)
            )
        );
        assert!(out.find_testid("fit-copy-status").is_some());
        let attrs = plan_attrs(&p);
        assert_eq!(attrs[0], ("data-fits", fits_name(p.fits).to_string()));
        assert_eq!(attrs[3], ("data-context", p.context.to_string()));
        assert_eq!(no_plan("no blocks").text_content(), "no blocks");
        let c = card();
        assert!(c.find_testid("fit-form").is_some() && !c.find_class("fit-out").is_empty());
    }

    #[test]
    fn the_card_shows_the_plan_its_absence_or_nothing_on_wrong_settings() {
        let b = tiny_llama();
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let s = Settings::default();
        let out = card_out(&m, "m.gguf", &s);
        let i = inputs(&s).unwrap();
        let p = plan(&m, "m.gguf", &i.devices, &i.options).unwrap();
        assert_eq!((out.state, out.error.is_none()), ("ready", true));
        assert_eq!(out.attrs, plan_attrs(&p));
        assert_eq!(out.nodes, plan_nodes(&p, "m.gguf", &s));
        assert_eq!(out.command.as_deref(), Some(p.command.as_str()));

        let bad = Settings {
            gpus: vec!["8GiB".into(), "lots".into()],
            ..Settings::default()
        };
        let out = card_out(&m, "m.gguf", &bad);
        assert_eq!(out.state, "input-error");
        let e = out.error.unwrap();
        assert_eq!((e.field, e.index), ("gpu", Some(1)));
        assert!(out.nodes.is_empty() && out.attrs.is_empty() && out.command.is_none());

        let typed = Settings {
            ctx: "many".into(),
            ..Settings::default()
        };
        assert_eq!(
            card_out(&m, "m.gguf", &typed).note,
            inputs(&typed).unwrap().context_note
        );
        assert!(card_out(&m, "m.gguf", &typed).note.is_some());

        // No tensor blocks: no plan, said in the card's body.
        let empty = crate::view::testutil::gguf(
            &[(
                "general.architecture",
                crate::view::testutil::Kv::Str("llama"),
            )],
            &[],
        );
        let e = crate::open::OpenedModel::from(parse_bytes(&empty).unwrap());
        let out = card_out(&e, "e.gguf", &s);
        let why = plan(&e, "e.gguf", &i.devices, &i.options).unwrap_err();
        assert_eq!(out.state, "no-plan");
        assert_eq!(out.nodes, [no_plan(&why.to_string())]);
        assert!(out.command.is_none() && out.attrs.is_empty());
    }

    #[test]
    fn repo_rows_say_their_state_and_star_the_pick() {
        let b = tiny_llama();
        let m = crate::open::OpenedModel::from(parse_bytes(&b).unwrap());
        let i = inputs(&Settings::default());
        let ok = repo_plan(Some(Ok(&m)), &i, "a.gguf");
        assert!(ok.is_ok());
        assert_eq!(
            repo_plan(None, &i, "b.gguf").unwrap_err().to_string(),
            PENDING
        );
        assert_eq!(
            repo_plan(Some(Err(&Failure::new("404", ""))), &i, "c.gguf").unwrap_err(),
            RepoPlanError::Unreadable("404".into())
        );
        assert_eq!(
            repo_plan(Some(Err(&Failure::new("404", ""))), &i, "c.gguf")
                .unwrap_err()
                .to_string(),
            "404"
        );
        let bad = inputs(&Settings {
            ram: "lots".into(),
            ..Settings::default()
        });
        assert_eq!(
            repo_plan(Some(Ok(&m)), &bad, "a.gguf")
                .unwrap_err()
                .to_string(),
            bad.clone().unwrap_err().message
        );
        let rows = repo_rows(vec![
            ("a".to_string(), 10, ok),
            ("b".to_string(), 20, repo_plan(None, &i, "b.gguf")),
            (
                "c".to_string(),
                5,
                Err(RepoPlanError::Unreadable("404".into())),
            ),
        ]);
        let trs: Vec<Node> = rows.iter().map(repo_row).collect();
        let states: Vec<_> = trs
            .iter()
            .map(|t| t.get_attr("data-state").unwrap())
            .collect();
        assert_eq!(states, ["loading", "ready", "error"]);
        assert_eq!(trs[1].get_attr("data-pick"), Some("true"));
        assert!(trs[1].has_class("pick"));
        assert_eq!(trs[1].children[0].children[0].text.as_deref(), Some("★ "));
        assert!(trs[1].find_testid("repo-fit-copy").is_some());
        assert!(trs[0].find_testid("repo-fit-copy").is_none());
        assert_eq!(trs[0].children[2].class, "muted");
        assert_eq!(trs[0].get_attr("data-gpu-layers"), None);
        assert_eq!(
            trs[1].get_attr("data-gpu-layers"),
            rows[1].gpu_layers.map(|n| n.to_string()).as_deref()
        );
        assert_eq!(
            repo_status(1, 3),
            ("1 of 3 headers read".to_string(), "loading")
        );
        assert_eq!(repo_status(3, 3).1, "ready");
        let c = repo_card("org/repo");
        assert!(c
            .text_content()
            .contains("Every GGUF model of org/repo on these devices"));
        assert_eq!(
            c.find_class("repo-fit-table")[0].children[0].children[0]
                .children
                .len(),
            6
        );
        assert!(c.find_testid("fit-form").is_some() && c.find_testid("repo-fit-status").is_some());
    }
}
