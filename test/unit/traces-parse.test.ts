/**
 * Every trace and stats wire format through its parser into the one Datadog model: v0.3/v0.4
 * (msgpack and JSON), v0.5 (string table), v0.7 (TracerPayload), the trace-agent's AgentPayload
 * (classic and idx, built with protobufjs from our own .proto files) and APM stats. Bad input must
 * be a 400 whose message names the field path.
 */
import type { DdSpan } from '../../src/signals/traces/datadog';
import { parseMediaType } from '../../src/core/wire/media-type';
import { decodeAgentPayload } from '../../src/signals/traces/parse/agent-payload';
import { parseAgentStats, parseClientStats } from '../../src/signals/traces/parse/stats';
import { parseSpanEventsTag, parseSpanLinksTag } from '../../src/signals/traces/parse/tag-json';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { parseV04Traces } from '../../src/signals/traces/parse/v04';
import { parseV05Traces } from '../../src/signals/traces/parse/v05';
import { parseV07Payload } from '../../src/signals/traces/parse/v07';
import { encodeAgentPayload } from '../fixtures/traces/datadog-proto';
import { badRequestMessage } from '../fixtures/metrics/bad-request';
import { idxTracerPayload, traceIdBytes } from '../fixtures/traces/agent-payloads';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { clientStatsPayload, statsGroup, STATS_START } from '../fixtures/traces/stats-payloads';

const MSGPACK = parseMediaType('application/msgpack');
const JSON_TYPE = parseMediaType('application/json');
const identity = tracerPayloadFromHeaders({ 'datadog-meta-lang': 'nodejs', 'datadog-meta-lang-version': 'v20.1.0', 'datadog-meta-tracer-version': '5.132.0' });

const BIG_TRACE = 18446744073709551615n; // 2^64 - 1: wrong in any double
const BIG_SPAN = 9007199254740993n; // 2^53 + 1
const START = 1700000000123456789n;

const wireSpan = (extra: Record<string, Encodable> = {}): Record<string, Encodable> => ({
  service: 'checkout',
  name: 'express.request',
  resource: 'GET /cart/:id',
  type: 'web',
  trace_id: BIG_TRACE,
  span_id: BIG_SPAN,
  parent_id: 0,
  start: START,
  duration: 1500,
  error: 1,
  meta: { env: 'prod', '_dd.p.tid': '655f0c0000000000', 'http.method': 'GET' },
  metrics: { _sampling_priority_v1: 1, 'http.status_code': 500.5 },
  ...extra,
});

const expectCoreFields = (s: DdSpan | undefined): void => {
  expect(s).toMatchObject({ service: 'checkout', name: 'express.request', resource: 'GET /cart/:id', type: 'web', traceId: BIG_TRACE, spanId: BIG_SPAN, parentId: 0n, start: START, duration: 1500n, error: 1 });
  expect(s?.meta).toEqual(
    new Map([
      ['env', 'prod'],
      ['_dd.p.tid', '655f0c0000000000'],
      ['http.method', 'GET'],
    ]),
  );
  expect(s?.metrics).toEqual(
    new Map([
      ['_sampling_priority_v1', 1],
      ['http.status_code', 500.5],
    ]),
  );
};

