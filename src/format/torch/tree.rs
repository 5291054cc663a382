//! From a PyTorch pickle's value tree to tensors: which calls rebuild a tensor, where its storage
//! is, and the dotted name each gets (state dicts, nested checkpoints, pickled modules,
//! TorchScript module attributes). Nothing is called: the tree is [`Pickle`]'s inert nodes.
//!
//! Tensor rebuilds (torch/_utils.py): `_rebuild_tensor_v2(storage, storage_offset, size, stride,
//! requires_grad, backward_hooks[, metadata])` and `_rebuild_tensor(storage, storage_offset,
//! size, stride)`; `_rebuild_parameter(data, requires_grad, backward_hooks)` and
//! `_rebuild_parameter_with_state(…)` wrap one; torch/_tensor.py's
//! `_rebuild_from_type_v2(func, new_type, args, state)` calls `func(*args)`. A storage is the
//! persistent id `('storage', torch.<Type>Storage, key, location, numel)` (torch/serialization.py
//! `persistent_id`; the legacy format adds `view_metadata`).

use crate::format::dtype::any_dtype;
use crate::format::pickle::{CallKind, Node, NodeId, Pickle};
use crate::format::DType;

/// Deepest nesting of containers followed from the root (state dicts are 2–6 deep).
pub const MAX_NAME_DEPTH: usize = 64;
/// Most nodes visited while looking for tensors (each container once, each tensor reference
/// once per place it appears): bounds the walk of a hostile tree of shared references.
pub const MAX_VISITS: usize = 4 << 20;

/// A storage type's element type and size: `(dtype, bytes per element)` for a
/// `torch.<Name>Storage` (torch/storage.py `_dtype_to_storage_type_map`). Types without a
/// safetensors name are kept as [`DType::StUnknown`] with their size.
pub fn storage_dtype(name: &str) -> Option<(DType, u64)> {
    let st = |n: &str| any_dtype(n).map(DType::St);
    let (dtype, size) = match name {
        "FloatStorage" => (st("F32")?, 4),
        "DoubleStorage" => (st("F64")?, 8),
        "HalfStorage" => (st("F16")?, 2),
        "BFloat16Storage" => (st("BF16")?, 2),
        "LongStorage" => (st("I64")?, 8),
        "IntStorage" => (st("I32")?, 4),
        "ShortStorage" => (st("I16")?, 2),
        "CharStorage" => (st("I8")?, 1),
        "ByteStorage" => (st("U8")?, 1),
        "BoolStorage" => (st("BOOL")?, 1),
        "ComplexFloatStorage" => (st("C64")?, 8),
        "UInt16Storage" => (st("U16")?, 2),
        "UInt32Storage" => (st("U32")?, 4),
        "UInt64Storage" => (st("U64")?, 8),
        "Float8_e4m3fnStorage" => (st("F8_E4M3")?, 1),
        "Float8_e5m2Storage" => (st("F8_E5M2")?, 1),
        "Float8_e4m3fnuzStorage" => (st("F8_E4M3FNUZ")?, 1),
        "Float8_e5m2fnuzStorage" => (st("F8_E5M2FNUZ")?, 1),
        "Float8_e8m0fnuStorage" => (st("F8_E8M0")?, 1),
        "ComplexDoubleStorage" => (st("C128")?, 16),
        "ComplexHalfStorage" => (st("C32")?, 4),
        "QInt8Storage" => (DType::StUnknown("qint8".into()), 1),
        "QUInt8Storage" => (DType::StUnknown("quint8".into()), 1),
        "QInt32Storage" => (DType::StUnknown("qint32".into()), 4),
        "QUInt4x2Storage" => (DType::StUnknown("quint4x2".into()), 1),
        "QUInt2x4Storage" => (DType::StUnknown("quint2x4".into()), 1),
        "Float4_e2m1fn_x2Storage" => (DType::StUnknown("float4_e2m1fn_x2".into()), 1),
        _ => return None,
    };
    Some((dtype, size))
}

