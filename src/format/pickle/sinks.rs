//! Code-execution sinks outside the modules [`super::safety`] judges by name: third-party
//! libraries' functions that run code, load native code, run commands or build arbitrary
//! objects from data, and the standard library's remaining file and state changers.
//!
//! Where the list comes from (each entry's reason says what the name does):
//!
//! - the block lists of the pickle scanners as published 2023–2026: picklescan's
//!   `_unsafe_globals` and the advisories behind its additions (GHSA reports on
//!   `torch.utils._config_module`, `torch._inductor.codecache`, `numpy.testing`, `pip`,
//!   `pydoc.pipepager`, `uuid`'s command helpers, `_pyrepl`), modelscan's `unsafe_globals`
//!   settings, ModelAudit's `SUSPICIOUS_GLOBALS` and its notes on third-party loaders, and
//!   fickling's `UNSAFE_IMPORTS` / overtly-malicious call list;
//! - the libraries' own documentation of what executes code:
//!   PyYAML (`yaml.load` with `Loader`/`UnsafeLoader`/`FullLoader`, `unsafe_load`,
//!   `full_load`: "construct an arbitrary Python object", CVE-2017-18342, CVE-2020-14343) and
//!   ruamel.yaml's unsafe loader; numexpr (`evaluate` calls `eval` on its expression,
//!   CVE-2023-39631); pandas (`eval`, `DataFrame.eval` / `query` with the python engine);
//!   SymPy (`sympify`, `S`, `parse_expr`, `lambdify` evaluate strings; SymPy's docs warn
//!   "uses eval"); asteval; Jinja2 and Mako templates (Mako's are Python; a Jinja2 template
//!   outside its sandbox reaches any attribute); the native-library loaders of ML frameworks
//!   (`torch.ops.load_library`, `torch.classes.load_library`, TensorFlow's
//!   `load_op_library` / `load_library`, ONNX Runtime's `register_custom_ops_library`,
//!   llvmlite's `load_library_permanently`, CuPy's and PyCUDA's kernel compilers, Cython's
//!   `cython_inline` / `pyximport`); Keras' `Lambda` layer (marshalled Python bytecode) and
//!   model loaders; `torch.fx.graph_module`'s reducers, which `exec` the pickled code;
//!   deserialisers of other pickle-like formats (jsonpickle, srsly, Ray's cloudpickle);
//!   process and remote-shell libraries (pexpect, sh, plumbum, invoke, fabric, paramiko,
//!   psutil's `Popen`); IPython's shell; the downloaders of model hubs (`huggingface_hub`,
//!   `transformers`' dynamic modules with `trust_remote_code`).
//!
//! What is listed is Dangerous; everything else not known safe stays Unknown.

const CODE: &str = "runs or compiles Python code";
const EXPR: &str = "evaluates an expression string with Python's eval";
const YAML: &str = "loads YAML with a loader that builds arbitrary Python objects (runs code)";
const TEMPLATE: &str = "compiles a template, which runs Python code when rendered";
const NATIVE: &str = "loads or compiles native code";
const COMMANDS: &str = "runs shell commands or starts programs";
const NESTED: &str = "deserialises objects from data in a format that can run code (a pickle)";
const NETWORK: &str = "opens network connections or downloads files";
const FILES: &str = "reads, writes or deletes files";
const IMPORTS: &str = "imports modules or downloads code by name when called";
const STATE: &str = "changes the interpreter's global state (crashes it, silences warnings, …)";
const REGISTRY: &str = "changes how later pickles are loaded (copyreg's registry)";

/// Modules every name of which (and of whose submodules) is dangerous.
fn module_sink(module: &str) -> Option<&'static str> {
    Some(match module {
        "asteval" | "IPython.core.interactiveshell" | "pyximport" | "Cython.Build" => CODE,
        "mako" | "tornado.template" | "Cheetah" | "genshi.template" | "chameleon" => TEMPLATE,
        "llvmlite.binding" | "pycuda.compiler" | "tensorflow.python.framework.load_library" => {
            NATIVE
        }
        "pexpect"
        | "ptyprocess"
        | "sh"
        | "plumbum"
        | "invoke"
        | "fabric"
        | "sarge"
        | "IPython.utils.process"
        | "test.support"
        | "mlflow.projects.backend.local"
        | "torch.utils.bottleneck"
        | "syslog" => COMMANDS,
        "jsonpickle"
        | "srsly.cloudpickle"
        | "ray.cloudpickle"
        | "pickle5"
        | "dill._dill"
        | "sklearn.externals.joblib"
        | "keras.saving"
        | "keras.src.saving" => NESTED,
        "paramiko" | "httplib2" | "pycurl" | "websocket" | "websockets" | "wget" | "boto3"
        | "botocore" | "huggingface_hub" | "smbclient" | "ftputil" => NETWORK,
        "transformers.dynamic_module_utils" | "pkg_resources" | "importlib_metadata" => IMPORTS,
        "ntpath"
        | "posixpath"
        | "mailbox"
        | "tensorflow.io.gfile"
        | "tensorflow.python.platform.gfile"
        | "tensorflow.python.ops.gen_io_ops" => FILES,
        "faulthandler" => STATE,
        "keras.src.layers.core.lambda_layer" | "keras.layers.core.lambda_layer" => CODE,
        "sympy.parsing" => EXPR,
        _ => return None,
    })
}