describe('v0.3 / v0.4', () => {
  it('parses msgpack with exact 64-bit ids, native links and events, skipping meta_struct and unknown keys', () => {
    const body = encodeMsgpack([
      [
        wireSpan({
          meta_struct: { appsec: new Uint8Array([0x80]) },
          future_field: [1, 2],
          span_links: [{ trace_id: 5n, trace_id_high: 6n, span_id: 7n, attributes: { 'link.name': 'prev' }, tracestate: 'dd=s:1', flags: 0x80000001 }],
          span_events: [
            {
              name: 'cache.miss',
              time_unix_nano: START + 10n,
              attributes: {
                key: { type: 0, string_value: 'cart:1' },
                hit: { type: 1, bool_value: false },
                tries: { type: 2, int_value: 3 },
                ratio: { type: 3, double_value: 0.5 },
                tags: {
                  type: 4,
                  array_value: {
                    values: [
                      { type: 0, string_value: 'a' },
                      { type: 2, int_value: 1 },
                    ],
                  },
                },
              },
            },
          ],
        }),
      ],
      [],
    ]);
    const payload = parseV04Traces(body, MSGPACK, identity, 'v0.4 traces');
    expect(payload.languageName).toBe('nodejs');
    expect(payload.chunks).toHaveLength(2);
    expect(payload.chunks[0]?.priority).toBe(-128);
    const span = payload.chunks[0]?.spans[0];
    expectCoreFields(span);
    expect(span?.links).toEqual([{ traceId: 5n, traceIdHigh: 6n, spanId: 7n, attributes: new Map([['link.name', 'prev']]), tracestate: 'dd=s:1', flags: 0x80000001 }]);
    expect(span?.events).toEqual([
      {
        name: 'cache.miss',
        timeUnixNano: START + 10n,
        attributes: new Map<string, unknown>([
          ['key', 'cart:1'],
          ['hit', false],
          ['tries', 3n],
          ['ratio', 0.5],
          ['tags', ['a', 1n]],
        ]),
      },
    ]);
  });

  it('is lenient like the agent: nil is the zero value, signed/unsigned and int/float interchange, bin as str', () => {
    const body = encodeMsgpack([[{ service: new Uint8Array(Buffer.from('svc')), name: null, trace_id: -1, span_id: 3, start: 5, duration: null, error: null, meta: null, metrics: { a: 2, b: -1n } }]]);
    const span = parseV04Traces(body, MSGPACK, identity, 'v0.4 traces').chunks[0]?.spans[0];
    expect(span).toMatchObject({ service: 'svc', name: '', traceId: BIG_TRACE, spanId: 3n, start: 5n, duration: 0n, error: 0 });
    expect(span?.metrics).toEqual(
      new Map([
        ['a', 2],
        ['b', -1],
      ]),
    );
  });

  it('parses JSON without losing the low bits of 64-bit ids and ns timestamps', () => {
    const json = `[[{"service":"checkout","name":"express.request","resource":"GET /cart/:id","type":"web","trace_id":${BIG_TRACE},"span_id":${BIG_SPAN},"parent_id":0,"start":${START},"duration":1500,"error":1,"meta":{"env":"prod","_dd.p.tid":"655f0c0000000000","http.method":"GET"},"metrics":{"_sampling_priority_v1":1,"http.status_code":500.5}}]]`;
    expectCoreFields(parseV04Traces(Buffer.from(json), JSON_TYPE, identity, 'v0.4 traces').chunks[0]?.spans[0]);
    // no Content-Type is JSON, as in the agent; a digit run inside a string is left alone
    const quoted = parseV04Traces(Buffer.from(`[[{"resource":"id 12345678901234567890","trace_id":"12345678901234567890"}]]`), undefined, identity, 'v0.3 traces');
    expect(quoted.chunks[0]?.spans[0]).toMatchObject({ resource: 'id 12345678901234567890', traceId: 12345678901234567890n });
  });

  it('tells msgpack from JSON by the first byte when the Content-Type is neither', () => {
    const octet = parseMediaType('application/octet-stream');
    expect(parseV04Traces(encodeMsgpack([[{ span_id: 1 }]]), octet, identity, 'v0.4').chunks[0]?.spans[0]?.spanId).toBe(1n);
    expect(parseV04Traces(Buffer.from('[[{"span_id":2}]]'), octet, identity, 'v0.4').chunks[0]?.spans[0]?.spanId).toBe(2n);
  });

  it.each([
    ['meta of the wrong kind', encodeMsgpack([[{ span_id: 1 }, { meta: [] }]]), 'v0.4 traces: [0][1].meta: expected a map, got an array'],
    ['a meta value that is not a string', encodeMsgpack([[{ meta: { 'http.url': 5 } }]]), 'v0.4 traces: [0][0].meta.http.url: expected a string, got a number'],
    ['an id that is not an integer', encodeMsgpack([[{ trace_id: 1.5 }]]), 'v0.4 traces: [0][0].trace_id: expected a 64-bit integer, got a number'],
    ['a trace that is not an array', encodeMsgpack([{ a: 1 }]), 'v0.4 traces: [0]: expected an array, got a map'],
    ['a hostile array header', Buffer.from('dd7fffffff', 'hex'), 'v0.4 traces: msgpack: array header claims 2147483647 elements, only 0 bytes left (at byte 5)'],
    ['a typed attribute of an unknown type', encodeMsgpack([[{ span_events: [{ attributes: { x: { type: 9 } } }] }]]), 'v0.4 traces: [0][0].span_events[0].attributes.x: attribute type 9 is not one of 0 (string) to 4 (array)'],
  ])('refuses %s with the field path', (_name, body, message) => {
    expect(badRequestMessage(() => parseV04Traces(body, MSGPACK, identity, 'v0.4 traces'))).toBe(message);
  });

  it('refuses broken JSON and an empty body', () => {
    expect(badRequestMessage(() => parseV04Traces(Buffer.from('[[{'), JSON_TYPE, identity, 'v0.4 traces'))).toMatch(/^v0.4 traces: body is not valid JSON/);
    expect(badRequestMessage(() => parseV04Traces(Buffer.alloc(0), MSGPACK, identity, 'v0.4 traces'))).toBe('v0.4 traces: empty body');
  });
});

