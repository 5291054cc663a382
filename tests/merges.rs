//! The tokenizer card's merges list on the real files: every vocab GGUF in ../shared/data/vocab
//! and the Gemma 3 270M GGUF, against the reference reader (gguf-py's count, first five and last
//! merge of `tokenizer.ggml.merges`, tests/reference/reference.py). Also how long a text search
//! over the largest list takes here.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{data_dir, real_file, reference, shared_dir};
use weightpeek::format::Model;
use weightpeek::summary::tokenizer::tokenizer_info;
use weightpeek::view::tokenizer::{has_merge_list, MergeRows};

fn open(p: &Path) -> Model {
    common::open_model(p).0.model
}

fn files() -> Vec<PathBuf> {
    let dir = shared_dir().join("data/vocab");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "gguf"));
    v.sort();
    v.push(data_dir().join("gemma-3-270m-q4_k_m.gguf"));
    v
}

fn key_of(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn the_merges_list_of_every_real_gguf_matches_the_reference() {
    let Some(_) = real_file(shared_dir().join("data/vocab")) else {
        return;
    };
    let mut checked = 0;
    let mut largest: Option<(u64, PathBuf)> = None;
    for p in files() {
        let Some(p) = real_file(p) else { continue };
        let Some(r) = reference(&key_of(&p)) else {
            continue;
        };
        let m = open(&p);
        let meta = r["metadata"].as_array().unwrap();
        let rm = meta.iter().find(|e| e["key"] == "tokenizer.ggml.merges");
        let mut rows = MergeRows::new(&m);
        let Some(rm) = rm else {
            // Gemma 3, the SentencePiece vocabularies: no merges, no list.
            assert!(!has_merge_list(&m), "{}", p.display());
            assert_eq!(rows.len(), 0, "{}", p.display());
            continue;
        };
        let count = rm["count"].as_u64().unwrap();
        assert!(has_merge_list(&m), "{}", p.display());
        assert_eq!(rows.total(), count, "{}", p.display());
        assert_eq!(rows.len() as u64, count);
        assert_eq!(
            tokenizer_info(&m).unwrap().merges,
            Some(count),
            "{}",
            p.display()
        );
        assert_eq!(
            rows.count_text().replace(',', ""),
            format!("{count} merges")
        );
        let line = |pos: usize| {
            let r = rows.row(&m, pos).unwrap();
            if r.right.is_empty() {
                r.left
            } else {
                format!("{} {}", r.left, r.right)
            }
        };
        let escape = weightpeek::text::escape;
        for (i, h) in rm["head"].as_array().unwrap().iter().enumerate() {
            assert_eq!(line(i), escape(h.as_str().unwrap()), "{}", p.display());
        }
        let last = rm["last"].as_str().unwrap();
        assert_eq!(line(rows.len() - 1), escape(last), "{}", p.display());
        // The last merge found by rank and by its text (as stored and as the token it makes).
        rows.set_query(&m, &format!("#{}", count - 1));
        assert_eq!(rows.rank_at(0), Some(count - 1));
        rows.set_query(&m, last);
        assert!(
            (0..rows.len()).any(|i| rows.rank_at(i) == Some(count - 1)),
            "{}",
            p.display()
        );
        rows.set_query(&m, &last.replacen(' ', "", 1));
        assert!(
            (0..rows.len()).any(|i| rows.rank_at(i) == Some(count - 1)),
            "{}",
            p.display()
        );
        checked += 1;
        if largest.as_ref().is_none_or(|(n, _)| count > *n) {
            largest = Some((count, p.clone()));
        }
    }
    if let Some((count, p)) = largest {
        let m = open(&p);
        let mut rows = MergeRows::new(&m);
        let t = Instant::now();
        rows.set_query(&m, "zzqq");
        eprintln!(
            "{}: text search over {count} merges: {:.1} ms ({} matches; {checked} files checked)",
            p.display(),
            t.elapsed().as_secs_f64() * 1e3,
            rows.len()
        );
    }
}
