/**
 * JSON values → OTLP attributes. Objects are flattened into dotted keys (so `{"http":{"method":…}}`
 * and `http.method` are the same attribute, as Datadog's backend treats them), arrays stay arrays,
 * numbers become Int when they are safe integers and Double otherwise.
 */
import type { JsonValue } from '../../core/wire/json';
import type { AnyValue } from '../../core/otlp/model';

export function anyValue(value: JsonValue): AnyValue {
  if (value === null) return { string: '' };
  if (typeof value === 'string') return { string: value };
  if (typeof value === 'boolean') return { bool: value };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { int: BigInt(value) };
    // 1e400 parses to Infinity, which OTLP/JSON cannot carry as a double
    return Number.isFinite(value) ? { double: value } : { string: String(value) };
  }
  if (Array.isArray(value)) return { array: value.map(anyValue) };
  return { kvlist: Object.entries(value).map(([key, v]) => ({ key, value: anyValue(v) })) };
}

/** Where flattened fields go: a Map, or a table with Map.set's semantics (logs/fields.ts). */
export interface FieldSink {
  set(key: string, value: JsonValue): unknown;
}

/** One field under `name`: a non-empty object is spread over dotted keys, anything else kept. */
export function flattenValue(name: string, value: JsonValue, into: FieldSink): void {
  if (!isNonEmptyObject(value)) {
    into.set(name, value);
    return;
  }
  for (const key in value) flattenValue(name ? `${name}.${key}` : key, value[key] as JsonValue, into);
}

export function isNonEmptyObject(value: JsonValue): value is Record<string, JsonValue> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const _key in value) return true;
  return false;
}

/** Text of a scalar JSON value; undefined for objects, arrays and null. */
export function scalarText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