/// A `torch.<dtype>` (the dtype argument of `_rebuild_tensor_v3`, which `torch.save` uses for
/// dtypes without a typed storage class): element type and size.
pub fn torch_dtype(name: &str) -> Option<(DType, u64)> {
    let st = |n: &str| any_dtype(n).map(DType::St);
    Some(match name {
        "float32" | "float" => (st("F32")?, 4),
        "float64" | "double" => (st("F64")?, 8),
        "float16" | "half" => (st("F16")?, 2),
        "bfloat16" => (st("BF16")?, 2),
        "int64" | "long" => (st("I64")?, 8),
        "int32" | "int" => (st("I32")?, 4),
        "int16" | "short" => (st("I16")?, 2),
        "int8" => (st("I8")?, 1),
        "uint8" => (st("U8")?, 1),
        "uint16" => (st("U16")?, 2),
        "uint32" => (st("U32")?, 4),
        "uint64" => (st("U64")?, 8),
        "bool" => (st("BOOL")?, 1),
        "complex64" | "cfloat" => (st("C64")?, 8),
        "float8_e4m3fn" => (st("F8_E4M3")?, 1),
        "float8_e5m2" => (st("F8_E5M2")?, 1),
        "float8_e4m3fnuz" => (st("F8_E4M3FNUZ")?, 1),
        "float8_e5m2fnuz" => (st("F8_E5M2FNUZ")?, 1),
        "float8_e8m0fnu" => (st("F8_E8M0")?, 1),
        "complex128" | "cdouble" => (st("C128")?, 16),
        "complex32" | "chalf" => (st("C32")?, 4),
        _ => return None,
    })
}

/// A storage a tensor views, from its persistent id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageRef {
    /// The key: the member `<dir>/<key>` of a zip archive, or the legacy format's storage key.
    pub key: String,
    /// The storage type's name (`FloatStorage`).
    pub type_name: String,
    /// Element type and size; `None` for a storage type this tool does not know.
    pub dtype: Option<(DType, u64)>,
    /// Elements in the storage, as the persistent id says.
    pub numel: u64,
    /// Device it was saved from (`cpu`, `cuda:0`).
    pub location: String,
    /// Legacy format only: a view of another storage, `(root key, offset in elements)`.
    pub view_of: Option<(String, u64)>,
}

/// A tensor found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorRef {
    /// Dotted name from the root (`model.layers.0.weight`).
    pub name: String,
    /// Its storage.
    pub storage: StorageRef,
    /// First element in the storage.
    pub storage_offset: u64,
    /// Shape, row-major (PyTorch order).
    pub shape: Vec<u64>,
    /// Stride of each dimension, in elements.
    pub stride: Vec<u64>,
    /// Whether it was saved as a `torch.nn.Parameter` or with `requires_grad`.
    pub parameter: bool,
    /// Absolute offset of the call that rebuilds it in the pickle.
    pub at: u64,
}

/// What the walk found: tensors in the order they appear, and why others were skipped.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Tensors, in tree order.
    pub tensors: Vec<TensorRef>,
    /// Tensor-like calls that could not be read, with the reason and offset.
    pub skipped: Vec<(String, u64, String)>,
    /// Whether the walk stopped at [`MAX_VISITS`] or [`MAX_NAME_DEPTH`].
    pub truncated: bool,
}

fn global_of(p: &Pickle, id: NodeId) -> Option<(&str, &str)> {
    match p.node(id)? {
        Node::Global { module, name } => Some((module.as_str(), name.as_str())),
        _ => None,
    }
}

fn uint(p: &Pickle, id: NodeId) -> Option<u64> {
    match p.node(id)? {
        Node::Int(i) => u64::try_from(*i).ok(),
        Node::Bool(b) => Some(u64::from(*b)),
        _ => None,
    }
}

/// A tuple of non-negative integers (or a `torch.Size` call wrapping one).
fn uints(p: &Pickle, id: NodeId) -> Option<Vec<u64>> {
    let id = match p.node(id)? {
        Node::Call { callable, args, .. }
            if global_of(p, *callable).is_some_and(|(_, n)| n == "Size") =>
        {
            *p.items_of(*args)?.first()?
        }
        _ => id,
    };
    p.items_of(id)?.iter().map(|&d| uint(p, d)).collect()
}

