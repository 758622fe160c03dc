/**
 * JSON body parsing with errors that say where the body broke. Bodies are already size-capped
 * and decompressed; nesting depth is capped too, so a hostile `[[[[…` cannot exhaust the stack of
 * the recursive steps that walk the value afterwards.
 */
import { badRequest } from '../server/errors';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const MAX_JSON_DEPTH = 64;

export function parseJsonBody(body: Buffer | string, what: string): JsonValue {
  if (body.length === 0) throw badRequest(`${what}: empty body, expected JSON`);
  let value: JsonValue;
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as JsonValue;
  } catch (err) {
    throw badRequest(`${what}: body is not valid JSON (${(err as Error).message})`);
  }
  const depth = maxDepth(value, MAX_JSON_DEPTH + 1);
  if (depth > MAX_JSON_DEPTH) throw badRequest(`${what}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** Depth of a JSON value, stopping early once `limit` is reached. Iterative: no recursion limit. */
function maxDepth(root: JsonValue, limit: number): number {
  let deepest = 0;
  const stack: [JsonValue, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [JsonValue, number];
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest >= limit) return deepest;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}
