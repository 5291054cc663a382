//! `weightpeek edit IN.gguf OUT.gguf --set KEY=VALUE --set-file KEY=FILE --delete KEY`: writes
//! OUT as IN with its header edited (the engine: `weightpeek::edit`), the data section streamed
//! from IN, then prints the changes, the diff of IN against OUT and the checks of OUT.
//!
//! Exit status: 0 written; 1 written, but the result has an error-level finding; 2 nothing
//! written (bad usage, an edit that cannot be made, IN unreadable or OUT == IN).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use weightpeek::edit::file::{read_header, write_edited};
use weightpeek::edit::{plan, Edit, NewValue};
use weightpeek::text;
use weightpeek::view::cli as render;
use weightpeek::view::edit::review;

/// Largest file read by `--set-file` (a chat template is a few KiB; 64 MiB is far past any).
const MAX_SET_FILE: u64 = 64 << 20;

/// `weightpeek edit IN OUT`: a copy of a GGUF file with its metadata edited. Edits apply in
/// the order given.
#[derive(Parser, Debug)]
#[command(
    name = "weightpeek edit",
    bin_name = "weightpeek edit",
    after_help = "KEY=VALUE keeps an existing key's type; a new key's type follows the value (true/false BOOL, integers UINT32 (UINT64 past 32 bits, INT32/INT64 when negative), decimals FLOAT32, \"quoted\" or other text STRING), or is given as KEY:TYPE=VALUE (UINT8 … FLOAT64, BOOL, STRING). KEY[INDEX]=VALUE sets one element of an array (a token's type in tokenizer.ggml.token_type).\n\nExit status: 0 written; 1 written, the result has an error-level finding; 2 nothing written."
)]
struct EditArgs {
    /// The GGUF file to edit (read: its header, then its data section, copied).
    input: PathBuf,
    /// The file to write (not the input).
    output: PathBuf,
    /// Set KEY (add it if absent): KEY=VALUE, KEY:TYPE=VALUE or KEY[INDEX]=VALUE.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Set a STRING key to a file's text (e.g. tokenizer.chat_template=template.jinja).
    #[arg(long = "set-file", value_name = "KEY=FILE")]
    set_file: Vec<String>,
    /// Remove KEY.
    #[arg(long = "delete", value_name = "KEY")]
    delete: Vec<String>,
}

/// Runs `weightpeek edit` (`args` start with `edit`).
pub fn main(args: impl Iterator<Item = OsString>) -> ExitCode {
    let matches = EditArgs::command().get_matches_from(args);
    let parsed = EditArgs::from_arg_matches(&matches).map_err(|e| e.to_string());
    let result = parsed.and_then(|a| {
        // The edits in command-line order, whatever their flag.
        let mut order: Vec<(usize, Result<Edit, String>)> = Vec::new();
        let at = |id: &str| -> Vec<usize> {
            matches
                .indices_of(id)
                .map(|i| i.collect())
                .unwrap_or_default()
        };
        for (i, s) in at("set").into_iter().zip(&a.set) {
            order.push((i, Edit::parse_set(s).map_err(|e| e.to_string())));
        }
        for (i, s) in at("set_file").into_iter().zip(&a.set_file) {
            order.push((i, set_file(s)));
        }
        for (i, k) in at("delete").into_iter().zip(&a.delete) {
            order.push((i, Ok(Edit::Delete { key: k.clone() })));
        }
        order.sort_by_key(|(i, _)| *i);
        let edits = order
            .into_iter()
            .map(|(_, e)| e)
            .collect::<Result<Vec<_>, _>>()?;
        run(&a, &edits)
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "weightpeek edit: {}", text::escape(&e));
            ExitCode::from(2)
        }
    }
}

/// `KEY=FILE`: the file's text as a STRING (it must be UTF-8, as GGUF strings are).
fn set_file(spec: &str) -> Result<Edit, String> {
    let (key, path) = Edit::parse_set_file(spec).map_err(|e| e.to_string())?;
    let meta = std::fs::metadata(&path).map_err(|e| format!("--set-file {path}: {e}"))?;
    if !meta.is_file() || meta.len() > MAX_SET_FILE {
        return Err(format!(
            "--set-file {path}: not a regular file of at most {MAX_SET_FILE} bytes"
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("--set-file {path}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "--set-file {path}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(Edit::Set {
        key,
        ty: None,
        value: NewValue::Verbatim(text),
    })
}

fn run(a: &EditArgs, edits: &[Edit]) -> Result<ExitCode, String> {
    let shown_in = a.input.display().to_string();
    let shown_out = a.output.display().to_string();
    let original = read_header(&a.input).map_err(|e| format!("{shown_in}: {e}"))?;
    if let Some(e) = &original.error {
        return Err(format!(
            "{shown_in}: the header cannot be read to its end, so it cannot be rewritten: {e}"
        ));
    }
    let p = plan(&original.bytes, original.file_size, edits).map_err(|e| e.to_string())?;
    let written = write_edited(&a.input, &a.output, &p).map_err(|e| e.to_string())?;
    let r = review(&shown_in, &original, &shown_out, &p);
    let report = render::edit::text(&shown_in, &shown_out, written, &r);
    let mut out = std::io::stdout().lock();
    match out.write_all(report.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.to_string()),
        _ => {}
    }
    Ok(if render::check::has_error(&r.findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
