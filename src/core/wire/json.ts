/**
 * JSON body parsing with errors that say where the body broke. Bodies are already size-capped
 * and decompressed; nesting depth is capped too, so a hostile `[[[[…` cannot exhaust the stack of
 * the recursive steps that walk the value afterwards.
 */
import { MalformedInputError } from '../errors';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const MAX_JSON_DEPTH = 64;

export function parseJsonBody(body: Buffer | string, what: string): JsonValue {
  if (body.length === 0) throw new MalformedInputError(`${what}: empty body, expected JSON`);
  let value: JsonValue;
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as JsonValue;
  } catch (err) {
    throw new MalformedInputError(`${what}: body is not valid JSON (${(err as Error).message})`);
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw new MalformedInputError(`${what}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** True when `value` has more than `limit` levels of arrays/objects; walks at most `limit + 1` of them deep. */
export const nestedDeeperThan = (value: JsonValue, limit: number): boolean => maxDepth(value, limit + 1) > limit;

/**
 * Depth of a JSON value, stopping early once `limit` is reached. Recursive, but never deeper than
 * `limit` frames: a value is not entered once its depth reaches the limit. Allocates nothing (the
 * stack of [value, depth] pairs it replaced was a share of the logs path's garbage).
 */
function maxDepth(value: JsonValue, limit: number, depth = 1): number {
  if (value === null || typeof value !== 'object') return 0;
  if (depth >= limit) return depth;
  let deepest = depth;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child = value[i] as JsonValue;
      if (child !== null && typeof child === 'object') {
        deepest = Math.max(deepest, maxDepth(child, limit, depth + 1));
        if (deepest >= limit) return deepest;
      }
    }
  } else {
    for (const key in value) {
      const child = value[key] as JsonValue;
      if (child !== null && typeof child === 'object') {
        deepest = Math.max(deepest, maxDepth(child, limit, depth + 1));
        if (deepest >= limit) return deepest;
      }
    }
  }
  return deepest;
}
