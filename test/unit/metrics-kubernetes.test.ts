/**
 * The agent's Kubernetes and node series → the OpenTelemetry metrics HyperDX's Kubernetes views
 * read (src/signals/metrics/kubernetes/), and the pod identity every signal of a pod shares
 * (src/signals/shared/pod-identities.ts, logs/pod-log-path.ts), over the agent-format payloads of
 * test/fixtures/kubernetes/cluster.ts (its README says where every name, unit and tag comes from).
 */
import type { AnyValue, KeyValue, Metric, NumberDataPoint, ResourceMetrics } from '../../src/core/otlp/model';
import { AggregationTemporality } from '../../src/core/otlp/model';
import { createTranslatorCaches, type TranslatorCaches } from '../../src/signals/caches';
import { PodIdentities } from '../../src/signals/shared/pod-identities';
import { hostMetadataOf } from '../../src/signals/events/host-metadata';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { translateMetricsToModel } from '../../src/signals/metrics/chain';
import { decodeMetricPayload } from '../../src/signals/metrics/parse-v2-proto';
import { translateTracesToModel } from '../../src/signals/traces/chain';
import { chunkOf, emptySpan, emptyTracerPayload } from '../../src/signals/traces/datadog';
import { encodeMetricPayload } from '../fixtures/metrics/agent-payloads';
import { translationContext } from '../helpers/translation';
import { CLUSTER, clusterAgentSeries, type Container, NODE, NODE_STATS, nodeAgentSeries, nodeHostMetadata, PODS, podLogEntries } from '../fixtures/kubernetes/cluster';

const TS = 1_700_000_000;
const RECEIVED = 1_700_000_005_000_000_000n;
const NS = BigInt(TS) * 1_000_000_000n;
const MIB = 1024 * 1024;
const [CHECKOUT, PAYMENTS, COREDNS] = PODS as [(typeof PODS)[0], (typeof PODS)[0], (typeof PODS)[0]];

const text = (v: AnyValue | undefined): unknown => (v === undefined ? undefined : 'string' in v ? v.string : 'int' in v ? v.int : 'double' in v ? v.double : v);
const plain = (kvs: readonly KeyValue[]): Record<string, unknown> => Object.fromEntries(kvs.map((kv) => [kv.key, text(kv.value)]));

function withHostMetadata(caches = createTranslatorCaches()): TranslatorCaches {
  const metadata = hostMetadataOf(nodeHostMetadata());
  if (!metadata) throw new Error('not host metadata');
  caches.hosts.set(metadata.host, metadata.attributes);
  return caches;
}

const translate = (series: Record<string, unknown>[], caches: TranslatorCaches): ResourceMetrics[] => translateMetricsToModel(decodeMetricPayload(encodeMetricPayload({ series })), translationContext(caches, RECEIVED)).resources;

interface Found {
  resource: Record<string, unknown>;
  metric: Metric;
  point: NumberDataPoint;
}

/** Every point of metric `name`, with its resource. */
function find(resources: ResourceMetrics[], name: string): Found[] {
  const out: Found[] = [];
  for (const r of resources)
    for (const m of r.scopeMetrics.flatMap((s) => s.metrics))
      if (m.name === name) for (const point of ('gauge' in m ? m.gauge.dataPoints : 'sum' in m ? m.sum.dataPoints : []) as NumberDataPoint[]) out.push({ resource: plain(r.resource.attributes), metric: m, point });
  return out;
}

const ofPod = (found: Found[], pod: { name: string }): Found => {
  const hit = found.find((f) => f.resource['k8s.pod.name'] === pod.name);
  if (!hit) throw new Error(`no point for ${pod.name}`);
  return hit;
};

