//! Why the devices or options of a fit cannot be used ([`DeviceError`]), and which input it is
//! about ([`DeviceInput`]), named as each front end names it.

use super::devices::MAX_GPUS;
use super::Front;
use crate::summary::fit::SizeError;
use crate::text;

/// Which input an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceInput {
    /// The devices as a whole (the API's `devices` argument).
    Devices,
    /// The GPU list.
    Gpus,
    /// GPU `i` (0-based, counting every GPU given).
    Gpu(usize),
    /// GPU `i`'s `bytes`.
    GpuBytes(usize),
    /// GPU `i`'s `size`.
    GpuSize(usize),
    /// System RAM.
    Ram,
    /// The context.
    Context,
    /// The KV cache type.
    Kv,
    /// The margin.
    Margin,
}

impl DeviceInput {
    /// Its name in `front`.
    pub fn name(self, front: Front) -> String {
        use DeviceInput as I;
        match (self, front) {
            (I::Devices, _) => "devices".into(),
            (I::Gpus, Front::Api) => "devices.gpus".into(),
            (I::Gpus, Front::Cli) => "--gpu".into(),
            (I::Gpus, Front::Page) => "GPUs".into(),
            (I::Gpu(_), Front::Cli) => "--gpu".into(),
            (I::Gpu(i), Front::Page) => format!("GPU {i}"),
            (I::Gpu(i), Front::Api) => format!("devices.gpus[{i}]"),
            (I::GpuBytes(i), Front::Api) => format!("devices.gpus[{i}].bytes"),
            (I::GpuSize(i), Front::Api) => format!("devices.gpus[{i}].size"),
            (I::GpuBytes(i) | I::GpuSize(i), Front::Page) => format!("GPU {i}"),
            (I::GpuBytes(_) | I::GpuSize(_), Front::Cli) => "--gpu".into(),
            (I::Ram, Front::Cli) => "--ram".into(),
            (I::Ram, Front::Page) => "RAM".into(),
            (I::Ram, Front::Api) => "devices.ram".into(),
            (I::Context, Front::Cli) => "--ctx".into(),
            (I::Context, Front::Page) => "context".into(),
            (I::Context, Front::Api) => "options.context".into(),
            (I::Kv, Front::Cli) => "--kv".into(),
            (I::Kv, Front::Page) => "KV type".into(),
            (I::Kv, Front::Api) => "options.kv".into(),
            (I::Margin, Front::Cli) => "--margin".into(),
            (I::Margin, Front::Page) => "margin".into(),
            (I::Margin, Front::Api) => "options.margin".into(),
        }
    }

    /// Its key in the specs' shape (what `Display` names).
    fn key(self) -> String {
        match self {
            DeviceInput::Devices => "devices".into(),
            DeviceInput::Gpus => "gpus".into(),
            DeviceInput::Gpu(i) => format!("gpus[{i}]"),
            DeviceInput::GpuBytes(i) => format!("gpus[{i}].bytes"),
            DeviceInput::GpuSize(i) => format!("gpus[{i}].size"),
            DeviceInput::Ram => "ram".into(),
            DeviceInput::Context => "context".into(),
            DeviceInput::Kv => "kv".into(),
            DeviceInput::Margin => "margin".into(),
        }
    }
}

/// Why devices or options cannot be used. `Display`: `<key>: <what is wrong>`, the key as in
/// [`super::DeviceSpec`]/[`super::OptionsSpec`] (`gpus[1]`, `ram`, `kv`).
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceError {
    /// The devices are not an object `{gpus, ram}` (the API's argument).
    NotAnObject,
    /// `gpus` is not a list.
    GpusNotAList,
    /// More than [`MAX_GPUS`] GPUs.
    TooManyGpus,
    /// A size's text is not a size ([`SizeError`]).
    Size {
        /// Which input.
        input: DeviceInput,
        /// What is wrong.
        error: SizeError,
    },
    /// A number of bytes that is not whole, negative, or past 2^53.
    NotBytes {
        /// Which input.
        input: DeviceInput,
        /// The number given.
        value: f64,
    },
    /// A size that is neither a number nor text.
    NotASize {
        /// Which input.
        input: DeviceInput,
    },
    /// A GPU's `size` that is not text.
    SizeNotText {
        /// Which GPU.
        index: usize,
    },
    /// A GPU object with both or neither of `bytes` and `size`.
    BytesOrSize {
        /// Which GPU.
        index: usize,
    },
    /// A GPU that is neither a size, a number of bytes, nor an object.
    GpuShape {
        /// Which GPU.
        index: usize,
    },
    /// A context that is not a whole number of tokens (at least 1, at most 2^53 from the API).
    Context,
    /// A KV cache type that is not `f16`, `q8_0` or `q4_0` (`None`: not a string).
    Kv(Option<String>),
}

impl DeviceError {
    /// The input the error is about (the page marks its box).
    pub fn input(&self) -> DeviceInput {
        match self {
            DeviceError::NotAnObject => DeviceInput::Devices,
            DeviceError::GpusNotAList | DeviceError::TooManyGpus => DeviceInput::Gpus,
            DeviceError::Size { input, .. }
            | DeviceError::NotBytes { input, .. }
            | DeviceError::NotASize { input } => *input,
            DeviceError::SizeNotText { index } => DeviceInput::GpuSize(*index),
            DeviceError::BytesOrSize { index } | DeviceError::GpuShape { index } => {
                DeviceInput::Gpu(*index)
            }
            DeviceError::Context => DeviceInput::Context,
            DeviceError::Kv(_) => DeviceInput::Kv,
        }
    }

    /// The message as `front` shows it: [`Display`](std::fmt::Display)'s, with the input named
    /// as in [`DeviceInput::name`].
    pub fn text_for(&self, front: Front) -> String {
        format!("{}: {}", self.input().name(front), self.what())
    }

    /// What is wrong, without the input's name.
    fn what(&self) -> String {
        match self {
            DeviceError::NotAnObject => "must be an object {gpus, ram}".into(),
            DeviceError::GpusNotAList => "must be an array".into(),
            DeviceError::TooManyGpus => format!("at most {MAX_GPUS} GPUs"),
            DeviceError::Size { error, .. } => error.to_string(),
            DeviceError::NotBytes { value, .. } => {
                format!("{value} is not a whole number of bytes (0 to 2^53)")
            }
            DeviceError::NotASize { .. } => {
                "must be a number of bytes or a size such as \"24GiB\"".into()
            }
            DeviceError::SizeNotText { .. } => "must be a string such as \"24GiB\"".into(),
            DeviceError::BytesOrSize { .. } => "needs one of bytes or size".into(),
            DeviceError::GpuShape { .. } => {
                "must be a size, a number of bytes or {name?, bytes | size}".into()
            }
            DeviceError::Context => "must be a whole number of tokens (at least 1)".into(),
            DeviceError::Kv(Some(t)) => {
                format!("\"{}\" is not f16, q8_0 or q4_0", text::escape(t.trim()))
            }
            DeviceError::Kv(None) => "must be f16, q8_0 or q4_0 (a string)".into(),
        }
    }
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.input().key(), self.what())
    }
}

impl std::error::Error for DeviceError {}
