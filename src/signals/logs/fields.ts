/**
 * A log record's fields as the steps see them: the steps share one table and a step's result
 * remembers only which keys are gone, so consuming a key copies nothing. The table keeps
 * each key's position, so "gone" is a bit per position: a lookup is one Map probe and a bit test,
 * hiding keys copies a number, and walking what is left (the attributes, at the end) reads two
 * arrays instead of searching a list of consumed keys for every field.
 */
import type { JsonValue } from '../../core/wire/json';
import { flattenValue } from '../shared/attributes';

export type FieldMap = ReadonlyMap<string, JsonValue>;

/** Keys in insertion order, their values, and each key's position. Filled once, then only read. */
class FieldTable {
  readonly keys: string[] = [];
  readonly values: JsonValue[] = [];
  readonly positions = new Map<string, number>();

  /** Map.set's semantics: a new key goes last, a known one keeps its place and takes the value. */
  set(key: string, value: JsonValue): void {
    const at = this.keys.length;
    const before = this.positions.size;
    this.positions.set(key, at);
    if (this.positions.size !== before) {
      this.keys.push(key);
      this.values.push(value);
      return;
    }
    // a key seen before (rare: `a.b` beside `{"a":{"b":…}}`): put its position back
    const known = this.keys.indexOf(key);
    this.positions.set(key, known);
    this.values[known] = value;
  }
}

/** Positions below this are marked in a bit mask; later ones (records with many fields) in a list. */
const MASK_BITS = 31;
const NO_POSITIONS: readonly number[] = [];

const isGoneIn = (at: number, mask: number, later: readonly number[]): boolean => (at < MASK_BITS ? ((mask >>> at) & 1) === 1 : later.includes(at));

/** A table minus the keys consumed so far. */
class Fields implements FieldMap {
  constructor(
    private readonly table: FieldTable,
    /** bit i set: the key at position i is gone */
    private readonly goneMask: number,
    /** gone positions from MASK_BITS on */
    private readonly goneLater: readonly number[],
    readonly size: number,
  ) {}

  private isGone(at: number): boolean {
    return isGoneIn(at, this.goneMask, this.goneLater);
  }

  has(key: string): boolean {
    const at = this.table.positions.get(key);
    return at !== undefined && !this.isGone(at);
  }

  get(key: string): JsonValue | undefined {
    const at = this.table.positions.get(key);
    return at === undefined || this.isGone(at) ? undefined : this.table.values[at];
  }

  forEach(callback: (value: JsonValue, key: string, map: FieldMap) => void): void {
    const { keys, values } = this.table;
    for (let i = 0; i < keys.length; i++) if (!this.isGone(i)) callback(values[i] as JsonValue, keys[i] as string, this);
  }

  /** Iterators walk a copy: the chain itself only uses get and forEach, iteration is for tests and tools. */
  private copy(): Map<string, JsonValue> {
    const out = new Map<string, JsonValue>();
    this.forEach((value, key) => {
      out.set(key, value);
    });
    return out;
  }

  entries(): MapIterator<[string, JsonValue]> {
    return this.copy().entries();
  }

  keys(): MapIterator<string> {
    return this.copy().keys();
  }

  values(): MapIterator<JsonValue> {
    return this.copy().values();
  }

  [Symbol.iterator](): MapIterator<[string, JsonValue]> {
    return this.entries();
  }

  /** These fields without `keys`; the same object when none of them is here. */
  without(keys: readonly string[]): Fields {
    let mask = this.goneMask;
    let later = this.goneLater;
    let size = this.size;
    for (let i = 0; i < keys.length; i++) {
      const at = this.table.positions.get(keys[i] as string);
      if (at === undefined || isGoneIn(at, mask, later)) continue;
      if (at < MASK_BITS) mask |= 1 << at;
      else later = [...later, at];
      size--;
    }
    return size === this.size ? this : new Fields(this.table, mask, later, size);
  }
}

/** Builds the fields of one record, in the order keys are first set (Map.set's semantics). */
export class FieldsBuilder {
  private readonly table = new FieldTable();

  set(key: string, value: JsonValue): void {
    this.table.set(key, value);
  }

  /** A non-empty object over dotted keys, anything else as is (attributes.ts's flattening). */
  flatten(name: string, value: JsonValue): void {
    flattenValue(name, value, this.table);
  }

  has(key: string): boolean {
    return this.table.positions.has(key);
  }

  get(key: string): JsonValue | undefined {
    const at = this.table.positions.get(key);
    return at === undefined ? undefined : this.table.values[at];
  }

  build(): Fields {
    return new Fields(this.table, 0, NO_POSITIONS, this.table.keys.length);
  }
}

/** Any map of fields as Fields (a draft made elsewhere may hold a plain Map). */
function asFields(fields: FieldMap): Fields {
  if (fields instanceof Fields) return fields;
  const builder = new FieldsBuilder();
  fields.forEach((value, key) => {
    builder.set(key, value);
  });
  return builder.build();
}

/** `fields` without `keys`; `fields` itself when none of them is there. */
export function consume(fields: FieldMap, keys: readonly string[]): FieldMap {
  if (fields instanceof Fields) return fields.without(keys);
  for (let i = 0; i < keys.length; i++) if (fields.has(keys[i] as string)) return asFields(fields).without(keys);
  return fields;
}

/**
 * The value of the first of `keys` that `fields` holds. A field's value is JSON, never
 * undefined, so one `get` per key says both whether it is there and what it is.
 */
export function firstValue(fields: FieldMap, keys: readonly string[]): JsonValue | undefined {
  for (let i = 0; i < keys.length; i++) {
    const value = fields.get(keys[i] as string);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** `fields` without `key`. */
export const consumeOne = (fields: FieldMap, key: string): FieldMap => consume(fields, [key]);
