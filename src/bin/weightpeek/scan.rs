//! `weightpeek scan`: open the model, scan every tensor's data on threads (each with its own
//! readers of the files), print the results (beside `cli`, which holds the openers).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use weightpeek::open::OpenedModel;
use weightpeek::scan::{self, TensorScan};
use weightpeek::source::file::FileSource;
use weightpeek::source::net::NetSource;
use weightpeek::source::{block_on_ready, ByteSource};
use weightpeek::view::cli as render;
use weightpeek::view::errors::{self, Front};

use crate::cli::{load, print, warn, Loaded};

/// `weightpeek scan MODEL|URL [--json] [--threads N]`: read every tensor's data and report
/// NaN and infinite values and block scales, zeros, min, max, mean and standard deviation.
#[derive(Parser, Debug)]
#[command(
    name = "weightpeek scan",
    bin_name = "weightpeek scan",
    after_help = "Exit status: 0 nothing error-level found; 1 an error-level finding (NaN or infinite values or block scales, data that cannot be read); 2 the model cannot be opened, or bad usage."
)]
pub struct ScanArgs {
    /// The model: a file, several files of one model, an index, or a URL (a remote model is
    /// downloaded in ranges as it is scanned: all of its tensor data).
    #[arg(required = true, value_name = "MODEL|URL")]
    pub inputs: Vec<String>,
    /// Threads reading and decoding (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Hub access token (default: $HF_TOKEN); sent only to the Hub endpoint.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Print the results as JSON (`tensors[]`, `findings[]`).
    #[arg(long)]
    pub json: bool,
}

/// A reader that can be duplicated for another thread.
trait Fork: ByteSource + Sized + Send {
    fn fork(&self) -> Result<Self, String>;
}

impl Fork for FileSource {
    fn fork(&self) -> Result<Self, String> {
        self.try_clone().map_err(|e| e.to_string())
    }
}

impl Fork for NetSource {
    fn fork(&self) -> Result<Self, String> {
        Ok(self.reopen())
    }
}

pub fn run(args: &ScanArgs) -> Result<ExitCode, String> {
    let threads = match args.threads {
        Some(0) => return Err("--threads 0: at least one thread".into()),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (name, scans, model) = match load(&args.inputs, None, None, args.token.as_deref())? {
        Loaded::Local(o) => (
            o.name.clone(),
            scan_on_threads(&o.model, &o.sources, threads)?,
            o.model,
        ),
        Loaded::Remote(o) => (
            o.name.clone(),
            scan_on_threads(&o.model, &o.sources, threads)?,
            o.model,
        ),
        Loaded::Listing { repo, .. } => {
            return Err(format!(
                "{}: a repository; name one model file of it (a URL of the file)",
                repo.id
            ))
        }
    };
    if let Some(e) = &model.error {
        let f = errors::partial_failure(e, &name, Front::Cli);
        warn(&format!(
            "weightpeek scan: {} ({}); the tensors read were scanned",
            weightpeek::text::escape(&f.headline),
            weightpeek::text::escape(&f.details)
        ));
    }
    let findings = scan::findings(&scans);
    let bytes_read = scans.iter().map(|t| t.bytes_read).sum();
    print(&if args.json {
        render::json(&render::scan::ScanDoc {
            file: &name,
            bytes_read,
            threads,
            tensors: &scans,
            findings: &findings,
        })
    } else {
        render::scan::text(&name, &scans, &findings)
    })?;
    Ok(if render::check::has_error(&findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Scans every tensor on `threads` threads, each taking the next tensor in file order
/// ([`scan::scan_order`]) with its own readers; a progress line on a terminal's stderr.
fn scan_on_threads<S: Fork>(
    model: &OpenedModel,
    sources: &[S],
    threads: usize,
) -> Result<Vec<TensorScan>, String> {
    let order = scan::scan_order(model);
    let threads = threads.min(order.len()).max(1);
    let piece = scan::piece_bytes_for(threads);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<TensorScan>>> = Mutex::new(vec![None; model.tensors.len()]);
    let mut readers = Vec::with_capacity(threads);
    for _ in 0..threads {
        readers.push(
            sources
                .iter()
                .map(Fork::fork)
                .collect::<Result<Vec<S>, String>>()?,
        );
    }
    let total = scan::bytes_to_scan(model);
    let show = std::io::stderr().is_terminal();
    let start = Instant::now();
    std::thread::scope(|s| {
        for mut own in readers {
            let (order, next, done, results, finished) =
                (&order, &next, &done, &results, &finished);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&i) = order.get(k) else { break };
                    let r = block_on_ready(scan::scan_from(model, &mut own, i, piece, &mut |n| {
                        done.fetch_add(n, Ordering::Relaxed);
                    }));
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(r);
                    }
                }
                finished.fetch_add(1, Ordering::SeqCst);
            });
        }
        if show {
            while finished.load(Ordering::SeqCst) < threads {
                std::thread::sleep(Duration::from_millis(200));
                let line = render::scan::progress(
                    done.load(Ordering::Relaxed),
                    total,
                    start.elapsed().as_secs_f64(),
                );
                eprint!("\r{line}\x1b[K");
            }
            eprint!("\r\x1b[K");
        }
    });
    let all = results
        .into_inner()
        .map_err(|_| "a scan thread stopped".to_string())?;
    Ok(all
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.unwrap_or_else(|| {
                let why = weightpeek::preview::PreviewError::Read("its scan thread stopped".into());
                scan::skipped(model, i, &why)
            })
        })
        .collect())
}
