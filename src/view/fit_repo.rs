//! A Hub repo's "Will it fit?" table as data: its GGUF models (a split set is one) in listing
//! order, which header is read next and from which URLs, what each read gave, and the table
//! for the settings (status line, the card's `data-*`, one [`RepoRow`] per model). The page
//! reads the headers and draws [`crate::view::fit_card::repo_row`] for each row.

use std::rc::Rc;

use crate::open::OpenedModel;
use crate::remote::hub::Repo;
use crate::remote::shards::{Entry, EntryKind};
use crate::view::errors::Failure;
use crate::view::fit::{inputs, repo_rows, FieldError, RepoRow, Settings};
use crate::view::fit_card::{repo_plan, repo_status};

/// One GGUF model of the table: its entry and, once read, its header (or why it could not be
/// read, in words).
struct RepoModel {
    entry: Entry,
    model: Option<Result<Rc<OpenedModel>, Failure>>,
}

/// The GGUF models of a repo's table and the next one to read.
pub struct RepoModels {
    models: Vec<RepoModel>,
    next: usize,
}

/// A header to read: the model's place in the table and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRead {
    /// The model's place ([`RepoModels::set_read`] takes it back).
    pub index: usize,
    /// Each file's path in the repo and its `/resolve/` URL, in order.
    pub given: Vec<(String, String)>,
    /// The files' paths, in order (a split set's parts).
    pub files: Vec<String>,
}

/// The table for one set of settings.
#[derive(Debug)]
pub struct RepoTable {
    /// The settings' error (the form marks its box and says it), or none.
    pub error: Option<FieldError>,
    /// The context box's note (clamped, or not read as typed), once the settings are read.
    pub note: Option<String>,
    /// `N of M headers read`.
    pub status: String,
    /// The card's `data-read`, `data-models` and `data-state` (`loading`, then `ready`).
    pub attrs: [(&'static str, String); 3],
    /// One row per model, largest first, the pick marked ([`repo_rows`]).
    pub rows: Vec<RepoRow>,
}

impl RepoModels {
    /// The GGUF models (one file or a split set) among `entries`; `None` when there are none.
    pub fn of(entries: &[Entry]) -> Option<RepoModels> {
        let models: Vec<RepoModel> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Gguf | EntryKind::GgufSplit))
            .map(|e| RepoModel {
                entry: e.clone(),
                model: None,
            })
            .collect();
        (!models.is_empty()).then_some(RepoModels { models, next: 0 })
    }

    /// The next model whose header is not being read yet, its files resolved in `repo` on
    /// `endpoint`; `None` once every one has been started.
    pub fn take_next(&mut self, repo: &Repo, endpoint: &str) -> Option<RepoRead> {
        let index = self.next;
        let entry = &self.models.get(index)?.entry;
        self.next = index.checked_add(1)?;
        Some(RepoRead {
            index,
            given: entry
                .files
                .iter()
                .map(|p| (p.clone(), repo.resolve_url(endpoint, p)))
                .collect(),
            files: entry.files.clone(),
        })
    }

    /// What reading the header of model `index` gave (the failure as the page words it).
    pub fn set_read(&mut self, index: usize, read: Result<Rc<OpenedModel>, Failure>) {
        if let Some(m) = self.models.get_mut(index) {
            m.model = Some(read);
        }
    }