describe('v0.5', () => {
  const strings = ['', 'checkout', 'express.request', 'GET /cart/:id', 'env', 'prod', 'web', '_sampling_priority_v1'];
  const span = (meta: Encodable = new Map([[4, 5]])): Encodable[] => [1, 2, 3, BIG_TRACE, BIG_SPAN, 0, START, 1500, 1, meta, new Map([[7, 1]]), 6];

  it('resolves every string through the table', () => {
    const payload = parseV05Traces(encodeMsgpack([strings, [[span()]]]), identity, 'v0.5 traces');
    expect(payload.chunks[0]?.spans[0]).toMatchObject({ service: 'checkout', name: 'express.request', resource: 'GET /cart/:id', type: 'web', traceId: BIG_TRACE, spanId: BIG_SPAN, start: START, duration: 1500n, error: 1 });
    expect(payload.chunks[0]?.spans[0]?.meta).toEqual(new Map([['env', 'prod']]));
    expect(payload.chunks[0]?.spans[0]?.metrics).toEqual(new Map([['_sampling_priority_v1', 1]]));
    expect(payload.tracerVersion).toBe('5.132.0');
  });

  it.each([
    ['an index outside the table', encodeMsgpack([strings, [[span(new Map([[4, 99]]))]]]), 'v0.5 traces: traces[0][0].meta.env: string index 99 is outside the string table (8 entries)'],
    ['a span without 12 columns', encodeMsgpack([strings, [[[1, 2, 3]]]]), 'v0.5 traces: traces[0][0]: a span has exactly 12 elements, got 3'],
    ['a body that is not [strings, traces]', encodeMsgpack([strings]), 'v0.5 traces: <root>: expected [strings, traces], got an array of 1'],
    ['a string table entry that is not a string', encodeMsgpack([['', 7], []]), 'v0.5 traces: strings[1]: expected a string, got a number'],
  ])('refuses %s', (_name, body, message) => {
    expect(badRequestMessage(() => parseV05Traces(body, identity, 'v0.5 traces'))).toBe(message);
  });
});

