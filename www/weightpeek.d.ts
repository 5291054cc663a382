// TypeScript declarations for weightpeek.js: the <weightpeek-view> element and the JavaScript
// API. The objects follow the CLI's JSON (`weightpeek FILE --json`, `--tensor NAME --json`);
// fields not listed here are present too (see the README's JSON section).

/** Where a model is read from: a URL (Hugging Face URL forms included; a split GGUF part or a
 * `model.safetensors.index.json` opens the whole set), a list of shard URLs read as one
 * model, or local files (only headers are read; nothing is uploaded): a File/Blob, or Files
 * given together, as an array or a FileList, which open as one model when they form a set
 * (every part of a split GGUF, an index with its shards, numbered shards; a config.json
 * along is used, other files are reported in `set.strays`). */
export type Source = string | string[] | Blob | Blob[] | FileList;

/** A file given with the model that was not merged into it, and why. */
export interface Stray {
  name: string;
  why: string;
}

/** How a model stored in several files was opened (`ModelSummary.set`). */
export interface SetInfo {
  /** "gguf-split", "safetensors-shards", or "" for one file given with strays. */
  kind: string;
  /** Files the whole model has. */
  files_expected: number;
  /** Files of the set that were read, in part order. */
  files_read: string[];
  /** Files of the set that were not given, not found, or could not be read. */
  missing: string[];
  /** Tensors the whole model has, when a file says. */
  model_tensors: number | null;
  /** The safetensors index read, if any. */
  index: string | null;
  strays: Stray[];
  [field: string]: unknown;
}

export interface Options {
  /** Hub endpoint for Hugging Face URL forms (default "https://huggingface.co"). */
  endpoint?: string;
  /** Access token for gated/private repos; sent only to the endpoint's origin. */
  token?: string;
  /** Aborting it cancels every request of the call. */
  signal?: AbortSignal;
  /** Display name of a Blob (a File's own name otherwise). */
  name?: string;
}

export interface DtypeRow {
  dtype: string;
  tensors: number;
  elements: number;
  bytes: number;
  bits_per_weight: number | null;
}

export interface TensorRow {
  name: string;
  dtype: string;
  shape: number[];
  elements: number | null;
  bytes: number | null;
  offset: number;
  /** Why a size is unknown, for unusual rows. */
  note?: string;
  /** 0-based file of a sharded set. */
  part?: number;
}

export interface MetadataEntry {
  key: string;
  /** GGUF value type name: "UINT8" … "UINT64", "INT8" … "INT64", "FLOAT32", "FLOAT64", "BOOL",
   * "STRING", "ARRAY" (safetensors `__metadata__` entries are "STRING"). */
  type: string;
  /** The value; an integer a double cannot hold exactly (past 2^53, e.g. a UINT64) is a
   * string of its digits, as the CLI's JSON writes them. An array is
   * `{elem_type, count, head}`: its element type, its length and its first items. */
  value: unknown;
}

/** A validation finding (the Checks tab, `weightpeek FILE --check`). */
export interface Finding {
  severity: "error" | "warning" | "info";
  /** Stable code, e.g. "tensor-beyond-eof", "quant-config-missing". */
  code: string;
  message: string;
  /** Byte offset in the file, when the finding has one. */
  offset: number | null;
  tensor: string | null;
}

/** A non-fatal oddity the parser met. */
export interface ParseWarning {
  field: string;
  offset: number;
  message: string;
}

/** The architecture card (GGUF `general.architecture` and its keys). */
export interface Architecture {
  architecture: string;
  name: string | null;
  /** `general.file_type` by name, e.g. "MOSTLY_Q4_K_M (15)". */
  file_type: string | null;
  rows: { label: string; key: string; value: string; number: number | null }[];
}

/** The per-layer quantisation map: for each role, the type of each layer's tensor. */
export interface LayerMap {
  layers: number[];
  roles: { role: string; cells: (string | null)[]; [field: string]: unknown }[];
}