/// Why a tensor rebuild's arguments could not be read as a tensor ([`tensor_from_args`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum TreeError {
    /// The storage argument is not a persistent id.
    NotPersistent,
    /// The persistent id is not a tuple.
    PidNotTuple,
    /// The persistent id's tuple does not start with `'storage'`.
    NotStorage,
    /// The storage type is not an import (`torch.FloatStorage`).
    TypeNotImport,
    /// The storage key is neither a string nor an integer.
    KeyNotString,
    /// The storage's element count is not a non-negative integer.
    NumelNotNumber,
    /// The rebuild's arguments are not a tuple.
    ArgsNotTuple,
    /// The rebuild has fewer arguments than this index needs (0-based).
    MissingArgument(usize),
    /// The storage offset is not a non-negative integer.
    OffsetNotUint,
    /// The size is not a tuple of non-negative integers.
    SizeNotUints,
    /// The stride is not a tuple of non-negative integers.
    StrideNotUints,
    /// The size and the stride have different numbers of dimensions.
    StrideCount {
        /// Dimensions of the size.
        sizes: usize,
        /// Dimensions of the stride.
        strides: usize,
    },
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::NotPersistent => write!(f, "its storage is not a persistent id"),
            TreeError::PidNotTuple => write!(f, "the storage's persistent id is not a tuple"),
            TreeError::NotStorage => write!(f, "the persistent id is not ('storage', …)"),
            TreeError::TypeNotImport => write!(f, "the storage type is not an import"),
            TreeError::KeyNotString => write!(f, "the storage key is not a string"),
            TreeError::NumelNotNumber => write!(f, "the storage size is not a number"),
            TreeError::ArgsNotTuple => write!(f, "its arguments are not a tuple"),
            TreeError::MissingArgument(i) => write!(f, "argument {i} is missing"),
            TreeError::OffsetNotUint => {
                write!(f, "the storage offset is not a non-negative integer")
            }
            TreeError::SizeNotUints => {
                write!(f, "the size is not a tuple of non-negative integers")
            }
            TreeError::StrideNotUints => {
                write!(f, "the stride is not a tuple of non-negative integers")
            }
            TreeError::StrideCount { sizes, strides } => {
                write!(f, "{sizes} sizes but {strides} strides")
            }
        }
    }
}

impl std::error::Error for TreeError {}

fn storage_ref(p: &Pickle, id: NodeId) -> Result<StorageRef, TreeError> {
    let Some(Node::Persistent(pid)) = p.node(id) else {
        return Err(TreeError::NotPersistent);
    };
    let items = p.items_of(*pid).ok_or(TreeError::PidNotTuple)?;
    let get = |i: usize| items.get(i).copied();
    if get(0).and_then(|i| p.str_of(i)) != Some("storage") {
        return Err(TreeError::NotStorage);
    }
    let (_, type_name) = get(1)
        .and_then(|i| global_of(p, i))
        .ok_or(TreeError::TypeNotImport)?;
    // `UntypedStorage` (with _rebuild_tensor_v3): bytes; its dtype is set by the caller.
    let key = get(2)
        .and_then(|i| match p.node(i)? {
            Node::Str(s) => Some(s.clone()),
            Node::Int(n) => Some(n.to_string()),
            _ => None,
        })
        .ok_or(TreeError::KeyNotString)?;
    let location = get(3).and_then(|i| p.str_of(i)).unwrap_or("").to_string();
    let numel = get(4)
        .and_then(|i| uint(p, i))
        .ok_or(TreeError::NumelNotNumber)?;
    // Legacy view metadata: (view key, offset, view size), or None.
    let view_of = get(5)
        .and_then(|i| p.items_of(i))
        .and_then(|v| Some((p.str_of(*v.first()?)?.to_string(), uint(p, *v.get(1)?)?)));
    Ok(StorageRef {
        key,
        dtype: storage_dtype(type_name),
        type_name: type_name.to_string(),
        numel,
        location,
        view_of,
    })
}

/// A tensor from the arguments of `_rebuild_tensor[_v2]`.
fn tensor_from_args(p: &Pickle, args: NodeId, name: &str, at: u64) -> Result<TensorRef, TreeError> {
    let a = p.items_of(args).ok_or(TreeError::ArgsNotTuple)?;
    let arg = |i: usize| a.get(i).copied().ok_or(TreeError::MissingArgument(i));
    let storage = storage_ref(p, arg(0)?)?;
    let storage_offset = uint(p, arg(1)?).ok_or(TreeError::OffsetNotUint)?;
    let shape = uints(p, arg(2)?).ok_or(TreeError::SizeNotUints)?;
    let stride = uints(p, arg(3)?).ok_or(TreeError::StrideNotUints)?;
    if stride.len() != shape.len() {
        return Err(TreeError::StrideCount {
            sizes: shape.len(),
            strides: stride.len(),
        });
    }
    let parameter = a
        .get(4)
        .and_then(|&i| match p.node(i)? {
            Node::Bool(b) => Some(*b),
            _ => None,
        })
        .unwrap_or(false);
    Ok(TensorRef {
        name: name.to_string(),
        storage,
        storage_offset,
        shape,
        stride,
        parameter,
        at,
    })
}

