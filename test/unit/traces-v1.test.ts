/**
 * /v1.0/traces (parse/v1.ts): the V1 protocol's streamed strings, field-numbered maps and typed
 * attribute triplets into the one Datadog model, as the idx form of the agent route lands there.
 * Bad input must be a 400 whose message names the field path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { parseV1Traces } from '../../src/signals/traces/parse/v1';
import { badRequestMessage } from '../fixtures/metrics/bad-request';
import { traceIdBytes } from '../fixtures/traces/agent-payloads';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { encodeV1Payload, type V1Span } from '../fixtures/traces/v1-payloads';

const identity = tracerPayloadFromHeaders({ 'datadog-meta-lang': 'go', 'datadog-meta-lang-version': 'go1.24.1', 'datadog-meta-tracer-version': 'v2.3.0', 'datadog-container-id': 'from-header' });
const parse = (body: Buffer) => parseV1Traces(body, identity, 'v1.0 traces');
const TRACE_ID = traceIdBytes('0123456789abcdef0000000000000001');

const span = (extra: Partial<V1Span> = {}): V1Span => ({ service: 'go-shop', name: 'http.request', resource: 'GET /orders', spanID: 18446744073709551615n, start: 1700000000123456789n, duration: 1500n, ...extra });

describe('v1.0 traces', () => {
  it('resolves streamed strings, splits the 128-bit chunk id, spreads typed attributes and the dedicated span fields', () => {
    const body = encodeV1Payload({
      languageName: 'go',
      tracerVersion: 'v2.3.0',
      runtimeID: 'r-1',
      env: 'prod',
      hostname: 'web-1',
      appVersion: '1.2.3',
      attributes: { '_dd.tags.process': 'entrypoint.name:shop' },
      chunks: [
        {
          priority: 2,
          origin: 'synthetics',
          attributes: { service: 'go-shop' },
          traceID: TRACE_ID,
          samplingMechanism: 4,
          spans: [
            span({
              parentID: 7n,
              error: true,
              type: 'web',
              env: 'prod',
              version: '1.2.3',
              component: 'net/http',
              kind: 2,
              attributes: { 'http.method': 'GET', 'http.status_code': 200, big: 9007199254740993n, ok: true, raw: new Uint8Array([1, 2]), list: ['a', 1.5], nested: { k: 'v' }, 'go-shop': 'a key seen before as a value' },
              links: [{ traceID: traceIdBytes('00000000000000020000000000000003'), spanID: 4n, attributes: { 'link.kind': 'follows' }, tracestate: 'dd=s:1', flags: 2147483649 }],
              events: [{ time: 1700000000123456790n, name: 'exception', attributes: { 'exception.message': 'boom', count: 3n } }],
            }),
            span({ spanID: 8n, parentID: 18446744073709551615n, name: 'http.request', resource: 'GET /orders' }),
          ],
        },
      ],
    });
    const payload = parse(body);
    expect(payload).toMatchObject({ languageName: 'go', languageVersion: 'go1.24.1', tracerVersion: 'v2.3.0', containerId: 'from-header', runtimeId: 'r-1', env: 'prod', hostname: 'web-1', appVersion: '1.2.3' });
    expect(payload.tags).toEqual(new Map([['_dd.tags.process', 'entrypoint.name:shop']]));
    const chunk = payload.chunks[0]!;
    expect(chunk).toMatchObject({ priority: 2, origin: 'synthetics', droppedTrace: false, traceIdHigh: 0x0123456789abcdefn });
    expect(chunk.tags).toEqual(
      new Map([
        ['service', 'go-shop'],
        ['_dd.p.dm', '-4'],
      ]),
    );
    const [root, child] = chunk.spans;
    expect(root).toMatchObject({ service: 'go-shop', name: 'http.request', resource: 'GET /orders', type: 'web', traceId: 1n, spanId: 18446744073709551615n, parentId: 7n, start: 1700000000123456789n, duration: 1500n, error: 1 });
    expect(root?.meta).toEqual(
      new Map([
        ['http.method', 'GET'],
        ['ok', 'true'],
        ['raw', 'AQI='],
        ['list', '["a",1.5]'],
        ['nested', '{"k":"v"}'],
        ['go-shop', 'a key seen before as a value'],
        ['env', 'prod'],
        ['version', '1.2.3'],
        ['component', 'net/http'],
        ['span.kind', 'server'],
      ]),
    );
    expect(root?.metrics).toEqual(
      new Map([
        ['http.status_code', 200],
        ['big', 9007199254740992],
      ]),
    );
    expect(root?.links).toEqual([{ traceIdHigh: 2n, traceId: 3n, spanId: 4n, attributes: new Map([['link.kind', 'follows']]), tracestate: 'dd=s:1', flags: 2147483649 }]);
    expect(root?.events).toEqual([
      {
        timeUnixNano: 1700000000123456790n,
        name: 'exception',
        attributes: new Map<string, unknown>([
          ['exception.message', 'boom'],
          ['count', 3n],
        ]),
      },
    ]);
    // the second span's strings are all refs to the first one's
    expect(child).toMatchObject({ service: 'go-shop', name: 'http.request', resource: 'GET /orders', traceId: 1n, spanId: 8n, parentId: 18446744073709551615n, error: 0 });
    expect(child?.meta).toEqual(new Map());
  });

  it('takes a string table sent up front (field 1), and skips fields it does not know', () => {
    const spanMap = new Map<Encodable, Encodable>([
      [1, 1],
      [2, 2],
      [42, 'unknown field'],
      [3, 'res'],
      [10, 3],
    ]);
    const body = encodeMsgpack(
      new Map<Encodable, Encodable>([
        [1, ['', 'svc', 'op']],
        [99, { anything: [1, 2] }],
        [11, [new Map<Encodable, Encodable>([[4, [spanMap]]])]],
      ]),
    );
    // 'unknown field' is skipped with its field, so 'res' is entry 3
    expect(parse(body).chunks[0]?.spans[0]).toMatchObject({ service: 'svc', name: 'op', resource: 'res', type: 'res' });
  });

  it.each([
    ['a ref outside the table', encodeMsgpack(new Map([[11, [new Map([[4, [new Map([[1, 9]])]]])]]])), 'v1.0 traces: chunks[0].spans[0].service: string ref 9 is outside the string table (1 entries)'],
    ['attributes that are not triplets', encodeMsgpack(new Map([[10, ['k', 1]]])), 'v1.0 traces: attributes: attributes are [key, type, value] triplets, got 2 items'],
    ['an unknown value type', encodeMsgpack(new Map([[10, ['k', 8, 'v']]])), 'v1.0 traces: attributes.k: value type 8 is not one of 1 (string) to 7 (key-value list)'],
    ['an array value that is not pairs', encodeMsgpack(new Map([[10, ['k', 6, [1]]]])), 'v1.0 traces: attributes.k: an array value holds [type, value] pairs, got 1 items'],
    ['a chunk trace id that is not 16 bytes', encodeMsgpack(new Map([[11, [new Map([[6, new Uint8Array(8)]])]]])), 'v1.0 traces: chunks[0]: traceID must be 16 bytes, got 8'],
    [
      'a string table after other strings',
      encodeMsgpack(
        new Map<Encodable, Encodable>([
          [3, 'go'],
          [1, ['x']],
        ]),
      ),
      'v1.0 traces: strings: the string table must come before any other string',
    ],
    ['a span id of the wrong kind', encodeMsgpack(new Map([[11, [new Map([[4, [new Map([[4, 'x']])]]])]]])), 'v1.0 traces: chunks[0].spans[0].spanID: expected a 64-bit integer, got a string'],
  ])('refuses %s with a 400 naming the field', (_what, body, message) => {
    expect(badRequestMessage(() => parse(body))).toBe(message);
  });

  it("reads dd-trace-go 2.12.0's captured bodies: the start-up empty map, and 10 chunks of 14 spans with 128-bit ids", () => {
    const dir = join(__dirname, '..', 'fixtures', 'captured', 'go-dd-trace-go-2.12.0-v1');
    expect(parse(readFileSync(join(dir, '002-v1.0_traces.msgpack'))).chunks).toEqual([]);
    const payload = parse(readFileSync(join(dir, '005-v1.0_traces.msgpack')));
    expect(payload).toMatchObject({ languageName: 'go', languageVersion: 'go1.26.8', tracerVersion: 'v2.12.0', env: 'capture', appVersion: '1.0.0', runtimeId: '9deb3718-4c11-4951-9275-6e16016fa3cf' });
    expect(payload.chunks).toHaveLength(10);
    expect(payload.chunks.flatMap((c) => c.spans)).toHaveLength(14);
    for (const chunk of payload.chunks) {
      expect(chunk.traceIdHigh).not.toBe(0n);
      // the 128-bit id's upper half, as the tracer also states it in `_dd.p.tid` on the chunk's first span
      expect(chunk.spans[0]?.meta.get('_dd.p.tid')).toBe(chunk.traceIdHigh?.toString(16).padStart(16, '0'));
    }
    const server = payload.chunks.flatMap((c) => c.spans).find((s) => s.resource === 'POST /orders');
    expect(Object.fromEntries(server?.meta ?? [])).toMatchObject({ 'http.route': '/orders', 'http.method': 'POST', 'http.status_code': '201', 'span.kind': 'server', component: 'net/http', env: 'capture', version: '1.0.0' });
    expect(server?.metrics.get('_sampling_priority_v1')).toBe(1);
  });

  it("reads dd-java-agent 1.68.1's captured bodies (PUT): 1 + 8 chunks, 20 spans, the agent's own language name kept", () => {
    const dir = join(__dirname, '..', 'fixtures', 'captured', 'java-dd-java-agent-1.68.1-v1');
    const payloads = ['005-v1.0_traces.msgpack', '008-v1.0_traces.msgpack'].map((f) => parse(readFileSync(join(dir, f))));
    expect(payloads.map((p) => p.chunks.length)).toEqual([1, 8]);
    const spans = payloads.flatMap((p) => p.chunks.flatMap((c) => c.spans));
    expect(spans).toHaveLength(20);
    expect(payloads[1]).toMatchObject({ languageName: 'java', tracerVersion: '1.68.1~f1de45fd30', hostname: 'vm', env: 'capture', appVersion: '1.0.0' });
    const server = spans.find((s) => s.name === 'servlet.request' && s.resource === 'GET /invoices/{id}');
    expect(Object.fromEntries(server?.meta ?? [])).toMatchObject({ 'http.route': '/invoices/{id}', 'span.kind': 'server', component: 'tomcat-server' });
  });

  it('refuses a body that is not msgpack, or empty', () => {
    expect(badRequestMessage(() => parse(Buffer.from('{"x":1}')))).toMatch(/^v1\.0 traces: /);
    expect(badRequestMessage(() => parse(Buffer.alloc(0)))).toMatch(/^v1\.0 traces: /);
  });
});
