/**
 * The array processor: `append` a value to an array, the `length` of one, or `select` from an
 * array of objects the first element a query matches (its keys read as `@key` or `key`) and
 * extract one of its values.
 */
import type { JsonValue } from '../../../../core/wire/json';
import { PipelineLog } from '../log';
import { parseQuery } from '../query';
import { matches } from '../query-match';
import type { ArraySpec } from '../types';
import type { ProcessorStep } from './step';

/** An array element as a log, so that a query's `@key` and bare `key` both find its keys. */
function elementLog(element: Record<string, JsonValue>): PipelineLog {
  const log = new PipelineLog();
  for (const key in element) {
    log.set(key, element[key] as JsonValue);
    const value = element[key];
    if (typeof value === 'string') log.tags.push(`${key}:${value}`);
  }
  return log;
}

export function arrayProcessor(spec: ArraySpec): ProcessorStep {
  const op = spec.operation;
  switch (op.type) {
    case 'append':
      return (log) => {
        const value = log.get(op.source);
        if (value === undefined) return;
        const target = log.get(op.target);
        const list = Array.isArray(target) ? [...target] : target === undefined ? [] : [target];
        list.push(...(Array.isArray(value) ? value : [value]));
        if (!op.preserveSource) log.delete(op.source);
        log.set(op.target, list);
      };
    case 'length':
      return (log) => {
        const value = log.get(op.source);
        if (Array.isArray(value)) log.set(op.target, value.length);
      };
    case 'select': {
      const query = parseQuery(op.filter);
      return (log) => {
        const value = log.get(op.source);
        if (!Array.isArray(value)) return;
        for (const element of value) {
          if (element === null || typeof element !== 'object' || Array.isArray(element)) continue;
          if (!matches(query, elementLog(element))) continue;
          const picked = element[op.valueToExtract];
          if (picked !== undefined) log.set(op.target, picked);
          return;
        }
      };
    }
  }
}