describe('v0.7', () => {
  it('parses a TracerPayload with chunks; headers fill what the body leaves empty', () => {
    const body = encodeMsgpack({
      container_id: 'c0ffee',
      language_name: 'python',
      runtime_id: 'r-1',
      env: 'staging',
      hostname: 'h1',
      app_version: '2.0',
      tags: { '_dd.tags.container': 'kube_namespace:shop' },
      chunks: [{ priority: 2, origin: 'synthetics', tags: { '_dd.p.dm': '-4' }, dropped_trace: false, spans: [wireSpan()] }],
    });
    const payload = parseV07Payload(body, identity, 'v0.7 traces');
    expect(payload).toMatchObject({ containerId: 'c0ffee', languageName: 'python', languageVersion: 'v20.1.0', tracerVersion: '5.132.0', runtimeId: 'r-1', env: 'staging', hostname: 'h1', appVersion: '2.0' });
    expect(payload.tags).toEqual(new Map([['_dd.tags.container', 'kube_namespace:shop']]));
    expect(payload.chunks[0]).toMatchObject({ priority: 2, origin: 'synthetics', droppedTrace: false, tags: new Map([['_dd.p.dm', '-4']]) });
    expectCoreFields(payload.chunks[0]?.spans[0]);
  });

  it('refuses a chunk with bad spans, naming it', () => {
    expect(badRequestMessage(() => parseV07Payload(encodeMsgpack({ chunks: [{ spans: [{}, { error: 'yes' }] }] }), identity, 'v0.7 traces'))).toBe('v0.7 traces: chunks[0].spans[1].error: expected a 64-bit integer, got a string');
  });
});

