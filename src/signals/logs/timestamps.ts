/**
 * Timestamps: the first timestamp alias present, as epoch seconds, ms, µs or ns (told apart by
 * magnitude), a numeric string, or an ISO-8601 / RFC 3339 string (fractional seconds kept to the
 * ns). A missing or unusable timestamp falls back to the receive time: a record never lands at the
 * Unix epoch (ClickHouse would file it in 1970).
 */
import { TIMESTAMP_KEYS } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import type { LogStep } from './draft';
import { consumeOne } from './fields';

const NS_PER_MS = 1_000_000n;

const MAX_NS = (1n << 64n) - 1n;

/** Only what fits OTLP's fixed64: anything larger is not a time, and would not encode. */
const inRange = (ns: bigint): bigint | undefined => (ns > 0n && ns <= MAX_NS ? ns : undefined);

/** Epoch number in an unknown unit → ns. Cut-offs keep any date between 1973 and 5138 right. */
export function epochToNs(value: number | bigint): bigint | undefined {
  const v = typeof value === 'bigint' ? Number(value) : value;
  if (!Number.isFinite(v) || v <= 0) return undefined;
  if (v < 1e11) return inRange(BigInt(Math.round(v * 1e3)) * NS_PER_MS); // seconds (ms precision kept)
  if (v < 1e14) return inRange(BigInt(Math.round(v * 1e3)) * 1000n); // ms (µs precision kept)
  if (v < 1e17) return inRange(BigInt(Math.round(v)) * 1000n); // µs
  return inRange(typeof value === 'bigint' ? value : BigInt(Math.round(v))); // ns
}

const ISO = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d{1,9}))?\s*(Z|z|[+-]\d{2}:?\d{2})?$/;

/** RFC 3339 / ISO-8601 → ns, keeping sub-millisecond digits that Date.parse would drop. */
export function isoToNs(text: string): bigint | undefined {
  const m = ISO.exec(text.trim());
  if (!m) {
    // other common forms (RFC 1123, "Nov 21 2026 10:00:00"), but only when the text has both a
    // year and a time of day: Date.parse alone reads "version 2000" as a date
    if (!/\b\d{4}\b/.test(text) || !/\d{1,2}:\d{2}/.test(text)) return undefined;
    const ms = Date.parse(text);
    return Number.isNaN(ms) || ms <= 0 ? undefined : inRange(BigInt(ms) * NS_PER_MS);
  }
  const [, date, time, fraction = '', zone = 'Z'] = m;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${date}T${(time as string).length === 5 ? `${time}:00` : time}${offset}`);
  if (Number.isNaN(ms) || ms <= 0) return undefined;
  return inRange(BigInt(ms) * NS_PER_MS + BigInt(fraction.padEnd(9, '0')));
}

export function timestampToNs(value: JsonValue | undefined): bigint | undefined {
  if (typeof value === 'number') return epochToNs(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return /^\d+(\.\d+)?$/.test(value.trim()) ? epochToNs(/^\d+$/.test(value.trim()) && value.trim().length > 15 ? BigInt(value.trim()) : Number(value)) : isoToNs(value);
}

/**
 * The first alias that holds a usable time wins; unusable values stay visible as attributes. When
 * an earlier step set the time (a text line's own, a pipeline's date remapper), the alias it
 * replaced (the agent's read time) is consumed all the same: it is no attribute of the log.
 */
export const timestamps: LogStep = (draft) => {
  const decided = draft.timeUnixNano !== 0n;
  for (const key of TIMESTAMP_KEYS) {
    const value = draft.fields.get(key);
    if (value === undefined) continue;
    const ns = timestampToNs(value);
    if (ns === undefined) continue;
    draft.fields = consumeOne(draft.fields, key);
    if (!decided) draft.timeUnixNano = ns;
    return draft;
  }
  if (!decided) draft.timeUnixNano = draft.receivedAtNs;
  return draft;
};
