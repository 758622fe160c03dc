/**
 * Fuzzing of every trace and stats path (see test/helpers/fuzz.ts): parse, translate and encode
 * mutated seeds of each wire format. Only the parser may refuse, and only with a 4xx; whatever it
 * accepts must translate and encode without throwing (a crash there would be a 503 that the
 * trace-agent retries forever).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { DdTracePayload } from '../../src/signals/traces/datadog';
import { encodeExportRequests, spanStreamEncoder } from '../../src/core/otlp/encode';
import { parseMediaType } from '../../src/core/wire/media-type';
import { decodeAgentPayload } from '../../src/signals/traces/parse/agent-payload';
import { parseAgentStats, parseClientStats } from '../../src/signals/traces/parse/stats';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { parseV04Traces } from '../../src/signals/traces/parse/v04';
import { parseV05Traces } from '../../src/signals/traces/parse/v05';
import { parseV07Payload } from '../../src/signals/traces/parse/v07';
import { parseV1Traces } from '../../src/signals/traces/parse/v1';
import { translateTraces } from '../../src/signals/traces/chain';
import { translateStats } from '../../src/signals/traces/stats';
import { createTranslatorCaches } from '../../src/signals/caches';
import { fuzzTarget } from '../helpers/fuzz';
import { idxTracerPayload, traceIdBytes } from '../fixtures/traces/agent-payloads';
import { encodeAgentPayload } from '../fixtures/traces/datadog-proto';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { clientStatsPayload, statsGroup } from '../fixtures/traces/stats-payloads';
import { encodeV1Payload } from '../fixtures/traces/v1-payloads';
import { translationContext } from '../helpers/translation';

const CHAIN = join(__dirname, '..', 'fixtures', 'traces', 'chain');
/** The v0.4 goldens' JSON bodies (the V1 one is a captured file, seeded below). */
const jsonSeeds = readdirSync(CHAIN).flatMap((f) => {
  const { input } = JSON.parse(readFileSync(join(CHAIN, f), 'utf8')) as { input?: unknown };
  return input === undefined ? [] : [Buffer.from(typeof input === 'string' ? input : JSON.stringify(input))];
});
const traces = jsonSeeds.map((b) => JSON.parse(b.toString()) as Encodable[]);

/** Real clients' bytes (test/fixtures/captured/*, see their READMEs): OTel-origin spans, DB spans, errors with stacks, sampling rates. */
const CAPTURED = join(__dirname, '..', 'fixtures', 'captured');
const captured = (file: string): Buffer => readFileSync(join(CAPTURED, file));

const caches = createTranslatorCaches();
const identity = tracerPayloadFromHeaders({ 'datadog-meta-lang': 'nodejs' });
const RECEIVED = 1_700_000_000_000_000_000n;

/** As the routes do: spans streamed into the encoder, then packed. */
function translateAndEncode(payload: DdTracePayload): void {
  const spans = spanStreamEncoder();
  translateTraces(translationContext(caches, RECEIVED), spans)(payload);
  spans.requests(64 * 1024);
}

fuzzTarget('traces-v04-json', jsonSeeds, (input) => translateAndEncode({ tracerPayloads: [parseV04Traces(input, parseMediaType('application/json'), identity, 'v0.4')] }));

fuzzTarget('traces-v04-msgpack', [...traces.map((t) => encodeMsgpack(t)), captured('node-dd-trace-5.132.0/007-v0.4_traces.msgpack'), captured('go-dd-trace-go-2.12.0-v0.4/006-v0.4_traces.msgpack')], (input) =>
  translateAndEncode({ tracerPayloads: [parseV04Traces(input, parseMediaType('application/msgpack'), identity, 'v0.4')] }),
);

const v05Seed = encodeMsgpack([
  ['', 'svc', 'op', 'GET /x', 'env', 'prod', 'web', '_dd.p.tid', '655f0c0000000000', 'events', '[{"name":"e","time_unix_nano":1}]'],
  [
    [
      [
        1,
        2,
        3,
        1n << 63n,
        2,
        0,
        RECEIVED,
        10,
        1,
        new Map([
          [4, 5],
          [7, 8],
          [9, 10],
        ]),
        new Map([[4, 1.5]]),
        6,
      ],
    ],
  ],
]);
fuzzTarget('traces-v05', [v05Seed, captured('python-ddtrace-4.16.0/006-v0.5_traces.msgpack')], (input) => translateAndEncode({ tracerPayloads: [parseV05Traces(input, identity, 'v0.5')] }));

