/**
 * The trace-agent's side end to end: an AgentPayload built with protobufjs from our own .proto
 * files — classic tracerPayloads and the idx string-table form recent agents send by default —
 * zstd- or gzip-compressed, through the sidecar into the real collector; and APM stats from the
 * agent and from a tracer, turned into metrics.
 */
import { compress as zstd } from '@mongodb-js/zstd';
import { gzipSync } from 'node:zlib';
import { waitFor } from '../helpers/sink';
import { metricPoints } from '../helpers/sink-metrics';
import { sinkSpans } from '../helpers/sink-traces';
import { startStack, type TestStack } from '../helpers/stack';
import { idxTracerPayload, traceIdBytes } from '../fixtures/traces/agent-payloads';
import { encodeAgentPayload } from '../fixtures/traces/datadog-proto';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';
import { clientStatsPayload, ddSketch, statsGroup } from '../fixtures/traces/stats-payloads';

const NOW = BigInt(Date.now()) * 1_000_000n;
const CLASSIC_HIGH = '6560a1b200000000';
const CLASSIC_LOW = 0x1d99f09757cf199dn;
const IDX_TRACE = '6560a1b3000000008a3c5e7f90b1c2d4';

const classicTracerPayload = {
  languageName: 'python',
  languageVersion: '3.12.1',
  tracerVersion: '2.9.0',
  runtimeID: 'py-runtime-1',
  chunks: [
    {
      priority: 1,
      spans: [
        {
          service: 'agent-classic',
          name: 'flask.request',
          resource: 'GET /items',
          type: 'web',
          traceID: CLASSIC_LOW.toString(),
          spanID: '11',
          parentID: '0',
          start: NOW.toString(),
          duration: '5000000',
          meta: { '_dd.p.tid': CLASSIC_HIGH, env: 'agent-e2e', version: '3.0', 'span.kind': 'server' },
          metrics: { _sampling_priority_v1: 1 },
        },
        {
          service: 'agent-classic',
          name: 'requests.request',
          resource: 'GET',
          type: 'http',
          traceID: CLASSIC_LOW.toString(),
          spanID: '12',
          parentID: '11',
          start: (NOW + 1000n).toString(),
          duration: '1000000',
          meta: { env: 'agent-e2e', 'span.kind': 'client', 'http.url': 'http://inventory/items' },
        },
      ],
    },
  ],
};

const idxPayload = (service: string): Record<string, unknown> =>
  idxTracerPayload((ref) => ({
    languageNameRef: ref('go'),
    tracerVersionRef: ref('1.70.0'),
    envRef: ref('agent-e2e'),
    appVersionRef: ref('4.1.0'),
    hostnameRef: ref('go-host'),
    chunks: [
      {
        priority: 2,
        traceID: traceIdBytes(IDX_TRACE),
        spans: [
          { serviceRef: ref(service), nameRef: ref('http.request'), resourceRef: ref('POST /pay'), spanID: '21', parentID: '0', start: NOW.toString(), duration: '3000000', typeRef: ref('web'), kind: 2 },
          {
            serviceRef: ref(service),
            nameRef: ref('grpc.client'),
            resourceRef: ref('/bank.Ledger/Debit'),
            spanID: '22',
            parentID: '21',
            start: (NOW + 10n).toString(),
            duration: '1000000',
            kind: 3,
            error: true,
            attributes: { [ref('error.message')]: { stringValueRef: ref('insufficient funds') }, [ref('retries')]: { intValue: '2' } },
          },
        ],
      },
    ],
  }));

