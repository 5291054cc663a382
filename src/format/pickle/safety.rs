//! What an import in a pickle can do when Python loads it: [`verdict`].
//!
//! A pickle runs code only through the objects it imports (GLOBAL, STACK_GLOBAL, INST): Python
//! imports the module, which runs its top-level code, and then calls or builds the object. So
//! each import is judged by its module and name alone, wherever it is used: an import that is
//! passed to another function (`torch._tensor._rebuild_from_type_v2` calls its first argument,
//! a tensor's backward hooks are called later) is as dangerous as one called directly.
//!
//! - **Safe**: what PyTorch and NumPy checkpoints legitimately import — the names PyTorch's own
//!   `weights_only` loader allows (tensor rebuild functions, storage and tensor types, dtypes,
//!   layouts, `torch.Size`, `torch.device`, `collections.OrderedDict`, `_codecs.encode`, plain
//!   `builtins` types), NumPy's array rebuilders, and a few plain data holders (below).
//! - **Dangerous**: anything that runs commands, code or native code, reads, writes or
//!   deletes files, opens connections, starts threads or processes, imports modules by name,
//!   loads a nested pickle, or reaches Python's internals by a special attribute; and the
//!   generic call helpers (`functools`, `operator.attrgetter` / `methodcaller` /
//!   `itemgetter`) that let a pickle call something without naming it in an import.
//!   Third-party libraries' sinks (YAML loaders that build objects, expression evaluators,
//!   template engines, native-library loaders, other deserialisers, remote shells) are in
//!   `super::sinks`, which says where that list comes from.
//! - **Unknown**: everything else — a model's own classes (`torch.save(model)` pickles
//!   `torch.nn.modules.*` and the program's classes), TorchScript classes (`__torch__.*`),
//!   another library's types. Not evidence of harm, but loading it runs code this tool has not
//!   judged.
//!
//! Decisions beyond those two lists (checked against picklescan 1.0.5 and fickling 0.1.12 by
//! `tests/reference/pickle_cases.py`, see `tests/pickle.rs`):
//!
//! - `copyreg._reconstructor` (protocols 0–1 pickle plain objects with it), `copyreg.__newobj__`
//!   and `__newobj_ex__` are Safe: they only call `__new__` (and `__init__` of the base class
//!   they are given) of classes that are themselves imports of the pickle, judged on their
//!   own. `builtins.object` is Safe for the same reason.
//! - `argparse.Namespace` (training arguments in fairseq and older Lightning checkpoints) is
//!   Safe: it only sets the attributes it is given.
//! - `numpy.core.multiarray.scalar` (and `numpy._core`'s) is Safe: it builds a NumPy scalar
//!   from a dtype and raw bytes (for the object dtype it returns the object it is given).
//! - There are no `torch.Float8_*Storage` classes: PyTorch writes the newer dtypes (float8,
//!   uint16…) as `torch.storage.UntypedStorage` with a dtype, both Safe here.
//! - `torch.storage._load_from_bytes` is Dangerous: it `torch.load`s bytes held in the pickle,
//!   a nested pickle this tool does not read yet.
//! - `builtins` names are Safe only for plain data types (`set`, `frozenset`, `slice`,
//!   `bytearray`, `bytes`, `complex`, `int`, …), Dangerous for what runs code, reaches
//!   attributes or namespaces, or opens files (`eval`, `exec`, `compile`, `open`, `__import__`,
//!   `getattr`, `setattr`, `delattr`, `hasattr`, `globals`, `locals`, `vars`, `breakpoint`,
//!   `input`, `help`, `exit`, `quit`, Python 2's `apply`, `execfile`, `reload`, `file`), and
//!   Unknown otherwise (`print`, `map`…).
//! - A dotted name (protocol 4's qualified names) is Safe only when listed as such; any
//!   component that is a special attribute (`__globals__`, `__builtins__`, `__subclasses__`…)
//!   makes it Dangerous, whatever the module.
//! - Python 2 module names are read as Python 3 maps them (`__builtin__` is `builtins`,
//!   `copy_reg` is `copyreg`).
//!
//! How this compares on the 45 files of `pickle_cases.py` (20 benign, 25 malicious): every
//! malicious file has a Dangerous import here, and no benign one does. picklescan finds 24 of
//! the 25 (it calls `builtins.object.__subclasses__`, a dotted name, only suspicious) and
//! calls every import it knows as dangerous Dangerous here too; it calls suspicious (neither
//! list) what is Safe here: the `builtins` data types, `_codecs.encode`,
//! `copy_reg._reconstructor`, `torch._utils._rebuild_parameter`, `torch.device`, dtypes,
//! `torch.Tensor`, `torch._tensor._rebuild_from_type_v2`. fickling rates the same 25 files
//! LIKELY_OVERTLY_MALICIOUS or OVERTLY_MALICIOUS (the levels counted as dangerous); it rates
//! benign state dicts and any call outside the standard library LIKELY_UNSAFE, and cannot read
//! five of the benign files (out-of-band buffers, some protocol 4–5 values).