describe('node agent series → the OpenTelemetry metrics HyperDX reads', () => {
  const resources = translate(nodeAgentSeries(TS), withHostMetadata());

  it("k8s.pod.cpu.usage: the pod's containers' nanocores summed, in cores, a {cpu} gauge", () => {
    const { metric, point } = ofPod(find(resources, 'k8s.pod.cpu.usage'), CHECKOUT);
    expect(metric.unit).toBe('{cpu}');
    expect('gauge' in metric).toBe(true);
    expect(point.timeUnixNano).toBe(NS);
    expect(text(point.value)).toBeCloseTo(0.3, 12);
    expect(text(ofPod(find(resources, 'k8s.pod.cpu.usage'), COREDNS).point.value)).toBeCloseTo(0.003, 12);
  });

  it('k8s.pod.memory.usage: the bytes summed, an int By gauge', () => {
    const { metric, point } = ofPod(find(resources, 'k8s.pod.memory.usage'), CHECKOUT);
    expect(metric.unit).toBe('By');
    expect(point.value).toEqual({ int: BigInt(320 * MIB) });
  });

  it('limit utilizations: usage / the sum of the limits, only when every container has one', () => {
    expect(text(ofPod(find(resources, 'k8s.pod.cpu_limit_utilization'), CHECKOUT).point.value)).toBeCloseTo(0.3, 12);
    expect(text(ofPod(find(resources, 'k8s.pod.memory_limit_utilization'), CHECKOUT).point.value)).toBeCloseTo(0.5, 12);
    expect(text(ofPod(find(resources, 'k8s.pod.memory_limit_utilization'), COREDNS).point.value)).toBeCloseTo(20 / 170, 12);
    // coredns has no cpu limit, payments no limit at all
    expect(find(resources, 'k8s.pod.cpu_limit_utilization').map((f) => f.resource['k8s.pod.name'])).toEqual([CHECKOUT.name]);
    expect(find(resources, 'k8s.pod.memory_limit_utilization').map((f) => f.resource['k8s.pod.name'])).toEqual([CHECKOUT.name, COREDNS.name]);
  });

  it("a pod's metrics carry its pod-level resource and its node (the agent's), not a container's or a service", () => {
    const { resource } = ofPod(find(resources, 'k8s.pod.cpu.usage'), CHECKOUT);
    expect(resource).toEqual({
      'host.name': NODE,
      'k8s.namespace.name': 'shop',
      'k8s.pod.name': CHECKOUT.name,
      'k8s.deployment.name': 'checkout',
      'k8s.replicaset.name': 'checkout-7d9f8b6c5',
      'deployment.environment.name': 'prod',
      'k8s.node.name': NODE,
      // from the node's host metadata
      'k8s.cluster.name': CLUSTER,
      'host.id': 'i-0a1b2c3d4e5f67890',
      'cloud.provider': 'aws',
      kube_distribution: 'eks',
    });
  });

  it('k8s.container.restarts: per container, an int gauge', () => {
    const restarts = find(resources, 'k8s.container.restarts');
    expect(restarts.map((f) => [f.resource['k8s.container.name'], f.point.value])).toEqual(PODS.flatMap((p) => p.containers.map((c: Container) => [c.name, { int: BigInt(c.restarts) }])));
    expect(restarts[0]?.metric.unit).toBe('{restart}');
    expect(restarts[0]?.resource['k8s.node.name']).toBe(NODE);
  });

  it('the node: cpu from (user + system) % of its cores, memory from MiB, the file system left, uptime as a cumulative Sum', () => {
    const [cpu] = find(resources, 'k8s.node.cpu.usage');
    expect(cpu?.resource).toMatchObject({ 'k8s.node.name': NODE, 'host.name': NODE });
    expect(text(cpu?.point.value)).toBeCloseTo(((NODE_STATS.cpuUserPercent + NODE_STATS.cpuSystemPercent) / 100) * NODE_STATS.cores, 12);
    expect(find(resources, 'k8s.node.memory.usage')[0]?.point.value).toEqual({ int: BigInt(2048 * MIB) });
    expect(find(resources, 'k8s.node.filesystem.available')[0]?.point.value).toEqual({ int: BigInt(60 * 1024 * MIB) });
    const [uptime] = find(resources, 'k8s.node.uptime');
    expect(uptime?.metric).toMatchObject({ unit: 's', sum: { aggregationTemporality: AggregationTemporality.Cumulative, isMonotonic: true } });
    expect(uptime?.point).toMatchObject({ value: { int: 86_400n }, startTimeUnixNano: NS - 86_400n * 1_000_000_000n, timeUnixNano: NS });
  });

  it('keeps the Datadog-named series beside them by default', () => {
    expect(find(resources, 'kubernetes.cpu.usage.total')).toHaveLength(4);
    expect(find(resources, 'system.cpu.user')).toHaveLength(1);
  });
});

