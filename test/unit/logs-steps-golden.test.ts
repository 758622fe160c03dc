/**
 * One golden file per translator step (test/fixtures/logs/steps/<step>.json): each case runs that
 * step alone on a draft made from `input` and compares the parts of the result named in
 * `expected` (remaining `fields`, `timeUnixNano`, `severityNumber`, `severityText`, `resource`,
 * `attributes`, `traceId`, `spanId`). Also pins the chain order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_STEPS } from '../../src/signals/logs/chain';
import { createDraft, type LogDraft } from '../../src/signals/logs/draft';
import { TraceIdCache } from '../../src/signals/shared/trace-id';
import { anyValueJson } from '../helpers/otlp-json';

interface StepCase {
  name: string;
  input: Record<string, never>;
  queryTags?: string;
  traceIdCache?: Record<string, string>;
  expected: Record<string, unknown>;
}

const RECEIVED = 1_795_298_400_000_000_000n;
const plainMap = (m: ReadonlyMap<string, unknown>, convert: (v: never) => unknown = (v) => v): Record<string, unknown> => Object.fromEntries([...m].map(([k, v]) => [k, convert(v as never)]));

function project(d: LogDraft): Record<string, unknown> {
  return {
    fields: plainMap(d.fields),
    timeUnixNano: d.timeUnixNano.toString(),
    severityNumber: d.severityNumber,
    severityText: d.severityText,
    resource: plainMap(d.promoted.resource, anyValueJson),
    attributes: plainMap(d.promoted.attributes, anyValueJson),
    traceId: d.traceId ? Buffer.from(d.traceId).toString('hex') : null,
    spanId: d.spanId ? Buffer.from(d.spanId).toString('hex') : null,
  };
}

it('runs the steps in the documented order', () => {
  expect(LOG_STEPS.map((s) => s.name)).toEqual(['text_correlation', 'decode_json_message', 'log_pipelines', 'timestamps', 'severity', 'resource_promotion', 'trace_correlation', 'otel_origin']);
});

describe.each(LOG_STEPS.map((s) => [s.name, s.step] as const))('step %s', (name, step) => {
  const cases = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'logs', 'steps', `${name}.json`), 'utf8')) as StepCase[];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const cache = new TraceIdCache();
    for (const [low, high] of Object.entries(c.traceIdCache ?? {})) cache.remember(BigInt(low), BigInt('0x' + high));
    const out = project(step(createDraft(c.input, RECEIVED), { traceIds: cache, decodeJsonMessage: true, textCorrelation: true, queryTags: c.queryTags }));
    const compared = Object.fromEntries(Object.keys(c.expected).map((k) => [k, out[k]]));
    expect(compared).toEqual(c.expected);
  });
});
