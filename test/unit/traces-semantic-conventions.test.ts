/**
 * The span attribute names HyperDX reads (issue 25, items 1 and 7), through the whole chain: the
 * HTTP and database names under each OTEL_SEMCONV_STABILITY_OPT_IN choice, status codes as ints,
 * and the SampleRate weight from Datadog's sampling decision.
 */
import type { SemconvOptIn } from '../../src/config/options';
import { createTranslatorCaches } from '../../src/signals/caches';
import { chunkOf, PRIORITY_NONE, type DdTracePayload } from '../../src/signals/traces/datadog';
import { translateTracesToModel } from '../../src/signals/traces/chain';
import { chunkSampleRate } from '../../src/signals/traces/sampling';
import { parseJsonTree } from '../../src/signals/traces/parse/json';
import { parseSpanMap } from '../../src/signals/traces/parse/span-map';
import { emptyTracerPayload } from '../../src/signals/traces/datadog';
import { anyValueJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const span = (json: unknown) => parseSpanMap(parseJsonTree(JSON.stringify(json), 'span'));

function attributesOf(spanJson: unknown, semconv?: SemconvOptIn): Record<string, unknown> {
  const payload: DdTracePayload = { tracerPayloads: [{ ...emptyTracerPayload(), chunks: [chunkOf([span(spanJson)])] }] };
  const [rs] = translateTracesToModel(payload, translationContext(createTranslatorCaches(semconv ? { semconv } : {}), 1n));
  return Object.fromEntries(rs!.scopeSpans[0]!.spans[0]!.attributes.map((kv) => [kv.key, anyValueJson(kv.value)]));
}

const HTTP_SPAN = { name: 'web.request', resource: 'GET /x', type: 'web', meta: { 'http.method': 'GET', 'http.url': 'http://h/x', 'http.status_code': '200', 'network.client.ip': '10.0.0.1', 'http.useragent': 'curl' }, metrics: {} };
const DB_SPAN = { name: 'pg.query', resource: 'SELECT 1', type: 'sql', meta: { 'db.type': 'postgres', 'db.instance': 'shop' } };

describe('semantic-convention names on spans', () => {
  it('by default writes the names HyperDX reads for its HTTP panel, with the status code an int', () => {
    expect(attributesOf(HTTP_SPAN)).toMatchObject({
      'http.method': { stringValue: 'GET' },
      'http.url': { stringValue: 'http://h/x' },
      'http.status_code': { intValue: '200' },
      'net.peer.ip': { stringValue: '10.0.0.1' },
      'http.user_agent': { stringValue: 'curl' },
    });
  });

  it('writes the stable names under `http`, and both under `http/dup`', () => {
    const stable = attributesOf(HTTP_SPAN, { http: 'stable', database: 'old' });
    expect(stable).toMatchObject({ 'http.request.method': { stringValue: 'GET' }, 'url.full': { stringValue: 'http://h/x' }, 'http.response.status_code': { intValue: '200' }, 'client.address': { stringValue: '10.0.0.1' } });
    expect(stable).not.toHaveProperty('http.url');
    const dup = attributesOf(HTTP_SPAN, { http: 'dup', database: 'old' });
    expect(dup).toMatchObject({ 'http.url': { stringValue: 'http://h/x' }, 'url.full': { stringValue: 'http://h/x' }, 'http.status_code': { intValue: '200' }, 'http.response.status_code': { intValue: '200' } });
  });

  it("turns the datadog exporter's double status code into an int, and leaves a status code that is no integer as sent", () => {
    expect(attributesOf({ ...HTTP_SPAN, meta: {}, metrics: { 'http.status_code': 404 } })).toMatchObject({ 'http.status_code': { intValue: '404' } });
    expect(attributesOf({ ...HTTP_SPAN, meta: { 'http.status_code': '2xx' } })).toMatchObject({ 'http.status_code': { stringValue: '2xx' } });
  });

  it('puts the query text where the Database tab reads it, under the database names chosen', () => {
    expect(attributesOf(DB_SPAN)).toMatchObject({ 'db.statement': { stringValue: 'SELECT 1' }, 'db.system': { stringValue: 'postgres' }, 'db.name': { stringValue: 'shop' } });
    const stable = attributesOf(DB_SPAN, { http: 'old', database: 'stable' });
    expect(stable).toMatchObject({ 'db.query.text': { stringValue: 'SELECT 1' }, 'db.system.name': { stringValue: 'postgres' }, 'db.namespace': { stringValue: 'shop' } });
    expect(stable).not.toHaveProperty('db.statement');
  });
});

describe('SampleRate', () => {
  const chunk = (metrics: Record<string, number>, tags: Record<string, string> = {}) => ({ ...chunkOf([span({ name: 'a', metrics: { x: 1 } }), span({ name: 'root', metrics })]), tags: new Map(Object.entries(tags)) });
  const rate = (c: ReturnType<typeof chunk>, priority: number | undefined, rejectedDropped: boolean) => chunkSampleRate(c, priority, rejectedDropped);

  it("is 1 / the pre-samplers' rates, always: what they dropped was never sent", () => {
    expect(rate(chunk({ _sample_rate: 0.25 }), undefined, false)).toEqual({ int: 4n });
    expect(rate(chunk({}, { '_dd.otlp_sr': '0.5' }), undefined, false)).toEqual({ int: 2n });
  });

  it("counts the priority sampler's rates only for a kept trace whose sender dropped the rejected ones (the trace-agent)", () => {
    const agentKept = chunk({ _sampling_priority_v1: 1, '_dd.agent_psr': 0.1 });
    expect(rate(agentKept, 1, true)).toEqual({ int: 10n });
    expect(rate(agentKept, 1, false)).toEqual({ int: 1n });
    expect(rate(chunk({ _sampling_priority_v1: 2, '_dd.rule_psr': 0.5, '_dd.limit_psr': 0.5, _sample_rate: 0.5 }), 2, true)).toEqual({ int: 8n });
    expect(rate(chunk({ _sampling_priority_v1: 0, '_dd.agent_psr': 0.1, _sample_rate: 0.5 }), 0, true)).toEqual({ int: 2n });
  });

  it('is 1 without sampling information, and for rates outside (0, 1)', () => {
    expect(rate(chunk({ x: 1 }), PRIORITY_NONE, true)).toEqual({ int: 1n });
    expect(rate(chunk({ _sample_rate: 0, '_dd.agent_psr': 7 }), 1, true)).toEqual({ int: 1n });
  });
});
