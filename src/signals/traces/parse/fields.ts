/**
 * Field coercion for the loose trees that msgpack and JSON trace bodies decode to, as lenient as
 * the agent's decoder: nil is the zero value anywhere, signed and unsigned
 * integers are interchangeable, integers are accepted where floats are expected, bin is accepted
 * where str is, unknown keys are skipped. A value of the wrong kind is a FieldError that collects
 * the path to the field on its way up, so the sender reads e.g. `[0][3].meta.http.url: expected a
 * string, got an array`.
 */
import type { MsgMap, MsgValue } from '../../../core/wire/msgpack';

export class FieldError extends Error {
  override name = 'FieldError';
  readonly path: (string | number)[] = [];

  /** `[0][3].meta.http.url` */
  get where(): string {
    return this.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '<root>';
  }
}

/** Adds one path segment to a FieldError passing through; anything else passes untouched. */
export function within(err: unknown, segment: string | number): unknown {
  if (err instanceof FieldError) err.path.unshift(segment);
  return err;
}

/** Runs `parse` under one more path segment. */
export function at<T>(segment: string | number, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw within(err, segment);
  }
}

const kind = (v: MsgValue): string => {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Map) return 'a map';
  if (v instanceof Uint8Array) return 'bin';
  return typeof v === 'bigint' ? 'an integer' : `a ${typeof v}`;
};

const mismatch = (expected: string, v: MsgValue): FieldError => new FieldError(`expected ${expected}, got ${kind(v)}`);

const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

export function str(v: MsgValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return '';
  if (v instanceof Uint8Array) return utf8(v);
  throw mismatch('a string', v);
}

const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

/** Any integer in [-2^63, 2^64): JSON may carry one as a decimal string. */
function integer(v: MsgValue): bigint {
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (v === null) n = 0n;
  else if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) n = BigInt(v);
  if (n === undefined || n < I64_MIN || n > U64_MAX) throw mismatch('a 64-bit integer', v);
  return n;
}

export const u64 = (v: MsgValue): bigint => BigInt.asUintN(64, integer(v));
export const i64 = (v: MsgValue): bigint => BigInt.asIntN(64, integer(v));

/** Small integers (error flag, priority, counts, status codes). */
export function int(v: MsgValue): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return Number(BigInt.asIntN(64, integer(v)));
}

export function f64(v: MsgValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v === null) return 0;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  throw mismatch('a number', v);
}

export function bool(v: MsgValue): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  throw mismatch('a bool', v);
}

export function bytes(v: MsgValue): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v === null) return new Uint8Array(0);
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  throw mismatch('bin', v);
}

export function array(v: MsgValue): MsgValue[] {
  if (Array.isArray(v)) return v;
  if (v === null) return [];
  throw mismatch('an array', v);
}

export function map(v: MsgValue): MsgMap {
  if (v instanceof Map) return v;
  if (v === null) return new Map();
  throw mismatch('a map', v);
}

/** Parses every element; a failure names its index. */
export function each<T>(v: MsgValue, parse: (item: MsgValue) => T): T[] {
  const items = array(v);
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    try {
      out.push(parse(items[i] as MsgValue));
    } catch (err) {
      throw within(err, i);
    }
  }
  return out;
}

/** Visits every entry of a map with string keys; a failure names its key. */
export function fields(v: MsgValue, visit: (key: string, value: MsgValue) => void): void {
  for (const [k, value] of map(v)) {
    const key = str(k);
    try {
      visit(key, value);
    } catch (err) {
      throw within(err, key);
    }
  }
}

/**
 * A map with string keys whose values are coerced by `coerce` (meta, metrics, tags). The decoded
 * map itself is returned when it already has that shape — the usual case, and one Map less per
 * span for the garbage collector.
 */
export function typedMap<T>(v: MsgValue, coerce: (value: MsgValue) => T): Map<string, T> {
  const entries = map(v);
  let exact = true;
  for (const [k, value] of entries) {
    if (typeof k !== 'string') {
      exact = false;
      break;
    }
    let coerced: T;
    try {
      coerced = coerce(value);
    } catch (err) {
      throw within(err, k);
    }
    if (coerced !== value) {
      exact = false;
      break;
    }
  }
  if (exact) return entries as Map<string, T>;
  const out = new Map<string, T>();
  fields(v, (key, value) => out.set(key, coerce(value)));
  return out;
}

export const stringMap = (v: MsgValue): Map<string, string> => typedMap(v, str);
export const floatMap = (v: MsgValue): Map<string, number> => typedMap(v, f64);

/** A message made of known keys: one setter per key, unknown keys skipped. */
type FieldSetter<T> = (target: T, value: MsgValue) => void;
export type FieldSetters<T> = ReadonlyMap<string, FieldSetter<T>>;
export const setters = <T>(entries: readonly (readonly [string, FieldSetter<T>])[]): FieldSetters<T> => new Map(entries);

export function parseFields<T>(v: MsgValue, target: T, setters: FieldSetters<T>): T {
  fields(v, (key, value) => setters.get(key)?.(target, value));
  return target;
}
