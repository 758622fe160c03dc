/**
 * Upstream golden log cases, re-expressed. Each test/fixtures/logs/upstream/<case>.json holds one
 * golden case of the upstream receiver (receiver/datadogreceiver/internal/translator/testdata/logs)
 * as the request body we receive (`input`) and the output upstream expects (`upstreamExpected`, in
 * the OTLP/JSON form test/helpers/otlp-json.ts writes: zero values explicit, ids lower-case hex).
 * Every place where we deliberately differ is declared in `differences` with a reason, and
 * DIFFERENCES.md sums them up for docs/translation.md. `source` names the upstream golden file and
 * commit; where the stored golden is the superseded version-A form, `source.note` says how
 * `upstreamExpected` was re-derived from the current translator (see DIFFERENCES.md).
 *
 * The check, per case:
 *  1. translate `input` with our chain exactly as the chain golden runner does;
 *  2. apply each `differences[].path` → `ours` to a copy of `upstreamExpected`;
 *  3. normalise both sides (below) and require them to be equal. A difference nobody declared fails
 *     with one readable line per path; so does a declaration whose `ours` equals upstream's value
 *     (a stale entry would hide a future regression), and one without a reason.
 *
 * Normalisation, and nothing else:
 *  - KeyValue lists (resource attributes, record attributes, kvlist values) are sorted by key:
 *    attribute order carries no meaning in OTLP, and upstream's order comes from Go map handling;
 *  - `scope` is dropped from every scopeLogs: ours is always dd-otlp-bridge and upstream's is empty,
 *    which docs/translation.md states once rather than every file.
 * ResourceLogs and LogRecord order is compared as is (both sides keep first-seen order).
 *
 * Difference paths: dotted field names and `[n]` indices into `upstreamExpected`, plus
 * `[key=NAME]` on a KeyValue list to address the value of the attribute NAME (NAME may contain
 * dots). `"ours": null` means our output has no such field or attribute.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { resourceLogsJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const DIR = join(__dirname, '..', 'fixtures', 'logs', 'upstream');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Difference {
  path: string;
  ours: Json;
  reason: string;
}

interface UpstreamCase {
  source: { repository: string; golden: string; goldenCommit: string; translator: string; note?: string };
  description: string;
  receivedAtNs: string;
  decodeJsonMessage?: boolean;
  input: Json;
  upstreamExpected: Json;
  differences: Difference[];
}

// ------------------------------------------------------------------------------------------ paths

type Segment = { field: string } | { index: number } | { key: string };

function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  const token = /^(?:\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[key=([^\]]+)\])/;
  let rest = path;
  while (rest.length > 0) {
    const m = token.exec(rest);
    if (!m || (segments.length === 0) !== (m[1] !== undefined && !m[0].startsWith('.'))) throw new Error(`bad difference path ${JSON.stringify(path)} at ${JSON.stringify(rest)}`);
    if (m[1] !== undefined) segments.push({ field: m[1] });
    else if (m[2] !== undefined) segments.push({ index: Number(m[2]) });
    else segments.push({ key: m[3] as string });
    rest = rest.slice(m[0].length);
  }
  if (segments.length === 0) throw new Error('empty difference path');
  return segments;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isKeyValue = (v: Json): v is { key: string; value: Json } => isObject(v) && typeof v.key === 'string' && 'value' in v;

/** One step down: the field, element or attribute value (undefined when absent); throws on a type mismatch. */
function step(container: Json | undefined, seg: Segment, path: string): Json | undefined {
  if ('field' in seg) {
    if (!isObject(container)) throw new Error(`${path}: .${seg.field} on a non-object`);
    return container[seg.field];
  }
  if (!Array.isArray(container)) throw new Error(`${path}: [${'index' in seg ? seg.index : `key=${seg.key}`}] on a non-array`);
  if ('index' in seg) return container[seg.index];
  const kv = container.find((x) => isKeyValue(x) && x.key === seg.key);
  return kv === undefined ? undefined : (kv as { value: Json }).value;
}

function getAt(root: Json, path: string): Json | undefined {
  let cur: Json | undefined = root;
  for (const seg of parsePath(path)) {
    if (cur === undefined) return undefined;
    cur = step(cur, seg, path);
  }
  return cur;
}

