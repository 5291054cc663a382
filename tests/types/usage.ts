// Compiled by tests/e2e/types.test.mjs with `tsc --noEmit --strict`: the README's examples of
// the JavaScript API and the element, typed against www/weightpeek.d.ts. A declaration that
// drifts from what the examples use fails the test suite.
import { inspect, preview, fit, load, liveViews, WeightpeekView } from "../../www/weightpeek.js";
import type { ModelSummary, TensorPreview, Options, Window, PartialReadError, ViewState, SetInfo, FitPlan, FitDevices } from "../../www/weightpeek.js";

async function examples(file: File, signal: AbortSignal, picked: FileList): Promise<void> {
  await load();
  const options: Options = { endpoint: "https://huggingface.co", signal };
  const m: ModelSummary = await inspect("https://huggingface.co/o/r/resolve/main/model.safetensors", options);
  const total: number = m.tensor_count + m.parameter_count + m.tensor_bytes;
  const bpw: number | null = m.bits_per_weight;
  const names: string[] = m.tensors.map((t) => `${t.name} ${t.dtype} ${t.shape.join("x")}`);
  const types: string[] = m.dtypes.map((d) => `${d.dtype}: ${d.tensors} tensors, ${d.bytes} bytes`);
  const keys: string[] = m.metadata.map((e) => `${e.key} (${e.type})`);
  const local: ModelSummary = await inspect(file);
  const isGguf: boolean = local.format === "gguf";
  const errors: string[] = m.findings.filter((f) => f.severity === "error").map((f) => `${f.code} at ${f.offset}`);
  const arch: string | undefined = m.architecture?.name ?? m.architecture?.architecture;
  const logical: number | undefined = m.quantization?.logical_parameters;
  try {
    await inspect(file);
  } catch (e) {
    const partial: ModelSummary | undefined = (e as PartialReadError).partial;
    console.log(partial?.tensor_count);
  }
  const shards: ModelSummary = await inspect(["a-00001-of-00002.safetensors", "a-00002-of-00002.safetensors"]);
  // Files given together: a FileList or an array; a set says what was read and what is missing.
  const set: SetInfo | undefined = (await inspect(picked)).set;
  const missing: string[] = set?.missing ?? [];
  const strays: string[] = (await inspect([file, file])).set?.strays.map((s) => `${s.name}: ${s.why}`) ?? [];
  const w: Window = { rows: [0, 4], cols: "0..256" };
  const p: TensorPreview = await preview(file, "blk.0.attn_q.weight", w);
  const values: Float32Array | Float64Array = p.values;
  const mean: number | null = p.stats.mean;
  const read: number = p.window.read_len + p.bytes_read;
  const first: string[] = p.first_values.map((v) => v.text);
  const counts: number[] = p.histogram.counts;
  const scale: number | undefined = p.block_scales?.block_values;
  const rowIs: string = p.row_is;
  const devices: FitDevices = { gpus: [{ size: "24GiB" }, { name: "second", bytes: 12 * 2 ** 30 }, "rtx3060"], ram: "64GiB" };
  const plan: FitPlan = await fit("https://huggingface.co/o/r/resolve/main/model.gguf", devices, { context: 32768, kv: "q8_0", signal });
  const ngl: number = plan.gpu_layers;
  const perDevice: string[] = plan.devices.map((d) => `${d.name}: ${d.bytes} of ${d.budget_bytes}`);
  const runs: boolean = plan.fits !== "no";
  const cmd: string = plan.command + (plan.tensor_split?.join(",") ?? "") + (plan.max_context_gpu ?? 0);
  console.log(ngl, perDevice, runs, cmd, (await fit(file)).fits);
  const alive: number = await liveViews();
  const el: WeightpeekView = document.createElement("weightpeek-view");
  el.setAttribute("src", "https://huggingface.co/o/r/resolve/main/model.gguf");
  await el.open(file);
  el.setAttribute("tab", "fit");
  el.setAttribute("gpu", "24GiB,12GiB");
  await el.open(picked);
  await el.open([file]);
  el.addEventListener("weightpeek-state", (ev) => {
    const state: ViewState = ev.detail;
    console.log(state);
  });
  console.log(total, bpw, names, types, keys, local, shards, values, mean, read, first, counts, alive, el);
  console.log(isGguf, errors, arch, logical, scale, rowIs, missing, strays);
}

export { examples };