fuzzTarget(
  'traces-v07',
  traces.map((t) => encodeMsgpack({ container_id: 'c', env: 'e', tags: { '_dd.tags.container': 'a:b,c' }, chunks: t.map((spans) => ({ priority: 1, origin: 'rum', spans, tags: { '_dd.p.tid': 'ffffffffffffffff' } })) })),
  (input) => translateAndEncode({ tracerPayloads: [parseV07Payload(input, identity, 'v0.7')] }),
);

const v1Seeds = [
  readFileSync(join(__dirname, '..', 'fixtures', 'captured', 'go-dd-trace-go-2.12.0-v1', '005-v1.0_traces.msgpack')),
  encodeV1Payload({
    env: 'prod',
    attributes: { k: { a: new Uint8Array([1]), list: ['x', 1n, 2.5, true] } },
    chunks: [
      {
        traceID: traceIdBytes('ffffffffffffffffffffffffffffffff'),
        samplingMechanism: 4,
        spans: [
          {
            service: 'svc',
            name: 'op',
            resource: 'op',
            spanID: 1n,
            start: 18446744073709551615n,
            duration: -1n,
            kind: 2,
            attributes: { n: Number.MAX_VALUE },
            links: [{ traceID: traceIdBytes('00000000000000010000000000000002'), spanID: 3n, flags: 4294967295 }],
            events: [{ time: 1n, name: 'e' }],
          },
        ],
      },
    ],
  }),
];
fuzzTarget('traces-v1', v1Seeds, (input) => translateAndEncode({ tracerPayloads: [parseV1Traces(input, identity, 'v1.0 traces')] }));

const idx = idxTracerPayload((ref) => ({
  envRef: ref('prod'),
  attributes: { [ref('k')]: { keyValueList: { keyValues: [{ key: ref('a'), value: { bytesValue: Buffer.from([1]) } }] } } },
  chunks: [
    {
      traceID: traceIdBytes('ffffffffffffffffffffffffffffffff'),
      spans: [{ serviceRef: ref('svc'), spanID: '1', start: '18446744073709551615', duration: '18446744073709551615', kind: 2, attributes: { [ref('n')]: { doubleValue: Number.MAX_VALUE } }, events: [{ time: '1', nameRef: ref('e') }] }],
    },
  ],
}));
const agentSeeds = [
  Buffer.from(
    encodeAgentPayload({
      hostName: 'h',
      tags: { kube_cluster_name: 'c' },
      tracerPayloads: [{ chunks: [{ spans: [{ service: 's', traceID: '1', spanID: '2', start: '-5', duration: '9223372036854775807', error: 1, meta: { 'error.message': 'x' }, spanLinks: [{ traceID: '1', spanID: '2', flags: 4294967295 }] }] }] }],
    }),
  ),
  Buffer.from(encodeAgentPayload({ idxTracerPayloads: [idx] })),
  gunzipSync(captured('datadog-exporter-0.155.0/009-api_v0.2_traces.pb.gzip')),
];
fuzzTarget('traces-agent-payload', agentSeeds, (input) => translateAndEncode(decodeAgentPayload(input)));

const client = clientStatsPayload([statsGroup(), statsGroup({ HTTPStatusCode: 500, OkSummary: new Uint8Array() })]);
const encodeMetrics = (resources: ReturnType<typeof translateStats>): void => void encodeExportRequests({ signal: 'metrics', resources }, 64 * 1024);
fuzzTarget('stats-tracer', [encodeMsgpack(client as never)], (input) => encodeMetrics(translateStats(parseClientStats(input, 'v0.6 stats'), caches)));
fuzzTarget('stats-agent', [encodeMsgpack({ AgentHostname: 'h', Stats: [client, client] } as never)], (input) => encodeMetrics(translateStats(parseAgentStats(input, 'agent stats'), caches)));
