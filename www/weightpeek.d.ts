// TypeScript declarations for weightpeek.js: the <weightpeek-view> element and the JavaScript
// API. The objects follow the CLI's JSON (`weightpeek FILE --json`, `--tensor NAME --json`);
// fields not listed here are present too (see the README's JSON section).

/** Where a model is read from: a URL (Hugging Face URL forms included; a split GGUF part or a
 * `model.safetensors.index.json` opens the whole set), a list of shard URLs read as one
 * model, or a local File/Blob (only its header is read; nothing is uploaded). */
export type Source = string | string[] | Blob;

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
  /** GGUF value type (`u32`, `string`, `array`, …); `string` for safetensors `__metadata__`. */
  type: string;
  value: unknown;
}

/** The CLI's `--json`: the summary of one model (or of a sharded set, merged). */
export interface ModelSummary {
  /** "GGUF" or "safetensors". */
  format: string;
  file_size: number;
  header_size: number;
  tensor_count: number;
  metadata_count: number;
  /** Parameters (elements of all tensors). */
  parameter_count: number;
  /** Bytes of tensor data. */
  tensor_bytes: number;
  /** Bits per weight over all tensors (tensor_bytes × 8 / parameters). */
  bits_per_weight: number | null;
  dtypes: DtypeRow[];
  tensors: TensorRow[];
  metadata: MetadataEntry[];
  [field: string]: unknown;
}

export interface Stats {
  count: number;
  finite: number;
  zeros: number;
  nan: number;
  pos_inf: number;
  neg_inf: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  std: number | null;
  mean_abs: number | null;
}

/** The CLI's `--tensor NAME --json`, plus the window's values. */
export interface TensorPreview {
  tensor: string;
  dtype: string;
  shape: number[];
  /** The rows and columns shown and the one byte range read. */
  window: {
    rows: { start: number; end: number };
    cols: { start: number; end: number };
    read_offset: number;
    read_len: number;
    [field: string]: unknown;
  };
  bytes_read: number;
  stats: Stats;
  /** Histogram of the finite values: counts[i] between edges[i] and edges[i + 1]. */
  histogram: { edges: number[]; counts: number[] };
  first_values: { row: number; col: number; index: number; value: number | null; text: string }[];
  /** The window's values, row-major (rows × cols), dequantised as ggml does. */
  values: Float32Array;
  [field: string]: unknown;
}

/** A window of a tensor: end-exclusive [start, end] or "start..end". */
export interface Window {
  rows?: [number, number] | string;
  cols?: [number, number] | string;
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

/** Loads the wasm module (once per page); inspect() and the element call it themselves. */
export function load(): Promise<unknown>;

/** How many element views are alive (0 after every element was removed). */
export function liveViews(): Promise<number>;

/** `<weightpeek-view src tab tensor filter height theme endpoint>`. */
export class WeightpeekView extends HTMLElement {
  /** Shows a local File or Blob instead of `src` (header only; nothing is uploaded). */
  open(blob: Blob, name?: string): Promise<void>;
}

declare global {
  interface HTMLElementTagNameMap {
    "weightpeek-view": WeightpeekView;
  }
}
