//! The view of one model: builds every card into the report element and owns every listener
//! and piece of state they need. Dropping a `Report` removes all of its listeners.

use std::rc::Rc;

use crate::format::Model;
use crate::source::ReadStats;
use crate::summary;
use crate::view::tensors::type_filter;

use super::dom::{self, append, el_class};
use super::{
    checks, export, histogram, layers, memory, metadata, preview, summary as summary_card, tables,
    tokenizer,
};
use crate::preview::source::SourceFactory;

/// Everything the current model's view keeps alive.
pub struct Report {
    _export: Vec<export::ExportButton>,
    _memory: Option<memory::MemoryCard>,
    _tokenizer: Option<tokenizer::TokenizerCard>,
    _histogram: histogram::HistogramView,
    _layers: Option<gloo::events::EventListener>,
    _metadata: metadata::MetadataView,
    _tensors: tables::TensorTableView,
    /// The tensor preview card (its panel owns its own listeners) and the table's row-open
    /// listeners that open it.
    _preview: Option<Rc<preview::PreviewCard>>,
    _open: Vec<gloo::events::EventListener>,
}

impl Report {
    /// Draws `model` (opened as `name`) into `root`, which must be in the document (the tables
    /// measure their containers). No tensor previews (no source to read values from).
    #[allow(dead_code)] // kept for callers without a source
    pub fn show(
        root: &web_sys::Element,
        name: &str,
        model: Rc<Model>,
        stats: &ReadStats,
    ) -> Report {
        Self::show_with_source(root, name, model, stats, None)
    }

    /// As [`Report::show`]; with a `source` (a fresh reader of the model's file per preview:
    /// a `Blob` for a local file, an HTTP Range reader for a remote one), clicking a tensor row
    /// or pressing Enter on it opens a preview of its values.
    pub fn show_with_source(
        root: &web_sys::Element,
        name: &str,
        model: Rc<Model>,
        stats: &ReadStats,
        source: Option<SourceFactory>,
    ) -> Report {
        let s = summary::summarize(&model);
        dom::clear(root);

        let summary = summary_card::summary_card(name, &s, &model, stats);
        let exports = el_class("div", "exports");
        let export: Vec<export::ExportButton> = [
            export::Kind::Json,
            export::Kind::Csv,
            export::Kind::Markdown,
        ]
        .into_iter()
        .map(|kind| {
            let (button, b) = export::ExportButton::new(model.clone(), name, kind);
            append(&exports, &button);
            b
        })
        .collect();
        append(&dom::card_head(&summary), &exports);
        append(root, &summary);
        // Findings include the parser's warnings.
        append(root, &checks::checks_card(&s.findings));

        // The tensor table is built first so the type chart can filter it, and placed last.
        let part_names = model.parts.iter().map(|p| p.name.clone()).collect();
        let (tensor_card, tensors) =
            tables::TensorTableView::new(s.tensors, part_names, s.format, s.tensor_count);

        let row = el_class("div", "card-row");
        append(root, &row);
        if let Some(card) = &s.architecture {
            append(&row, &summary_card::arch_card(card));
        }
        let set_filter = tensors.filter_setter();
        let by_type = {
            let set = set_filter.clone();
            Rc::new(move |dtype: &str| set(&type_filter(dtype)))
        };
        let (hist_card, hist) = histogram::HistogramView::new(&s.dtypes, by_type);
        append(&row, &hist_card);
        hist.draw();

        let layer_listener = layers::layer_card(&s.layers, set_filter).map(|(card, l)| {
            append(root, &card);
            l
        });

        // GGUF only: the memory estimate and the tokenizer (safetensors carry neither).
        let is_gguf = model.format == crate::format::Format::Gguf;
        let memory_card = is_gguf.then(|| {
            let (card, m) = memory::MemoryCard::new(model.clone());
            append(root, &card);
            m
        });
        let tokenizer_card = is_gguf
            .then(|| summary::tokenizer::tokenizer_info(&model))
            .flatten()
            .map(|info| {
                let (card, t) = tokenizer::TokenizerCard::new(model.clone(), &info);
                append(root, &card);
                t.draw_now();
                t
            });

        let (meta_card, meta) = metadata::MetadataView::new(model.clone());
        append(root, &meta_card);

        append(root, &tensor_card);
        tensors.draw_now();

        let (preview_card, open) = match source {
            Some(src) => {
                let card = Rc::new(preview::PreviewCard::new(model.clone(), src));
                append(root, card.element());
                let c = card.clone();
                let open = tensors.open_listeners(Rc::new(move |i| c.open(i)));
                (Some(card), open)
            }
            None => (None, Vec::new()),
        };

        Report {
            _export: export,
            _memory: memory_card,
            _tokenizer: tokenizer_card,
            _histogram: hist,
            _layers: layer_listener,
            _metadata: meta,
            _tensors: tensors,
            _preview: preview_card,
            _open: open,
        }
    }

    /// Opens the preview of tensor `index` (as a click on its row would); nothing without a
    /// source to read values from.
    pub fn open_tensor(&self, index: usize) {
        if let Some(card) = &self._preview {
            card.open(index);
        }
    }

    /// Calls `f` with the tensor whose preview opens, or `None` when the preview is closed.
    pub fn on_preview(&self, f: preview::OnChange) {
        if let Some(card) = &self._preview {
            card.set_on_change(f);
        }
    }
}