use super::Verdict::{self, Dangerous, Safe, Unknown};

const COMMANDS: &str = "runs shell commands or starts programs";
const CODE: &str = "runs or compiles Python code";
const IMPORTS: &str = "imports modules by name when the pickle is loaded";
const NESTED: &str = "loads a nested pickle, which can run code";
const NATIVE: &str = "calls native code";
const NETWORK: &str = "opens network connections";
const FILES: &str = "reads, writes or deletes files";
const LATER: &str = "starts threads or registers code to run later";
const INSTALL: &str = "installs packages or runs build commands";
const INDIRECT: &str =
    "calls the function it is given, so a call is made without an import naming it";
const ATTRIBUTE: &str = "fetches an attribute or item by name when called, reaching any object";
const SPECIAL: &str =
    "reaches Python's internals through a special attribute (__globals__, __builtins__, …)";

/// The verdict for an import (`module`, `name`) and a short reason.
///
/// The module is first renamed as Python 3 renames Python 2 modules when it loads a protocol
/// 0–2 pickle (Lib/_compat_pickle.py: `SimpleHTTPServer.test` is `http.server.test`,
/// `__builtin__.reduce` is `functools.reduce`). A dotted name (protocol 4) is resolved attribute
/// by attribute: every split of `module.name` is judged (`torch` `serialization.load` is
/// `torch.serialization.load`), and a path through another module (`argparse` `_os.system`,
/// `torch` `os.system`) is dangerous when that module is.
pub fn verdict(module: &str, name: &str) -> (Verdict, &'static str) {
    let (module, name) = py3_name(module, name);
    let v = flat_verdict(module, name);
    if v.0 == Dangerous || !name.contains('.') {
        return v;
    }
    // Each split of the dotted name into a module path and an attribute path, as slices of one
    // string (linear in the name per split; a name of thousands of dots stays fast).
    let parts = name.split('.').count();
    if parts > MAX_NAME_PARTS {
        return (
            Dangerous,
            "a dotted name of more parts than any library's (not judged part by part)",
        );
    }
    let full = format!("{module}.{name}");
    let mut prev = module.len() + 1;
    for (at, _) in name.match_indices('.') {
        let dot = module.len() + 1 + at;
        let (m, n) = (&full[..dot], &full[dot + 1..]);
        let (pv, why) = flat_verdict(m, n);
        if pv == Dangerous {
            return (Dangerous, why);
        }
        let last = &full[prev..dot];
        let bare = last.trim_start_matches('_');
        if dangerous_module(bare).is_some() || dangerous_module(last).is_some() {
            return (
                Dangerous,
                "reaches a dangerous module (os, sys, subprocess, …) through another module's attribute",
            );
        }
        prev = dot + 1;
    }
    v
}

/// Most parts of a dotted import name judged split by split (`a.b.c` is 3). Python's
/// unpickler follows any number with `getattr`; the deepest real qualified names (nested
/// classes, `<locals>` are refused by Python) have a handful, and each split costs a pass over
/// the name. A longer one is Dangerous: only a file built to slow the check has one.
const MAX_NAME_PARTS: usize = 64;