/** The CLI's `--json`: the summary of one model (or of a sharded set, merged). */
export interface ModelSummary {
  /** "gguf" or "safetensors". */
  format: "gguf" | "safetensors";
  /** GGUF version (1–3). */
  version?: number;
  endianness: "little" | "big";
  /** GGUF data alignment (bytes). */
  alignment?: number;
  file_size: number;
  header_size: number;
  tensor_count: number;
  metadata_count: number;
  /** Parameters (elements of all tensors; a training checkpoint's optimizer state apart). */
  parameter_count: number;
  /** Bytes of tensor data (the optimizer state's apart). */
  tensor_bytes: number;
  /** A PyTorch training checkpoint's optimizer state (optimizer.state…, Lightning's
   * optimizer_states…), not counted in the parameters. */
  optimizer_state?: { tensors: number; values: number; bytes: number };
  /** Bits per weight over all tensors (tensor_bytes × 8 / parameters). */
  bits_per_weight: number | null;
  dtypes: DtypeRow[];
  tensors: TensorRow[];
  metadata: MetadataEntry[];
  warnings: ParseWarning[];
  findings: Finding[];
  architecture?: Architecture;
  layers: LayerMap;
  /** Present when the model was opened from several files or is one part of several: the
   * counts above are then those of the files read. */
  set?: SetInfo;
  /** Quantised safetensors (GPTQ, AWQ, bitsandbytes, FP8, MXFP4, MLX, compressed-tensors):
   * the layout and the logical parameters / effective bits per weight (then also in
   * parameter_count and bits_per_weight). See the README. */
  quantization?: {
    layout: string;
    logical_parameters: number;
    stored_elements: number;
    tensor_bytes: number;
    bits_per_weight: number | null;
    config_source: string | null;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** inspect() rejects with this when the header could be read only in part: `partial` holds
 * what was read before the damage (the message names the field and byte offset). */
export interface PartialReadError extends Error {
  partial?: ModelSummary;
}

export interface Stats {
  count: number;
  finite: number;
  zeros: number;
  nan: number;
  pos_inf: number;
  neg_inf: number;
  /** Exact min / max of the stored type (a boolean for BOOL; |z| for complex values). */
  min: number | boolean | null;
  max: number | boolean | null;
  mean: number | null;
  std: number | null;
  mean_abs: number | null;
}

/** The CLI's `--tensor NAME --json`, plus the window's values. */
export interface TensorPreview {
  tensor: string;
  /** The field previewed, for a NumPy structured array (then dtype and shape are the
   * field's: the array's shape followed by the field's subarray shape). */
  field?: string;
  dtype: string;
  shape: number[];
  /** What a row is, in words (GGUF: the first, contiguous dimension ne0). */
  row_is: string;
  /** The rows and columns shown and the one byte range read. */
  window: {
    rows: { start: number; end: number };
    cols: { start: number; end: number };
    read_offset: number;
    read_len: number;
    /** All bytes of the tensor. */
    tensor_bytes: number;
    geometry: { rows: number; row_values: number; row_bytes: number; [field: string]: unknown };
    [field: string]: unknown;
  };
  bytes_read: number;
  stats: Stats;
  /** Histogram of the finite values: counts[i] between edges[i] and edges[i + 1]. */
  histogram: { edges: number[]; counts: number[] };
  /** What the values are; for "complex" the statistics, histogram and heatmap are of |z|. */
  values_are: "float" | "integer" | "boolean" | "complex";
  /**
   * The first values, exact: `value` is a number (null when NaN or infinite), an integer, a
   * boolean or `[re, im]`; JSON.parse rounds integers past 2^53, so `text` has every digit.
   */
  first_values: { row: number; col: number; index: number; value: number | boolean | [number | null, number | null] | null; text: string }[];
  /** The window's heatmap (the grid's size and colour limit; cells are not included). */
  heatmap: { [field: string]: unknown };
  /** Per-block scales, for block-quantised GGUF types with one scale per block. */
  block_scales?: { field: string; block_values: number; stats: Stats; [field: string]: unknown };
  /** Where the bytes came from when not the model file's range: `from the side file "w.bin"`
   * (ONNX external data), `deflated member: N compressed bytes read` (then bytes_read counts
   * the compressed bytes), a structured array's field gathered from its elements. */
  read_note?: string;
  /**
   * The window's values, row-major (rows × cols), dequantised as ggml does: a Float32Array, a
   * Float64Array for F64 and 32-/64-bit integers (a 64-bit integer past 2^53 is its nearest
   * double), or for C64 and C32 a Float32Array, for C128 a Float64Array, of 2 × rows × cols
   * numbers (re, im pairs).
   */
  values: Float32Array | Float64Array;
  [field: string]: unknown;
}

/** A window of a tensor: end-exclusive [start, end] or "start..end". */
export interface Window {
  rows?: [number, number] | string;
  cols?: [number, number] | string;
  /** A NumPy structured array's field (numpy's `arr['x']`; nested: `outer.inner`). */
  field?: string;
}

/** Reads the header of a model and summarises it. Rejects with an Error saying what failed. */
export function inspect(source: Source, options?: Options): Promise<ModelSummary>;

/** Dequantises one window of a tensor, reading only its bytes. */
export function preview(
  source: Source,
  tensorName: string,
  window?: Window,
  options?: Options,
): Promise<TensorPreview>;

/** A GPU for fit(): its free memory as bytes or a size ("24GiB", "12 GB", a card such as
 * "rtx4090"); `name` defaults to "GPU i" (or "GPU i: <card>"). A bare size works too. */
export type FitGpu = { name?: string; bytes: number } | { name?: string; size: string } | string | number;

/** What fit() places onto. */
export interface FitDevices {
  /** GPUs in llama.cpp's device order; default one 8 GiB GPU; [] for none. */
  gpus?: FitGpu[];
  /** System RAM: bytes or a size; default 16 GiB. */
  ram?: number | string;
}

export interface FitOptions extends Options {
  /** Context length in tokens; default the model's own. */
  context?: number;
  /** KV cache type; default "f16". */
  kv?: "f16" | "q8_0" | "q4_0";
  /** Bytes (or a size) kept free on every GPU; default 1 GiB (llama.cpp's --fit margin). */
  margin?: number | string;
}

/** What the plan puts on one device (bytes). */
export interface DeviceLoad {
  weights: number;
  kv: number;
  compute: number;
  /** Repeating layers (blk.N) on it. */
  layers: number[];
  /** Whether it holds the output layer. */
  output: boolean;
  [field: string]: unknown;
}

/** One device of a plan: "GPU 0" … then "RAM". */
export interface DeviceUse {
  name: string;
  free_bytes: number;
  /** free − margin for a GPU; all of it for the RAM. */
  budget_bytes: number;
  /** weights + KV + compute placed there. */
  bytes: number;
  load: DeviceLoad;
}

/** The plan of fit(), as `weightpeek fit … --json` prints it. */
export interface FitPlan {
  architecture: string;
  context: number;
  cells: number;
  kv_type: "f16" | "q8_0" | "q4_0";
  margin: number;
  block_count: number;
  moe: boolean;
  /** "gpu": everything on the GPUs; "offload": part in RAM; "no": does not fit. */
  fits: "gpu" | "offload" | "no";
  /** -ngl: repeating layers + the output layer on the GPUs. */
  gpu_layers: number;
  /** --n-cpu-moe (0 for none). */
  cpu_moe: number;
  /** --tensor-split (layer slots per GPU), with more than one GPU. */
  tensor_split: number[] | null;
  /** GPUs in order, then the RAM. */
  devices: DeviceUse[];
  /** The llama.cpp command line of the plan. */
  command: string;
  /** The same with -ot instead of --n-cpu-moe. */
  command_ot: string | null;
  layers_only: { fits: "gpu" | "offload" | "no"; gpu_layers: number; command: string } | null;
  /** Largest context (a multiple of 256) with everything on the GPUs. */
  max_context_gpu: number | null;
  /** Largest context that fits at all. */
  max_context: number | null;
  context_limit: number;
  notes: string[];
  [field: string]: unknown;
}

/** Plans a GGUF model on the devices from its header alone. Rejects for bad devices or
 * options, an unreadable model, or no plan (not GGUF). */
export function fit(source: Source, devices?: FitDevices, options?: FitOptions): Promise<FitPlan>;

/** One tensor's scan (`weightpeek scan --json`'s `tensors[]`). Statistics are over the finite
 * values; absent (with `skipped` saying why) when the tensor was not scanned. */
export interface ScanTensor {
  name: string;
  /** Its type: "Q4_K", "F16", "F32", … */
  type: string;
  /** Index of the file holding it, in the model's part order (0 for one file). */
  part: number;
  /** Bytes of its data read. */
  bytes_read: number;
  count?: number;
  nan?: number;
  inf?: number;
  zeros?: number;
  /** Smallest and largest finite value exactly as stored (an integer with every digit, which
   * JavaScript's JSON.parse rounds past 2^53; `[re, im]` for complex values). */
  min?: number | boolean | [number, number] | null;
  max?: number | boolean | [number, number] | null;
  /** Mean and population standard deviation (numpy's `std`, ddof = 0), in float64. */
  mean?: number | null;
  std?: number | null;
  /** Finite nonzero values by binary exponent: bin k counts 2^(k-32) <= |x| < 2^(k-31), the
   * two end bins open (48 bins). */
  magnitudes?: number[];
  /** Blocks whose scales were judged (block types), and the NaN and infinite scales in them. */
  blocks: number;
  scale_nan: number;
  scale_inf: number;
  /** Absolute byte offset of the first block holding a NaN/Inf value or scale; null when
   * there is none, or when the bytes are not the file's as stored (a deflated .npz member,
   * an ONNX typed field). */
  first_bad_offset: number | null;
  /** Why it was not scanned, or where its read stopped. */
  skipped: string | null;
  /** The read failed or the bytes do not decode (rather than: its type is not decoded). */
  failed: boolean;
}

/** The result of scan(): `weightpeek scan MODEL --json`. */
export interface ScanResult {
  file: string;
  /** Bytes of tensor data read. */
  bytes_read: number;
  /** Tensors read at once (the worker's lanes). */
  threads: number;
  tensors: ScanTensor[];
  /** As `--check` gives them: "scan-non-finite-values", "scan-non-finite-scales",
   * "scan-unreadable" (errors), "scan-all-zero", "scan-outlier" (warnings), "scan-not-scanned". */
  findings: Finding[];
}

export interface ScanOptions extends Options {
  /** Told the tensor bytes read so far and in all, at most every 100 ms and at the end. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Told each tensor's result as it is done (by file, then offset, within each Worker). */
  onTensor?: (tensor: ScanTensor) => void;
  /** Web Workers that scan local files, each a share of the tensors (default: the cores but
   * one, at most 4; a remote model is read by one). */
  workers?: number;
}

/** Scans every tensor's data in a Web Worker (the page stays responsive). Aborting
 * `options.signal` ends the worker, stopping its reads, and rejects with the signal's reason.
 * Rejects when the model cannot be opened; a tensor that cannot be read is a result. */
export function scan(source: Source, options?: ScanOptions): Promise<ScanResult>;

/** Loads the wasm module (once per page); inspect() and the element call it themselves. */
export function load(): Promise<unknown>;

/** How many element views, and preview panels open in them, are alive (0 after every element was removed). */
export function liveViews(): Promise<number>;

/** `<weightpeek-view src tab tensor filter height theme endpoint gpu ram ctx kv margin>`
 * (`tab="fit"`: the plan on the devices of `gpu` (a comma list of sizes or cards, "0" for
 * none), `ram`, `ctx`, `kv`, `margin`). */
export class WeightpeekView extends HTMLElement {
  /** Shows local files instead of `src` (headers only; nothing is uploaded): a File/Blob
   * (`name`: its display name), or Files given together (an array or a FileList), which open
   * as one model when they form a set. */
  open(files: Blob | Blob[] | FileList, name?: string): Promise<void>;
}

/** The element's state, also in its `data-state` attribute. */
export type ViewState = "idle" | "loading" | "ready" | "error";

declare global {
  interface HTMLElementTagNameMap {
    "weightpeek-view": WeightpeekView;
  }
  interface HTMLElementEventMap {
    /** Fired by <weightpeek-view> (bubbling, composed) whenever its state changes. */
    "weightpeek-state": CustomEvent<ViewState>;
  }
}
