/**
 * JSON values → OTLP attributes. Objects are flattened into dotted keys (so `{"http":{"method":…}}`
 * and `http.method` are the same attribute, as Datadog's backend treats them), arrays stay arrays,
 * numbers become Int when they are safe integers and Double otherwise.
 */
import type { JsonValue } from '../parse/json';
import type { AnyValue, KeyValue } from '../otlp/model';

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

/** Flattens nested objects into `parent.child` keys; arrays and scalars are leaves. */
export function flatten(fields: Record<string, JsonValue>, prefix = '', into: Map<string, JsonValue> = new Map()): Map<string, JsonValue> {
  for (const [key, value] of Object.entries(fields)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) flatten(value, name, into);
    else into.set(name, value);
  }
  return into;
}

export const stringAttribute = (key: string, value: string): KeyValue => ({ key, value: { string: value } });

/** Text of a scalar JSON value; undefined for objects, arrays and null. */
export function scalarText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