describe('kubernetes_state_core series', () => {
  const resources = translate(clusterAgentSeries(TS), createTranslatorCaches());

  it('k8s.pod.phase: Running is 2 (k8s_cluster and HyperDX), with the uid and node the series say', () => {
    const { point, resource } = ofPod(find(resources, 'k8s.pod.phase'), CHECKOUT);
    expect(point.value).toEqual({ int: 2n });
    expect(resource).toMatchObject({ 'k8s.pod.uid': CHECKOUT.uid, 'k8s.node.name': NODE, 'k8s.namespace.name': 'shop', 'k8s.cluster.name': CLUSTER });
  });

  it('k8s.pod.uptime: a cumulative Sum of seconds', () => {
    const { metric, point } = ofPod(find(resources, 'k8s.pod.uptime'), PAYMENTS);
    expect(metric).toMatchObject({ unit: 's', sum: { aggregationTemporality: AggregationTemporality.Cumulative, isMonotonic: true } });
    expect(point.value).toEqual({ int: 7200n });
  });

  it('k8s.node.condition_ready: 1 for Ready true; the other conditions are not it', () => {
    expect(find(resources, 'k8s.node.condition_ready').map((f) => [f.resource['k8s.node.name'], f.point.value])).toEqual([[NODE, { int: 1n }]]);
  });
});

describe('one pod identity for every signal of a pod', () => {
  it("the node agent's pod metrics get the uid kubernetes_state_core said", () => {
    const caches = withHostMetadata();
    translate(clusterAgentSeries(TS), caches);
    const resources = translate(nodeAgentSeries(TS + 15), caches);
    expect(ofPod(find(resources, 'k8s.pod.cpu.usage'), CHECKOUT).resource['k8s.pod.uid']).toBe(CHECKOUT.uid);
    expect(ofPod(find(resources, 'kubernetes.cpu.usage.total'), CHECKOUT).resource['k8s.pod.uid']).toBe(CHECKOUT.uid);
  });

  it("a pod's log: its directory names the pod, its uid and container; the tags the rest", () => {
    const c = CHECKOUT.containers[0] as Container;
    const [logs] = translateLogsToModel(parseLogsBody(Buffer.from(JSON.stringify(podLogEntries(CHECKOUT, c, ['paid'], TS * 1000))), new URLSearchParams()), translationContext(withHostMetadata(), RECEIVED));
    expect(plain(logs!.resource.attributes)).toMatchObject({ 'k8s.pod.uid': CHECKOUT.uid, 'k8s.pod.name': CHECKOUT.name, 'k8s.namespace.name': 'shop', 'k8s.container.name': 'checkout', 'container.id': c.id, 'k8s.node.name': NODE });
    expect(plain(logs!.scopeLogs[0]!.logRecords[0]!.attributes)).toMatchObject({ dirname: `/var/log/pods/shop_${CHECKOUT.name}_${CHECKOUT.uid}/checkout` });
  });

  it('a span that names only its container (a tracer sending directly) gets the pod the container is in', () => {
    const caches = createTranslatorCaches();
    const c = PAYMENTS.containers[0] as Container;
    translateLogsToModel(parseLogsBody(Buffer.from(JSON.stringify(podLogEntries(PAYMENTS, c, ['charged'], TS * 1000))), new URLSearchParams()), translationContext(caches, RECEIVED));
    const span = { ...emptySpan(), service: 'payments', name: 'http.request', traceId: 7n, spanId: 8n };
    const [spans] = translateTracesToModel({ tracerPayloads: [{ ...emptyTracerPayload(), containerId: c.id, chunks: [chunkOf([span])] }] }, translationContext(caches, RECEIVED));
    expect(plain(spans!.resource.attributes)).toMatchObject({ 'container.id': c.id, 'k8s.pod.uid': PAYMENTS.uid, 'k8s.pod.name': PAYMENTS.name, 'k8s.namespace.name': 'shop', 'k8s.container.name': 'payments' });
  });
});

