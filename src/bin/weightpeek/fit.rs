//! `weightpeek fit`: choose the devices, open the model (or each model of a repo), draw the
//! plan (beside `cli`, which holds the argument types and the openers).

use std::process::ExitCode;
use std::sync::Arc;

use weightpeek::open::native::NetOpener;
use weightpeek::open::read;
use weightpeek::remote::shards::EntryKind;
use weightpeek::source::block_on;
use weightpeek::source::net::Client;
use weightpeek::summary::fit;
use weightpeek::view::cli as render;
use weightpeek::view::errors::{self, Audience, Front};
use weightpeek::view::fit as fit_view;
use weightpeek::view::spec::{DeviceError, DeviceSpec, OptionsSpec};

use clap::Parser;

use crate::cli::{hub_settings, load_wanting, options_wanting, print, Loaded};

/// `weightpeek fit MODEL|URL|REPO --gpu SIZE [--gpu SIZE] --ram SIZE [--ctx N] [--kv TYPE]
/// [--json]`: where llama.cpp would put every layer on these devices, the command line
/// that does it, and for a repo one row per GGUF model.
#[derive(Parser, Debug)]
#[command(
    name = "weightpeek fit",
    bin_name = "weightpeek fit",
    after_help = "Exit status: 0 the model fits entirely on the GPUs (a repo: at least one model does); 1 it fits only with part in system RAM (or no GPU was given); 3 it does not fit at all (a repo: none fits, or none could be planned); 2 it cannot be opened, or bad usage."
)]
pub struct FitArgs {
    /// A GGUF file (or one part of a split set), its URL, or a Hub repo id owner/repo[@revision]
    /// (plans every GGUF model of the repo, reading only their headers).
    #[arg(value_name = "MODEL|URL|REPO")]
    pub input: String,
    /// A GPU's free memory (24GiB, 12 GB, 8192MiB, or a card: rtx4090, rtx3060, a100-80, …);
    /// repeat for several GPUs in llama.cpp's device order. Default: one 8 GiB GPU; --gpu 0 for none.
    #[arg(long, value_name = "SIZE")]
    pub gpu: Vec<String>,
    /// System RAM (default: 16GiB).
    #[arg(long, value_name = "SIZE")]
    pub ram: Option<String>,
    /// Context length in tokens (default: the model's own).
    #[arg(long, value_name = "TOKENS")]
    pub ctx: Option<u64>,
    /// KV cache type: f16, q8_0 or q4_0 (default: f16).
    #[arg(long, value_name = "TYPE")]
    pub kv: Option<String>,
    /// Memory kept free on every GPU, llama.cpp's --fit margin (default: 1GiB).
    #[arg(long, value_name = "SIZE")]
    pub margin: Option<String>,
    /// With a repo id: plan only this model file.
    #[arg(long, value_name = "NAME")]
    pub file: Option<String>,
    /// Hub access token (default: $HF_TOKEN); sent only to the Hub endpoint.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Print the plan (or the repo table) as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Most models of a repository opened at once.
const CONCURRENT_OPENS: usize = 4;

pub fn run(args: &FitArgs) -> Result<ExitCode, String> {
    // The one reading of devices and options, shared with the page and the API.
    let err = |e: DeviceError| e.text_for(Front::Cli);
    let devices = DeviceSpec::from_text(&args.gpu, args.ram.as_deref())
        .to_devices()
        .map_err(err)?;
    let opts = OptionsSpec::from_text(args.ctx, args.kv.as_deref(), args.margin.as_deref())
        .to_options()
        .map_err(err)?;
    let inputs = std::slice::from_ref(&args.input);
    let (name, model) = match load_wanting(
        inputs,
        args.file.as_deref(),
        None,
        args.token.as_deref(),
        fit::wants_config,
    )? {
        Loaded::Local(o) => (args.input.clone(), o.model),
        Loaded::Remote(o) => (o.name.clone(), o.model),
        Loaded::Listing { repo, entries } => {
            let (endpoint, token) = hub_settings(args.token.as_deref())?;
            let cli = Audience {
                front: Front::Cli,
                hub: &endpoint,
                has_token: token.is_some(),
            };
            let client = Client::new(endpoint.clone(), token, weightpeek::view::errors::cli_words);
            let ggufs: Vec<_> = entries
                .iter()
                .filter(|e| matches!(e.kind, EntryKind::Gguf | EntryKind::GgufSplit))
                .collect();
            let mut results = Vec::new();
            for chunk in ggufs.chunks(CONCURRENT_OPENS) {
                let opened: Vec<_> = std::thread::scope(|s| {
                    let handles: Vec<_> = chunk
                        .iter()
                        .map(|e| {
                            let client = Arc::clone(&client);
                            let given: Vec<(String, String)> = e
                                .files
                                .iter()
                                .map(|p| (p.clone(), repo.resolve_url(&endpoint, p)))
                                .collect();
                            s.spawn(move || {
                                let names: Vec<String> =
                                    given.iter().map(|(n, _)| n.clone()).collect();
                                let opener = NetOpener::new(client, &given);
                                block_on(read::open(
                                    &opener,
                                    &names,
                                    options_wanting(false, fit::wants_config),
                                ))
                                .map(|o| o.model)
                                .map_err(|e| {
                                    fit_view::RepoPlanError::Unreadable(
                                        errors::open_failure(&e, &names, &cli).joined(),
                                    )
                                })
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| {
                            h.join().unwrap_or_else(|_| {
                                Err(fit_view::RepoPlanError::Unreadable(
                                    "the reader stopped".into(),
                                ))
                            })
                        })
                        .collect()
                });
                for (e, m) in chunk.iter().zip(opened) {
                    let file = e.files.first().cloned().unwrap_or_default();
                    let plan = m.and_then(|m| {
                        fit::plan(&m, &file, &devices, &opts).map_err(fit_view::RepoPlanError::Plan)
                    });
                    results.push((e.label.clone(), e.size, plan));
                }
            }
            let rows = fit_view::repo_rows(results);
            print(&if args.json {
                render::json(
                    &serde_json::json!({ "repo": repo, "devices": devices, "models": rows }),
                )
            } else {
                render::fit::repo_text(&repo.id, &rows)
            })?;
            return Ok(ExitCode::from(fit_view::exit_status(
                rows.iter().filter_map(|r| r.fits),
            )));
        }
    };
    let file = weightpeek::open::recognise::file_name(&name).to_string();
    let shown = if std::path::Path::new(&name).exists() {
        name.clone()
    } else {
        file
    };
    match fit::plan(&model, &shown, &devices, &opts) {
        Ok(p) => {
            print(&if args.json {
                render::json(&p)
            } else {
                render::fit::text(&name, &p)
            })?;
            Ok(ExitCode::from(fit_view::exit_status([p.fits])))
        }
        Err(e) => Err(format!("{name}: {e}")),
    }
}