/// Python 3's module (and name) for a Python 2 one that `pickle` maps when loading a protocol
/// 0–2 pickle (Lib/_compat_pickle.py `IMPORT_MAPPING` and `NAME_MAPPING`), for the modules
/// whose verdict the mapping decides.
fn py3_name<'a>(module: &'a str, name: &'a str) -> (&'a str, &'a str) {
    match (module, name) {
        ("__builtin__", "reduce") => ("functools", "reduce"),
        ("__builtin__", "intern") => ("sys", "intern"),
        ("__builtin__", "raw_input") => ("builtins", "input"),
        ("__builtin__", "unicode") => ("builtins", "str"),
        _ => (
            match module {
                "__builtin__" | "__builtins__" | "exceptions" => "builtins",
                "copy_reg" => "copyreg",
                "SimpleHTTPServer" | "BaseHTTPServer" | "CGIHTTPServer" => "http.server",
                "httplib" => "http.client",
                "Cookie" => "http.cookies",
                "cookielib" => "http.cookiejar",
                "SocketServer" => "socketserver",
                "xmlrpclib" => "xmlrpc.client",
                "SimpleXMLRPCServer" | "DocXMLRPCServer" => "xmlrpc.server",
                "urllib2" => "urllib.request",
                "urlparse" => "urllib.parse",
                "robotparser" => "urllib.robotparser",
                "thread" => "_thread",
                "dummy_thread" => "_dummy_thread",
                "anydbm" | "whichdb" | "dbhash" => "dbm",
                "dumbdbm" => "dbm.dumb",
                "gdbm" => "dbm.gnu",
                "cPickle" => "pickle",
                "StringIO" | "cStringIO" => "io",
                "ConfigParser" => "configparser",
                "Queue" => "queue",
                "repr" => "reprlib",
                "Tkinter" => "tkinter",
                "commands" => "subprocess",
                m => m,
            },
            name,
        ),
    }
}

/// [`verdict`] of a module and name taken as they are.
fn flat_verdict(module: &str, name: &str) -> (Verdict, &'static str) {
    let head = name.split('.').next().unwrap_or(name);
    if module == "builtins" {
        if let Some(why) = dangerous_builtin(head) {
            return (Dangerous, why);
        }
    }
    let dunder = name
        .split('.')
        .any(|p| p.len() > 4 && p.starts_with("__") && p.ends_with("__"));
    if dunder && !(module == "copyreg" && matches!(name, "__newobj__" | "__newobj_ex__")) {
        return (Dangerous, SPECIAL);
    }
    if let Some(why) = dangerous_name(module, name, head) {
        return (Dangerous, why);
    }
    if let Some(why) = super::sinks::sink(module, name, head) {
        return (Dangerous, why);
    }
    // TorchScript's data.pkl builds typed lists with these (torch/jit/_pickle.py): plain list
    // and tag builders, though the rest of torch.jit compiles code.
    if module == "torch.jit._pickle" && TORCHSCRIPT_BUILDERS.contains(&name) {
        return (Safe, "builds a list of numbers or tensors (TorchScript)");
    }
    let mut parent = module;
    loop {
        if let Some(why) = dangerous_module(parent) {
            return (Dangerous, why);
        }
        match parent.rfind('.') {
            Some(i) => parent = &parent[..i],
            None => break,
        }
    }
    if let Some(why) = safe(module, name) {
        return (Safe, why);
    }
    let why = if module == "builtins" {
        "a built-in not known to be a plain data type"
    } else if module == "__main__" {
        "a class or function of the program that wrote the file"
    } else if module == "__torch__" || module.starts_with("__torch__.") {
        "a TorchScript class (its code is in the archive's code/ folder)"
    } else if module.starts_with("torch.nn.") {
        "a PyTorch layer class (a whole model was saved): Python rebuilds the model object"
    } else if module == "torch" || module.starts_with("torch.") {
        "a part of PyTorch not known to this tool"
    } else if module == "numpy" || module.starts_with("numpy.") {
        "a part of NumPy not known to this tool"
    } else {
        "not known to this tool"
    };
    (Unknown, why)
}

