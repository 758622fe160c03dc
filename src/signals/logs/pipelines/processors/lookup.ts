/**
 * The lookup processor: the source's value looked up in a `key,value` table (a key may be
 * double-quoted to hold a comma); when it is not found, the default if there is one.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { LookupSpec } from '../types';
import type { ProcessorStep } from './step';

function entryOf(line: string): [string, string] | undefined {
  const m = /^\s*(?:"((?:[^"]|"")*)"|([^,]*)),(.*)$/s.exec(line);
  if (!m) return undefined;
  const key = m[1] !== undefined ? m[1].replace(/""/g, '"') : (m[2] as string).trim();
  let value = (m[3] as string).trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/""/g, '"');
  return [key, value];
}

const keyText = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

export function lookup(spec: LookupSpec): ProcessorStep {
  const table = new Map<string, string>();
  for (const line of spec.lookupTable) {
    const entry = entryOf(line);
    if (entry && !table.has(entry[0])) table.set(entry[0], entry[1]);
  }
  return (log) => {
    const key = keyText(log.get(spec.source));
    if (key === undefined) return;
    const value = table.get(key) ?? spec.defaultLookup;
    if (value !== undefined) log.set(spec.target, value);
  };
}
