//! `weightpeek FILE [--tensors] [--query WORD] [--json]`: the native CLI.
//! `weightpeek FILE --tensor NAME [--rows A..B] [--cols A..B] [--json]`: a tensor's values.
//! `weightpeek scan MODEL [--json] [--threads N]`: every tensor's data checked (scan.rs).
//!
//! Reads only the header of FILE (the same driver loop as the page) and prints the summary,
//! the metadata (arrays shortened), and optionally the tensor table, or everything as JSON.
//! With `--tensor`, also reads the bytes of a window of that tensor and prints its statistics,
//! histogram and first values (the page's preview; `--json` is the same schema the page uses).
//!
//! This file only parses arguments, opens what they name, writes what `weightpeek::view::cli`
//! drew (from the page's view-models) and sets the exit status.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
#[path = "weightpeek/edit.rs"]
mod edit;

#[cfg(not(target_arch = "wasm32"))]
#[path = "weightpeek/fit.rs"]
mod fit;

#[cfg(not(target_arch = "wasm32"))]
#[path = "weightpeek/scan.rs"]
mod scan;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::{edit, fit, scan};
    use std::io::Write;
    use std::path::PathBuf;
    use std::process::ExitCode;

    use clap::Parser;
    use weightpeek::open::native::{LocalOpener, NetOpener};
    use weightpeek::open::read::{self, Opened, Opener};
    use weightpeek::open::recognise::file_name;
    use weightpeek::open::MAX_CONFIG_BYTES;
    use weightpeek::remote::hub::{endpoint_or_default, parse_input, Repo, Target};
    use weightpeek::remote::shards::{find_entry, group, parse_tree_listing, Entry};
    use weightpeek::source::file::FileSource;
    use weightpeek::source::http::MAX_WHOLE_FILE;
    use weightpeek::source::net::{Client, NetSource};
    use weightpeek::source::{block_on, block_on_ready, ByteSource};
    use weightpeek::summary;
    use weightpeek::summary::quant_st;
    use weightpeek::text;
    use weightpeek::view::cli as render;
    use weightpeek::view::compare::compare;
    use weightpeek::view::errors::{self, Audience, Front};
    use weightpeek::view::export;

    // tests/format_texts.rs checks that this names every format of `format::registry`.
    /// Show what is inside a GGUF, safetensors, PyTorch, NumPy or ONNX model file, reading only its header.
    #[derive(Parser, Debug)]
    #[command(
        name = "weightpeek",
        version,
        after_help = "Exit status: 0 the header was read (with --check: no error-level finding); 1 the header could not be read to the end (what was read is still printed), with --check an error-level finding, with --memory no estimate, with --tokenizer no tokenizer keys, with --recipe no GGUF tensors, or a repository listing without models; 2 the file cannot be opened or is not a model file, or bad usage."
    )]
    struct Args {
        /// What to open: a model file (GGUF, safetensors, PyTorch, NumPy or ONNX; what it is
        /// comes from its bytes), several files of one model (all parts of a split GGUF, or an
        /// index with its shards; one part finds the others beside it), a
        /// model.safetensors.index.json, an https:// URL (Hub URL forms too), or a Hub repo id
        /// owner/repo[@revision] (lists its models; --file picks one).
        #[arg(required = true, value_name = "FILE|URL|REPO")]
        inputs: Vec<String>,
        /// With a repo id: the model file (or one file of a set, or the index) to open.
        #[arg(long, value_name = "NAME")]
        file: Option<String>,
        /// Hub access token for gated or private repositories (default: $HF_TOKEN); sent only
        /// to the Hub endpoint ($HF_ENDPOINT, default https://huggingface.co).
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// Also print the tensor table (name, type, shape in the file's order, elements, bytes, offset).
        #[arg(long)]
        tensors: bool,
        /// Only show metadata keys and tensors whose name (or type) contains WORD, ignoring case
        /// (also filters --json).
        #[arg(long, value_name = "WORD")]
        query: Option<String>,
        /// Print the whole summary as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Print the tensor table as CSV (name,type,shape,elements,bytes,offset,part).
        #[arg(long, conflicts_with = "json")]
        csv: bool,
        /// Print the tokenizer: model, vocabulary size, special tokens with their text, flags,
        /// merges, and the chat templates verbatim (with --json as JSON).
        #[arg(long, conflicts_with_all = ["memory", "check", "tensor", "csv", "markdown"])]
        tokenizer: bool,
        /// Print the quantisation recipe: per-tensor types collapsed into pattern rules, the
        /// llama-quantize --tensor-type arguments that reproduce them, and the provenance keys
        /// (GGUF; with --json as JSON).
        #[arg(long, conflicts_with_all = ["memory", "check", "tensor", "csv", "markdown", "tokenizer"])]
        recipe: bool,
        /// Estimate memory to run the model: weights + KV cache (GGUF decoder models; with
        /// --json as JSON). See --ctx and --kv.
        #[arg(long, conflicts_with_all = ["check", "tensor", "csv", "markdown"])]
        memory: bool,
        /// With --memory: context length in tokens (default: the model's own).
        #[arg(long, value_name = "TOKENS", requires = "memory")]
        ctx: Option<u64>,
        /// With --memory: KV cache type, f16 (default), q8_0 or q4_0.
        #[arg(long, value_name = "TYPE", requires = "memory", default_value = "f16")]
        kv: String,
        /// Print a Markdown report (summary, architecture, types, per-layer map, checks).
        #[arg(long, conflicts_with_all = ["json", "csv"])]
        markdown: bool,
        /// Validate the file: print every finding (errors, warnings, notes) and exit with
        /// status 1 when an error-level finding exists (for CI pipelines).
        #[arg(long, conflicts_with_all = ["tensor", "csv", "markdown"])]
        check: bool,
        /// Preview this tensor's values: statistics, histogram and first values of a window
        /// (with --json: the page's preview schema).
        #[arg(long, value_name = "NAME", conflicts_with_all = ["csv", "markdown"])]
        tensor: Option<String>,
        /// With --tensor: rows A..B of the tensor (end exclusive; `A..`, `..B`, `A` too). A row
        /// is GGUF's ne0 / safetensors' last dimension. Default: the first rows up to 2^20 values.
        #[arg(long, value_name = "A..B", requires = "tensor")]
        rows: Option<String>,
        /// With --tensor: columns A..B within each row (a crop).
        #[arg(long, value_name = "A..B", requires = "tensor")]
        cols: Option<String>,
        /// With --tensor: the field of a NumPy structured array to preview (numpy's
        /// `arr['NAME']`; a nested field is `outer.inner`). Its rows and columns are the
        /// field's: the array's shape followed by the field's subarray shape.
        #[arg(long, value_name = "NAME", requires = "tensor")]
        field: Option<String>,
        /// The model's config.json, for quantised safetensors layouts (bits, group size).
        /// Default: config.json beside the file (or quantize_config.json), when present.
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
    }

    /// `weightpeek diff A B [--json]`: what differs between two model files. Exit status as
    /// diff(1): 0 no differences, 1 differences, 2 trouble.
    #[derive(Parser, Debug)]
    #[command(name = "weightpeek diff", bin_name = "weightpeek diff")]
    struct DiffArgs {
        /// The first model (e.g. the Q4_K_M): a file, one part of a set, an index, or a URL.
        a: String,
        /// The second model (e.g. the Q8_0, or another revision).
        b: String,
        /// Hub access token (default: $HF_TOKEN); sent only to the Hub endpoint.
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// Print the differences as JSON.
        #[arg(long)]
        json: bool,
    }

    pub fn main() -> ExitCode {
        if std::env::args_os().nth(1).is_some_and(|a| a == "fit") {
            let args = fit::FitArgs::parse_from(std::env::args_os().skip(1));
            return match fit::run(&args) {
                Ok(code) => code,
                Err(e) => {
                    warn(&format!("weightpeek fit: {}", text::escape(&e)));
                    ExitCode::from(2)
                }
            };
        }
        if std::env::args_os().nth(1).is_some_and(|a| a == "scan") {
            let args = scan::ScanArgs::parse_from(std::env::args_os().skip(1));
            return match scan::run(&args) {
                Ok(code) => code,
                Err(e) => {
                    warn(&format!("weightpeek scan: {}", text::escape(&e)));
                    ExitCode::from(2)
                }
            };
        }
        if std::env::args_os().nth(1).is_some_and(|a| a == "edit") {
            return edit::main(std::env::args_os().skip(1));
        }
        if std::env::args_os().nth(1).is_some_and(|a| a == "diff") {
            let args = DiffArgs::parse_from(std::env::args_os().skip(1));
            return match run_diff(&args) {
                Ok(code) => code,
                Err(e) => {
                    warn(&format!("weightpeek diff: {}", text::escape(&e)));
                    ExitCode::from(2)
                }
            };
        }
        let args = Args::parse();
        match run(&args) {
            Ok(code) => code,
            Err(e) => {
                warn(&format!("weightpeek: {}", text::escape(&e)));
                ExitCode::from(2)
            }
        }
    }

    /// A write to stdout finished: a closed pipe (`weightpeek FILE | head`) is not an error.
    fn finish_output(written: std::io::Result<()>) -> Result<(), String> {
        match written {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(|e| e.to_string()),
        }
    }

    /// What the command line named, opened: a model (local files or remote ones), or a
    /// repository's list of models to pick from.
    pub(crate) enum Loaded {
        Local(Opened<FileSource>),
        Remote(Opened<NetSource>),
        Listing { repo: Repo, entries: Vec<Entry> },
    }

    /// The Hub endpoint (`HF_ENDPOINT`, as the Hub's own tools read it) and the token
    /// (`--token`, else `HF_TOKEN`).
    pub(crate) fn hub_settings(token: Option<&str>) -> Result<(String, Option<String>), String> {
        let endpoint = endpoint_or_default(std::env::var("HF_ENDPOINT").ok().as_deref());
        let lower = endpoint.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://"))
            || url::Url::parse(&endpoint).is_err()
        {
            return Err(format!(
                "HF_ENDPOINT \"{endpoint}\" is not an http:// or https:// URL (e.g. https://huggingface.co)"
            ));
        }
        let token = token
            .map(str::to_string)
            .or_else(|| std::env::var("HF_TOKEN").ok())
            .filter(|t| !t.trim().is_empty());
        Ok((endpoint, token))
    }

    /// A line on stderr; a closed stderr is not an error (nothing to tell it to).
    pub(crate) fn warn(line: &str) {
        let _ = writeln!(std::io::stderr(), "{line}");
    }

    /// Whether `input` names something remote: not an existing path, and a URL or a repo id
    /// (a missing path ending in a model file's extension stays a path, so a typo is reported
    /// as a missing file rather than looked up on the Hub). An `http(s)://` text is always
    /// remote; one that names no file is an error saying why.
    fn remote_target(input: &str, endpoint: &str) -> Result<Option<Target>, String> {
        if std::path::Path::new(input).exists() {
            return Ok(None);
        }
        let lower = input.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return parse_input(input, endpoint)
                .map(Some)
                .map_err(|e| format!("{input}: {e}"));
        }
        let Ok(t) = parse_input(input, endpoint) else {
            return Ok(None);
        };
        let file_like =
            weightpeek::format::registry::has_model_extension(input) || lower.ends_with(".json");
        Ok(match t {
            Target::Repo(_) if file_like => None,
            t => Some(t),
        })
    }

    /// The read options of the CLI: the config of a quantised safetensors layout (unless
    /// `--config` names one) and the small tensors whose data holds logical shapes.
    /// [`options`] with `wants` deciding whether to read `config.json`.
    pub(crate) fn options_wanting(
        explicit_config: bool,
        wants: fn(&weightpeek::open::OpenedModel) -> bool,
    ) -> read::Options {
        read::Options {
            wants_config: if explicit_config { None } else { Some(wants) },
            tensor_data: Some(|m| {
                quant_st::wanted_tensor_data(m)
                    .into_iter()
                    .map(|d| (d.name, d.offset, d.len))
                    .collect()
            }),
        }
    }

    /// Opens what `inputs` name (all local, or all remote). `file` picks a repository's model.
    pub(crate) fn load(
        inputs: &[String],
        file: Option<&str>,
        config: Option<&std::path::Path>,
        token: Option<&str>,
    ) -> Result<Loaded, String> {
        load_wanting(inputs, file, config, token, quant_st::wants_config)
    }

    /// [`load`] with `wants` deciding whether to read the model's `config.json`.
    pub(crate) fn load_wanting(
        inputs: &[String],
        file: Option<&str>,
        config: Option<&std::path::Path>,
        token: Option<&str>,
        wants: fn(&weightpeek::open::OpenedModel) -> bool,
    ) -> Result<Loaded, String> {
        let (endpoint, token) = hub_settings(token)?;
        let remote: Vec<Option<Target>> = inputs
            .iter()
            .map(|i| remote_target(i, &endpoint))
            .collect::<Result<_, _>>()?;
        let opts = options_wanting(config.is_some(), wants);
        let cli = Audience {
            front: Front::Cli,
            hub: &endpoint,
            has_token: token.is_some(),
        };
        let mut loaded = if remote.iter().all(Option::is_none) {
            let opened = block_on(read::open(&LocalOpener, inputs, opts))
                .map_err(|e| errors::open_failure(&e, inputs, &cli).joined())?;
            Loaded::Local(opened)
        } else if remote.iter().all(Option::is_some) {
            let client = Client::new(endpoint.clone(), token, weightpeek::view::errors::cli_words);
            // The files a repository listing names, when one was read.
            let mut listed: Option<Vec<String>> = None;
            let mut given: Vec<(String, String)> = Vec::new();
            for t in remote.into_iter().flatten() {
                match t {
                    Target::File { url, path, .. } => {
                        let name = path.unwrap_or_else(|| file_name(&url).to_string());
                        given.push((name, url));
                    }
                    Target::Repo(repo) => {
                        let listing = client
                            .get_all(&repo.tree_api_url(&endpoint), MAX_WHOLE_FILE)
                            .map_err(|e| match e.status() {
                                Some(404) => format!(
                                    "{}: no such repository or revision ({}) on {endpoint} (HTTP 404 for its file listing): check owner/name and @revision",
                                    repo.id, repo.revision
                                ),
                                _ => format!("{}: {e}", repo.id),
                            })?;
                        let text = String::from_utf8_lossy(&listing);
                        let files =
                            parse_tree_listing(&text).map_err(|e| format!("{}: {e}", repo.id))?;
                        let entries = group(&files);
                        listed
                            .get_or_insert_with(Vec::new)
                            .extend(files.iter().map(|f| f.path.clone()));
                        let picked = match file {
                            Some(f) => Some(find_entry(&entries, f).ok_or_else(|| {
                                format!(
                                    "{}: no model file \"{f}\" (models: {})",
                                    repo.id,
                                    entries
                                        .iter()
                                        .map(|e| e.label.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            })?),
                            None if entries.len() == 1 => entries.first(),
                            None => None,
                        };
                        let Some(entry) = picked else {
                            if inputs.len() > 1 {
                                return Err(format!(
                                    "{}: a repository has several models; name one with --file",
                                    repo.id
                                ));
                            }
                            return Ok(Loaded::Listing { repo, entries });
                        };
                        for path in entry.index.iter().chain(&entry.files) {
                            given.push((path.clone(), repo.resolve_url(&endpoint, path)));
                        }
                    }
                }
            }
            let names: Vec<String> = given.iter().map(|(n, _)| n.clone()).collect();
            let mut opener = NetOpener::new(client, &given);
            if let Some(paths) = listed {
                opener = opener.with_listing(paths);
            }
            let mut opened = block_on(read::open(&opener, &names, opts))
                .map_err(|e| errors::open_failure(&e, &names, &cli).joined())?;
            // A server that ignores Range is warned of, as the page does.
            let no_range: Vec<bool> = opened
                .sources
                .iter()
                .map(|s| s.location().no_range)
                .collect();
            opened.model.warn_no_range(&opened.name, &no_range);
            Loaded::Remote(opened)
        } else {
            return Err("give local files or URLs, not both".into());
        };
        if let Some(p) = config {
            let m = match &mut loaded {
                Loaded::Local(o) => &mut o.model,
                Loaded::Remote(o) => &mut o.model,
                Loaded::Listing { .. } => return Ok(loaded),
            };
            attach_config_file(m, p);
            if let Some(e) = &m.sidecar.config_error {
                warn(&format!("weightpeek: --config: {}", text::escape(e)));
            }
        }
        Ok(loaded)
    }

    /// `--config PATH`: read whole (at most the config cap; a FIFO or a huge file is refused).
    fn attach_config_file(m: &mut weightpeek::open::OpenedModel, p: &std::path::Path) {
        let shown = p.display().to_string();
        match block_on_ready(LocalOpener.read_all(&shown, MAX_CONFIG_BYTES)) {
            Ok(b) => m.sidecar.attach_config(&b, &shown),
            Err(e) => {
                m.sidecar.config_source = Some(shown.clone());
                m.sidecar.config_error = Some(format!("{shown}: {e}"));
            }
        }
    }

    /// Writes a whole output to stdout (a closed pipe is not an error: [`finish_output`]).
    pub(crate) fn print(text: &str) -> Result<(), String> {
        let mut out = std::io::stdout().lock();
        finish_output(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
    }

    /// A repository's models, for the person to pick one with `--file`.
    fn print_listing(args: &Args, repo: &Repo, entries: &[Entry]) -> Result<ExitCode, String> {
        print(&if args.json {
            render::listing::json(repo, entries)
        } else {
            render::listing::text(repo, entries)
        })?;
        Ok(if entries.is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn print_recipe(args: &Args, m: &weightpeek::format::Model) -> Result<ExitCode, String> {
        let Some(r) = weightpeek::summary::recipe::recipe(m) else {
            print(render::recipe::NO_RECIPE)?;
            return Ok(ExitCode::from(1));
        };
        print(&if args.json {
            render::json(&r)
        } else {
            render::recipe::text(&r)
        })?;
        Ok(ExitCode::SUCCESS)
    }

    fn print_tokenizer(args: &Args, m: &weightpeek::format::Model) -> Result<ExitCode, String> {
        let Some(t) = weightpeek::summary::tokenizer::tokenizer_info(m) else {
            print(render::tokenizer::NO_TOKENIZER)?;
            return Ok(ExitCode::from(1));
        };
        print(&if args.json {
            render::json(&t)
        } else {
            render::tokenizer::text(&t)
        })?;
        Ok(ExitCode::SUCCESS)
    }

    fn print_memory(args: &Args, m: &weightpeek::open::OpenedModel) -> Result<ExitCode, String> {
        use weightpeek::summary::memory::{estimate, KvType};
        let kv = KvType::parse(&args.kv)
            .ok_or_else(|| format!("--kv {}: use f16, q8_0 or q4_0", args.kv))?;
        match estimate(m, args.ctx, kv) {
            Ok(e) => {
                print(&if args.json {
                    render::json(&e)
                } else {
                    render::memory::text(&e)
                })?;
                Ok(ExitCode::SUCCESS)
            }
            Err(why) => {
                print(&render::memory::no_estimate(&why.to_string()))?;
                Ok(ExitCode::from(1))
            }
        }
    }

    fn run_diff(args: &DiffArgs) -> Result<ExitCode, String> {
        let open = |input: &String| -> Result<weightpeek::open::OpenedModel, String> {
            match load(
                std::slice::from_ref(input),
                None,
                None,
                args.token.as_deref(),
            )? {
                Loaded::Local(o) => Ok(o.model),
                Loaded::Remote(o) => Ok(o.model),
                Loaded::Listing { repo, .. } => Err(format!(
                    "{} is a repository: name one of its files (a /resolve/ URL)",
                    repo.id
                )),
            }
        };
        let a = open(&args.a)?;
        let b = open(&args.b)?;
        for (m, p) in [(&a, &args.a), (&b, &args.b)] {
            if let Some(e) = &m.error {
                let f = errors::partial_failure(e, p, Front::Cli);
                warn(&format!("weightpeek diff: {}", text::escape(&f.joined())));
            }
        }
        let v = compare(&args.a, &a, &args.b, &b);
        print(&if args.json {
            v.json.clone()
        } else {
            render::diff::text(&args.a, &args.b, &v)
        })?;
        // As diff(1): 0 the same, 1 different, 2 trouble (a file that cannot be opened or read,
        // or whose header could not be read to the end, so the comparison is incomplete).
        Ok(if a.error.is_some() || b.error.is_some() {
            ExitCode::from(2)
        } else if render::diff::differs(&v) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn run(args: &Args) -> Result<ExitCode, String> {
        match load(
            &args.inputs,
            args.file.as_deref(),
            args.config.as_deref(),
            args.token.as_deref(),
        )? {
            Loaded::Local(o) => show(args, o),
            Loaded::Remote(o) => show(args, o),
            Loaded::Listing { repo, entries } => print_listing(args, &repo, &entries),
        }
    }

    /// Prints what `args` asks of an opened model.
    fn show<S: ByteSource>(args: &Args, opened: Opened<S>) -> Result<ExitCode, String> {
        let Opened {
            name: shown_name,
            model,
            mut sources,
            ..
        } = opened;
        if args.check {
            return print_check(&model);
        }
        if args.memory {
            return print_memory(args, &model);
        }
        if args.tokenizer {
            return print_tokenizer(args, &model);
        }
        if args.recipe {
            return print_recipe(args, &model);
        }
        if let Some(name) = &args.tensor {
            return preview(args, &model, &mut sources, name);
        }
        let q = args.query.as_deref().unwrap_or("");
        let name = file_name(&shown_name).to_string();
        print(&if args.json {
            let s = render::summary_for(&model, q);
            format!("{}\n", export::summary_json_filtered(&model, &s, q))
        } else if args.csv {
            export::tensors_csv(&render::summary_for(&model, q))
        } else if args.markdown {
            export::markdown(&name, &render::summary_for(&model, q), &model)
        } else {
            let opts = render::summary::Options {
                tensors: args.tensors,
                query: q,
            };
            render::summary::text(&shown_name, &model, &summary::summarize(&model), opts)
        })?;
        if let Some(e) = &model.error {
            let f = errors::partial_failure(e, &shown_name, Front::Cli);
            warn(&format!("weightpeek: {}", text::escape(&f.joined())));
        }
        Ok(if model.error.is_some() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn print_check(m: &weightpeek::open::OpenedModel) -> Result<ExitCode, String> {
        let findings = summary::summarize(m).findings;
        print(&render::check::text(&findings))?;
        Ok(if render::check::has_error(&findings) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn preview<S: ByteSource>(
        args: &Args,
        model: &weightpeek::open::OpenedModel,
        sources: &mut [S],
        name: &str,
    ) -> Result<ExitCode, String> {
        use weightpeek::preview;
        use weightpeek::view::spec::{Front, WindowSpec};
        let (index, _) = model
            .tensors
            .iter()
            .enumerate()
            .find(|(_, t)| t.name == name)
            .ok_or_else(|| render::preview::missing_tensor_text(model, name))?;
        let part = model.source_of(index);
        let src = sources
            .get_mut(part)
            .ok_or_else(|| format!("{name}: the file holding it was not read"))?;
        // The one reading of a window, shared with the page and the API.
        let spec = WindowSpec::from_text(
            args.rows.as_deref(),
            args.cols.as_deref(),
            args.field.as_deref(),
        );
        let g = preview::target_geometry(model, index, args.field.as_deref())
            .map_err(|e| format!("{name}: {e}"))?;
        let req = spec.request(&g).map_err(|e| e.text_for(Front::Cli))?;
        let p = block_on_ready(preview::preview_tensor(model, src, name, &req))
            .map_err(|e| format!("{name}: {e}"))?;
        print(&if args.json {
            render::json(&p)
        } else {
            render::preview::text(&p)
        })?;
        Ok(ExitCode::SUCCESS)
    }
}
