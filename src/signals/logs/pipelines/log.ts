/**
 * The log a pipeline works on. Attributes are kept flat under dotted keys, as the logs chain holds
 * them (fields.ts), so a record goes in and out without reshaping; an attribute path that names
 * an object (`http` when `http.url` is set) is read by gathering the keys under it. `message` is
 * the one reserved attribute a path reaches: grok parsers and remappers read it by that name.
 */
import type { JsonValue } from '../../../core/wire/json';
import { isNonEmptyObject } from '../../shared/attributes';
import type { LogView } from './types';

export class PipelineLog implements LogView {
  message = '';
  status: string | undefined;
  service: string | undefined;
  host: string | undefined;
  source: string | undefined;
  tags: string[] = [];
  attributes = new Map<string, JsonValue>();
  /** Epoch milliseconds set by a date remapper. */
  timestampMs: number | undefined;
  traceId: string | undefined;
  spanId: string | undefined;
  /** Datadog applies only the first status, service and message remapper a log meets. */
  statusRemapped = false;
  serviceRemapped = false;
  messageRemapped = false;

  /** The value at `path`: a key, or the object the keys below it make; undefined when neither. */
  get(path: string): JsonValue | undefined {
    if (path === 'message') return this.message;
    const direct = this.attributes.get(path);
    if (direct !== undefined) return direct;
    return this.objectAt(path);
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /** Sets `path`, replacing whatever was at or below it; an object is kept flat under dotted keys. */
  set(path: string, value: JsonValue): void {
    if (path === 'message') {
      this.message = typeof value === 'string' ? value : JSON.stringify(value);
      return;
    }
    this.delete(path);
    flattenInto(this.attributes, path, value);
  }

  delete(path: string): void {
    if (path === 'message') return;
    this.attributes.delete(path);
    const prefix = `${path}.`;
    for (const key of this.attributes.keys()) if (key.startsWith(prefix)) this.attributes.delete(key);
  }

  /** `{…}` built from the keys below `path`, or undefined when none is. */
  private objectAt(path: string): JsonValue | undefined {
    const prefix = `${path}.`;
    let object: Record<string, JsonValue> | undefined;
    this.attributes.forEach((value, key) => {
      if (!key.startsWith(prefix)) return;
      object ??= {};
      setNested(object, key.slice(prefix.length).split('.'), value);
    });
    return object;
  }
}

function flattenInto(into: Map<string, JsonValue>, path: string, value: JsonValue): void {
  if (!isNonEmptyObject(value)) {
    into.set(path, value);
    return;
  }
  for (const key in value) flattenInto(into, `${path}.${key}`, value[key] as JsonValue);
}

/** Writes `value` at `keys` inside `object`, making the objects on the way (a scalar on the way is replaced). */
export function setNested(object: Record<string, JsonValue>, keys: readonly string[], value: JsonValue): void {
  let at = object;
  for (let i = 0; i < keys.length - 1; i++) {
    const key = keys[i] as string;
    const next = at[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, JsonValue>;
  }
  at[keys[keys.length - 1] as string] = value;
}

/** Flat dotted keys as one nested object (how Datadog shows attributes, and how its test files state them). */
export function nestAttributes(attributes: ReadonlyMap<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  attributes.forEach((value, key) => {
    setNested(out, key.split('.'), value);
  });
  return out;
}
