//! `weightpeek edit IN OUT …`: what was written, every change with its before and after, the
//! diff of IN against OUT as `weightpeek diff` prints it, and the checks of the result.

use crate::text::escape;
use crate::view::cli::{check, diff};
use crate::view::edit::Review;

/// The report printed after OUT was written (`written` bytes).
pub fn text(input: &str, output: &str, written: u64, r: &Review) -> String {
    let mut o = format!(
        "wrote {} ({} bytes): {}\n",
        escape(output),
        crate::text::thousands(written),
        r.sizes
    );
    for n in &r.notes {
        o.push_str(&format!("note: {n}\n"));
    }
    if r.changes.is_empty() {
        o.push_str("\nchanges: none (the header is rewritten as it was)\n");
    } else {
        o.push_str(&format!("\nchanges ({}):\n", r.changes.len()));
        for c in &r.changes {
            o.push_str(&format!(
                "  {:<8} {}\n    before: {}\n    after:  {}\n",
                c.kind, c.name, c.before, c.after
            ));
        }
    }
    o.push_str("\ndiff:\n");
    o.push_str(&diff::text(input, output, &r.compare));
    o.push_str("\nchecks of the result:\n");
    o.push_str(&check::text(&r.findings));
    o
}
