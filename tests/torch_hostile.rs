//! Hostile PyTorch files (issue #12): cut archives and legacy files at every byte, flip every
//! byte of a real one, central directories pointing outside the file, members past the
//! directory, storages shorter than their tensors, a ZIP64 locator pointing nowhere, huge
//! entry counts. Each gives a model with an error or findings, never a panic; errors name a
//! byte inside the file; nothing is read past the file.

mod common;

use std::path::{Path, PathBuf};

use weightpeek::check::check_one_file as check;
use weightpeek::open::OpenedModel;
use weightpeek::preview::{preview_tensor, WindowRequest};
use weightpeek::source::{block_on_ready, parse_bytes, MemSource};
use weightpeek::summary::summarize;

fn fixtures() -> Option<PathBuf> {
    let dir = std::env::var_os("WEIGHTPEEK_TORCH_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/torch-fixtures"));
    common::real_file(dir.join("expected.json")).map(|_| dir)
}

/// Opens `b`, summarises and checks it, and previews every tensor: any outcome but a panic,
/// with every error's offset inside the file.
fn survive(b: &[u8]) -> usize {
    match parse_bytes(b).map(OpenedModel::from) {
        Ok(m) => {
            if let Some(e) = &m.error {
                assert!(e.offset <= b.len() as u64, "{e}");
            }
            let _ = serde_json::to_string(&summarize(&m)).unwrap();
            let _ = check(&m);
            for t in m.tensors.iter().take(2) {
                let mut src = MemSource::new(b);
                let _ = block_on_ready(preview_tensor(
                    &m,
                    &mut src,
                    &t.name,
                    &WindowRequest::default(),
                ));
                assert!(src.reads.iter().all(|&(o, l)| o + l <= b.len() as u64));
            }
            m.tensors.len()
        }
        Err(e) => {
            assert!(e.offset <= b.len() as u64, "{e}");
            0
        }
    }
}

#[test]
fn every_cut_and_every_flipped_byte() {
    let Some(dir) = fixtures() else { return };
    for f in ["state-dict.pt", "zip64.pt", "legacy.pth", "rezipped.pt"] {
        let b = std::fs::read(dir.join(f)).unwrap();
        let whole = survive(&b);
        assert!(whole > 10, "{f}: {whole} tensors");
        // Every byte of the first KiB and of the end record and directory's last 512 bytes,
        // every 3rd byte of the rest of the structure (the pickles, the local headers, the
        // directory), every 16th of the storages' bytes between.
        let n = b.len();
        let structure = |i: usize| {
            i < 1024 || i + 512 > n || ((i < 3500 || i + 1500 > n) && i % 3 == 0) || i % 16 == 0
        };
        for cut in (0..n).filter(|&c| structure(c)) {
            survive(&b[..cut]);
        }
        if f == "zip64.pt" || f == "rezipped.pt" {
            continue; // cuts are enough: their bytes are state-dict.pt's, laid out otherwise
        }
        for i in (0..n).filter(|&i| structure(i)) {
            let mut d = b.clone();
            d[i] ^= 0xA5;
            survive(&d);
        }
    }
}

fn u32_at(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The end record's offset in a zip without a comment.
fn end_record(b: &[u8]) -> usize {
    b.len() - 22
}

#[test]
fn pointers_outside_the_file_say_where() {
    let Some(dir) = fixtures() else { return };
    let b = std::fs::read(dir.join("state-dict.pt")).unwrap();
    let e = end_record(&b);
    // The central directory's offset past the end record.
    let mut d = b.clone();
    u32_at(&mut d, e + 16, (b.len() + 100) as u32);
    let m = parse_bytes(&d).unwrap();
    let err = m.error.expect("an error");
    assert!(err.to_string().contains("central directory"), "{err}");
    // A huge entry count.
    let mut d = b.clone();
    d[e + 10..e + 12].copy_from_slice(&0xFFFEu16.to_le_bytes());
    d[e + 8..e + 10].copy_from_slice(&0xFFFEu16.to_le_bytes());
    let m = parse_bytes(&d).unwrap();
    assert!(m.error.is_some());
    // A member's local header offset past the central directory.
    let cd = u32::from_le_bytes(b[e + 16..e + 20].try_into().unwrap()) as usize;
    let mut d = b.clone();
    u32_at(&mut d, cd + 42, (cd + 10) as u32);
    let m = parse_bytes(&d).unwrap();
    let err = m.error.expect("an error");
    assert!(err.to_string().contains("local header"), "{err}");
}

#[test]
fn a_storage_shorter_than_its_tensor_is_an_error_finding() {
    let Some(dir) = fixtures() else { return };
    let b = std::fs::read(dir.join("state-dict.pt")).unwrap();
    // Shrink the first storage member's sizes in its central directory entry.
    let e = end_record(&b);
    let cd = u32::from_le_bytes(b[e + 16..e + 20].try_into().unwrap()) as usize;
    let mut at = cd;
    let mut d = b.clone();
    loop {
        let n = u16::from_le_bytes([b[at + 28], b[at + 29]]) as usize;
        let x = u16::from_le_bytes([b[at + 30], b[at + 31]]) as usize;
        let c = u16::from_le_bytes([b[at + 32], b[at + 33]]) as usize;
        let name = std::str::from_utf8(&b[at + 46..at + 46 + n]).unwrap();
        if name == "archive/data/0" {
            u32_at(&mut d, at + 20, 16);
            u32_at(&mut d, at + 24, 16);
            break;
        }
        at += 46 + n + x + c;
    }
    let m = parse_bytes(&d).unwrap();
    assert!(m.error.is_none(), "{:?}", m.error);
    let f = check(&m);
    let short: Vec<_> = f.iter().filter(|f| f.code == "size-mismatch").collect();
    assert!(!short.is_empty(), "{f:?}");
    assert!(
        short[0].message.contains("holds 16 bytes"),
        "{}",
        short[0].message
    );
}
