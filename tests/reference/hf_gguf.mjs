// Dump a GGUF header as parsed by the npm package @huggingface/gguf, as JSON on stdout.
//
// Why this exists: gguf-py's GGUFReader (our main reference) only reads GGUF v2 and v3.
// For GGUF v1 files (u32 counts and string lengths) reference.py calls this helper, so the
// expected values still come from an independent, published reader rather than from us.
// reference.py also uses it with --cross-check to compare the two readers on v2/v3 files.
//
// Usage: node tests/reference/hf_gguf.mjs FILE
// Install: (cd tests/reference && npm ci)   # pins @huggingface/gguf 0.4.6
//
// Output (values are made JSON-safe; reference.py turns them into its schema):
// { "reference": "@huggingface/gguf X.Y.Z", "version", "little_endian", "tensor_count",
//   "kv_count", "alignment", "data_offset", "header_end",
//   "metadata": [{"key", "type" (GGUFValueType id), "sub_type" (arrays), "value"}] in file order,
//   "tensors": [{"name", "shape" (as stored, ne0 first), "type_id", "offset" (relative)}] }
// Integers that may not fit in a double (bigint) are emitted as decimal strings; non-finite
// floats as "nan", "inf", "-inf".
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { gguf } from "@huggingface/gguf";

// Report the version of the copy that was actually imported (walk up from its entry point).
function importedPackage(spec) {
  let dir = dirname(fileURLToPath(import.meta.resolve(spec)));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8"));
      if (pkg.name === spec) return pkg;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find package.json of ${spec}`);
    dir = up;
  }
}
const pkg = importedPackage("@huggingface/gguf");

function jsonable(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number" && !Number.isFinite(v)) {
    return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  }
  if (Array.isArray(v)) return v.map(jsonable);
  return v;
}

const file = process.argv[2];
if (!file) {
  console.error("usage: node hf_gguf.mjs FILE");
  process.exit(2);
}
const out = await gguf(resolve(file), { allowLocalFile: true, typedMetadata: true });
const tm = out.typedMetadata;
// The first three entries are the library's own header pseudo-keys, not file metadata.
const PSEUDO = new Set(["version", "tensor_count", "kv_count"]);
const metadata = [];
for (const [key, entry] of Object.entries(tm)) {
  if (PSEUDO.has(key)) continue;
  const m = { key, type: entry.type, value: jsonable(entry.value) };
  if (entry.subType !== undefined) m.sub_type = entry.subType;
  metadata.push(m);
}
const alignment = out.metadata["general.alignment"] ?? 32;
process.stdout.write(
  JSON.stringify({
    reference: `${pkg.name} ${pkg.version}`,
    version: out.metadata.version,
    little_endian: out.littleEndian,
    tensor_count: out.metadata.tensor_count.toString(),
    kv_count: out.metadata.kv_count.toString(),
    alignment: Number(alignment),
    data_offset: out.tensorDataOffset.toString(),
    header_end: out.tensorInfoByteRange[1],
    metadata,
    tensors: out.tensorInfos.map((t) => ({
      name: t.name,
      shape: t.shape.map((d) => d.toString()),
      type_id: t.dtype,
      offset: t.offset.toString(),
    })),
  }),
);