describe('a host that is no Kubernetes node', () => {
  it('gets no node metrics from its system series: it sent no kubelet series and names no node', () => {
    const system = nodeAgentSeries(TS).filter((s) => String(s.metric).startsWith('system.'));
    const resources = translate(system, createTranslatorCaches());
    expect(find(resources, 'k8s.node.cpu.usage')).toEqual([]);
    expect(find(resources, 'system.cpu.user')).toHaveLength(1);
    // once its agent ran the kubelet check, its system series are a node's
    const caches = createTranslatorCaches();
    translate(
      nodeAgentSeries(TS).filter((s) => String(s.metric).startsWith('kubernetes.')),
      caches,
    );
    expect(find(translate(system, caches), 'k8s.node.cpu.usage')).toHaveLength(1);
  });
});

describe('values a metric cannot hold', () => {
  it('are left out, not thrown on: memory past 2^53 bytes, an infinite file-system fraction', () => {
    const series = nodeAgentSeries(TS).map((s) => (s.metric === 'system.mem.used' ? { ...s, points: [{ value: 1e300, timestamp: TS }] } : s.metric === 'kubernetes.node.filesystem.usage_pct' ? { ...s, points: [{ value: 1e-320, timestamp: TS }] } : s));
    const resources = translate(series, createTranslatorCaches());
    expect(find(resources, 'k8s.node.memory.usage')).toEqual([]);
    expect(find(resources, 'k8s.node.filesystem.available')).toEqual([]);
    expect(find(resources, 'k8s.node.cpu.usage')).toHaveLength(1);
  });
});

describe('the pod table', () => {
  const kv = (pairs: Record<string, string>): KeyValue[] => Object.entries(pairs).map(([key, v]) => ({ key, value: { string: v } }));

  it('gives a resource array it saw before what it learned since, and forgets a pod after its TTL', () => {
    let now = 0;
    const table = new PodIdentities({ maxPods: 10, ttlMs: 1000 }, () => now);
    const metric = kv({ 'k8s.namespace.name': 'shop', 'k8s.pod.name': 'p' });
    expect(table.enrich(metric)).toBe(metric);
    table.enrich(kv({ 'k8s.namespace.name': 'shop', 'k8s.pod.name': 'p', 'k8s.pod.uid': 'u-1' }));
    expect(plain(table.enrich(metric))).toMatchObject({ 'k8s.pod.uid': 'u-1' });
    now = 1000;
    expect(table.enrich(metric)).toBe(metric);
  });
});

describe('either name can be switched off', () => {
  const names = (resources: ResourceMetrics[]): string[] => [...new Set(resources.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.name))))].sort();

  it('--k8s-otel-metrics=false: the Datadog series only', () => {
    const resources = translate(nodeAgentSeries(TS), createTranslatorCaches({ kubernetesMetrics: { otelNames: false, datadogNames: true } }));
    expect(names(resources).filter((n) => n.startsWith('k8s.'))).toEqual([]);
    expect(names(resources)).toContain('kubernetes.cpu.usage.total');
  });

  it('--k8s-datadog-metrics=false: the kubelet series are left out, the system checks kept', () => {
    const resources = translate(nodeAgentSeries(TS), createTranslatorCaches({ kubernetesMetrics: { otelNames: true, datadogNames: false } }));
    expect(names(resources).filter((n) => n.startsWith('kubernetes'))).toEqual([]);
    expect(names(resources)).toEqual(expect.arrayContaining(['k8s.pod.cpu.usage', 'system.cpu.user', 'system.mem.used']));
  });
});