/// Names that are dangerous in a module that is otherwise not (`name` as written, `head`
/// its first dotted part).
fn name_sink(module: &str, name: &str, head: &str) -> Option<&'static str> {
    Some(match (module, head) {
        // YAML loaders that construct arbitrary objects.
        (
            "yaml" | "yaml.__init__",
            "load" | "load_all" | "unsafe_load" | "unsafe_load_all" | "full_load" | "full_load_all"
            | "Loader" | "UnsafeLoader" | "FullLoader",
        )
        | ("yaml.loader", "Loader" | "UnsafeLoader" | "FullLoader")
        | ("yaml.constructor", "UnsafeConstructor" | "FullConstructor" | "Constructor")
        | ("ruamel.yaml" | "ruamel.yaml.main", "load" | "load_all" | "unsafe_load")
        | ("ruamel.yaml.constructor", "Constructor" | "UnsafeConstructor") => YAML,
        // Expression evaluators of maths and data-frame libraries.
        ("numexpr" | "numexpr.necompiler", "evaluate" | "re_evaluate" | "NumExpr") => EXPR,
        ("pandas" | "pandas.core.computation.eval", "eval") => EXPR,
        ("pandas" | "pandas.core.frame", "DataFrame")
            if matches!(name, "DataFrame.eval" | "DataFrame.query") =>
        {
            EXPR
        }
        ("pandas.core.computation.expr", _) => EXPR,
        (
            "pandas" | "pandas.io.parsers" | "pandas.io.parsers.readers",
            "read_csv" | "read_table",
        ) => FILES,
        ("sympy", "sympify" | "S" | "parse_expr" | "lambdify")
        | ("sympy.core.sympify", "sympify")
        | ("sympy.core.singleton", "S")
        | ("sympy.utilities.lambdify", "lambdify") => EXPR,
        // Template engines.
        ("jinja2" | "jinja2.environment", "Template" | "Environment" | "from_string")
        | ("jinja2.nativetypes", "NativeEnvironment" | "NativeTemplate") => TEMPLATE,
        ("jinja2" | "jinja2.loaders", "FileSystemLoader") => FILES,
        // Native-library loaders of ML frameworks.
        ("torch", _) if matches!(name, "ops.load_library" | "classes.load_library") => NATIVE,
        ("torch.ops" | "torch.classes", "load_library") => NATIVE,
        ("torch._ops" | "torch._classes", _) if name.ends_with("load_library") => NATIVE,
        ("tensorflow", "load_op_library" | "load_library") => NATIVE,
        ("tensorflow.python.framework", "load_library") => NATIVE,
        ("onnxruntime" | "onnxruntime.capi.onnxruntime_pybind11_state", _)
            if name.ends_with("register_custom_ops_library") =>
        {
            NATIVE
        }
        ("cupy", "RawModule" | "RawKernel" | "ElementwiseKernel" | "ReductionKernel") => NATIVE,
        ("Cython", "inline") => NATIVE,
        // Code carried in the model.
        (
            "keras.layers" | "tensorflow.keras.layers" | "tf_keras.layers" | "keras.src.layers",
            "Lambda",
        ) => "a Keras Lambda layer: runs the Python bytecode it carries",
        (
            "keras" | "keras.models" | "tensorflow.keras.models" | "tf_keras.models",
            "load_model",
        )
        | ("tensorflow.saved_model" | "tensorflow.keras.saving", "load" | "load_model") => NESTED,
        ("torch.fx.graph_module", h)
            if h.starts_with("reduce_") || h == "_deserialize_graph_module" =>
        {
            "rebuilds a torch.fx GraphModule by running (exec) the Python code it carries"
        }
        ("IPython", "get_ipython" | "embed" | "start_ipython" | "start_kernel") => CODE,
        ("psutil", "Popen") => COMMANDS,
        ("srsly", "pickle_loads" | "pickle_load" | "cloudpickle_loads") => NESTED,
        ("transformers", _) if name.ends_with("from_pretrained") => {
            "downloads a model, and with trust_remote_code runs its code"
        }
        // The standard library's remaining file openers and state changers.
        ("argparse", "FileType") => FILES,
        ("bz2" | "gzip" | "lzma" | "aifc" | "sunau" | "wave", "open") => FILES,
        ("configparser", _) if name.ends_with(".read") || name.ends_with(".read_file") => FILES,
        ("pathlib" | "pathlib._local", "Path" | "PosixPath" | "WindowsPath")
            if name
                .split_once('.')
                .is_some_and(|(_, m)| PATH_METHODS.contains(&m)) =>
        {
            FILES
        }
        ("copyreg" | "copy_reg", "add_extension" | "remove_extension" | "pickle") => REGISTRY,
        ("uuid", "getnode") => "runs ifconfig, ip or arp to find a MAC address",
        ("resource", "setrlimit") | ("decimal", "setcontext") => STATE,
        ("warnings", "filterwarnings" | "simplefilter" | "resetwarnings") => STATE,
        _ => return None,
    })
}