fn dangerous_builtin(head: &str) -> Option<&'static str> {
    Some(match head {
        "eval" | "exec" | "compile" | "execfile" | "apply" => CODE,
        "__import__" | "reload" => IMPORTS,
        "getattr" | "setattr" | "delattr" | "hasattr" => {
            "reads or changes any attribute of any object by name"
        }
        "globals" | "locals" | "vars" => "reaches a namespace of live objects",
        "open" | "file" => FILES,
        "breakpoint" | "input" | "raw_input" => "stops the program for the debugger or a reader",
        "help" => COMMANDS, // the pager
        "exit" | "quit" => "ends the program",
        _ => return None,
    })
}

/// Names that are dangerous in a module that is otherwise not.
fn dangerous_name(module: &str, name: &str, head: &str) -> Option<&'static str> {
    Some(match (module, head) {
        ("torch", "load") | ("torch.serialization", "load" | "_load" | "_legacy_load") => NESTED,
        ("torch.storage", "_load_from_bytes") => NESTED,
        ("torch", "save") | ("torch.serialization", "save" | "_save" | "_legacy_save") => FILES,
        ("torch", "hub") => "downloads and runs code from the internet",
        ("torch", "jit" | "compile" | "_dynamo" | "_inductor") => CODE,
        ("torch.fx.experimental.symbolic_shapes", _)
            if name == "ShapeEnv.evaluate_guards_expression" =>
        {
            CODE
        }
        ("numpy", "load") | ("pandas", "read_pickle") => NESTED,
        ("numpy", "save" | "savez" | "savez_compressed" | "savetxt" | "tofile") => FILES,
        ("numpy", "f2py" | "distutils" | "ctypeslib" | "testing") => CODE,
        ("io" | "_io", "open" | "open_code" | "FileIO") | ("codecs", "open") => FILES,
        ("operator" | "_operator", "attrgetter" | "methodcaller" | "itemgetter") => ATTRIBUTE,
        // uuid's private helpers run ifconfig & co. to find a MAC address.
        ("uuid", h) if h.starts_with('_') => COMMANDS,
        _ => return None,
    })
}

/// Modules every name of which (and of whose submodules) is dangerous.
fn dangerous_module(module: &str) -> Option<&'static str> {
    Some(match module {
        "os" | "posix" | "nt" | "subprocess" | "_posixsubprocess" | "_winapi" | "pty"
        | "commands" | "popen2" | "platform" | "_osx_support" | "_aix_support" | "_pyrepl"
        | "multiprocessing" | "_multiprocessing" | "pydoc" => COMMANDS,
        "sys" => "reaches the interpreter itself (sys.modules, sys.exit, …)",
        "gc" => "reaches every live object (gc.get_objects, gc.get_referrers)",
        "runpy" | "code" | "codeop" | "types" | "compileall" | "py_compile" | "cProfile"
        | "profile" | "pdb" | "bdb" | "trace" | "timeit" | "doctest" | "idlelib" | "lib2to3"
        | "inspect" => CODE,
        "importlib"
        | "_imp"
        | "imp"
        | "_frozen_importlib"
        | "_frozen_importlib_external"
        | "zipimport"
        | "pkgutil"
        | "site"
        | "torch.package" => IMPORTS,
        "pickle"
        | "_pickle"
        | "cPickle"
        | "marshal"
        | "dill"
        | "cloudpickle"
        | "joblib"
        | "shelve"
        | "pandas.io.pickle"
        | "torch.utils._config_module"
        | "torch.utils.data.datapipes.utils.decoder" => NESTED,
        "ctypes" | "_ctypes" | "cffi" | "numpy.ctypeslib" | "torch.utils.cpp_extension" => NATIVE,
        "socket"
        | "_socket"
        | "ssl"
        | "_ssl"
        | "http"
        | "httplib"
        | "urllib"
        | "urllib2"
        | "urllib3"
        | "requests"
        | "aiohttp"
        | "httpx"
        | "ftplib"
        | "smtplib"
        | "imaplib"
        | "poplib"
        | "telnetlib"
        | "nntplib"
        | "socketserver"
        | "xmlrpc"
        | "select"
        | "selectors"
        | "asyncio"
        | "torch.distributed.rpc" => NETWORK,
        "webbrowser" => "opens a web page",
        "shutil"
        | "tempfile"
        | "glob"
        | "fileinput"
        | "tarfile"
        | "zipfile"
        | "mmap"
        | "linecache"
        | "filecmp"
        | "sqlite3"
        | "_sqlite3"
        | "dbm"
        | "numpy.lib.npyio"
        | "numpy.lib._npyio_impl"
        | "numpy.lib.format" => FILES,
        "logging" => "writes log files, or takes its configuration (and code) over a socket",
        "threading" | "_thread" | "signal" | "_signal" | "atexit" | "sched" => LATER,
        "pip" | "ensurepip" | "venv" | "distutils" | "setuptools" | "numpy.distutils"
        | "numpy.f2py" => INSTALL,
        "numpy.testing" => CODE,
        "functools" => INDIRECT,
        "torch.hub" => "downloads and runs code from the internet",
        "torch.jit" | "torch._dynamo" | "torch._inductor" | "torch.compiler" => CODE,
        "torch.utils.collect_env" | "torch.utils.bottleneck" => COMMANDS,
        _ => return None,
    })
}