describe('AgentPayload (/api/v0.2/traces)', () => {
  const protoSpan = {
    service: 'checkout',
    name: 'express.request',
    resource: 'GET /cart/:id',
    traceID: BIG_TRACE.toString(),
    spanID: BIG_SPAN.toString(),
    parentID: '0',
    start: START.toString(),
    duration: '1500',
    error: 1,
    meta: { env: 'prod', '_dd.p.tid': '655f0c0000000000', 'http.method': 'GET' },
    metrics: { _sampling_priority_v1: 1, 'http.status_code': 500.5 },
    type: 'web',
    metaStruct: { appsec: Buffer.from([1]) },
    spanLinks: [{ traceID: '5', traceIDHigh: '6', spanID: '7', attributes: { 'link.name': 'prev' }, tracestate: 'dd=s:1', flags: 0x80000001 }],
    spanEvents: [
      {
        timeUnixNano: (START + 10n).toString(),
        name: 'cache.miss',
        attributes: {
          key: { type: 0, stringValue: 'cart:1' },
          tries: { type: 2, intValue: '3' },
          zero: { type: 2 },
          tags: {
            type: 4,
            arrayValue: {
              values: [
                { type: 0, stringValue: 'a' },
                { type: 3, doubleValue: 1.5 },
              ],
            },
          },
        },
      },
    ],
  };

  it('parses the classic form with the agent-level host, env and tags', () => {
    const body = encodeAgentPayload({
      hostName: 'agent-host',
      env: 'prod',
      agentVersion: '7.60.0',
      tags: { team: 'payments' },
      tracerPayloads: [
        {
          containerID: 'c1',
          languageName: 'nodejs',
          tracerVersion: '5.0.0',
          env: 'prod',
          hostname: 'h',
          appVersion: '1.2.3',
          tags: { '_dd.tags.process': 'entrypoint.name:app' },
          chunks: [{ priority: 1, origin: 'rum', spans: [protoSpan], tags: { '_dd.p.dm': '-1' } }],
        },
      ],
    });
    const payload = decodeAgentPayload(body);
    expect(payload.agent).toEqual({ hostName: 'agent-host', env: 'prod', agentVersion: '7.60.0', tags: new Map([['team', 'payments']]) });
    const tracer = payload.tracerPayloads[0];
    expect(tracer).toMatchObject({ containerId: 'c1', languageName: 'nodejs', tracerVersion: '5.0.0', env: 'prod', hostname: 'h', appVersion: '1.2.3' });
    expect(tracer?.tags).toEqual(new Map([['_dd.tags.process', 'entrypoint.name:app']]));
    expect(tracer?.chunks[0]).toMatchObject({ priority: 1, origin: 'rum', tags: new Map([['_dd.p.dm', '-1']]) });
    const span = tracer?.chunks[0]?.spans[0];
    expectCoreFields(span);
    expect(span?.links).toEqual([{ traceId: 5n, traceIdHigh: 6n, spanId: 7n, attributes: new Map([['link.name', 'prev']]), tracestate: 'dd=s:1', flags: 0x80000001 }]);
    expect(span?.events[0]?.attributes).toEqual(
      new Map<string, unknown>([
        ['key', 'cart:1'],
        ['tries', 3n],
        ['zero', 0n],
        ['tags', ['a', 1.5]],
      ]),
    );
  });

  const idxPayload = (overrides: Record<string, unknown> = {}): Record<string, unknown> =>
    idxTracerPayload((ref) => ({
      languageNameRef: ref('nodejs'),
      envRef: ref('prod'),
      hostnameRef: ref('h'),
      appVersionRef: ref('1.2.3'),
      attributes: { [ref('payload.tag')]: { stringValueRef: ref('payload-v') } },
      chunks: [
        {
          priority: 2,
          originRef: ref('rum'),
          attributes: { [ref('chunk.tag')]: { stringValueRef: ref('chunk-v') } },
          traceID: traceIdBytes('655f0c0000000000' + BIG_TRACE.toString(16)),
          samplingMechanism: 4,
          spans: [
            {
              serviceRef: ref('checkout'),
              nameRef: ref('express.request'),
              resourceRef: ref('GET /cart/:id'),
              spanID: BIG_SPAN.toString(),
              parentID: '0',
              start: START.toString(),
              duration: '1500',
              error: true,
              typeRef: ref('web'),
              envRef: ref('prod'),
              versionRef: ref('1.2.3'),
              componentRef: ref('express'),
              kind: 2,
              attributes: {
                [ref('http.method')]: { stringValueRef: ref('GET') },
                [ref('http.status_code')]: { intValue: '500' },
                [ref('retry')]: { boolValue: true },
                [ref('tags')]: { arrayValue: { values: [{ stringValueRef: ref('GET') }, { doubleValue: 0.5 }] } },
              },
              links: [{ traceID: Buffer.alloc(16, 1), spanID: '7', tracestateRef: ref('dd=s:1'), flags: 1, attributes: { [ref('link.name')]: { stringValueRef: ref('prev') } } }],
              events: [{ time: (START + 10n).toString(), nameRef: ref('cache.miss'), attributes: { [ref('key')]: { stringValueRef: ref('cart:1') } } }],
            },
          ],
        },
      ],
      ...overrides,
    }));

  it('parses the idx form into the classic model: refs resolved, 128-bit chunk id split, typed attributes spread', () => {
    const payload = decodeAgentPayload(encodeAgentPayload({ hostName: 'agent-host', idxTracerPayloads: [idxPayload()] }));
    const tracer = payload.tracerPayloads[0];
    expect(tracer).toMatchObject({ languageName: 'nodejs', env: 'prod', hostname: 'h', appVersion: '1.2.3', tags: new Map([['payload.tag', 'payload-v']]) });
    const chunk = tracer?.chunks[0];
    expect(chunk).toMatchObject({
      priority: 2,
      origin: 'rum',
      traceIdHigh: 0x655f0c0000000000n,
      tags: new Map([
        ['chunk.tag', 'chunk-v'],
        ['_dd.p.dm', '-4'],
      ]),
    });
    const span = chunk?.spans[0];
    expect(span).toMatchObject({ service: 'checkout', name: 'express.request', resource: 'GET /cart/:id', type: 'web', traceId: BIG_TRACE, spanId: BIG_SPAN, parentId: 0n, start: START, duration: 1500n, error: 1 });
    expect(span?.meta).toEqual(
      new Map([
        ['http.method', 'GET'],
        ['retry', 'true'],
        ['tags', '["GET",0.5]'],
        ['env', 'prod'],
        ['version', '1.2.3'],
        ['component', 'express'],
        ['span.kind', 'server'],
      ]),
    );
    expect(span?.metrics).toEqual(new Map([['http.status_code', 500]]));
    expect(span?.links).toEqual([{ traceId: 0x0101010101010101n, traceIdHigh: 0x0101010101010101n, spanId: 7n, attributes: new Map([['link.name', 'prev']]), tracestate: 'dd=s:1', flags: 1 }]);
    expect(span?.events).toEqual([{ name: 'cache.miss', timeUnixNano: START + 10n, attributes: new Map([['key', 'cart:1']]) }]);
  });

  it('reads both forms from one payload', () => {
    const payload = decodeAgentPayload(encodeAgentPayload({ tracerPayloads: [{ chunks: [{ spans: [protoSpan] }] }], idxTracerPayloads: [idxPayload()] }));
    expect(payload.tracerPayloads.map((p) => p.chunks[0]?.spans[0]?.service)).toEqual(['checkout', 'checkout']);
  });

  it.each([
    ['a string ref outside the table', () => idxPayload({ envRef: 99 }), /^agent traces: invalid protobuf: AgentPayload.idxTracerPayloads\[0\]: string ref 99 is outside the string table \(\d+ entries\)/],
    ['a chunk trace id that is not 16 bytes', () => idxPayload({ chunks: [{ traceID: Buffer.alloc(8) }] }), /AgentPayload.idxTracerPayloads\[0\].chunks\[0\]: traceID must be 16 bytes, got 8/],
  ])('refuses %s', (_name, payload, message) => {
    expect(badRequestMessage(() => decodeAgentPayload(encodeAgentPayload({ idxTracerPayloads: [payload()] })))).toMatch(message);
  });

  it('caps how deep idx values nest, and refuses arrays nested in classic array values', () => {
    let deep: Record<string, unknown> = { boolValue: true };
    for (let i = 0; i < 40; i++) deep = { arrayValue: { values: [deep] } };
    const nested = idxTracerPayload((ref) => ({ chunks: [{ spans: [{ attributes: { [ref('deep')]: deep } }] }] }));
    expect(badRequestMessage(() => decodeAgentPayload(encodeAgentPayload({ idxTracerPayloads: [nested] })))).toMatch(/values nested deeper than 32 levels/);
    const arrayInArray = { ...protoSpan, spanEvents: [{ name: 'e', attributes: { x: { type: 4, arrayValue: { values: [{ type: 4 }] } } } }] };
    expect(badRequestMessage(() => decodeAgentPayload(encodeAgentPayload({ tracerPayloads: [{ chunks: [{ spans: [arrayInArray] }] }] })))).toMatch(
      /spanEvents\[0\].attributes.value.array_value.values\[0\]: attribute type 4 is not one of 0 \(string\) to 3 \(double\)/,
    );
  });

  it('refuses a length prefix that overruns its message, naming the message', () => {
    // AgentPayload{tracerPayloads: {chunks: {spans: {service: <claims 10 bytes, has 2>}}}}
    const body = Buffer.from('2a08' + '3206' + '1a04' + '0a0a6162', 'hex');
    expect(badRequestMessage(() => decodeAgentPayload(body))).toBe('agent traces: invalid protobuf: AgentPayload.tracerPayloads[0].chunks[0].spans[0]: needs 10 bytes, 2 left (at byte 8)');
  });
});

