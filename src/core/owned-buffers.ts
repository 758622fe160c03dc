/**
 * Large Buffers this process made and is done with, handed back at the next young-generation GC
 * instead of the next full one.
 *
 * A Buffer's bytes live outside V8's heap and are freed when its ArrayBuffer object is collected. A
 * request body or an encoded export lives long enough (parsing, then the round trip to the
 * collector) to outlast two scavenges, so its ArrayBuffer is promoted and its bytes stay until a
 * mark-compact, which V8 starts only after ~64 MB of such growth: dead bodies were most of the
 * sidecar's peak RSS (docs/decisions/005-early-buffer-freeing.md). Detaching the ArrayBuffer moves
 * its bytes to a fresh, young ArrayBuffer that nothing references, so they go at the next scavenge.
 *
 * Only Buffers registered with {@link own} are ever freed: their ArrayBuffer was allocated by our
 * own code for them alone. Buffers an addon allocated (such as a former zstd module's output) may not
 * be detachable, and structuredClone would silently copy them instead; small Buffers share Node's
 * allocation pool with others.
 */

/** Below this, freeing early is not worth a registration. */
export const OWNED_MIN_BYTES = 64 * 1024;

/** Each owned ArrayBuffer, with the length of the one view of it that may free it (from byte 0). */
const owned = new WeakMap<ArrayBufferLike, number>();

/**
 * Registers `buffer` for {@link freeNow} when its ArrayBuffer is large and `buffer` starts at its
 * first byte; the caller vouches that this code allocated that ArrayBuffer (Buffer.allocUnsafe,
 * Buffer.concat) for `buffer` alone, which may leave unused bytes at its end (a decoder's output
 * sized from a bound). Returns `buffer`.
 */
export function own(buffer: Buffer): Buffer {
  // Node carves Buffers shorter than half of Buffer.poolSize (8 KiB on Node 20, 64 KiB on 24) out
  // of a shared pool: one at the pool's first byte must never pass, or freeing it would free
  // everything carved beside it. A view at least that long was not carved.
  if (buffer.byteOffset === 0 && buffer.buffer.byteLength >= OWNED_MIN_BYTES && buffer.byteLength >= Buffer.poolSize >>> 1) owned.set(buffer.buffer, buffer.byteLength);
  return buffer;
}

/**
 * Takes the memory under `buffer` (a view of it will do) out of early freeing, for good: native
 * code may still read it, e.g. a socket write not yet done.
 */
export function disown(buffer: Buffer): void {
  owned.delete(buffer.buffer);
}

/**
 * Frees an owned Buffer's bytes at the next scavenge; does nothing to any other Buffer. Every
 * view of its memory reads as empty from then on, so call it only once nothing will
 * read the bytes again, and no write of them is still pending.
 */
export function freeNow(buffer: Buffer): void {
  const memory = buffer.buffer;
  // any other view of an owned Buffer (a request re-pointed into a merged body) frees nothing
  if (buffer.byteOffset !== 0 || owned.get(memory) !== buffer.byteLength) return;
  owned.delete(memory);
  structuredClone(memory, { transfer: [memory as ArrayBuffer] });
}
