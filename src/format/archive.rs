//! What a container of pickles and zip members holds — a PyTorch checkpoint (zip, TorchScript,
//! legacy), a plain pickle, a NumPy `.npy`/`.npz` file — filled in by the `torch` and `numpy`
//! readers and read by the checks, the previews and the views: the pickles read and their
//! safety reports, the storages, the tensors whose values are strided, deflated or elsewhere,
//! and the structured arrays. Shared here so that no format module imports another's types.

use super::error::Error;
use super::pickle::{Import, Pickle};
use super::{Endian, Format, Model};

/// What unpickles a NumPy file's object arrays, for messages.
pub const NUMPY_LOADER: &str = "np.load(allow_pickle=True)";

/// Largest central directory or pickle read: 64 MiB (a state dict of 100,000 tensors pickles to
/// ~15 MB; the central directory of 100,000 members is ~10 MB). PyTorch's reader has no such
/// limit (it reads a record whole, inflating it if need be): a larger pickle is listed as not
/// read ([`Unchecked`]), so the file is *not fully checked*, never safe.
pub const MAX_PICKLE_BYTES: u64 = 64 << 20;

/// A pickle read from the file, with its safety report.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct PickleInfo {
    /// Where it is: the zip member (`archive/data.pkl`), or `pickle 4 of 5` (legacy).
    pub name: String,
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// Pickle protocol (0–5).
    pub protocol: u8,
    /// Every import, in file order, with its verdict and the calls made through it.
    pub imports: Vec<Import>,
    /// Why reading stopped before the pickle's STOP (a cap of the pickle machine, damaged or
    /// missing bytes), with the byte where it stopped; `None` when it was read to its end.
    /// What follows that byte is not judged, so the pickle's verdict is *not fully checked*
    /// (an error finding) unless an import already read is dangerous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// A pickle a loader may unpickle that was not read at all (too large, compressed in a way
/// this tool does not inflate, past [`MAX_OTHER_PICKLES`](crate::format::torch::MAX_OTHER_PICKLES), inside a tar archive): its verdict is
/// *not fully checked*, never safe.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unchecked {
    /// Where it is (a zip member's name, a tar member).
    pub name: String,
    /// Absolute offset of its header (or of the archive structure naming it).
    pub offset: u64,
    /// Why it was not read.
    pub why: String,
}

/// Where a tensor's storage bytes are.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StorageInfo {
    /// The storage key.
    pub key: String,
    /// The zip member holding it (`archive/data/0`), empty in the legacy format.
    pub member: String,
    /// Absolute offset of the member's local header (zip), or of the 8-byte count (legacy).
    pub header: u64,
    /// Absolute offset of the storage's first byte.
    pub data: u64,
    /// Bytes of the member (zip) or of the storage (legacy).
    pub bytes: u64,
    /// Whether `data` was read from the local header (else predicted from PyTorch's alignment,
    /// and a preview reads the header first).
    pub verified: bool,
}

/// What a PyTorch file holds besides its tensors: the pickles and their imports, and where
/// each tensor's storage is.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Archive {
    /// `zip`, `torchscript` or `legacy` (PyTorch), `pickle` (a plain pickle), `npy` or `npz`
    /// (NumPy).
    pub kind: &'static str,
    /// The pickles read, in file order.
    pub pickles: Vec<PickleInfo>,
    /// Storages, by index; [`Archive::tensor_storage`] maps tensors to them.
    pub storages: Vec<StorageInfo>,
    /// The storage of each tensor of [`Model::tensors`] (by index), if found.
    pub tensor_storage: Vec<Option<usize>>,
    /// Tensor-like values that could not be read: `(name, offset, why)`.
    pub skipped: Vec<(String, u64, String)>,
    /// Tensors whose view is strided (not one byte range): `(index in Model::tensors, stride)`.
    pub strided: Vec<(usize, Vec<u64>)>,
    /// Tensors whose values are not in the file as they are: `(index, why)`; previews refuse
    /// them with that text.
    pub not_in_place: Vec<(usize, String)>,
    /// Tensors in deflated `.npz` members (`np.savez_compressed`): previews inflate the
    /// member's compressed bytes up to their window.
    pub deflated: Vec<DeflatedMember>,
    /// Pickles a loader may unpickle that were not read: with any of them, or a pickle whose
    /// reading stopped early ([`PickleInfo::stopped`]), the file is *not fully checked*.
    pub unchecked: Vec<Unchecked>,
    /// NumPy structured arrays (not object ones): their fields, each previewed on its own.
    pub structured: Vec<Structured>,
}