describe('trace-agent → sidecar → real collector', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const post = (path: string, body: Uint8Array, headers: Record<string, string>): Promise<Response> => fetch(stack.intakeUrl + path, { method: 'POST', body, headers });

  it('delivers an AgentPayload with classic and idx tracer payloads, zstd-compressed', async () => {
    const body = encodeAgentPayload({ hostName: 'agent-host-1', env: 'agent-default-env', agentVersion: '7.70.0', tags: { kube_cluster_name: 'prod-cluster' }, tracerPayloads: [classicTracerPayload], idxTracerPayloads: [idxPayload('agent-idx')] });
    const res = await post('/api/v0.2/traces', await zstd(Buffer.from(body), 1), { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'zstd', 'DD-API-KEY': 'x' });
    expect(res.status).toBe(200);

    const spans = await waitFor(
      () => sinkSpans(stack.sinkDir).filter((s) => ['agent-classic', 'agent-idx'].includes(s.resource['service.name'] as string)),
      (s) => s.length >= 4,
    );
    const classic = spans.filter((s) => s.resource['service.name'] === 'agent-classic');
    expect(classic.map((s) => s.span.traceId)).toEqual([CLASSIC_HIGH + CLASSIC_LOW.toString(16), CLASSIC_HIGH + CLASSIC_LOW.toString(16)]);
    for (const s of classic) {
      expect(s.resource).toMatchObject({
        'host.name': 'agent-host-1',
        'deployment.environment.name': 'agent-e2e',
        'service.version': '3.0',
        'k8s.cluster.name': 'prod-cluster',
        'telemetry.sdk.language': 'python',
        'telemetry.sdk.version': '2.9.0',
        'service.instance.id': 'py-runtime-1',
      });
    }
    expect(classic.map((s) => [s.span.name, s.span.kind, s.span.parentSpanId ?? ''])).toEqual([
      ['GET /items', 2, ''],
      ['GET', 3, '000000000000000b'],
    ]);

    const idx = spans.filter((s) => s.resource['service.name'] === 'agent-idx');
    expect(idx.map((s) => s.span.traceId)).toEqual([IDX_TRACE, IDX_TRACE]);
    expect(idx[0]?.resource).toMatchObject({ 'host.name': 'go-host', 'deployment.environment.name': 'agent-e2e', 'service.version': '4.1.0', 'telemetry.sdk.language': 'go', 'k8s.cluster.name': 'prod-cluster' });
    expect(idx[0]?.span).toMatchObject({ name: 'POST /pay', kind: 2 });
    expect(idx[1]?.span).toMatchObject({ name: '/bank.Ledger/Debit', kind: 3, parentSpanId: '0000000000000015', status: { code: 2, message: 'insufficient funds' } });
    expect(idx[1]?.attributes).toMatchObject({ retries: 2, 'sampling.priority': '2', 'datadog.span.name': 'grpc.client' });
    expect(idx[1]?.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('delivers an idx-only AgentPayload sent gzip-compressed, as agents without cgo do', async () => {
    const res = await post('/api/v0.2/traces', gzipSync(encodeAgentPayload({ hostName: 'agent-host-2', idxTracerPayloads: [idxPayload('agent-idx-gzip')] })), { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(200);
    const spans = await waitFor(
      () => sinkSpans(stack.sinkDir).filter((s) => s.resource['service.name'] === 'agent-idx-gzip'),
      (s) => s.length >= 2,
    );
    expect(spans.map((s) => s.span.traceId)).toEqual([IDX_TRACE, IDX_TRACE]);
  });

  it('refuses an undecodable AgentPayload with 400 and the field path', async () => {
    const res = await post('/api/v0.2/traces', Buffer.from('2a083206' + '1a04' + '0a0a6162', 'hex'), { 'Content-Type': 'application/x-protobuf' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/AgentPayload.tracerPayloads\[0\].chunks\[0\].spans\[0\]: needs 10 bytes/);
  });

  describe('APM stats become RED metrics', () => {
    // one 10 s bucket ending now: 4 hits (1, 2, 3 ms ok; 4 ms error), 10 ms in total
    const clientStats = (service: string): Record<string, unknown> =>
      clientStatsPayload(
        [statsGroup({ Service: service, Resource: 'GET /cart', Hits: 4, TopLevelHits: 4, Duration: 10_000_000, OkSummary: ddSketch(1e6, 2e6, 3e6), ErrorSummary: ddSketch(4e6) })],
        { Hostname: 'stats-host', Env: 'agent-e2e', Service: service },
        NOW - 10_000_000_000n,
      );
    const pointsOf = (service: string) => metricPoints(stack.sinkDir).filter((p) => p.resource['service.name'] === service);

    it('from the trace-agent (/api/v0.2/stats, gzip msgpack)', async () => {
      const body = gzipSync(encodeMsgpack({ AgentHostname: 'agent-host-1', AgentEnv: 'agent-e2e', AgentVersion: '7.70.0', ClientComputed: false, Stats: [clientStats('stats-agent')] } as never));
      const res = await post('/api/v0.2/stats', body, { 'Content-Type': 'application/msgpack', 'Content-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      const points = await waitFor(
        () => pointsOf('stats-agent'),
        (p) => p.length >= 4,
      );
      const byName = new Map(points.map((p) => [p.name, p]));
      expect(byName.get('dd.trace.hits')).toMatchObject({ kind: 'sum', temporality: 1, isMonotonic: true, value: 4 });
      expect(byName.get('dd.trace.errors')?.value).toBe(1);
      expect(byName.get('dd.trace.hits')?.attributes).toMatchObject({ 'datadog.span.name': 'express.request', 'dd.span.Resource': 'GET /cart', 'http.status_code': '200' });
      const duration = byName.get('dd.trace.duration');
      expect(duration).toMatchObject({ kind: 'histogram', temporality: 1, unit: 's' });
      expect(duration?.point).toMatchObject({ count: '4', sum: 0.01, bucketCounts: ['1', '1', '1', '1'] });
      expect(points[0]?.resource).toMatchObject({ 'host.name': 'stats-host', 'deployment.environment.name': 'agent-e2e', 'telemetry.sdk.language': 'nodejs' });
    });

    it('from a tracer (/v0.6/stats, msgpack): 200 with an empty body', async () => {
      const res = await fetch(`${stack.intakeUrl}/v0.6/stats`, { method: 'PUT', body: encodeMsgpack(clientStats('stats-tracer') as never), headers: { 'Content-Type': 'application/msgpack' } });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
      const points = await waitFor(
        () => pointsOf('stats-tracer'),
        (p) => p.length >= 4,
      );
      expect(points.map((p) => p.name).sort()).toEqual(['dd.trace.duration', 'dd.trace.errors', 'dd.trace.hits', 'dd.trace.top_level_hits']);
    });
  });
});
