//! weightpeek: explore GGUF and safetensors model files from their header bytes alone.
//!
//! Architecture (the core is plain Rust, tested natively; the web layer only draws):
//! - [`format`](mod@format): sniff the bytes, parse GGUF and safetensors headers into a common [`format::Model`] (one file);
//!   the ggml type table lives in [`format::ggml_type`].
//! - [`check`]: validation findings (errors, warnings) with offsets, for the Checks panel and `--check`.
//! - [`text`]: text and number formatting, and the escaping of file-derived text (lowest layer
//!   after `format`: every output uses it).
//! - [`source`]: the header-only driver loop over any [`source::ByteSource`] (Blob, file, HTTP
//!   Range), its typed errors, the HTTP Range rules, and the sources: a file and HTTP(S) with
//!   `ureq` natively, a `Blob` and HTTP(S) with `fetch` in the web build.
//! - [`open`]: opening a model: what the given files are, one file or a set, read through the
//!   one driver, merged, with what is missing or does not belong ([`open::SetInfo`], [`open::OpenedModel`]).
//! - [`remote`]: what a pasted URL or repo id points at; grouping a repo's files into models.
//! - [`edit`]: the GGUF header editor: the new header bytes for a list of edits (the data
//!   section follows unchanged), and the CLI's streamed write.
//! - [`dequant`]: decode tensor bytes (every ggml type, every safetensors dtype) to `f32`, bit for
//!   bit as ggml / numpy / ml_dtypes do, and the byte window covering a range of rows.
//! - [`preview`]: a tensor's values for a window of rows/columns: the byte range to read, read
//!   through any [`source::ByteSource`], decoded, with statistics, histogram and heatmap.
//! - [`summary`]: counts, parameters, bits per weight, dtype histogram, per-layer map, arch card.
//! - [`view`]: view-models the page and CLI share (sorted/filtered tensor rows, visible range,
//!   histogram bars).
//! - `web` (wasm32 only): the DOM layer.
//! - [`cpu`]: the scan's loops run compiled for AVX2 where the CPU has it (the crate's one
//!   module with `unsafe` code).
//!
//! Imports point one way: `format` → `text` → `check`, `dequant`, `source` → `open`, `preview`,
//! `remote`, `edit` → `summary` → `view` → the shells (`web`, the CLI in `src/bin`).

pub mod check;
pub mod cpu;
pub mod dequant;
pub mod edit;
pub mod format;
pub mod open;
pub mod preview;
pub mod remote;
pub mod scan;
pub mod source;
pub mod summary;
pub mod text;
pub mod view;

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod web;

/// Whether this build has everything (the `full` feature, on by default): `false` only in the
/// lean web module a page downloads first, which reads and shows GGUF and safetensors headers
/// and asks for the full module for anything else. Code behind `if FULL` is left out of the
/// lean module by the compiler (a constant condition), so its callees are not linked.
pub const FULL: bool = cfg!(feature = "full");