/// An array inside a deflated zip member: its values are at `data_start` of the inflated
/// member, whose compressed bytes are `compressed` bytes at `start` of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DeflatedMember {
    /// Index in [`Model::tensors`].
    pub tensor: usize,
    /// Absolute offset of the member's compressed bytes.
    pub start: u64,
    /// The member's compressed size.
    pub compressed: u64,
    /// The member's size inflated (the central directory's).
    pub size: u64,
    /// Offset of the array's first byte in the inflated member (after its `.npy` header).
    pub data_start: u64,
}

impl Archive {
    /// The deflated member holding tensor `index`, if it is in one.
    pub fn deflated_of(&self, index: usize) -> Option<&DeflatedMember> {
        self.deflated.iter().find(|d| d.tensor == index)
    }
}

impl Archive {
    /// What unpickles this file's pickles, for messages: `np.load(allow_pickle=True)` for a
    /// NumPy file (its object arrays), `torch.load` otherwise.
    pub fn loader(&self) -> &'static str {
        match self.kind {
            "npy" | "npz" => NUMPY_LOADER,
            _ => "torch.load",
        }
    }

    /// Every import of every pickle, in file order.
    pub fn imports(&self) -> impl Iterator<Item = &Import> {
        self.pickles.iter().flat_map(|p| p.imports.iter())
    }

    /// Whether every pickle a loader may unpickle was read to its end (nothing in
    /// [`Archive::unchecked`], no [`PickleInfo::stopped`]).
    pub fn fully_checked(&self) -> bool {
        self.unchecked.is_empty() && self.pickles.iter().all(|p| p.stopped.is_none())
    }
}

/// An empty model of a container format (PyTorch, a plain pickle, NumPy) for a file of
/// `file_size` bytes (`bytes`: its first bytes), with no error.
pub(crate) fn base(format: Format, file_size: u64, bytes: Vec<u8>) -> Model {
    Model {
        format,
        version: None,
        endian: Endian::Little,
        file_size,
        header_size: 0,
        data_offset: 0,
        alignment: None,
        metadata_count: 0,
        metadata: Vec::new(),
        tensor_count: 0,
        tensors: Vec::new(),
        warnings: Vec::new(),
        error: None,
        bytes,
        detail: crate::format::Detail::None,
    }
}

/// A model holding only the error that stopped reading (nothing could be listed).
pub fn failed(format: Format, file_size: u64, bytes: Vec<u8>, e: Error) -> Model {
    let mut m = base(format, file_size, bytes);
    m.error = Some(e);
    m
}

/// The report of pickle `p` read from `offset` (`stopped`: the error that ended the reading
/// before STOP, if any).
pub fn info(name: String, p: &Pickle, offset: u64, stopped: Option<&Error>) -> PickleInfo {
    PickleInfo {
        name,
        offset,
        len: p.end.saturating_sub(offset),
        protocol: p.protocol,
        imports: p.globals.clone(),
        // A cap that stopped only the tree, after which every import was still found, leaves
        // the verdict whole (the listing's error says what was not listed).
        stopped: stopped
            .filter(|_| !p.imports_complete)
            .map(|e| e.to_string()),
    }
}

/// A structured array's layout (not an object one): each element is `item` bytes holding
/// every field at its offset. A preview reads one plain field at a time
/// (`crate::preview::field_view`), gathering its bytes from each element.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Structured {
    /// Index in [`Model::tensors`].
    pub tensor: usize,
    /// Bytes of one element (numpy's `itemsize`).
    pub item: u64,
    /// The leaf fields, flattened (`outer.inner`), in the header's order.
    pub fields: Vec<Field>,
}

impl Structured {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields' names, comma-separated (the first `most`, then how many more).
    pub fn names(&self, most: usize) -> String {
        let mut s: Vec<&str> = self
            .fields
            .iter()
            .take(most)
            .map(|f| f.name.as_str())
            .collect();
        let more;
        if self.fields.len() > most {
            more = format!("and {} more", self.fields.len() - most);
            s.push(&more);
        }
        s.join(", ")
    }
}

/// One leaf field of a structured dtype.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Field {
    /// Its name; a field of a nested structured dtype is `outer.inner`.
    pub name: String,
    /// Its dtype string (`<f4`).
    pub descr: String,
    /// Its subarray shape (`(name, '<f4', (2, 3))`), empty for one value.
    pub shape: Vec<u64>,
    /// Offset of its first byte within one element.
    pub offset: u64,
}