describe('span links and events sent as JSON tags', () => {
  it('reads dd-trace-js `_dd.span_links`: 32-hex trace id, 16-hex span id, decimal ids too', () => {
    const links = parseSpanLinksTag(
      '[{"trace_id":"655f0c00000000007534d5b6c1e0a177","span_id":"0000000000000012","attributes":{"a":"b","n":1},"flags":1,"tracestate":"dd=s:1"},{"trace_id":18446744073709551615,"trace_id_high":7,"span_id":12345678901234567890}]',
    );
    expect(links).toEqual([
      {
        traceId: 0x7534d5b6c1e0a177n,
        traceIdHigh: 0x655f0c0000000000n,
        spanId: 0x12n,
        attributes: new Map([
          ['a', 'b'],
          ['n', '1'],
        ]),
        tracestate: 'dd=s:1',
        flags: 1,
      },
      { traceId: BIG_TRACE, traceIdHigh: 7n, spanId: 12345678901234567890n, attributes: new Map(), tracestate: '', flags: 0 },
    ]);
  });

  it('reads the `events` tag with exact ns times and typed attributes', () => {
    expect(parseSpanEventsTag(`[{"name":"retry","time_unix_nano":${START},"attributes":{"n":2,"r":0.5,"ok":true,"who":["a","b"]}}]`)).toEqual([
      {
        name: 'retry',
        timeUnixNano: START,
        attributes: new Map<string, unknown>([
          ['n', 2n],
          ['r', 0.5],
          ['ok', true],
          ['who', ['a', 'b']],
        ]),
      },
    ]);
  });

  it.each(['not json', '{"not":"an array"}', '[{"trace_id":"xyz","span_id":1}]'])('gives up on %s without throwing', (text) => {
    expect(parseSpanLinksTag(text)).toBeUndefined();
  });
});

