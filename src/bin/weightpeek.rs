//! `weightpeek FILE [--tensors] [--query WORD] [--json]`: the native CLI.
//! `weightpeek FILE --tensor NAME [--rows A..B] [--cols A..B] [--json]`: a tensor's values.
//!
//! Reads only the header of FILE (the same driver loop as the page) and prints the summary,
//! the metadata (arrays shortened), and optionally the tensor table, or everything as JSON.
//! With `--tensor`, also reads the bytes of a window of that tensor and prints its statistics,
//! histogram and first values (the page's preview; `--json` is the same schema the page uses).

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use std::io::Write;
    use std::path::PathBuf;
    use std::process::ExitCode;

    use clap::Parser;
    use weightpeek::format::MAX_CONFIG_BYTES;
    use weightpeek::open::native::{LocalOpener, NetOpener};
    use weightpeek::open::read::{self, Opened, Opener};
    use weightpeek::open::recognise::file_name;
    use weightpeek::remote::hub::{endpoint_or_default, parse_input, Repo, Target};
    use weightpeek::remote::shards::{group, parse_tree_listing, Entry};
    use weightpeek::source::file::FileSource;
    use weightpeek::source::http::MAX_WHOLE_FILE;
    use weightpeek::source::net::{Client, NetSource};
    use weightpeek::source::{block_on_ready, ByteSource};
    use weightpeek::summary;
    use weightpeek::summary::quant_st;
    use weightpeek::text;
    use weightpeek::view::export;
    use weightpeek::view::facts;
    use weightpeek::view::tokenizer::{template_lines, templates_in_order};

    /// Show what is inside a GGUF or safetensors model file, reading only its header.
    #[derive(Parser, Debug)]
    #[command(
        name = "weightpeek",
        version,
        after_help = "Exit status: 0 the header was read (with --check: no error-level finding); 1 the header could not be read to the end (what was read is still printed) or, with --check, an error-level finding; 2 the file cannot be opened or is not a model file, or bad usage."
    )]
    struct Args {
        /// What to open: a .gguf or .safetensors file, several files of one model (all parts of a
        /// split GGUF, or an index with its shards; one part finds the others beside it), a
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
        #[arg(long)]
        tokenizer: bool,
        /// Estimate memory to run the model: weights + KV cache (GGUF decoder models; with
        /// --json as JSON). See --ctx and --kv.
        #[arg(long)]
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
        #[arg(long)]
        check: bool,
        /// Preview this tensor's values: statistics, histogram and first values of a window
        /// (with --json: the page's preview schema).
        #[arg(long, value_name = "NAME")]
        tensor: Option<String>,
        /// With --tensor: rows A..B of the tensor (end exclusive; `A..`, `..B`, `A` too). A row
        /// is GGUF's ne0 / safetensors' last dimension. Default: the first rows up to 2^20 values.
        #[arg(long, value_name = "A..B")]
        rows: Option<String>,
        /// With --tensor: columns A..B within each row (a crop).
        #[arg(long, value_name = "A..B")]
        cols: Option<String>,
        /// The model's config.json, for quantised safetensors layouts (bits, group size).
        /// Default: config.json beside the file (or quantize_config.json), when present.
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
    }

    /// `weightpeek diff A B [--json]`: what differs between two model files. Exit status as
    /// diff(1): 0 no differences, 1 differences, 2 trouble.
    #[derive(Parser, Debug)]
    #[command(name = "weightpeek diff")]
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
        if std::env::args_os().nth(1).is_some_and(|a| a == "diff") {
            let args = DiffArgs::parse_from(std::env::args_os().skip(1));
            return match run_diff(&args) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("weightpeek diff: {}", text::escape(&e));
                    ExitCode::from(2)
                }
            };
        }
        let args = Args::parse();
        match run(&args) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("weightpeek: {}", text::escape(&e));
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
    enum Loaded {
        Local(Opened<FileSource>),
        Remote(Opened<NetSource>),
        Listing { repo: Repo, entries: Vec<Entry> },
    }

    /// The Hub endpoint (`HF_ENDPOINT`, as the Hub's own tools read it) and the token
    /// (`--token`, else `HF_TOKEN`).
    fn hub_settings(token: Option<&str>) -> (String, Option<String>) {
        let endpoint = endpoint_or_default(std::env::var("HF_ENDPOINT").ok().as_deref());
        let token = token
            .map(str::to_string)
            .or_else(|| std::env::var("HF_TOKEN").ok())
            .filter(|t| !t.trim().is_empty());
        (endpoint, token)
    }

    /// Whether `input` names something remote: not an existing path, and a URL or a repo id
    /// (a missing path ending in a model file's extension stays a path, so a typo is reported
    /// as a missing file rather than looked up on the Hub).
    fn remote_target(input: &str, endpoint: &str) -> Option<Target> {
        if std::path::Path::new(input).exists() {
            return None;
        }
        let t = parse_input(input, endpoint).ok()?;
        let lower = input.to_ascii_lowercase();
        let file_like = [".gguf", ".safetensors", ".json"]
            .iter()
            .any(|e| lower.ends_with(e));
        match t {
            Target::Repo(_) if file_like => None,
            t => Some(t),
        }
    }

    /// The read options of the CLI: the config of a quantised safetensors layout (unless
    /// `--config` names one) and the small tensors whose data holds logical shapes.
    fn options(explicit_config: bool) -> read::Options {
        read::Options {
            wants_config: if explicit_config {
                None
            } else {
                Some(quant_st::wants_config)
            },
            tensor_data: Some(|m| {
                quant_st::wanted_tensor_data(m)
                    .into_iter()
                    .map(|d| (d.name, d.offset, d.len))
                    .collect()
            }),
        }
    }

    /// Opens what `inputs` name (all local, or all remote). `file` picks a repository's model.
    fn load(
        inputs: &[String],
        file: Option<&str>,
        config: Option<&std::path::Path>,
        token: Option<&str>,
    ) -> Result<Loaded, String> {
        let (endpoint, token) = hub_settings(token);
        let remote: Vec<Option<Target>> =
            inputs.iter().map(|i| remote_target(i, &endpoint)).collect();
        let opts = options(config.is_some());
        let mut loaded = if remote.iter().all(Option::is_none) {
            let opened = block_on_ready(read::open(&LocalOpener, inputs, opts))
                .map_err(|e| e.to_string())?;
            Loaded::Local(opened)
        } else if remote.iter().all(Option::is_some) {
            let client = Client::new(endpoint.clone(), token);
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
                            .map_err(|e| format!("{}: {e}", repo.id))?;
                        let text = String::from_utf8_lossy(&listing);
                        let files =
                            parse_tree_listing(&text).map_err(|e| format!("{}: {e}", repo.id))?;
                        let entries = group(&files);
                        let picked = match file {
                            Some(f) => Some(
                                entries
                                    .iter()
                                    .find(|e| {
                                        e.label == f
                                            || e.index.as_deref() == Some(f)
                                            || e.files.iter().any(|x| x == f || file_name(x) == f)
                                    })
                                    .ok_or_else(|| {
                                        format!(
                                            "{}: no model file \"{f}\" (models: {})",
                                            repo.id,
                                            entries
                                                .iter()
                                                .map(|e| e.label.as_str())
                                                .collect::<Vec<_>>()
                                                .join(", ")
                                        )
                                    })?,
                            ),
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
            let opener = NetOpener::new(client, &given);
            let opened =
                block_on_ready(read::open(&opener, &names, opts)).map_err(|e| e.to_string())?;
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
        }
        Ok(loaded)
    }

    /// `--config PATH`: read whole (at most the config cap; a FIFO or a huge file is refused).
    fn attach_config_file(m: &mut weightpeek::format::Model, p: &std::path::Path) {
        let shown = p.display().to_string();
        match block_on_ready(LocalOpener.read_all(&shown, MAX_CONFIG_BYTES)) {
            Ok(b) => m.sidecar.attach_config(&b, &shown),
            Err(e) => {
                m.sidecar.config_source = Some(shown.clone());
                m.sidecar.config_error = Some(format!("{shown}: {e}"));
            }
        }
    }

    /// A repository's models, for the person to pick one with `--file`.
    fn print_listing(args: &Args, repo: &Repo, entries: &[Entry]) -> Result<ExitCode, String> {
        let mut out = std::io::stdout().lock();
        let written = if args.json {
            let v = serde_json::json!({ "repo": repo, "models": entries });
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
            )
        } else {
            (|| {
                writeln!(
                    out,
                    "{}@{}: {} model{}; open one with --file NAME:",
                    text::escape(&repo.id),
                    text::escape(&repo.revision),
                    entries.len(),
                    if entries.len() == 1 { "" } else { "s" }
                )?;
                for e in entries {
                    writeln!(
                        out,
                        "  {:<60} {:>10}  {} file{}",
                        text::escape(&e.label),
                        text::bytes(e.size),
                        e.files.len(),
                        if e.files.len() == 1 { "" } else { "s" }
                    )?;
                }
                Ok(())
            })()
        };
        finish_output(written)?;
        Ok(if entries.is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn print_tokenizer(args: &Args, m: &weightpeek::format::Model) -> Result<ExitCode, String> {
        let mut out = std::io::stdout().lock();
        let Some(t) = weightpeek::summary::tokenizer::tokenizer_info(m) else {
            writeln!(out, "no tokenizer: the file has no tokenizer.* keys")
                .map_err(|e| e.to_string())?;
            return Ok(ExitCode::from(1));
        };
        let written = if args.json {
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&t).map_err(|e| e.to_string())?
            )
        } else {
            (|| {
                let opt = |s: &Option<String>| {
                    s.as_deref().map(text::escape).unwrap_or_else(|| "–".into())
                };
                writeln!(out, "tokenizer model  {}", opt(&t.model))?;
                writeln!(out, "pre-tokenizer    {}", opt(&t.pre))?;
                writeln!(
                    out,
                    "vocabulary       {} tokens",
                    text::thousands(t.vocab_size)
                )?;
                if let Some(n) = t.merges {
                    writeln!(out, "merges           {}", text::thousands(n))?;
                }
                for s in &t.special {
                    writeln!(
                        out,
                        "{:<16} {} {}",
                        format!("{} token", s.role),
                        s.id,
                        s.text
                            .as_deref()
                            .map_or("(past the vocabulary)".to_string(), text::quote)
                    )?;
                }
                for (flag, v) in &t.flags {
                    writeln!(out, "{:<16} {v}", text::escape(flag))?;
                }
                // The page's order: the default first, then the variants in file order.
                for (name, text) in &templates_in_order(&t.chat_templates) {
                    // The page's numbered lines: split on `\n` only, tabs kept, `\r` and other
                    // control or bidi characters escaped.
                    let lines = template_lines(text);
                    writeln!(
                        out,
                        "\nchat template ({}), {} line{}:",
                        text::escape(name),
                        text::thousands(lines.len() as u64),
                        if lines.len() == 1 { "" } else { "s" }
                    )?;
                    for (number, line) in &lines {
                        writeln!(out, "{number:>5}  {line}")?;
                    }
                }
                Ok(())
            })()
        };
        finish_output(written)?;
        Ok(ExitCode::SUCCESS)
    }

    fn print_memory(args: &Args, m: &weightpeek::format::Model) -> Result<ExitCode, String> {
        use weightpeek::summary::memory::{estimate, KvType};
        let kv = KvType::parse(&args.kv)
            .ok_or_else(|| format!("--kv {}: use f16, q8_0 or q4_0", args.kv))?;
        let mut out = std::io::stdout().lock();
        let e = match estimate(m, args.ctx, kv) {
            Ok(e) => e,
            Err(why) => {
                writeln!(out, "{why}").map_err(|e| e.to_string())?;
                return Ok(ExitCode::from(1));
            }
        };
        let written = if args.json {
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&e).map_err(|e| e.to_string())?
            )
        } else {
            (|| {
                writeln!(
                    out,
                    "memory to run ({}, {} tokens, {} KV cache):",
                    e.architecture,
                    text::thousands(e.context),
                    e.kv_type.name()
                )?;
                writeln!(
                    out,
                    "  weights   {} ({} bytes)",
                    text::bytes(e.weights_bytes),
                    text::thousands(e.weights_bytes)
                )?;
                writeln!(
                    out,
                    "  KV cache  {} ({} bytes)",
                    text::bytes(e.kv_bytes),
                    text::thousands(e.kv_bytes)
                )?;
                writeln!(
                    out,
                    "  total     {} ({} bytes)",
                    text::bytes(e.total_bytes),
                    text::thousands(e.total_bytes)
                )?;
                if let Some(s) = &e.sliding_window {
                    for (what, n, cells, bytes) in [
                        (
                            "full-attention layers",
                            s.full_layers,
                            e.cells,
                            s.full_bytes,
                        ),
                        (
                            if s.chunked {
                                "chunked layers"
                            } else {
                                "sliding-window layers"
                            },
                            s.swa_layers,
                            s.cells,
                            s.swa_bytes,
                        ),
                    ] {
                        writeln!(
                            out,
                            "    {what}: {n} × {} cells, {} ({} bytes)",
                            text::thousands(cells),
                            text::bytes(bytes),
                            text::thousands(bytes)
                        )?;
                    }
                    writeln!(
                        out,
                        "  upper bound, every layer at full context: KV {} ({} bytes)",
                        text::bytes(e.kv_full_context_bytes),
                        text::thousands(e.kv_full_context_bytes)
                    )?;
                }
                writeln!(out, "  {}", e.formula)?;
                for n in &e.notes {
                    writeln!(out, "  note: {n}")?;
                }
                Ok(())
            })()
        };
        finish_output(written)?;
        Ok(ExitCode::SUCCESS)
    }

    fn run_diff(args: &DiffArgs) -> Result<ExitCode, String> {
        let open = |input: &String| -> Result<weightpeek::format::Model, String> {
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
                eprintln!(
                    "weightpeek diff: {}: the header could not be read to the end: {}",
                    text::escape(p),
                    text::escape(&e.to_string())
                );
            }
        }
        let d = weightpeek::summary::diff::diff(&a, &b);
        let mut out = std::io::stdout().lock();
        let written = if args.json {
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?
            )
        } else {
            print_diff(&mut out, args, &d)
        };
        finish_output(written)?;
        // As diff(1): 0 the same, 1 different, 2 trouble (a file that cannot be opened or read,
        // or whose header could not be read to the end, so the comparison is incomplete).
        Ok(if a.error.is_some() || b.error.is_some() {
            ExitCode::from(2)
        } else if differs(&d) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    /// True when the diff reports anything: a key or tensor only in one file, a value, type or
    /// shape that differs, or different bits per weight (whole file or for a role).
    fn differs(d: &weightpeek::summary::diff::Diff) -> bool {
        !(d.keys_added.is_empty()
            && d.keys_removed.is_empty()
            && d.keys_changed.is_empty()
            && d.tensors_added.is_empty()
            && d.tensors_removed.is_empty()
            && d.tensors_changed.is_empty())
            || d.bpw.0 != d.bpw.1
            || d.bpw_by_role.iter().any(|r| r.a != r.b)
    }

    fn print_diff(
        out: &mut impl Write,
        args: &DiffArgs,
        d: &weightpeek::summary::diff::Diff,
    ) -> std::io::Result<()> {
        let e = |s: &str| text::escape(s);
        writeln!(
            out,
            "A: {}\nB: {}",
            text::escape(&args.a),
            text::escape(&args.b)
        )?;
        let f = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.3}"));
        writeln!(out, "bits per weight: A {}  B {}", f(d.bpw.0), f(d.bpw.1))?;
        let list = |out: &mut dyn Write, title: &str, items: &[String]| -> std::io::Result<()> {
            if !items.is_empty() {
                writeln!(out, "\n{title} ({}):", items.len())?;
                for i in items {
                    writeln!(out, "  {}", e(i))?;
                }
            }
            Ok(())
        };
        list(out, "metadata keys only in B", &d.keys_added)?;
        list(out, "metadata keys only in A", &d.keys_removed)?;
        if !d.keys_changed.is_empty() {
            writeln!(
                out,
                "\nmetadata values that differ ({}):",
                d.keys_changed.len()
            )?;
            for k in &d.keys_changed {
                writeln!(out, "  {}\n    A: {}\n    B: {}", e(&k.key), k.a, k.b)?;
            }
        }
        list(out, "tensors only in B", &d.tensors_added)?;
        list(out, "tensors only in A", &d.tensors_removed)?;
        if !d.tensors_changed.is_empty() {
            writeln!(
                out,
                "\ntensors whose type or shape differs ({}):",
                d.tensors_changed.len()
            )?;
            for t in &d.tensors_changed {
                writeln!(
                    out,
                    "  {:<48} {:>10} {:?} -> {:<10} {:?}",
                    e(&t.name),
                    t.dtype_a,
                    t.shape_a,
                    t.dtype_b,
                    t.shape_b
                )?;
            }
        }
        writeln!(out, "\nbits per weight by role:")?;
        writeln!(out, "  {:<40} {:>8} {:>8}", "role", "A", "B")?;
        for r in &d.bpw_by_role {
            let mark = if r.a != r.b { "  *" } else { "" };
            writeln!(
                out,
                "  {:<40} {:>8} {:>8}{mark}",
                e(&r.role),
                f(r.a),
                f(r.b)
            )?;
        }
        Ok(())
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
            return print_check(&model).map_err(|e| e.to_string());
        }
        if args.memory {
            return print_memory(args, &model);
        }
        if args.tokenizer {
            return print_tokenizer(args, &model);
        }
        if let Some(name) = &args.tensor {
            return preview(args, &model, &mut sources, name);
        }
        let mut s = summary::summarize(&model);
        let q = args.query.as_deref().unwrap_or("");
        s.tensors
            .retain(|t| matches(&t.name, q) || matches(&t.dtype, q));
        let mut out = std::io::stdout().lock();
        let name = file_name(&shown_name).to_string();
        let written = if args.json {
            writeln!(out, "{}", export::summary_json_filtered(&model, &s, q))
        } else if args.csv {
            write!(out, "{}", export::tensors_csv(&s))
        } else if args.markdown {
            write!(out, "{}", export::markdown(&name, &s))
        } else {
            print_text(&mut out, args, &shown_name, &model, &s)
        };
        finish_output(written)?;
        if let Some(e) = &model.error {
            eprintln!(
                "weightpeek: {}: the header could not be read to the end: {}",
                text::escape(&shown_name),
                text::escape(&e.to_string())
            );
        }
        Ok(if model.error.is_some() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn print_check(m: &weightpeek::format::Model) -> std::io::Result<ExitCode> {
        use weightpeek::check::{check, Severity, CHECKS};
        let mut findings = check(m);
        if let Some(q) = weightpeek::summary::quant_st::analyse(m) {
            findings.extend(q.findings);
            findings.sort_by(|a, b| a.severity.cmp(&b.severity).then(a.offset.cmp(&b.offset)));
        }
        let mut out = std::io::stdout().lock();
        if findings.is_empty() {
            writeln!(out, "no problems found; checked: {}", CHECKS.join("; "))?;
        }
        for f in &findings {
            let sev = f.severity.word();
            let at = f.offset.map(|o| format!(" (byte {o})")).unwrap_or_default();
            let t = f
                .tensor
                .as_ref()
                .map(|t| format!(" tensor \"{}\":", text::escape(t)))
                .unwrap_or_default();
            writeln!(
                out,
                "{sev} [{}]{t} {}{at}",
                f.code,
                text::escape(&f.message)
            )?;
        }
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        Ok(if errors > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn preview<S: ByteSource>(
        args: &Args,
        model: &weightpeek::format::Model,
        sources: &mut [S],
        name: &str,
    ) -> Result<ExitCode, String> {
        use weightpeek::preview::{self, parse_range, WindowRequest};
        let (index, t) = model
            .tensors
            .iter()
            .enumerate()
            .find(|(_, t)| t.name == name)
            .ok_or_else(|| format!("no tensor \"{name}\" (list them with --tensors)"))?;
        let part = model.part_of(index).unwrap_or(0);
        let src = sources
            .get_mut(part)
            .ok_or_else(|| format!("{name}: the file holding it was not read"))?;
        let g = preview::geometry(model, t).map_err(|e| format!("{name}: {e}"))?;
        let req = WindowRequest {
            rows: args
                .rows
                .as_deref()
                .map(|r| parse_range(r, g.rows))
                .transpose()
                .map_err(|e| format!("--rows: {e}"))?,
            cols: args
                .cols
                .as_deref()
                .map(|c| parse_range(c, g.row_values))
                .transpose()
                .map_err(|e| format!("--cols: {e}"))?,
        };
        let p = block_on_ready(preview::preview_tensor(model, src, name, &req))
            .map_err(|e| format!("{name}: {e}"))?;
        let mut out = std::io::stdout().lock();
        let r = if args.json {
            let text = serde_json::to_string_pretty(&p).map_err(|e| e.to_string())?;
            writeln!(out, "{text}")
        } else {
            print_preview(&mut out, &p)
        };
        finish_output(r)?;
        Ok(ExitCode::SUCCESS)
    }

    fn print_preview(
        out: &mut impl Write,
        p: &weightpeek::preview::Preview,
    ) -> std::io::Result<()> {
        use weightpeek::view::preview as pv;
        let w = &p.window;
        writeln!(
            out,
            "{} ({}, shape {:?}; {})",
            p.tensor, p.dtype, p.shape, p.row_is
        )?;
        writeln!(
            out,
            "  window          rows {}..{} of {}, columns {}..{} of {}",
            w.rows.start,
            w.rows.end,
            w.geometry.rows,
            w.cols.start,
            w.cols.end,
            w.geometry.row_values
        )?;
        writeln!(
            out,
            "  {}",
            pv::bytes_read_text(p.bytes_read, w.tensor_bytes)
        )?;
        for row in pv::stat_rows(&p.stats) {
            writeln!(out, "  {:<15} {}", row.label, row.text)?;
        }
        writeln!(
            out,
            "\nhistogram ({} bins, finite values):",
            p.histogram.counts.len()
        )?;
        for line in pv::histogram_text(&p.histogram, 16) {
            writeln!(out, "  {line}")?;
        }
        writeln!(out, "\nfirst values (row, column: value):")?;
        for v in p.first_values.iter().take(32) {
            writeln!(out, "  [{}, {}] {}", v.row, v.col, v.text)?;
        }
        if let Some(s) = &p.block_scales {
            writeln!(
                out,
                "\nblock scales: {} per {} values; min {} max {}",
                s.field,
                s.block_values,
                s.stats
                    .min
                    .map_or("-".into(), weightpeek::preview::value_text),
                s.stats
                    .max
                    .map_or("-".into(), weightpeek::preview::value_text)
            )?;
        }
        Ok(())
    }

    /// The quantised layout: where the config came from, one row per scheme and, with
    /// --tensors, every quantised weight (logical shape, bits, group, companions' bytes).
    fn print_quant(
        out: &mut impl Write,
        args: &Args,
        q: &weightpeek::summary::quant_st::QuantReport,
    ) -> std::io::Result<()> {
        let e = |s: &str| text::escape(s);
        writeln!(
            out,
            "\nquantisation ({}; companions count as bytes, not parameters):",
            q.config_source
                .as_deref()
                .map_or("no config.json".to_string(), |c| format!("config {}", e(c)))
        )?;
        writeln!(
            out,
            "  {:<48} {:>8} {:>16} {:>12} {:>8}",
            "scheme", "weights", "logical params", "bytes", "bpw"
        )?;
        for r in &q.schemes {
            writeln!(
                out,
                "  {:<48} {:>8} {:>16} {:>12} {:>8}",
                r.label,
                r.weights,
                text::thousands(r.elements),
                text::bytes(r.bytes),
                r.bits_per_weight.map_or("-".into(), |b| format!("{b:.3}"))
            )?;
        }
        if args.tensors {
            let qy = args.query.as_deref().unwrap_or("");
            for w in q.weights.iter().filter(|w| matches(&w.name, qy)) {
                let shape: Vec<String> = w.shape.iter().map(u64::to_string).collect();
                let comps: Vec<String> = w
                    .companions
                    .iter()
                    .map(|c| format!("{} {}", c.role, text::bytes(c.bytes)))
                    .collect();
                writeln!(
                    out,
                    "  {:<48} [{}] ({}) {}-bit{} {:.3} bpw; {}",
                    e(&w.name),
                    shape.join(", "),
                    w.shape_source,
                    w.bits,
                    w.group_size.map_or(String::new(), |g| format!(" g{g}")),
                    w.bits_per_weight.unwrap_or(0.0),
                    comps.join(", ")
                )?;
            }
        }
        Ok(())
    }

    /// Case-insensitive substring match (an empty query matches everything).
    fn matches(hay: &str, q: &str) -> bool {
        q.is_empty() || hay.to_lowercase().contains(&q.to_lowercase())
    }

    fn print_text(
        out: &mut impl Write,
        args: &Args,
        shown_name: &str,
        m: &weightpeek::format::Model,
        s: &summary::Summary,
    ) -> std::io::Result<()> {
        let q = args.query.as_deref().unwrap_or("");
        let version = s.version.map(|v| format!(" v{v}")).unwrap_or_default();
        writeln!(out, "{}", text::escape(shown_name))?;
        if let Some(f) = s
            .set
            .as_ref()
            .and_then(|set| facts::set_fact(set, s.tensor_count))
        {
            writeln!(out, "  {:<15} {}", f.label, f.text)?;
            if let Some(d) = &f.detail {
                writeln!(out, "  {:<15} {d}", "")?;
            }
        }
        writeln!(
            out,
            "  format          {}{version} ({}-endian)",
            s.format.to_uppercase(),
            if s.endianness == weightpeek::format::Endian::Big {
                "big"
            } else {
                "little"
            }
        )?;
        writeln!(
            out,
            "  file size       {} ({} bytes)",
            text::bytes(s.file_size),
            text::thousands(s.file_size)
        )?;
        match &m.error {
            Some(e) => writeln!(
                out,
                "  header size     unknown (parsing stopped at byte {})",
                text::thousands(e.offset)
            )?,
            None => writeln!(
                out,
                "  header size     {} ({} bytes)",
                text::bytes(s.header_size),
                text::thousands(s.header_size)
            )?,
        }
        writeln!(
            out,
            "  metadata        {} keys",
            text::thousands(s.metadata_count)
        )?;
        writeln!(out, "  tensors         {}", text::thousands(s.tensor_count))?;
        writeln!(
            out,
            "  parameters      {} ({}){}",
            text::thousands(s.parameter_count),
            text::params(s.parameter_count),
            s.quantization.as_ref().map_or(String::new(), |q| format!(
                ", logical ({} values stored)",
                text::thousands(q.stored_elements)
            ))
        )?;
        writeln!(
            out,
            "  tensor bytes    {} ({} bytes)",
            text::bytes(s.tensor_bytes),
            text::thousands(s.tensor_bytes)
        )?;
        if let Some(b) = s.bits_per_weight {
            writeln!(out, "  bits per weight {b:.4}")?;
        }
        if let Some(q) = &s.quantization {
            writeln!(out, "  quantisation    {}", q.layout)?;
            print_quant(out, args, q)?;
        }
        if let Some(a) = &s.architecture {
            writeln!(out, "\narchitecture: {}", a.architecture)?;
            if let Some(ft) = &a.file_type {
                writeln!(out, "  file type       {ft}")?;
            }
            for r in &a.rows {
                writeln!(out, "  {:<20} {}", r.label, r.value)?;
            }
        }
        writeln!(out, "\ntypes:")?;
        writeln!(
            out,
            "  {:<12} {:>8} {:>16} {:>14} {:>8}",
            "type", "tensors", "elements", "bytes", "bpw"
        )?;
        for d in &s.dtypes {
            writeln!(
                out,
                "  {:<12} {:>8} {:>16} {:>14} {:>8}",
                d.dtype,
                d.tensors,
                text::thousands(d.elements),
                text::bytes(d.bytes),
                d.bits_per_weight.map_or("-".into(), |b| format!("{b:.3}"))
            )?;
        }
        writeln!(out, "\nmetadata:")?;
        for e in m.metadata.iter().filter(|e| matches(&e.key, q)) {
            writeln!(
                out,
                "  {:<44} {:<8} {}",
                text::escape(&e.key),
                e.value.value_type().name(),
                text::value(&e.value, &m.bytes, 5, 120)
            )?;
        }
        if args.tensors {
            writeln!(
                out,
                "\ntensors (shape in {} order):",
                if s.format == "gguf" {
                    "ggml ne0..neN"
                } else {
                    "row-major"
                }
            )?;
            for t in &s.tensors {
                let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
                writeln!(
                    out,
                    "  {:<48} {:<10} {:<22} {:>14} {:>12} @{}",
                    text::escape(&t.name),
                    t.dtype,
                    format!("[{}]", shape.join(", ")),
                    t.elements.map_or("overflow".into(), text::thousands),
                    t.bytes.map_or("?".into(), text::bytes),
                    t.offset
                )?;
            }
        }
        if !s.findings.is_empty() {
            writeln!(out, "\nchecks (weightpeek --check lists them alone):")?;
        }
        for f in &s.findings {
            let sev = f.severity.word();
            writeln!(out, "  {sev}: {}", text::escape(&f.message))?;
        }
        if let Some(e) = &s.error {
            writeln!(out, "error: {e}")?;
            writeln!(out, "(everything above was read before the error)")?;
        }
        Ok(())
    }
}