/** Sets (or, for null, removes) the value at `path`; every container on the way must exist. */
function setAt(root: Json, path: string, value: Json): void {
  const segments = parsePath(path);
  let cur: Json | undefined = root;
  for (const seg of segments.slice(0, -1)) {
    cur = step(cur, seg, path);
    if (cur === undefined) throw new Error(`difference path ${path} leads nowhere in upstreamExpected`);
  }
  const last = segments[segments.length - 1] as Segment;
  if ('field' in last) {
    if (!isObject(cur)) throw new Error(`${path}: .${last.field} on a non-object`);
    if (value === null) delete cur[last.field];
    else cur[last.field] = value;
  } else if ('index' in last) {
    if (!Array.isArray(cur) || last.index >= cur.length) throw new Error(`${path}: index out of range`);
    if (value === null) cur.splice(last.index, 1);
    else cur[last.index] = value;
  } else {
    if (!Array.isArray(cur)) throw new Error(`${path}: [key=${last.key}] on a non-array`);
    const at = cur.findIndex((kv) => isKeyValue(kv) && kv.key === last.key);
    if (value === null) {
      if (at >= 0) cur.splice(at, 1);
    } else if (at >= 0) (cur[at] as JsonObject).value = value;
    else cur.push({ key: last.key, value });
  }
}

// ---------------------------------------------------------------------------------- normalising

const clone = (v: Json): Json => JSON.parse(JSON.stringify(v)) as Json;

const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** KeyValue lists sorted by key at every depth; `scope` dropped from every scopeLogs entry. */
function normaliseLogs(value: Json): Json {
  const walk = (v: Json, key: string): Json => {
    if (Array.isArray(v)) {
      const items = v.map((x) => walk(x, key));
      return items.length > 0 && items.every(isKeyValue) ? [...items].sort(byKey) : items;
    }
    if (!isObject(v)) return v;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (key === 'scopeLogs' && k === 'scope') continue;
      out[k] = walk(x, k);
    }
    return out;
  };
  return walk(value, '');
}

// ------------------------------------------------------------------------------------- diffing

const show = (v: Json | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** One line per leaf where `ours` and `expected` differ; KeyValue lists are matched by key. */
function diff(expected: Json | undefined, ours: Json | undefined, path = ''): string[] {
  if (isDeepStrictEqual(expected, ours)) return [];
  if (Array.isArray(expected) && Array.isArray(ours)) {
    const keyed = [...expected, ...ours].length > 0 && [...expected, ...ours].every(isKeyValue);
    if (keyed) {
      const keys = [...new Set([...expected, ...ours].map((kv) => (kv as { key: string }).key))].sort();
      const valueAt = (list: Json[], key: string): Json | undefined => (list.find((kv) => (kv as { key: string }).key === key) as { value: Json } | undefined)?.value;
      return keys.flatMap((k) => diff(valueAt(expected, k), valueAt(ours, k), `${path}[key=${k}]`));
    }
    if (expected.length === ours.length) return expected.flatMap((e, i) => diff(e, ours[i], `${path}[${i}]`));
  } else if (isObject(expected) && isObject(ours)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(ours)])];
    return keys.flatMap((k) => diff(expected[k], ours[k], path ? `${path}.${k}` : k));
  }
  return [`${path || '(root)'}\n      upstream: ${show(expected)}\n      ours:     ${show(ours)}`];
}

/** Everything wrong with one case: undeclared differences, stale or unreasoned declarations. */
function check(golden: UpstreamCase, ours: Json): string[] {
  const problems: string[] = [];
  const patched = clone(golden.upstreamExpected);
  for (const d of golden.differences) {
    if (typeof d.reason !== 'string' || d.reason.trim().length < 10) problems.push(`difference ${d.path}: no reason given`);
    const upstreamValue = getAt(golden.upstreamExpected, d.path);
    if (isDeepStrictEqual(upstreamValue ?? null, d.ours)) problems.push(`difference ${d.path}: declared, but upstream has the same value ${show(upstreamValue)} (stale entry?)`);
    setAt(patched, d.path, d.ours);
  }
  for (const line of diff(normaliseLogs(patched), normaliseLogs(ours))) problems.push(`undeclared difference at ${line}`);
  return problems;
}