fn join(path: &str, seg: &str) -> String {
    if path.is_empty() {
        seg.to_string()
    } else {
        format!("{path}.{seg}")
    }
}

/// Keys of a pickled `torch.nn.Module`'s `__dict__` that hold its tensors and submodules: left
/// out of names, so they read as `state_dict()` keys (`encoder.weight`, not
/// `_modules.encoder._parameters.weight`).
const MODULE_SLOTS: [&str; 3] = ["_parameters", "_buffers", "_modules"];

/// Walks the tree from `root` and collects every tensor with its dotted name.
pub fn find_tensors(p: &Pickle, root: NodeId) -> Found {
    let mut found = Found::default();
    let mut seen = vec![false; p.nodes.len()];
    let mut stack: Vec<(NodeId, String, usize)> = vec![(root, String::new(), 0)];
    let mut visits = 0usize;
    while let Some((id, path, depth)) = stack.pop() {
        visits += 1;
        if visits > MAX_VISITS || depth > MAX_NAME_DEPTH {
            found.truncated = true;
            continue;
        }
        let Some(node) = p.node(id) else { continue };
        // Children are pushed in reverse so they pop in file order.
        let mut children: Vec<(NodeId, String)> = Vec::new();
        match node {
            Node::Call {
                callable,
                args,
                items,
                list,
                state,
                offset,
                kind,
                ..
            } => {
                let g = global_of(p, *callable);
                match g {
                    Some(("torch._utils", "_rebuild_tensor_v3")) => {
                        // (storage (untyped: its size in bytes), offset, size, stride,
                        // requires_grad, hooks, dtype[, metadata])
                        let dtype = p
                            .items_of(*args)
                            .and_then(|a| a.get(6).copied())
                            .and_then(|d| global_of(p, d))
                            .filter(|(m, _)| *m == "torch")
                            .and_then(|(_, n)| torch_dtype(n));
                        match (tensor_from_args(p, *args, &path, *offset), dtype) {
                            (Ok(mut t), Some((d, size))) => {
                                t.storage.numel /= size.max(1);
                                t.storage.dtype = Some((d, size));
                                found.tensors.push(t);
                            }
                            (Ok(_), None) => found.skipped.push((
                                path.clone(),
                                *offset,
                                "its dtype is not one this tool knows".into(),
                            )),
                            (Err(why), _) => {
                                found.skipped.push((path.clone(), *offset, why.to_string()))
                            }
                        }
                        continue;
                    }
                    Some(("torch._utils", "_rebuild_tensor_v2" | "_rebuild_tensor")) => {
                        match tensor_from_args(p, *args, &path, *offset) {
                            Ok(t) => found.tensors.push(t),
                            Err(why) => {
                                found.skipped.push((path.clone(), *offset, why.to_string()))
                            }
                        }
                        continue;
                    }
                    Some((
                        "torch._utils",
                        "_rebuild_parameter" | "_rebuild_parameter_with_state",
                    )) => {
                        let Some(&data) = p.items_of(*args).and_then(|a| a.first()) else {
                            continue;
                        };
                        match p.node(data) {
                            Some(Node::Call {
                                callable: c,
                                args: a,
                                offset: at,
                                ..
                            }) if global_of(p, *c).is_some_and(|(m, n)| {
                                m == "torch._utils"
                                    && n.starts_with("_rebuild_tensor")
                                    && n != "_rebuild_tensor_v3"
                            }) =>
                            {
                                match tensor_from_args(p, *a, &path, *at) {
                                    Ok(mut t) => {
                                        t.parameter = true;
                                        found.tensors.push(t);
                                    }
                                    Err(why) => {
                                        found.skipped.push((path.clone(), *at, why.to_string()))
                                    }
                                }
                            }
                            _ => stack.push((data, path.clone(), depth + 1)),
                        }
                        continue;
                    }
                    Some(("torch._tensor", "_rebuild_from_type_v2")) => {
                        let a = p.items_of(*args).unwrap_or(&[]);
                        match (a.first().and_then(|&f| global_of(p, f)), a.get(2)) {
                            (
                                Some(("torch._utils", "_rebuild_tensor_v2" | "_rebuild_tensor")),
                                Some(&inner),
                            ) => match tensor_from_args(p, inner, &path, *offset) {
                                Ok(t) => found.tensors.push(t),
                                Err(why) => {
                                    found.skipped.push((path.clone(), *offset, why.to_string()))
                                }
                            },
                            _ => found.skipped.push((
                                path.clone(),
                                *offset,
                                "a tensor subclass rebuilt by a function this tool does not read"
                                    .into(),
                            )),
                        }
                        continue;
                    }
                    Some(("torch._utils", n)) if n.starts_with("_rebuild_") => {
                        found.skipped.push((
                            path.clone(),
                            *offset,
                            format!("a tensor rebuilt by torch._utils.{n} (quantised, sparse or on a device without storage bytes), not read by this tool"),
                        ));
                        continue;
                    }
                    _ => {}
                }
                if seen[id as usize] {
                    continue;
                }
                seen[id as usize] = true;
                let ordered = g == Some(("collections", "OrderedDict"));
                // OrderedDict(pairs) (Python 2's __reduce__), then SETITEMS: its items in order.
                let pairs = if ordered {
                    p.dict_of(id).unwrap_or_default()
                } else {
                    items.to_vec()
                };
                if *kind == CallKind::Wrapped {
                    children.push((*callable, String::new()));
                }
                for (k, v) in &pairs {
                    children.push((*v, key_seg(p, *k)));
                }
                for (i, v) in list.iter().enumerate() {
                    children.push((*v, i.to_string()));
                }
                if let Some(s) = state {
                    children.push((*s, String::new()));
                }
                // Arguments of an unknown constructor may hold tensors too (a dict passed to a
                // class); their names get no extra segment.
                if !ordered && *kind != CallKind::Wrapped {
                    children.push((*args, String::new()));
                }
            }
            Node::Dict(pairs) => {
                if seen[id as usize] {
                    continue;
                }
                seen[id as usize] = true;
                for (k, v) in pairs {
                    children.push((*v, key_seg(p, *k)));
                }
            }
            Node::List(xs) | Node::Tuple(xs) => {
                if seen[id as usize] {
                    continue;
                }
                seen[id as usize] = true;
                for (i, v) in xs.iter().enumerate() {
                    children.push((*v, i.to_string()));
                }
            }
            _ => continue,
        }
        for (child, seg) in children.into_iter().rev() {
            let name = if seg.is_empty() || MODULE_SLOTS.contains(&seg.as_str()) {
                path.clone()
            } else {
                join(&path, &seg)
            };
            stack.push((child, name, depth + 1));
        }
    }
    found
}

fn key_seg(p: &Pickle, k: NodeId) -> String {
    match p.node(k) {
        Some(Node::Str(s)) => s.clone(),
        Some(Node::Int(i)) => i.to_string(),
        Some(Node::Bool(b)) => b.to_string(),
        Some(Node::None) => "None".into(),
        Some(Node::Float(f)) => f.to_string(),
        _ => "?".into(),
    }
}

/// Row-major strides of `shape` (elements).
pub fn contiguous_strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    s
}

/// Whether `stride` is the row-major layout of `shape` (dimensions of size 1 may have any
/// stride; a tensor with no elements is contiguous).
pub fn is_contiguous(shape: &[u64], stride: &[u64]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let want = contiguous_strides(shape);
    shape
        .iter()
        .zip(stride.iter().zip(&want))
        .all(|(&n, (&s, &w))| n == 1 || s == w)
}

/// Elements of the storage a view reaches: `1 + Σ (size − 1) × stride`, 0 for an empty tensor;
/// `None` past 64 bits.
pub fn extent(shape: &[u64], stride: &[u64]) -> Option<u64> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().zip(stride).try_fold(1u64, |acc, (&n, &s)| {
        acc.checked_add((n - 1).checked_mul(s)?)
    })
}
