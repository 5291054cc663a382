//! View-models for the page and the CLI: everything the DOM layer draws, and everything the
//! command line prints, is computed here, as plain data and plain text, so it is tested natively
//! (`cargo test`). Free of web crates.
//!
//! - [`facts`]: the summary card's figures and the architecture card's lines.
//! - [`metadata`]: metadata table rows and on-demand paging through large arrays.
//! - [`tensors`]: the tensor table: filter, sort, cell text.
//! - [`tensor_card`]: the tensor table card's frame and rows as nodes.
//! - [`viewport`]: which rows of a virtualised table to render for a scroll position.
//! - [`virtual_body`]: a virtualised table's frame and the body rows drawn for a window.
//! - [`histogram`]: the dtype bar chart's geometry.
//! - [`layer_grid`]: the per-layer quantisation map as a grid with a legend.
//! - [`colors`]: one colour per tensor type, shared by the chart and the map.
//! - [`preview`]: the tensor preview panel's statistic rows, histogram bars, scale labels.
//! - [`preview_card`]: the preview card's statistics, histogram, heatmap frame and values
//!   table as nodes.
//! - [`export`]: the summary as JSON (the CLI's `--json`), the tensor CSV and the Markdown
//!   report, for download.
//! - [`tokenizer`]: the tokenizer card (facts, special tokens, token list, chat templates).
//! - [`memory`]: the memory card (context box, KV type, the estimate's rows).
//! - [`recipe`]: the quantisation recipe (pattern rows, the llama-quantize command, provenance).
//! - [`element`]: the `<weightpeek-view>` element's attributes: what each change does (its
//!   acts), the first tab, the tensor to open, what showing a model does, `data-state`.
//! - [`tabs`]: the embedded view's tabs (names, labels, keyboard movement).
//! - [`report`]: one model's view as decisions: its tabs and cards, the cards built after the
//!   first view, what the lean module leaves to the full one, the cards' build times.
//! - [`compare`]: the Compare card (a second file against the one shown: summary line,
//!   bits per weight per role, metadata and tensor differences, the diff JSON).
//! - [`fit_card`]: the settings form, the Fit card and a repo's "Will it fit?" table as nodes.
//! - [`fit_repo`]: a repo's "Will it fit?" table as data: its GGUF models, which header is
//!   read next, the table for the settings.
//! - [`scan`]: the page's scan of every weight (rows, sort, filter, finding lines, texts).
//! - [`scan_card`]: the "Scan all weights" card's bodies, sort and filter decisions.
//! - [`spec`]: one parser per user input: a tensor window, the devices and options of a fit.
//! - [`errors`]: every failure worded for its reader (the page, the element and the API, the
//!   CLI): opening, a header read in part, a server's answer.
//! - [`opening`]: opening a model in words: the file a URL names, the names and status line
//!   while it is read, why it gave nothing.
//! - [`api`]: the JavaScript API's calls: option texts, the files a source names, a window's
//!   plan, a fit's arguments and plan, messages as JavaScript gets them.
//! - [`remote`]: the page's remote box: what is remembered where, the progress display, a
//!   repository's list of models and the files a pick opens, the words of each step.
//! - [`address`]: the page's address: the remote model and tensor it names, the tab shown.
//! - [`node`]: a page element as plain data (tag, class, attributes, text, children), which
//!   the cards are built as and the page renders.
//! - [`cli`]: the command line's outputs, drawn as text from the view-models above.
#![forbid(unsafe_code)]

pub mod address;
pub mod api;
pub mod checks;
pub mod cli;
pub mod colors;
pub mod compare;
pub mod edit;
pub mod element;
pub mod errors;
pub mod export;
pub mod facts;
pub mod fit;
pub mod fit_card;
pub mod fit_repo;
pub mod histogram;
pub mod js;
pub mod layer_grid;
pub mod memory;
pub mod metadata;
pub mod node;
pub mod opening;
pub mod preview;
pub mod preview_card;
pub mod recipe;
pub mod remote;
pub mod report;
pub mod scan;
pub mod scan_card;
pub mod spec;
pub mod stages;
pub mod tabs;
pub mod tensor_card;
pub mod tensors;
pub mod tokenizer;
pub mod viewport;
pub mod virtual_body;

#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
pub(crate) mod testutil;
