// Little-endian GGUF building blocks (ggml/docs/gguf.md) for end-to-end tests that make their own
// files: u32, u64, a length-prefixed string, and a v3 header with counts.
export const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
export const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
export const str = (s) => { const b = Buffer.from(s, 'utf8'); return Buffer.concat([u64(b.length), b]); };
export const ggufHead = (tensors, kvs) => Buffer.concat([Buffer.from('GGUF'), u32(3), u64(tensors), u64(kvs)]);
/** Metadata value type ids. */
export const STRING = 8;
export const ARRAY = 9;
