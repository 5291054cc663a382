//! The one interface every format's reader implements (issue #19): after sniffing, the read loop
//! ([`crate::source::read_model`]) hands a reader the bytes held so far and gets one
//! [`Step`] back — done, the file's prefix up to some end, these ranges, or failed — until it is
//! done; then [`Reader::finish`] gives the [`Model`]. The readers are listed, with each
//! format's names and extensions, in [`super::registry::FORMATS`]; nothing else matches on the
//! format to read it.

use super::error::Error;
use super::held::Held;
use super::Model;

pub use super::held::Need;

/// The bytes a reader steps over.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The file's bytes from offset 0, as far as they are read (the first read, grown by
    /// [`Step::NeedPrefix`]).
    pub prefix: &'a [u8],
    /// Every range read, the prefix included, for a reader that reads by ranges
    /// ([`Reader::by_ranges`]); empty for the others.
    pub held: &'a Held,
    /// The file's size in bytes.
    pub size: u64,
}

/// What a reader answers after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The header is read (or read as far as it can be: the model says what stopped it); call
    /// [`Reader::finish`] with no error.
    Done,
    /// Read the file's prefix up to the absolute offset `end` (exclusive), then step again.
    /// `estimate`: where the whole header probably ends, so that one larger read may do.
    NeedPrefix {
        /// Bytes from offset 0 needed at least.
        end: u64,
        /// A guess of the header's end, if the reader has one.
        estimate: Option<u64>,
    },
    /// Read these ranges (one round of reads), then step again.
    NeedRanges(Vec<Need>),
    /// The bytes are bad: [`Reader::finish`] with this error gives what was read before it.
    Failed(Error),
}

impl Step {
    /// The step a parser's [`super::Stop`] asks for: a prefix up to its end (with the
    /// reader's `estimate` of the header's end), its ranges, or the failure.
    pub fn from_stop(stop: super::Stop, estimate: Option<u64>) -> Step {
        match stop {
            super::Stop::NeedMore(end) => Step::NeedPrefix { end, estimate },
            super::Stop::NeedRange(n) => Step::NeedRanges(vec![n]),
            super::Stop::NeedRanges(v) => Step::NeedRanges(v),
            super::Stop::Fail(e) => Step::Failed(e),
        }
    }
}

/// A format's header reader: a state machine over the bytes held so far, without I/O.
pub trait Reader {
    /// Whether it reads ranges anywhere in the file (a zip archive from its end, an ONNX
    /// protobuf skipping its payloads) rather than a growing prefix.
    fn by_ranges(&self) -> bool {
        false
    }

    /// One step over `input`.
    fn step(&mut self, input: &Input<'_>) -> Step;

    /// The model read, from the prefix (which it keeps as [`Model::bytes`]) and what the steps
    /// found; `error`: why reading stopped early (a step's [`Step::Failed`], a read that failed,
    /// a limit of the read loop), kept in [`Model::error`] with everything before it.
    fn finish(self: Box<Self>, prefix: Vec<u8>, size: u64, error: Option<Error>) -> Model;
}

/// The reader of a format read as a growing prefix by a step function that gives the whole
/// model (NumPy's `.npy`, legacy PyTorch checkpoints).
pub struct PrefixStep {
    format: super::Format,
    step: fn(&[u8], u64) -> Result<Model, super::Stop>,
    model: Option<Model>,
}

impl PrefixStep {
    /// A reader of `format` over `step` (the bytes from offset 0 and the file size: the model,
    /// or how far the bytes must reach, or why they are bad).
    pub fn boxed(
        format: super::Format,
        step: fn(&[u8], u64) -> Result<Model, super::Stop>,
    ) -> Box<dyn Reader> {
        Box::new(PrefixStep {
            format,
            step,
            model: None,
        })
    }
}

impl Reader for PrefixStep {
    fn step(&mut self, input: &Input<'_>) -> Step {
        match (self.step)(input.prefix, input.size) {
            Ok(m) => {
                self.model = Some(m);
                Step::Done
            }
            Err(stop) => Step::from_stop(stop, None),
        }
    }

    fn finish(self: Box<Self>, prefix: Vec<u8>, size: u64, error: Option<Error>) -> Model {
        model_or_failed(self.model, self.format, prefix, size, error)
    }
}

/// The reader of a format read by ranges by a step function that gives the whole model (a
/// PyTorch zip archive from its end, an ONNX protobuf).
pub struct RangeStep {
    format: super::Format,
    step: fn(&Held, u64, &[u8]) -> Result<Model, super::zip::Stop>,
    model: Option<Model>,
}

impl RangeStep {
    /// A reader of `format` over `step` (the ranges held, the file size and the prefix: the
    /// model, or the ranges to read next, or why the bytes are bad).
    pub fn boxed(
        format: super::Format,
        step: fn(&Held, u64, &[u8]) -> Result<Model, super::zip::Stop>,
    ) -> Box<dyn Reader> {
        Box::new(RangeStep {
            format,
            step,
            model: None,
        })
    }
}

impl Reader for RangeStep {
    fn by_ranges(&self) -> bool {
        true
    }

    fn step(&mut self, input: &Input<'_>) -> Step {
        match (self.step)(input.held, input.size, input.prefix) {
            Ok(m) => {
                self.model = Some(m);
                Step::Done
            }
            Err(stop) => Step::from_stop(stop, None),
        }
    }

    fn finish(self: Box<Self>, prefix: Vec<u8>, size: u64, error: Option<Error>) -> Model {
        model_or_failed(self.model, self.format, prefix, size, error)
    }
}

/// The model a step gave, or one holding only the error that stopped the reading.
fn model_or_failed(
    model: Option<Model>,
    format: super::Format,
    prefix: Vec<u8>,
    size: u64,
    error: Option<Error>,
) -> Model {
    match (model, error) {
        (Some(m), None) => m,
        (_, error) => super::archive::failed(
            format,
            size,
            prefix,
            error.unwrap_or_else(|| {
                Error::new(
                    "format",
                    0,
                    super::ErrorKind::Invalid("the reader stopped without a model".into()),
                )
            }),
        ),
    }
}
