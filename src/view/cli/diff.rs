//! `weightpeek diff A B`: the Compare card as text ([`crate::view::compare::compare`]): the files, the
//! card's summary line, bits per weight by role with B − A, then the metadata and tensor
//! differences (changed, only in A, only in B), each with its A and B sides.

use crate::text::escape;
use crate::view::compare::{CompareView, Row};

/// The comparison of `a` and `b` (the names as given on the command line).
pub fn text(a: &str, b: &str, v: &CompareView) -> String {
    let mut o = format!("A: {}\nB: {}\n{}\n", escape(a), escape(b), v.summary);
    o.push_str("\nbits per weight by role:\n");
    let role = |o: &mut String, cells: [&str; 4], mark: &str| {
        o.push_str(&format!(
            "  {:<40} {:>8} {:>8} {:>8}{mark}\n",
            cells[0], cells[1], cells[2], cells[3]
        ));
    };
    role(&mut o, ["role", "A", "B", "B − A"], "");
    for r in &v.roles {
        role(
            &mut o,
            [&r.role, &r.a_text, &r.b_text, &r.delta_text],
            if r.changed { "  *" } else { "" },
        );
    }
    list(&mut o, "metadata differences", &v.keys, true);
    list(&mut o, "tensor differences", &v.tensors, false);
    list(&mut o, "quantisation recipe differences", &v.recipe, true);
    o
}

/// A list of rows: `kind  name` and the two sides, under each other for values (which may be
/// long), on the name's line for tensors (a type and a shape).
fn list(o: &mut String, title: &str, rows: &[Row], values: bool) {
    if rows.is_empty() {
        o.push_str(&format!("\n{title}: none\n"));
        return;
    }
    o.push_str(&format!(
        "\n{title} ({}):\n",
        crate::text::thousands(rows.len() as u64)
    ));
    for r in rows {
        let kind = r.kind.label();
        if values {
            o.push_str(&format!(
                "  {kind:<9}  {}\n    A: {}\n    B: {}\n",
                r.name, r.a, r.b
            ));
        } else {
            o.push_str(&format!(
                "  {kind:<9}  {:<48} A: {:<24} B: {}\n",
                r.name, r.a, r.b
            ));
        }
    }
}

/// Whether the comparison found anything: a key or tensor only in one file, a value, type or
/// shape that differs, or different bits per weight (whole file or for a role). `diff` then
/// exits with status 1, as diff(1) does.
pub fn differs(v: &CompareView) -> bool {
    !v.keys.is_empty()
        || !v.tensors.is_empty()
        || v.bpw.0 != v.bpw.1
        || v.roles.iter().any(|r| r.changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_bytes;
    use crate::view::cli::tests::clean;
    use crate::view::compare::compare;
    use crate::view::testutil::{gguf, Kv};

    #[test]
    fn the_cards_rows_with_both_sides_escaped() {
        let a = gguf(
            &[
                ("general.file_type", Kv::U32(15)),
                ("general.name", Kv::Str("m")),
                ("only\u{1b}.a", Kv::U32(1)),
            ],
            &[
                ("blk.0.ffn_down.weight", 12, vec![256, 2], 288),
                ("gone\u{202e}", 0, vec![4], 16),
            ],
        );
        let b = gguf(
            &[
                ("general.file_type", Kv::U32(7)),
                ("general.name", Kv::Str("m\u{7}")),
            ],
            &[("blk.0.ffn_down.weight", 8, vec![256, 2], 544)],
        );
        let (a, b) = (parse_bytes(&a).unwrap(), parse_bytes(&b).unwrap());
        let v = compare("a.gguf", &a, "b.gguf", &b);
        let out = text("dir/a\u{7}.gguf", "b.gguf", &v);
        assert!(clean(&out), "{out:?}");
        assert!(out.starts_with(&format!(
            "A: dir/a\\u{{7}}.gguf\nB: b.gguf\n{}\n",
            v.summary
        )));
        assert!(
            v.summary.starts_with("Q4_K_M vs Q8_0: 1 tensor in both"),
            "{}",
            v.summary
        );
        let down = format!(
            "  {:<40} {:>8} {:>8} {:>8}  *\n",
            "ffn_down.weight", "4.500", "8.500", "+4.000"
        );
        assert!(out.contains(&down), "{out}");
        assert!(out.contains("\nmetadata differences (3):\n"), "{out}");
        assert!(
            out.contains("  changed    general.name\n    A: \"m\"\n    B: \"m\\u{7}\"\n"),
            "{out}"
        );
        assert!(
            out.contains("  only in A  only\\u{1b}.a\n    A: 1\n    B: –\n"),
            "{out}"
        );
        assert!(out.contains("\ntensor differences (2):\n"), "{out}");
        let changed = format!(
            "  changed    {:<48} A: {:<24} B: Q8_0 [256, 2]\n",
            "blk.0.ffn_down.weight", "Q4_K [256, 2]"
        );
        assert!(out.contains(&changed), "{out}");
        assert!(out.contains("gone\\u{202e}"), "{out}");
        assert!(differs(&v));

        let same = compare("a.gguf", &a, "a.gguf", &a);
        assert!(!differs(&same));
        let out = text("a.gguf", "a.gguf", &same);
        assert!(out.contains("\nmetadata differences: none\n"), "{out}");
        assert!(out.contains("\ntensor differences: none\n"), "{out}");
    }
}