function translate(golden: UpstreamCase): Json {
  const body = Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input));
  const payload = parseLogsBody(body, new URLSearchParams());
  const resources = translateLogsToModel(payload, translationContext(createTranslatorCaches(), BigInt(golden.receivedAtNs), { decodeJsonMessage: golden.decodeJsonMessage ?? true, logTextCorrelation: true }));
  // through JSON text, so `ours` is exactly the OTLP/JSON document (no undefined fields)
  return JSON.parse(JSON.stringify(resourceLogsJson(resources))) as Json;
}

const load = (file: string): UpstreamCase => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as UpstreamCase;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('upstream datadogreceiver golden log cases', () => {
  it('has every upstream case', () => {
    expect(files.map((f) => f.replace(/\.json$/, ''))).toEqual(['log_with_empty_strings', 'log_with_negative_timestamp', 'log_with_special_characters', 'log_with_trace_correlation', 'multiple_log_entries', 'single_log_entry']);
  });

  it.each(files)('%s', (file) => {
    const golden = load(file);
    expect(golden.source.golden).toBe(`receiver/datadogreceiver/internal/translator/testdata/logs/${file.replace(/\.json$/, '.yaml')}`);
    expect(golden.source.goldenCommit).toMatch(/^[0-9a-f]{40}$/);
    const ours = translate(golden);
    const problems = check(golden, ours);
    if (problems.length > 0) {
      throw new Error(`${file}: ${problems.length} problem(s); declare a deliberate difference (with its reason) or fix the translator:\n  - ${problems.join('\n  - ')}`);
    }
    // backstop: the same comparison as a whole-object assertion
    const patched = clone(golden.upstreamExpected);
    for (const d of golden.differences) setAt(patched, d.path, d.ours);
    expect(normaliseLogs(ours)).toEqual(normaliseLogs(patched));
  });
});

describe('the upstream golden check itself', () => {
  const golden = load('log_with_trace_correlation.json');
  const ours = translate(golden);

  it('fails on an undeclared difference', () => {
    const tampered: UpstreamCase = { ...golden, upstreamExpected: clone(golden.upstreamExpected) };
    setAt(tampered.upstreamExpected, 'resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber', 18);
    setAt(tampered.upstreamExpected, 'resourceLogs[0].scopeLogs[0].logRecords[0].attributes[key=custom.count]', { intValue: '43' });
    expect(check(tampered, ours)).toEqual([
      expect.stringContaining('undeclared difference at resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber'),
      expect.stringContaining('undeclared difference at resourceLogs[0].scopeLogs[0].logRecords[0].attributes[key=custom.count].intValue'),
    ]);
  });

  it('fails on a declaration that no longer differs, or has no reason', () => {
    const stale: UpstreamCase = { ...golden, differences: [...golden.differences, { path: 'resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber', ours: 17, reason: '' }] };
    const problems = check(stale, ours);
    expect(problems.some((p) => p.includes('no reason given'))).toBe(true);
    expect(problems.some((p) => p.includes('stale entry'))).toBe(true);
  });

  it('ignores attribute order and the scope, nothing else', () => {
    const reordered = clone(ours) as { resourceLogs: { resource: { attributes: Json[] }; scopeLogs: JsonObject[] }[] };
    for (const rl of reordered.resourceLogs) {
      rl.resource.attributes.reverse();
      for (const sl of rl.scopeLogs) sl.scope = { name: 'something-else' };
    }
    expect(diff(normaliseLogs(ours), normaliseLogs(reordered as unknown as Json))).toEqual([]);
    expect(diff({ a: [1, 2] }, { a: [2, 1] })).toHaveLength(2);
  });

  it('parses difference paths', () => {
    expect(parsePath('resourceLogs[0].resource.attributes[key=service.name]')).toEqual([{ field: 'resourceLogs' }, { index: 0 }, { field: 'resource' }, { field: 'attributes' }, { key: 'service.name' }]);
    expect(() => parsePath('resourceLogs[x]')).toThrow(/bad difference path/);
  });
});