const TORCH_DTYPES: &[&str] = &[
    "float32",
    "float",
    "float64",
    "double",
    "float16",
    "half",
    "bfloat16",
    "complex32",
    "chalf",
    "complex64",
    "cfloat",
    "complex128",
    "cdouble",
    "uint8",
    "int8",
    "int16",
    "short",
    "int32",
    "int",
    "int64",
    "long",
    "bool",
    "qint8",
    "quint8",
    "qint32",
    "quint4x2",
    "quint2x4",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "uint16",
    "uint32",
    "uint64",
    "bits1x8",
    "bits2x4",
    "bits4x2",
    "bits8",
    "bits16",
    "int1",
    "int2",
    "int3",
    "int4",
    "int5",
    "int6",
    "int7",
    "uint1",
    "uint2",
    "uint3",
    "uint4",
    "uint5",
    "uint6",
    "uint7",
];

/// The element types of the legacy typed storages and tensor types (`torch.FloatStorage`,
/// `torch.cuda.FloatTensor`).
const TORCH_TYPE_PREFIXES: &[&str] = &[
    "Double",
    "Float",
    "Half",
    "Long",
    "Int",
    "Short",
    "Char",
    "Byte",
    "Bool",
    "BFloat16",
    "ComplexDouble",
    "ComplexFloat",
    "QUInt8",
    "QInt8",
    "QInt32",
    "QUInt4x2",
    "QUInt2x4",
];

const TORCH_ENUMS: &[&str] = &[
    // memory formats
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "preserve_format",
    // layouts
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
    "_mkldnn",
    "jagged",
    // quantisation schemes
    "per_tensor_affine",
    "per_tensor_symmetric",
    "per_channel_affine",
    "per_channel_symmetric",
    "per_channel_affine_float_qparams",
];

const TORCH_REBUILD: &[&str] = &[
    "_rebuild_tensor",
    "_rebuild_tensor_v2",
    "_rebuild_tensor_v3",
    "_rebuild_parameter",
    "_rebuild_parameter_with_state",
    "_rebuild_qtensor",
    "_rebuild_sparse_tensor",
    "_rebuild_meta_tensor_no_storage",
    "_rebuild_nested_tensor",
    "_rebuild_wrapper_subclass",
    "_rebuild_device_tensor_from_numpy",
    "_rebuild_device_tensor_from_cpu_tensor",
];

const BUILTIN_DATA: &[&str] = &[
    "set",
    "frozenset",
    "slice",
    "bytearray",
    "bytes",
    "complex",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "tuple",
    "dict",
    "object",
    "range",
    "unicode",
    "long",
];

/// torch/jit/_pickle.py's builders, which TorchScript archives' pickles call.
const TORCHSCRIPT_BUILDERS: &[&str] = &[
    "build_intlist",
    "build_tensorlist",
    "build_doublelist",
    "build_boollist",
    "build_complexlist",
    "build_tensor_from_id",
    "restore_type_tag",
];

fn legacy_type(name: &str) -> bool {
    let stem = name
        .strip_suffix("Storage")
        .or_else(|| name.strip_suffix("Tensor"));
    stem.is_some_and(|s| TORCH_TYPE_PREFIXES.contains(&s))
}

