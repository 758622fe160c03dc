/**
 * The log a pipeline works on. Attributes are kept flat under dotted keys, as the logs chain holds
 * them (fields.ts), so a record goes in and out without reshaping; an attribute path that names
 * an object (`http` when `http.url` is set) is read by gathering the keys under it. The official
 * message is apart: a grok rule's `%{data:message}` writes a `message` attribute and leaves the
 * official message as it was (Datadog's expected results list both: redis_tests.yaml); a path
 * `message` reads that attribute once it exists, the official message before, and the message
 * remapper makes it official.
 */
import type { JsonValue } from '../../../core/wire/json';
import type { LogView } from './types';

const CUSTOM = 'custom.';

/** `a:b,c` as its tags, blanks trimmed and empty ones dropped. */
export function splitTags(tags: string | undefined): string[] {
  if (tags === undefined || tags === '') return [];
  return tags
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

export class PipelineLog implements LogView {
  message = '';
  status: string | undefined;
  service: string | undefined;
  host: string | undefined;
  source: string | undefined;
  /** The tags as the record carried them: split when a processor or query first looks at them (most never do). */
  tagsText = '';
  /** Epoch milliseconds set by a date remapper. */
  timestampMs: number | undefined;
  traceId: string | undefined;
  spanId: string | undefined;
  /** Datadog applies only the first status, service and message remapper a log meets. */
  statusRemapped = false;
  serviceRemapped = false;
  messageRemapped = false;
  private tagList: string[] | undefined;
  private readonly values = new Map<string, JsonValue>();
  /**
   * Every path that has, or once had, keys below it (`http` and `http.url_details` once
   * `http.url_details.path` is set): replacing or reading a path scans the keys only when it is
   * one. A path whose keys are gone stays, which costs a scan and nothing else.
   */
  private readonly parents = new Set<string>();

  get tags(): string[] {
    this.tagList ??= splitTags(this.tagsText);
    return this.tagList;
  }

  set tags(list: string[]) {
    this.tagList = list;
  }

  /** Whether the tags were looked at, and so may have changed. */
  get tagsRead(): boolean {
    return this.tagList !== undefined;
  }

  get attributes(): ReadonlyMap<string, JsonValue> {
    return this.values;
  }

  /**
   * The value at `path`: a key, or the object the keys below it make; `message` is the official
   * message until a processor writes a `message` attribute.
   */
  get(path: string): JsonValue | undefined {
    const direct = this.values.get(path);
    if (direct !== undefined) return direct;
    const found = this.objectAt(path) ?? (path === 'message' ? this.message : undefined);
    // Datadog holds a log's attributes under `custom` (its test results are written that way),
    // and a path through it reaches them: activemq's lookup reads `custom.type` for `type`
    if (found === undefined && path.startsWith(CUSTOM)) return this.get(path.slice(CUSTOM.length));
    return found;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  /** Sets `path`, replacing whatever was at or below it; an object is kept flat under dotted keys. */
  set(path: string, value: JsonValue): void {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      this.setFlat(path, flatAt(path, value));
      return;
    }
    this.delete(path);
    this.addParents(path);
    const leaf = flatLeaf(value);
    if (leaf !== undefined) this.put(path, leaf);
  }

  /**
   * Sets `path` to an object already flattened under it (`flatAt`): a processor that writes the
   * same shared object again and again (the user-agent parser's cached details) flattens it once,
   * and its keys, being the same strings every time, are hashed once.
   */
  setFlat(path: string, flat: Flat): void {
    this.delete(path);
    this.addParents(path);
    for (let i = 0; i < flat.parents.length; i++) this.parents.add(flat.parents[i] as string);
    for (let i = 0; i < flat.entries.length; i++) {
      const entry = flat.entries[i] as [string, JsonValue];
      this.put(entry[0], entry[1]);
    }
  }

  /** Sets `path` to exactly `value`, an empty object included (`set` drops one). */
  setExactly(path: string, value: JsonValue): void {
    this.delete(path);
    this.addParents(path);
    this.put(path, value);
  }

  /** Sets `path` without removing what is beside an object's members (compile.ts writes grok's extractions so). */
  merge(path: string, value: JsonValue): void {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) {
      this.set(path, value);
      return;
    }
    // a value that is not an object is replaced, as `set` would
    this.remove(path);
    for (const key in value) this.merge(`${path}.${key}`, value[key] as JsonValue);
  }

  delete(path: string): void {
    this.values.delete(path);
    if (!this.parents.has(path)) return;
    const prefix = `${path}.`;
    for (const key of this.values.keys()) if (key.startsWith(prefix)) this.values.delete(key);
  }

  /** The paths above `path` (`a` and `a.b` for `a.b.c`) as parents. */
  private addParents(path: string): void {
    for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) this.parents.add(path.slice(0, dot));
  }

  private put(key: string, value: JsonValue): void {
    this.values.set(key, value);
  }

  private remove(key: string): void {
    this.values.delete(key);
  }

  /** `{…}` built from the keys below `path`, or undefined when none is. */
  private objectAt(path: string): JsonValue | undefined {
    if (!this.parents.has(path)) return undefined;
    const prefix = `${path}.`;
    let object: Record<string, JsonValue> | undefined;
    this.values.forEach((value, key) => {
      if (!key.startsWith(prefix)) return;
      object ??= {};
      setNested(object, key.slice(prefix.length).split('.'), value);
    });
    return object;
  }
}

/** An object's leaves under a path, as a pipeline log keeps them, and the paths that have keys below them. */
export interface Flat {
  entries: [string, JsonValue][];
  parents: string[];
}

/**
 * Datadog keeps no null, `[]` or `{}` attribute, at any depth and inside arrays' objects (zeek's
 * `"err":null` and `"extracted":[]`, wazuh's `"decoder":{}`, Azure's `targetResources[0]` members
 * are absent from their expected results); an object left with nothing is itself dropped.
 */
export function flatAt(path: string, value: JsonValue): Flat {
  const flat: Flat = { entries: [], parents: [] };
  addLeaves(flat, path, value);
  return flat;
}

function addLeaves(flat: Flat, path: string, value: JsonValue): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const leaf = flatLeaf(value);
    if (leaf !== undefined) flat.entries.push([path, leaf]);
    return;
  }
  let parent = false;
  for (const key in value) {
    if (!parent) {
      flat.parents.push(path);
      parent = true;
    }
    addLeaves(flat, `${path}.${key}`, value[key] as JsonValue);
  }
}

/** A value that is not an object as it is kept: null and `[]` are not, an array's elements are pruned. */
function flatLeaf(value: JsonValue): JsonValue | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return value;
  return value.length > 0 ? value.map(prunedElement) : undefined;
}

/** An array element: an object loses its null and empty members; the element itself stays. */
function prunedElement(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(prunedElement);
  const out: Record<string, JsonValue> = {};
  for (const key in value) {
    const member = prunedElement(value[key] as JsonValue);
    if (member === null || (typeof member === 'object' && Object.keys(member).length === 0)) continue;
    out[key] = member;
  }
  return out;
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
