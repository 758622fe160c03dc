/**
 * One golden file per span translator step (test/fixtures/traces/steps/<step>.json): each case
 * runs that step alone on a draft made from `span` (a v0.4 span as JSON) and compares the parts
 * of the result named in `expected`: remaining `meta`/`metrics`, `traceId`, `spanId`,
 * `parentSpanId`, `name`, `kind`, `start`/`end`, `status`, `events`, `links`, `resource`, `scope`,
 * `attributes`, and `learnedServices` (what the step taught ServiceIdentities, as
 * `{ "<env>/<service>": base }` for the services the case names). A case may set the
 * semantic-convention opt-in (`semconv`), the chunk's `sampleRate`, and the `kind`, `scope` and
 * `resource` earlier steps would have set. Also pins the chain order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkOf } from '../../src/signals/traces/datadog';
import { parseJsonTree } from '../../src/signals/traces/parse/json';
import { parseSpanMap } from '../../src/signals/traces/parse/span-map';
import { SPAN_STEPS } from '../../src/signals/traces/chain';
import { createSpanDraft, type SpanDraft } from '../../src/signals/traces/draft';
import { lastIds } from '../../src/signals/traces/last-id';
import { TraceIdCache } from '../../src/signals/shared/trace-id';
import type { SemconvOptIn } from '../../src/config/options';
import { AttributeNames } from '../../src/signals/traces/finish';
import { QuerySummaries } from '../../src/signals/traces/name';
import { otelOrigins } from '../../src/signals/traces/otel-origin';
import { ServiceIdentities } from '../../src/signals/traces/service-identity';
import { anyValueJson } from '../helpers/otlp-json';
import { eventJson, linkJson } from '../helpers/otlp-json-traces';
import { MemoTrie } from '../../src/signals/shared/memo-trie';
import type { AttributeMap } from '../../src/signals/shared/resource-promotion';

interface StepCase {
  name: string;
  span: unknown;
  chunkTags?: Record<string, string>;
  /** low → high learned by the look-ahead */
  highs?: Record<string, string>;
  traceIdCache?: Record<string, string>;
  inheritedResource?: Record<string, string>;
  samplingPriority?: number;
  sampleRate?: number;
  /** SpanKind, as the kind step would have set it */
  kind?: number;
  /** the instrumentation scope, as the otel_origin step would have set it */
  scope?: { name: string; version?: string };
  /** the span's resource, as the resource step would have set it */
  resource?: Record<string, string>;
  semconv?: SemconvOptIn;
  /** `<env>/<service>` pairs whose learned base service `learnedServices` reports */
  services?: string[];
  /** ns; what the timing step would have set */
  endTimeUnixNano?: string;
  expected: Record<string, unknown>;
}

const RECEIVED = 1_700_000_100_000_000_000n;
const hex = (b: Uint8Array | undefined): string | null => (b ? Buffer.from(b).toString('hex') : null);
const plainMap = (m: Iterable<readonly [string, unknown]>, convert: (v: never) => unknown = (v) => v): Record<string, unknown> => Object.fromEntries([...m].map(([k, v]) => [k, convert(v as never)]));
const stringMap = (m: Record<string, string>): AttributeMap => new Map(Object.entries(m).map(([k, v]) => [k, { string: v }]));
const highsOf = (m: Record<string, string> = {}): Map<bigint, bigint> => new Map(Object.entries(m).map(([low, high]) => [BigInt(low), BigInt('0x' + high)]));

function project(d: SpanDraft): Record<string, unknown> {
  return {
    meta: plainMap(d.meta),
    metrics: plainMap(d.metrics),
    traceId: hex(d.traceId.length ? d.traceId : undefined),
    spanId: hex(d.spanId.length ? d.spanId : undefined),
    parentSpanId: hex(d.parentSpanId),
    name: d.name,
    kind: d.kind,
    start: d.startTimeUnixNano.toString(),
    end: d.endTimeUnixNano.toString(),
    status: d.status ?? null,
    events: d.events.map(eventJson),
    links: d.links.map(linkJson),
    resource: plainMap(d.resource, anyValueJson),
    scope: d.scope ?? null,
    attributes: plainMap(d.attributes, anyValueJson),
  };
}

it('runs the steps in the documented order', () => {
  expect(SPAN_STEPS.map((s) => s.name)).toEqual(['ids', 'timing', 'resource', 'otel_origin', 'kind', 'name', 'database', 'links', 'events', 'status', 'sampling']);
});

describe.each(SPAN_STEPS.map((s) => [s.name, s.step] as const))('step %s', (name, step) => {
  const cases = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'traces', 'steps', `${name}.json`), 'utf8')) as StepCase[];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    const cache = new TraceIdCache();
    for (const [low, high] of highsOf(c.traceIdCache)) cache.remember(low, high);
    const span = parseSpanMap(parseJsonTree(typeof c.span === 'string' ? c.span : JSON.stringify(c.span), 'span'));
    const chunk = { ...chunkOf([span]), tags: new Map(Object.entries(c.chunkTags ?? {})) };
    const draft = {
      ...createSpanDraft(span, chunk),
      ...(c.endTimeUnixNano ? { endTimeUnixNano: BigInt(c.endTimeUnixNano) } : {}),
      ...(c.kind !== undefined ? { kind: c.kind } : {}),
      ...(c.scope ? { scope: c.scope } : {}),
      ...(c.resource ? { resource: stringMap(c.resource) } : {}),
    };
    const inheritedResource = stringMap(c.inheritedResource ?? {});
    const services = new ServiceIdentities();
    const ctx = {
      traceIds: cache,
      highs: highsOf(c.highs),
      receivedAtNs: RECEIVED,
      inheritedResource,
      samplingPriority: c.samplingPriority,
      sampleRate: { int: BigInt(c.sampleRate ?? 1) },
      resources: new MemoTrie<AttributeMap>(),
      lastIds: lastIds(),
      services,
      attributeNames: new AttributeNames(c.semconv),
      querySummaries: new QuerySummaries(),
      otel: otelOrigins(),
    };
    const out = project(step(draft, ctx));
    out.learnedServices = Object.fromEntries((c.services ?? []).map((pair) => [pair, services.baseOf(...(pair.split('/') as [string, string])) ?? null]));
    const compared = Object.fromEntries(Object.keys(c.expected).map((k) => [k, out[k]]));
    expect(compared).toEqual(c.expected);
  });
});