fn safe(module: &str, name: &str) -> Option<&'static str> {
    Some(match (module, name) {
        ("collections", "OrderedDict" | "Counter") => "a dict type (how state dicts are written)",
        ("torch._utils", n) if TORCH_REBUILD.contains(&n) => {
            "builds a tensor or parameter from a storage"
        }
        ("torch._tensor", "_rebuild_from_type_v2" | "_rebuild_from_type") => {
            "rebuilds a tensor subclass with the function it is given (each import judged on its own)"
        }
        ("torch" | "torch._tensor", "Tensor") | ("torch.nn.parameter", "Parameter" | "Buffer") => {
            "the tensor and parameter types"
        }
        ("torch" | "torch.cuda", n) if legacy_type(n) => "a storage or tensor type",
        ("torch" | "torch.storage", "UntypedStorage" | "TypedStorage") => "a storage type",
        ("torch", "Size") => "a tensor shape",
        ("torch", "device") => "a device name",
        ("torch", n) if TORCH_DTYPES.contains(&n) => "a tensor element type",
        ("torch", n) if TORCH_ENUMS.contains(&n) => "a memory format, layout or quantisation scheme",
        ("torch.serialization", "_get_layout") => "a tensor layout by name",
        (
            "numpy.core.multiarray" | "numpy._core.multiarray",
            "_reconstruct" | "scalar",
        ) => "builds a NumPy array or scalar",
        ("numpy.core.numeric" | "numpy._core.numeric", "_frombuffer") => {
            "builds a NumPy array from a buffer"
        }
        ("numpy", "ndarray" | "dtype") => "the NumPy array and dtype types",
        ("_codecs" | "codecs", "encode") => "encodes text as bytes (protocols 0–2 write bytes so)",
        ("builtins", n) if BUILTIN_DATA.contains(&n) => "a plain data type",
        ("copyreg", "_reconstructor" | "__newobj__" | "__newobj_ex__") => {
            "makes an object of a class imported separately (judged on its own)"
        }
        ("argparse", "Namespace") => "a plain holder of named values (training arguments)",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        for (m, n) in [
            ("collections", "OrderedDict"),
            ("torch._utils", "_rebuild_tensor_v2"),
            ("torch", "FloatStorage"),
            ("torch", "BFloat16Storage"),
            ("torch.cuda", "HalfStorage"),
            ("torch.storage", "UntypedStorage"),
            ("torch", "bfloat16"),
            ("torch", "Size"),
            ("numpy.core.multiarray", "_reconstruct"),
            ("_codecs", "encode"),
            ("__builtin__", "set"),
            ("copy_reg", "_reconstructor"),
            ("copyreg", "__newobj__"),
        ] {
            assert_eq!(verdict(m, n).0, Safe, "{m}.{n}");
        }
        for (m, n) in [
            ("os", "system"),
            ("posix", "system"),
            ("os.path", "join"),
            ("subprocess", "Popen"),
            ("builtins", "eval"),
            ("__builtin__", "getattr"),
            ("builtins", "__import__"),
            ("builtins", "object.__subclasses__"),
            ("collections", "OrderedDict.__init__.__globals__"),
            ("torch", "load"),
            ("torch.hub", "load"),
            ("torch.storage", "_load_from_bytes"),
            ("runpy", "_run_code"),
            ("functools", "partial"),
            ("operator", "attrgetter"),
            ("importlib", "import_module"),
            ("webbrowser", "open"),
            ("uuid", "_get_command_stdout"),
        ] {
            assert_eq!(verdict(m, n).0, Dangerous, "{m}.{n}");
        }
        for (m, n) in [
            ("__torch__.model", "Net"),
            ("torch.nn.modules.linear", "Linear"),
            ("builtins", "print"),
            ("mylib", "Thing"),
            ("torch", "Float8_e4m3fnStorage"),
            ("collections", "OrderedDict.fromkeys"),
            ("uuid", "UUID"),
            ("pathlib", "PosixPath"),
        ] {
            assert_eq!(verdict(m, n).0, Unknown, "{m}.{n}");
        }
    }
}
