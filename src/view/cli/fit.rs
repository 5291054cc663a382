//! `weightpeek fit`: the plan as text (the Fit card's rows, the devices, notes), or a
//! repository's table (one line per GGUF model, largest first, the pick marked `→`).

use crate::summary::fit::FitPlan;
use crate::text::{self, escape};
use crate::view::fit::{self, RepoRow};

use super::{field, label_width};

/// A plan for `name`.
pub fn text(name: &str, p: &FitPlan) -> String {
    let rows = fit::rows(p);
    let width = label_width(rows.iter().map(|r| r.label.as_str()), 0);
    let mut o = format!(
        "{}: {} at {} tokens\n",
        escape(name),
        p.fits.label(),
        text::thousands(p.context)
    );
    for r in &rows {
        field(&mut o, width, &r.label, &escape(&r.value));
    }
    o.push_str("devices:\n");
    let devices = fit::device_rows(p);
    let w = label_width(devices.iter().map(|d| d.name.as_str()), 0);
    for d in &devices {
        let over = if d.over { "  OVER BUDGET" } else { "" };
        field(
            &mut o,
            w,
            &d.name,
            &escape(&format!("{}{over}: {}; {}", d.used, d.holds, d.parts)),
        );
    }
    for n in &p.notes {
        o.push_str(&format!("  note: {}\n", escape(n)));
    }
    o
}

/// A repository's models against the devices.
pub fn repo_text(repo: &str, rows: &[RepoRow]) -> String {
    let mut o = format!(
        "{}: {} GGUF models, largest first (→ the one to pick):\n",
        escape(repo),
        rows.len()
    );
    let w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    for r in rows {
        let mark = if r.pick { "→" } else { " " };
        let ctx = r
            .max_context_gpu
            .map(|c| format!("  (≤ {} tokens on the GPUs)", text::thousands(c)))
            .unwrap_or_default();
        o.push_str(&format!(
            "{mark} {:<w$} {:>10}  {}{ctx}\n",
            escape(&r.label),
            text::bytes(r.size),
            escape(&r.verdict),
        ));
    }
    if let Some(c) = rows
        .iter()
        .find(|r| r.pick)
        .and_then(|r| r.command.as_ref())
    {
        o.push_str(&format!("command: {}\n", escape(c)));
    }
    o
}
