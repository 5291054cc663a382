//! Test support: a GGUF fixture builder, a counting file source, and the reference values
//! written by `tests/reference/reference.py` (gguf-py / safetensors / @huggingface/gguf).
#![allow(dead_code)]

pub mod range_server;

use std::path::{Path, PathBuf};

use weightpeek::dequant::Exact;
use weightpeek::open::OpenedModel;
use weightpeek::source::{block_on_ready, read_model, ByteSource, ReadPolicy, SourceError};

/// A metadata value to write.
#[derive(Debug, Clone)]
pub enum W {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(u8),
    Str(Vec<u8>),
    /// Element type id and elements (all of that type).
    Arr(u32, Vec<W>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl W {
    pub fn s(text: &str) -> W {
        W::Str(text.as_bytes().to_vec())
    }

    pub fn type_id(&self) -> u32 {
        match self {
            W::U8(_) => 0,
            W::I8(_) => 1,
            W::U16(_) => 2,
            W::I16(_) => 3,
            W::U32(_) => 4,
            W::I32(_) => 5,
            W::F32(_) => 6,
            W::Bool(_) => 7,
            W::Str(_) => 8,
            W::Arr(..) => 9,
            W::U64(_) => 10,
            W::I64(_) => 11,
            W::F64(_) => 12,
        }
    }
}

/// Builds GGUF files of any version (1–3) and byte order, following ggml/docs/gguf.md.
#[derive(Debug, Clone)]
pub struct GgufBuilder {
    pub version: u32,
    pub big_endian: bool,
    pub kvs: Vec<(String, W)>,
    /// (name, dims in ggml order, ggml type id, relative offset)
    pub tensors: Vec<(String, Vec<u64>, u32, u64)>,
    /// Alignment used for padding (must match general.alignment if that key is set).
    pub alignment: u64,
    /// Bytes of tensor data to append after the padding.
    pub data_len: u64,
}

impl GgufBuilder {
    pub fn new(version: u32) -> Self {
        GgufBuilder {
            version,
            big_endian: false,
            kvs: Vec::new(),
            tensors: Vec::new(),
            alignment: 32,
            data_len: 0,
        }
    }

    pub fn kv(mut self, key: &str, v: W) -> Self {
        self.kvs.push((key.to_string(), v));
        self
    }

    pub fn tensor(mut self, name: &str, dims: &[u64], ty: u32, rel: u64) -> Self {
        self.tensors
            .push((name.to_string(), dims.to_vec(), ty, rel));
        self
    }

    fn num(&self, out: &mut Vec<u8>, le: &[u8]) {
        if self.big_endian {
            out.extend(le.iter().rev());
        } else {
            out.extend(le);
        }
    }

    fn len(&self, out: &mut Vec<u8>, n: u64) {
        if self.version == 1 {
            self.num(out, &(n as u32).to_le_bytes());
        } else {
            self.num(out, &n.to_le_bytes());
        }
    }

    fn string(&self, out: &mut Vec<u8>, s: &[u8]) {
        self.len(out, s.len() as u64);
        out.extend(s);
    }

    fn value(&self, out: &mut Vec<u8>, v: &W) {
        match v {
            W::U8(x) => out.push(*x),
            W::I8(x) => out.push(*x as u8),
            W::U16(x) => self.num(out, &x.to_le_bytes()),
            W::I16(x) => self.num(out, &x.to_le_bytes()),
            W::U32(x) => self.num(out, &x.to_le_bytes()),
            W::I32(x) => self.num(out, &x.to_le_bytes()),
            W::F32(x) => self.num(out, &x.to_le_bytes()),
            W::Bool(x) => out.push(*x),
            W::Str(s) => self.string(out, s),
            W::Arr(t, items) => {
                self.num(out, &t.to_le_bytes());
                self.len(out, items.len() as u64);
                for i in items {
                    self.value(out, i);
                }
            }
            W::U64(x) => self.num(out, &x.to_le_bytes()),
            W::I64(x) => self.num(out, &x.to_le_bytes()),
            W::F64(x) => self.num(out, &x.to_le_bytes()),
        }
    }

    /// The file bytes; also returns the data-section offset.
    pub fn build_with_offset(&self) -> (Vec<u8>, u64) {
        let mut out = b"GGUF".to_vec();
        self.num(&mut out, &self.version.to_le_bytes());
        self.len(&mut out, self.tensors.len() as u64);
        self.len(&mut out, self.kvs.len() as u64);
        for (k, v) in &self.kvs {
            self.string(&mut out, k.as_bytes());
            self.num(&mut out, &v.type_id().to_le_bytes());
            self.value(&mut out, v);
        }
        for (name, dims, ty, rel) in &self.tensors {
            self.string(&mut out, name.as_bytes());
            self.num(&mut out, &(dims.len() as u32).to_le_bytes());
            for d in dims {
                self.len(&mut out, *d);
            }
            self.num(&mut out, &ty.to_le_bytes());
            self.num(&mut out, &rel.to_le_bytes());
        }
        let a = self.alignment as usize;
        while out.len() % a != 0 {
            out.push(0);
        }
        let off = out.len() as u64;
        out.extend(std::iter::repeat_n(0u8, self.data_len as usize));
        (out, off)
    }

    pub fn build(&self) -> Vec<u8> {
        self.build_with_offset().0
    }
}

/// A local file read by range, counting every byte handed out.
pub struct CountingFile {
    inner: weightpeek::source::file::FileSource,
    pub bytes: u64,
    pub reads: Vec<(u64, u64)>,
}

impl CountingFile {
    pub fn open(p: &Path) -> Self {
        let inner = weightpeek::source::file::FileSource::open(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        CountingFile {
            inner,
            bytes: 0,
            reads: Vec::new(),
        }
    }
}

/// The app's own file source, with every read recorded.
impl ByteSource for CountingFile {
    fn size(&self) -> u64 {
        self.inner.size()
    }

    async fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SourceError> {
        let buf = self.inner.read(offset, len).await?;
        self.bytes += len;
        self.reads.push((offset, len));
        Ok(buf)
    }
}

/// `../shared` (or `$WEIGHTPEEK_SHARED`).
pub fn shared_dir() -> PathBuf {
    std::env::var_os("WEIGHTPEEK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
}

/// The fetch-real-models cache (`$WEIGHTPEEK_DATA`, default `~/.cache/weightpeek-data`).
pub fn data_dir() -> PathBuf {
    std::env::var_os("WEIGHTPEEK_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/weightpeek-data")
        })
}

pub fn required() -> bool {
    std::env::var("WEIGHTPEEK_REQUIRE_REFERENCE").is_ok_and(|v| v == "1")
}

/// `$WEIGHTPEEK_REFERENCE_DIR` (default `target/reference`): the reference scripts' output.
pub fn reference_dir() -> PathBuf {
    std::env::var_os("WEIGHTPEEK_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/reference"))
}

/// Loads `$WEIGHTPEEK_REFERENCE_DIR/<key>.json` (default `target/reference`). When it is missing
/// the test fails under the README's test command (`WEIGHTPEEK_REQUIRE_REFERENCE=1`), and is
/// skipped with a message in a bare `cargo test`.
pub fn reference(key: &str) -> Option<serde_json::Value> {
    let p = reference_dir().join(format!("{key}.json"));
    match std::fs::read(&p) {
        Ok(b) => Some(serde_json::from_slice(&b).expect("reference JSON")),
        Err(e) => {
            assert!(
                !required(),
                "reference {} missing ({e}); run scripts/test.sh",
                p.display()
            );
            eprintln!(
                "SKIP: reference {} missing; run scripts/test.sh",
                p.display()
            );
            None
        }
    }
}

/// A real file that must exist under the test command; skipped in a bare `cargo test`.
pub fn real_file(p: PathBuf) -> Option<PathBuf> {
    if p.exists() {
        return Some(p);
    }
    assert!(!required(), "{} missing; run scripts/test.sh", p.display());
    eprintln!("SKIP: {} missing", p.display());
    None
}

/// Reads a file's header as the app does locally (`ReadPolicy::LOCAL`) through a
/// [`CountingFile`], which is returned with the bytes and reads it counted.
pub fn open_model(p: &Path) -> (OpenedModel, CountingFile) {
    let mut src = CountingFile::open(p);
    let (m, _) = block_on_ready(read_model(&mut src, &ReadPolicy::LOCAL))
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (m.into(), src)
}

/// `DIR/expected.json`, as a reference script wrote it.
pub fn expected_json(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

/// Runs the `weightpeek` binary with `args` (in `cwd` when given; `HF_ENDPOINT` set to
/// `endpoint` when given, else unset; `HF_TOKEN` unset): exit status, stdout, stderr.
pub fn run_cli(args: &[&str], cwd: Option<&Path>, endpoint: Option<&str>) -> (i32, String, String) {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_weightpeek"));
    c.args(args)
        .env_remove("HF_TOKEN")
        .env_remove("HF_ENDPOINT");
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    if let Some(e) = endpoint {
        c.env("HF_ENDPOINT", e);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `weightpeek FILE --check`'s exit status and the codes of the findings `weightpeek FILE
/// --json` lists (panics when its output is not JSON).
pub fn cli_check_codes(file: &Path) -> (i32, Vec<String>) {
    let p = file.to_str().unwrap();
    let (code, _, err) = run_cli(&[p, "--check"], None, None);
    let (_, out, _) = run_cli(&[p, "--json"], None, None);
    let j: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}\n{err}", file.display()));
    let codes = j["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["code"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (code, codes)
}

/// `target/remote-fixtures` (tests/reference/remote_fixtures.py's sets), when written;
/// skipped in a bare `cargo test`, required under the test command.
pub fn remote_fixtures() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/remote-fixtures");
    real_file(root.join("split-gguf.json")).map(|_| root)
}

/// A generated set's reference facts (`target/remote-fixtures/<key>.json`).
pub fn fixture_reference(root: &Path, key: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(root.join(format!("{key}.json"))).unwrap()).unwrap()
}

/// The file names of a generated set's parts, in order, from its reference facts.
pub fn fixture_parts(reference: &serde_json::Value) -> Vec<String> {
    reference["parts"]
        .as_array()
        .expect("parts in the reference")
        .iter()
        .map(|p| p.as_str().expect("a part name").to_string())
        .collect()
}

/// A reference float text (Python repr, or NaN / Infinity / -Infinity) as an f64.
pub fn float(s: &serde_json::Value) -> f64 {
    s.as_str().unwrap().parse::<f64>().unwrap()
}

/// Two doubles are the same value: equal bits, or both NaN.
pub fn same_float(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// Whether `got` is the reference value `want` (text written by a reference script: an
/// integer's digits, a float's repr or NaN / Infinity / -Infinity, true / false, [re, im]) of
/// a value of `kind` (`integer`, `boolean`, `complex`, `float`), exactly.
pub fn same(kind: &str, got: Exact, want: &serde_json::Value) -> bool {
    match (kind, got) {
        ("integer", Exact::Int(i)) => want.as_str() == Some(&i.to_string()),
        ("integer", Exact::UInt(u)) => want.as_str() == Some(&u.to_string()),
        ("boolean", Exact::Bool(b)) => want.as_str() == Some(if b { "true" } else { "false" }),
        ("complex", Exact::Complex(re, im)) => {
            same_float(f64::from(re), float(&want[0])) && same_float(f64::from(im), float(&want[1]))
        }
        ("complex", Exact::Complex128(re, im)) => {
            same_float(re, float(&want[0])) && same_float(im, float(&want[1]))
        }
        // A float kind, or a complex tensor's statistics (of |z|).
        ("float" | "complex", Exact::F32(v)) => same_float(f64::from(v), float(want)),
        ("float" | "complex", Exact::F64(v)) => same_float(v, float(want)),
        _ => false,
    }
}

/// The kind of a dtype's values, as the reference scripts name it.
pub fn kind_of(dtype: &str) -> &'static str {
    match dtype {
        "BOOL" => "boolean",
        "C64" | "C128" | "C32" => "complex",
        d if d.starts_with('I') || d.starts_with('U') => "integer",
        _ => "float",
    }
}

/// Checks a model's tensors against a reference script's list (`want`: objects with `name`,
/// `dtype`, `shape`, `bytes`, and optionally `contiguous` or `previewable` false — a preview must
/// then refuse it —, `first` and `last_row` values as text): the same names in order, dtypes,
/// shapes and byte sizes, and the previews of the default window and of the last row show the
/// reference's values exactly. Returns how many tensors were previewed.
pub fn check_tensors<S: ByteSource>(
    file: &str,
    m: &OpenedModel,
    src: &mut S,
    want: &[serde_json::Value],
) -> usize {
    use weightpeek::preview::{preview_tensor, WindowRequest};
    let names: Vec<&str> = m.tensors.iter().map(|t| t.name.as_str()).collect();
    let want_names: Vec<&str> = want.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, want_names, "{file}: tensor names in order");
    let mut previewed = 0;
    for (t, w) in m.tensors.iter().zip(want) {
        let label = format!("{file} {}", t.name);
        let dtype = w["dtype"].as_str().unwrap();
        assert_eq!(t.dtype.label().replace(" (unknown)", ""), dtype, "{label}");
        assert_eq!(t.shape, shape_of(w), "{label}");
        assert_eq!(t.bytes, w["bytes"].as_u64(), "{label}: bytes");
        let default = WindowRequest::default();
        let refused = w["contiguous"] == false || w["previewable"] == false;
        if refused {
            let e = block_on_ready(preview_tensor(m, src, &t.name, &default)).unwrap_err();
            assert!(!e.to_string().is_empty(), "{label}");
        }
        // A structured array's fields: each previews as numpy's `arr['x']`.
        for fw in w["field_values"].as_array().into_iter().flatten() {
            let field = fw["field"].as_str().unwrap();
            let label = format!("{label}['{field}']");
            let req = WindowRequest {
                field: Some(field.to_string()),
                ..Default::default()
            };
            if fw["previewable"] == false {
                let e = block_on_ready(preview_tensor(m, src, &t.name, &req)).unwrap_err();
                assert!(e.to_string().contains("NumPy dtype"), "{label}: {e}");
                continue;
            }
            if fw.get("first").is_none() {
                // A field of an array with a zero dimension: 0 values, nothing read.
                let p = block_on_ready(preview_tensor(m, src, &t.name, &req))
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!((p.stats.count, p.bytes_read), (0, 0), "{label}");
                assert_eq!(p.shape, shape_of(fw), "{label}");
                continue;
            }
            if check_values(&label, m, src, &t.name, &req, fw) {
                previewed += 1;
            }
        }
        if check_values(&label, m, src, &t.name, &WindowRequest::default(), w) {
            previewed += 1;
        }
    }
    previewed
}

/// A reference entry's `shape`, as numbers.
fn shape_of(w: &serde_json::Value) -> Vec<u64> {
    w["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect()
}

/// Compares the preview of `name` (with `base`'s field, if any) with the reference entry `w`:
/// its dtype and shape when it names them, the default window's first values and the last
/// row's (`w["first"]`, `w["last_row"]`). `false` when `w` has no values to compare.
fn check_values<S: ByteSource>(
    label: &str,
    m: &OpenedModel,
    src: &mut S,
    name: &str,
    base: &weightpeek::preview::WindowRequest,
    w: &serde_json::Value,
) -> bool {
    use weightpeek::preview::{preview_tensor, WindowRequest};
    let Some(first) = w.get("first").and_then(serde_json::Value::as_array) else {
        return false;
    };
    let dtype = w["dtype"].as_str().unwrap();
    let kind = kind_of(dtype);
    let p = block_on_ready(preview_tensor(m, src, name, base))
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(p.dtype, dtype, "{label}");
    assert_eq!(p.shape, shape_of(w), "{label}");
    assert_eq!(p.field, base.field, "{label}");
    assert_eq!(
        p.first_values.len(),
        first.len().min(p.stats.count as usize),
        "{label}"
    );
    for (k, (v, want)) in p.first_values.iter().zip(first).enumerate() {
        assert!(
            same(kind, v.value, want),
            "{label}: value {k} {:?}, reference {want}",
            v.value
        );
    }
    let last = p.window.geometry.rows - 1;
    let req = WindowRequest {
        rows: Some(last..last + 1),
        ..base.clone()
    };
    let p = block_on_ready(preview_tensor(m, src, name, &req)).unwrap();
    let last_row = w["last_row"].as_array().unwrap();
    for (k, (v, want)) in p.first_values.iter().zip(last_row).enumerate() {
        assert!(
            same(kind, v.value, want),
            "{label}: last row value {k} {:?}, reference {want}",
            v.value
        );
    }
    true
}
