//! A Hub repository's models (`weightpeek owner/repo`), to pick one with `--file`: one line per
//! model (its label, size and file count), or as JSON `{repo, models}`.

use crate::remote::hub::Repo;
use crate::remote::shards::Entry;
use crate::text::{self, escape};

use super::plural;

/// The list as text.
pub fn text(repo: &Repo, entries: &[Entry]) -> String {
    let mut o = format!(
        "{}@{}: {}; open one with --file NAME:\n",
        escape(&repo.id),
        escape(&repo.revision),
        plural(entries.len() as u64, "model", "models")
    );
    for e in entries {
        o.push_str(&format!(
            "  {:<60} {:>10}  {}\n",
            escape(&e.label),
            text::bytes(e.size),
            plural(e.files.len() as u64, "file", "files")
        ));
    }
    o
}

/// The list as JSON: `{"repo": …, "models": […]}`.
pub fn json(repo: &Repo, entries: &[Entry]) -> String {
    super::json(&serde_json::json!({ "repo": repo, "models": entries }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::shards::{group, parse_tree_listing};
    use crate::view::cli::tests::clean;

    #[test]
    fn one_line_per_model() {
        let listing = r#"[{"type":"file","path":"m-00001-of-00002.gguf","size":1048576},
            {"type":"file","path":"m-00002-of-00002.gguf","size":1048576},
            {"type":"file","path":"x\u001b.gguf","size":10}]"#;
        let entries = group(&parse_tree_listing(listing).unwrap());
        let repo = Repo {
            kind: crate::remote::hub::RepoKind::Model,
            id: "o/r".into(),
            revision: "main".into(),
        };
        let out = text(&repo, &entries);
        assert!(clean(&out), "{out:?}");
        assert!(
            out.starts_with("o/r@main: 2 models; open one with --file NAME:\n"),
            "{out}"
        );
        for e in &entries {
            let line = format!(
                "  {:<60} {:>10}  {}\n",
                escape(&e.label),
                text::bytes(e.size),
                plural(e.files.len() as u64, "file", "files")
            );
            assert!(out.contains(&line), "{line} in {out}");
        }
        assert!(out.contains("2.0 MiB  2 files\n"), "{out}");
        assert!(out.contains("x\\u{1b}.gguf"), "{out}");
        let j: serde_json::Value = serde_json::from_str(&json(&repo, &entries)).unwrap();
        assert_eq!(j["models"].as_array().map(Vec::len), Some(2));
    }
}
