/**
 * What the Kubernetes mapping costs in bytes (docs/decisions/009-kubernetes-metric-names.md): one
 * node agent flush and one kubernetes_state_core flush of a node with `--pods` pods of two
 * containers (test/fixtures/kubernetes/cluster.ts, the fixture's pods cloned), with the series the
 * kubelet check sends beside the mapped ones (the per-container names of integrations-core
 * kubelet/metadata.csv) and those kube_state_metrics sends per pod, translated with each
 * combination of --k8s-otel-metrics and --k8s-datadog-metrics: OTLP bytes as exported (protobuf,
 * and gzip as the exporter compresses by default) and translation time (median of --runs).
 *
 *   node -r ./tools/register.js bench/kubernetes-bytes.ts --pods 30 --runs 50
 */
import { gzipSync } from 'node:zlib';
import { encodeExportRequests } from '../src/core/otlp/encode';
import { createTranslatorCaches } from '../src/signals/caches';
import { translateMetricsToModel } from '../src/signals/metrics/chain';
import { decodeMetricPayload } from '../src/signals/metrics/parse-v2-proto';
import type { KubernetesMetricOptions } from '../src/signals/metrics/kubernetes/options';
import { clusterAgentSeries, containerTags, KSM_HOST, NODE, nodeAgentSeries, PODS, type Pod } from '../test/fixtures/kubernetes/cluster';
import { encodeMetricPayload } from '../test/fixtures/metrics/agent-payloads';
import { translationContext } from '../test/helpers/translation';
import { optionValue } from './args';

/** The kubelet check's other per-container series (kubelet/metadata.csv), sent with high-cardinality tags. */
const OTHER_CONTAINER_SERIES = [
  'kubernetes.cpu.user.total',
  'kubernetes.cpu.system.total',
  'kubernetes.cpu.cfs.periods',
  'kubernetes.cpu.cfs.throttled.periods',
  'kubernetes.cpu.cfs.throttled.seconds',
  'kubernetes.cpu.requests',
  'kubernetes.memory.working_set',
  'kubernetes.memory.cache',
  'kubernetes.memory.rss',
  'kubernetes.memory.swap',
  'kubernetes.memory.requests',
  'kubernetes.memory.usage_pct',
  'kubernetes.filesystem.usage',
  'kubernetes.filesystem.usage_pct',
  'kubernetes.io.read_bytes',
  'kubernetes.io.write_bytes',
];
/** kubernetes_state_core's other per-container and per-pod series (kubernetes_state_core/metadata.csv). */
const OTHER_STATE_SERIES = [
  'kubernetes_state.container.ready',
  'kubernetes_state.container.running',
  'kubernetes_state.container.restarts',
  'kubernetes_state.container.cpu_requested',
  'kubernetes_state.container.memory_requested',
  'kubernetes_state.pod.ready',
  'kubernetes_state.pod.scheduled',
  'kubernetes_state.pod.age',
];

const pods = (n: number): Pod[] =>
  Array.from({ length: n }, (_, i) => {
    const base = PODS[i % PODS.length] as Pod;
    return { ...base, name: `${base.name}-${i}`, uid: `${base.uid.slice(0, -4)}${String(i).padStart(4, '0')}`, containers: base.containers.map((c) => ({ ...c, id: `${c.id.slice(0, -4)}${String(i).padStart(4, '0')}` })) };
  });

function flush(list: Pod[], ts: number): Record<string, unknown>[] {
  const series = (metric: string, host: string, tags: string[]): Record<string, unknown> => ({ resources: [{ type: 'host', name: host }], metric, tags, points: [{ value: 1, timestamp: ts }], type: 3 });
  const others = list.flatMap((p) =>
    p.containers.flatMap((c) => [
      ...OTHER_CONTAINER_SERIES.map((m) => series(m, NODE, containerTags(p, c, 'high'))),
      ...OTHER_STATE_SERIES.map((m) => series(m, KSM_HOST, [`kube_namespace:${p.namespace}`, `pod_name:${p.name}`, `uid:${p.uid}`, `node:${NODE}`])),
    ]),
  );
  return [...nodeAgentSeries(ts, list), ...clusterAgentSeries(ts, list), ...others];
}

const podCount = Number(optionValue(process.argv, 'pods') ?? 30);
const runs = Number(optionValue(process.argv, 'runs') ?? 30);
const body = encodeMetricPayload({ series: flush(pods(podCount), 1_700_000_000) });
const combos: [string, KubernetesMetricOptions][] = [
  ['Datadog names only (before)', { otelNames: false, datadogNames: true }],
  ['both (default)', { otelNames: true, datadogNames: true }],
  ['OpenTelemetry names only', { otelNames: true, datadogNames: false }],
];
console.log(`${podCount} pods, ${decodeMetricPayload(body).series.length} series in, ${body.length} bytes of MetricPayload`);
interface Result {
  times: number[];
  bytes: number;
  gzipped: number;
  points: number;
}
const pointsOf = (resources: ReturnType<typeof translateMetricsToModel>['resources']): number =>
  resources.reduce((n, r) => n + r.scopeMetrics.reduce((m, s) => m + s.metrics.reduce((k, x) => k + ('gauge' in x ? x.gauge.dataPoints.length : 'sum' in x ? x.sum.dataPoints.length : 0), 0), 0), 0);
const results = combos.map((): Result => ({ times: [], bytes: 0, gzipped: 0, points: 0 }));
// the combinations take turns, so that neither warm-up nor a busy moment favours one
for (let i = 0; i < runs; i++) {
  combos.forEach(([, kubernetesMetrics], c) => {
    const result = results[c] as Result;
    const started = process.hrtime.bigint();
    const { resources } = translateMetricsToModel(decodeMetricPayload(body), translationContext(createTranslatorCaches({ kubernetesMetrics }), 1_700_000_005_000_000_000n));
    const requests = encodeExportRequests({ signal: 'metrics', resources }, 4 * 1024 * 1024);
    result.times.push(Number(process.hrtime.bigint() - started) / 1e6);
    result.bytes = requests.reduce((n, r) => n + r.body.length, 0);
    result.gzipped = requests.reduce((n, r) => n + gzipSync(r.body).length, 0);
    result.points = pointsOf(resources);
  });
}
combos.forEach(([name], c) => {
  const { times, bytes, gzipped, points } = results[c] as Result;
  times.sort((a, b) => a - b);
  console.log(`${name}: ${points} points, ${bytes} bytes OTLP, ${gzipped} gzip, median ${(times[Math.floor(times.length / 2)] as number).toFixed(2)} ms`);
});