/// `pathlib` methods that touch the file system.
const PATH_METHODS: &[&str] = &[
    "chmod",
    "exists",
    "glob",
    "hardlink_to",
    "is_dir",
    "is_file",
    "iterdir",
    "lchmod",
    "lstat",
    "mkdir",
    "open",
    "read_bytes",
    "read_text",
    "readlink",
    "rename",
    "replace",
    "rglob",
    "rmdir",
    "stat",
    "symlink_to",
    "touch",
    "unlink",
    "write_bytes",
    "write_text",
];

/// Why importing `module`.`name` is dangerous, when it is one of the sinks listed here (`head`:
/// the first dotted part of `name`).
pub(super) fn sink(module: &str, name: &str, head: &str) -> Option<&'static str> {
    if let Some(why) = name_sink(module, name, head) {
        return Some(why);
    }
    let mut parent = module;
    loop {
        if let Some(why) = module_sink(parent) {
            return Some(why);
        }
        match parent.rfind('.') {
            Some(i) => parent = &parent[..i],
            None => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::safety::verdict;
    use super::super::Verdict::{Dangerous, Unknown};

    #[test]
    fn third_party_sinks_are_dangerous_and_their_neighbours_unknown() {
        let cases = [
            ("yaml", "unsafe_load", Dangerous),
            ("yaml", "load", Dangerous),
            ("yaml.constructor", "UnsafeConstructor", Dangerous),
            ("numexpr", "evaluate", Dangerous),
            ("numexpr.necompiler", "evaluate", Dangerous),
            ("pandas", "eval", Dangerous),
            ("pandas.core.frame", "DataFrame.query", Dangerous),
            ("sympy", "sympify", Dangerous),
            ("sympy.parsing.sympy_parser", "parse_expr", Dangerous),
            ("jinja2", "Template", Dangerous),
            ("mako.template", "Template", Dangerous),
            ("torch", "ops.load_library", Dangerous),
            ("torch._ops", "_Ops.load_library", Dangerous),
            ("tensorflow", "load_op_library", Dangerous),
            ("keras.layers", "Lambda", Dangerous),
            ("torch.fx.graph_module", "reduce_graph_module", Dangerous),
            ("pexpect", "spawn", Dangerous),
            ("jsonpickle", "decode", Dangerous),
            ("pathlib", "PosixPath.write_text", Dangerous),
            ("copyreg", "add_extension", Dangerous),
            (
                "onnxruntime",
                "SessionOptions.register_custom_ops_library",
                Dangerous,
            ),
            ("yaml", "safe_load", Unknown),
            ("numexpr", "set_num_threads", Unknown),
            ("pandas.core.frame", "DataFrame", Unknown),
            ("sympy", "Symbol", Unknown),
            ("jinja2", "Markup", Unknown),
            ("pathlib", "PosixPath", Unknown),
            ("torch.fx.graph_module", "GraphModule", Unknown),
        ];
        for (m, n, want) in cases {
            assert_eq!(verdict(m, n).0, want, "{m}.{n}");
        }
    }
}
