/**
 * Field readers for the metric JSON bodies (v1 and v2 series, distribution points, check runs).
 * Each names the field path in its error, e.g. `series[3].points[0]: expected [timestamp, value]`,
 * so an API client sees exactly what it sent wrong. Optional fields accept `null` as absent:
 * agents write `"tags": null` for an empty list.
 */
import { countDrop, type DropCounts } from './datadog';
import { MalformedInputError } from '../../core/errors';
import { parseJsonBody, type JsonValue } from '../../core/wire/json';

export type JsonObject = { [key: string]: JsonValue };

export const isObject = (v: JsonValue | undefined): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

const kindOf = (v: JsonValue | undefined): string => (v === undefined ? 'nothing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v);

export const fieldError = (what: string, path: string, expected: string, got: JsonValue | undefined): MalformedInputError => MalformedInputError.at(what, path, `expected ${expected}, got ${kindOf(got)}`);

export function objectAt(what: string, value: JsonValue | undefined, path: string): JsonObject {
  if (!isObject(value)) throw fieldError(what, path, 'an object', value);
  return value;
}

export function arrayAt(what: string, value: JsonValue | undefined, path: string): JsonValue[] {
  if (!Array.isArray(value)) throw fieldError(what, path, 'an array', value);
  return value;
}

export function requiredString(what: string, value: JsonValue | undefined, path: string): string {
  if (typeof value !== 'string' || value === '') throw fieldError(what, path, 'a non-empty string', value);
  return value;
}

export function optionalString(what: string, value: JsonValue | undefined, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw fieldError(what, path, 'a string', value);
  return value;
}

export function requiredNumber(what: string, value: JsonValue | undefined, path: string): number {
  if (typeof value !== 'number') throw fieldError(what, path, 'a number', value);
  return value;
}

export function optionalNumber(what: string, value: JsonValue | undefined, path: string): number | undefined {
  return value === undefined || value === null ? undefined : requiredNumber(what, value, path);
}

/** A point value; `null`, which third-party clients send, is counted as dropped and gives undefined. */
export function pointValue(what: string, value: JsonValue | undefined, path: string, dropped: DropCounts): number | undefined {
  if (value !== null && value !== undefined) return requiredNumber(what, value, path);
  countDrop(dropped, 'null_value');
  return undefined;
}

export function stringList(what: string, value: JsonValue | undefined, path: string): string[] {
  if (value === undefined || value === null) return [];
  return arrayAt(what, value, path).map((tag, i) => {
    if (typeof tag !== 'string') throw fieldError(what, `${path}[${i}]`, 'a string', tag);
    return tag;
  });
}

/** The elements of a `{"series":[…]}` body that `read` keeps (it returns undefined to drop one). */
export function readSeries<T>(what: string, body: Buffer, read: (value: JsonValue, path: string) => T | undefined): T[] {
  const series = arrayAt(what, objectAt(what, parseJsonBody(body, what), '<body>').series, 'series');
  return series.flatMap((value, i) => read(value, `series[${i}]`) ?? []);
}
