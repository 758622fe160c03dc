/** The shape every compiled processor has: it changes the log in place. */
import type { JsonValue } from '../../../../core/wire/json';
import type { RecordBudget } from '../budget';
import type { PipelineLog } from '../log';

/** `budget` is the record's, checked by a processor with more than one expression (budget.ts). */
export type ProcessorStep = (log: PipelineLog, budget: RecordBudget) => void;

/** The value at `path`, also through arrays of objects (`users.name` over `users: [{name}, …]` gives every name). */
export function valueAtPath(log: PipelineLog, path: string): JsonValue | undefined {
  const direct = log.get(path);
  if (direct !== undefined) return direct;
  const parts = path.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    const head = log.attributes.get(parts.slice(0, i).join('.'));
    if (!Array.isArray(head)) continue;
    const rest = parts.slice(i);
    const found = head.map((item) => inside(item, rest)).filter((v): v is JsonValue => v !== undefined);
    return found.length > 0 ? found : undefined;
  }
  return undefined;
}

function inside(value: JsonValue, keys: readonly string[]): JsonValue | undefined {
  let at: JsonValue | undefined = value;
  for (const key of keys) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = at[key];
  }
  return at;
}

/** The first of `sources` the log holds, with its path. */
export function firstPresent(log: PipelineLog, sources: readonly string[]): [string, JsonValue] | undefined {
  for (const source of sources) {
    const value = log.get(source);
    if (value !== undefined && value !== null) return [source, value];
  }
  return undefined;
}