describe('APM stats', () => {
  const client = clientStatsPayload([statsGroup()]);

  it('parses a tracer ClientStatsPayload, DDSketch summaries included', () => {
    const payload = parseClientStats(encodeMsgpack(client as never), 'v0.6 stats');
    expect(payload.stats[0]).toMatchObject({ hostname: 'h', env: 'prod', version: '1.0', lang: 'javascript', service: 'checkout' });
    const g = payload.stats[0]?.buckets[0]?.stats[0];
    expect(payload.stats[0]?.buckets[0]).toMatchObject({ start: STATS_START, duration: 10_000_000_000n });
    expect(g).toMatchObject({ service: 'checkout', name: 'express.request', resource: 'GET /cart/:id', httpStatusCode: 200, hits: 3n, errors: 1n, duration: 5_000_000n, topLevelHits: 3n, spanKind: 'server', httpMethod: 'GET', httpEndpoint: '/cart/:id' });
    // relative accuracy 1 %: each value lands in a bin whose upper bound is within 2 % above it
    expect(g?.okSummary.bins.map((b) => b.count)).toEqual([1, 1]);
    expect(g?.okSummary.bins[0]?.upper).toBeGreaterThanOrEqual(1e6);
    expect(g?.okSummary.bins[0]?.upper).toBeLessThan(1.02e6);
    expect(g?.okSummary.bins[1]?.upper).toBeGreaterThanOrEqual(2e6);
    expect(g?.okSummary.bins[1]?.upper).toBeLessThan(2.04e6);
    expect(g?.errorSummary.bins).toEqual([g?.okSummary.bins[1]]);
  });

  it('parses the trace-agent StatsPayload', () => {
    const payload = parseAgentStats(encodeMsgpack({ AgentHostname: 'agent', AgentEnv: 'prod', AgentVersion: '7.60.0', ClientComputed: true, Stats: [client, client] } as never), 'agent stats');
    expect(payload).toMatchObject({ agentHostname: 'agent', agentEnv: 'prod', agentVersion: '7.60.0', clientComputed: true });
    expect(payload.stats).toHaveLength(2);
  });

  it('refuses a broken sketch, naming where it sat', () => {
    const bad = encodeMsgpack(clientStatsPayload([statsGroup({ OkSummary: new Uint8Array([0x0a, 0x05]) })]) as never);
    expect(badRequestMessage(() => parseClientStats(bad, 'v0.6 stats'))).toMatch(/^v0.6 stats: Stats\[0\].Stats\[0\].OkSummary: DDSketch: needs 5 bytes, 0 left/);
  });
});
