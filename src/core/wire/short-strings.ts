/**
 * Agent and tracer payloads repeat the same short strings over and over (map keys, tag strings,
 * service and metric names, `env`): decoding each occurrence anew allocated most of the strings of
 * a payload, and every fresh string must be hashed again when it is used as a Map key. A short
 * ASCII string is looked up by hash in a small process-wide cache and the earlier string returned;
 * a collision merely replaces the slot, so the cache stays bounded (4096 strings of ≤ 32 bytes).
 */
export const SHORT_STRING_BYTES = 32;
const SLOTS = 4096;
const cache: (string | undefined)[] = new Array(SLOTS);

/** The string of `bytes[at, at + length)` when short and ASCII; undefined otherwise (decode it as UTF-8). */
export function shortAscii(bytes: Uint8Array, at: number, length: number): string | undefined {
  if (length > SHORT_STRING_BYTES) return undefined;
  let hash = length;
  for (let i = at; i < at + length; i++) {
    const b = bytes[i] as number;
    if (b >= 0x80) return undefined;
    hash = (Math.imul(hash, 31) + b) | 0;
  }
  const slot = hash & (SLOTS - 1);
  const cached = cache[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === bytes[at + i]) i++;
    if (i === length) return cached;
  }
  const decoded = String.fromCharCode.apply(null, bytes.subarray(at, at + length) as unknown as number[]);
  cache[slot] = decoded;
  return decoded;
}