    /// The table on settings `s`: every model read so far planned, the others pending.
    pub fn table(&self, s: &Settings) -> RepoTable {
        let inputs = inputs(s);
        let read = self.models.iter().filter(|m| m.model.is_some()).count();
        let (status, state) = repo_status(read, self.models.len());
        let results = self
            .models
            .iter()
            .map(|m| {
                let file = m.entry.files.first().cloned().unwrap_or_default();
                let model = m.model.as_ref().map(|r| match r {
                    Ok(m) => Ok(&**m),
                    Err(e) => Err(e),
                });
                let plan = repo_plan(model, &inputs, &file);
                (m.entry.label.clone(), m.entry.size, plan)
            })
            .collect();
        RepoTable {
            attrs: [
                ("data-read", read.to_string()),
                ("data-models", self.models.len().to_string()),
                ("data-state", state.to_string()),
            ],
            status,
            rows: repo_rows(results),
            note: inputs.as_ref().ok().and_then(|i| i.context_note.clone()),
            error: inputs.err(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::hub::RepoKind;
    use crate::source::parse_bytes;
    use crate::view::fit::PENDING;
    use crate::view::testutil::tiny_llama;

    fn entry(label: &str, kind: EntryKind, files: &[&str], size: u64) -> Entry {
        Entry {
            label: label.into(),
            kind,
            files: files.iter().map(|f| f.to_string()).collect(),
            index: None,
            size,
            missing: Vec::new(),
        }
    }

    #[test]
    fn only_gguf_models_are_listed_and_each_is_read_once() {
        let entries = [
            entry("a.gguf", EntryKind::Gguf, &["a.gguf"], 10),
            entry(
                "w.safetensors",
                EntryKind::Safetensors,
                &["w.safetensors"],
                5,
            ),
            entry(
                "b (2 parts)",
                EntryKind::GgufSplit,
                &["b-00001-of-00002.gguf", "b-00002-of-00002.gguf"],
                20,
            ),
        ];
        assert!(RepoModels::of(&entries[1..2]).is_none());
        let mut m = RepoModels::of(&entries).unwrap();
        let repo = Repo {
            kind: RepoKind::Model,
            id: "org/repo".into(),
            revision: "main".into(),
        };
        let ep = "https://huggingface.co";
        let first = m.take_next(&repo, ep).unwrap();
        assert_eq!(first.index, 0);
        assert_eq!(
            first.given,
            [(
                "a.gguf".to_string(),
                "https://huggingface.co/org/repo/resolve/main/a.gguf".to_string()
            )]
        );
        let second = m.take_next(&repo, ep).unwrap();
        assert_eq!(second.index, 1);
        assert_eq!(
            second.files,
            ["b-00001-of-00002.gguf", "b-00002-of-00002.gguf"]
        );
        assert_eq!(
            second.given[1].1,
            "https://huggingface.co/org/repo/resolve/main/b-00002-of-00002.gguf"
        );
        assert_eq!(m.take_next(&repo, ep), None);
    }

    #[test]
    fn the_table_counts_the_headers_read_and_plans_them() {
        let entries = [
            entry("a.gguf", EntryKind::Gguf, &["a.gguf"], 10),
            entry("b.gguf", EntryKind::Gguf, &["b.gguf"], 20),
            entry("c.gguf", EntryKind::Gguf, &["c.gguf"], 5),
        ];
        let mut m = RepoModels::of(&entries).unwrap();
        let t = m.table(&Settings::default());
        assert_eq!(t.status, "0 of 3 headers read");
        assert_eq!(t.attrs[2], ("data-state", "loading".to_string()));
        assert!(t.rows.iter().all(|r| r.pending && r.verdict == PENDING));

        let model = OpenedModel::from(parse_bytes(&tiny_llama()).unwrap());
        m.set_read(0, Ok(Rc::new(model)));
        m.set_read(2, Err(Failure::new("404 Not Found", "")));
        m.set_read(7, Err(Failure::new("out of range", "")));
        let t = m.table(&Settings::default());
        assert_eq!(t.status, "2 of 3 headers read");
        assert_eq!(
            t.attrs,
            [
                ("data-read", "2".to_string()),
                ("data-models", "3".to_string()),
                ("data-state", "loading".to_string()),
            ]
        );
        assert!(t.error.is_none() && t.note.is_none());
        // Largest first: b (pending), a (planned), c (unreadable).
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["b.gguf", "a.gguf", "c.gguf"]);
        assert!(t.rows[1].fits.is_some() && t.rows[1].command.is_some());
        assert_eq!(t.rows[2].error.as_deref(), Some("404 Not Found"));

        m.set_read(1, Err(Failure::new("gone", "")));
        let bad = Settings {
            ram: "lots".into(),
            ..Settings::default()
        };
        let t = m.table(&bad);
        assert_eq!(t.attrs[2], ("data-state", "ready".to_string()));
        let e = t.error.unwrap();
        assert_eq!(e.field, "ram");
        assert_eq!(t.rows[1].error.as_deref(), Some(e.message.as_str()));
    }
}
