/**
 * 128-bit trace ids. Datadog carries the low 64 bits in `trace_id` and the high 64 bits as 16 hex
 * chars in `_dd.p.tid`, usually on a chunk's first span only. The cache remembers low → high so
 * that spans in later payloads, and logs that carry only the decimal low half, get the same
 * 128-bit id as the span that announced `_dd.p.tid`. It is one instance per process, shared by
 * the traces and logs paths; bounded in entries and in age (upstream's is a 100-entry LRU).
 */

import { ExpiringMap } from './recency-map';

const U64 = (1n << 64n) - 1n;
const U128 = (1n << 128n) - 1n;

export interface TraceIdCacheOptions {
  maxEntries: number;
  ttlMs: number;
}

export class TraceIdCache {
  /** low → high, least recently remembered first */
  private readonly entries: ExpiringMap<bigint, bigint>;
  constructor(options: TraceIdCacheOptions = { maxEntries: 100_000, ttlMs: 10 * 60_000 }, now: () => number = Date.now) {
    this.entries = new ExpiringMap(options.maxEntries, options.ttlMs, now);
  }

  remember(low: bigint, high: bigint): void {
    if (high !== 0n) this.entries.set(low, high);
  }

  highFor(low: bigint): bigint | undefined {
    return this.entries.get(low);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** `_dd.p.tid`: exactly 16 hex chars; anything else is ignored (logged by the caller). */
export function parseTid(value: string | undefined): bigint | undefined {
  return value !== undefined && /^[0-9a-fA-F]{16}$/.test(value) ? BigInt('0x' + value) : undefined;
}

/**
 * 1 when `t` has a hex letter, 0 when it is decimal digits only, -1 when it has anything else.
 * One pass over the characters where three regular expressions ran: the id parsers below run for
 * every log line dd-trace injected.
 */
function hexLetters(t: string): number {
  let letters = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) continue;
    const lower = c | 0x20;
    if (lower >= 0x61 && lower <= 0x66) letters = 1;
    else return -1;
  }
  return letters;
}

/**
 * A trace id as written by loggers: 32 (or fewer) hex chars when it has a hex letter or is 32
 * long, else decimal up to 39 digits (128 bits). Zero and unparseable → undefined.
 */
export function parseTraceIdText(text: string): bigint | undefined {
  const t = text.trim();
  const letters = t.length === 0 || t.length > 39 ? -1 : hexLetters(t);
  if (letters < 0 || (letters === 1 && t.length > 32)) return undefined;
  const id = letters === 1 || t.length === 32 ? BigInt('0x' + t) : BigInt(t);
  return id > 0n && id <= U128 ? id : undefined;
}

/** A span id: hex when it has a hex letter (≤ 16 chars), else decimal uint64 (≤ 20 digits). */
export function parseSpanIdText(text: string): bigint | undefined {
  const t = text.trim();
  const letters = t.length === 0 || t.length > 20 ? -1 : hexLetters(t);
  if (letters < 0 || (letters === 1 && t.length > 16)) return undefined;
  const id = letters === 1 ? BigInt('0x' + t) : BigInt(t);
  return id > 0n && id <= U64 ? id : undefined;
}

/**
 * `otel.trace_id` / `otel.span_id`: the ids of a span or log that began in OpenTelemetry, as the
 * collector's datadog exporter writes them (lower-case hex of the id's bytes: 32 chars for a trace
 * id, 16 for a span id). Exactly `hexChars` hex characters, not all zero; anything else → undefined.
 */
export function parseOtelHexId(text: string | undefined, hexChars: 32 | 16): bigint | undefined {
  if (text === undefined || text.length !== hexChars || hexLetters(text) < 0) return undefined;
  const id = BigInt('0x' + text);
  return id > 0n ? id : undefined;
}

/** Full id from a 64-bit low half: explicit high half, else what the cache learned. */
export function widenTraceId(id: bigint, tidHigh: bigint | undefined, cache: TraceIdCache): bigint {
  if (id > U64) return id;
  const high = tidHigh ?? cache.highFor(id);
  return high ? (high << 64n) | id : id;
}

const scratch = new DataView(new ArrayBuffer(16));
const scratchBytes = new Uint8Array(scratch.buffer);

/**
 * The 16 big-endian bytes of a trace id (< 2^128). Written through one DataView (which takes the
 * low 64 bits itself) and copied out: a pooled Buffer per id, `& U64` and Buffer's BigInt writers
 * cost a BigInt or two and a Buffer object per span.
 */
export function traceIdBytes(id: bigint): Uint8Array {
  scratch.setBigUint64(0, id > U64 ? id >> 64n : 0n);
  scratch.setBigUint64(8, id);
  return scratchBytes.slice(0, 16);
}

/** The 8 big-endian bytes of the low 64 bits of `id`. */
export function spanIdBytes(id: bigint): Uint8Array {
  scratch.setBigUint64(0, id);
  return scratchBytes.slice(0, 8);
}
