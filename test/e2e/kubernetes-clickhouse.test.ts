/**
 * HyperDX's Kubernetes views, judged in ClickHouse: what a Datadog node agent and cluster agent
 * send for a small cluster (test/fixtures/kubernetes/, built from the agent's sources) through the
 * bridge and the real collector, read back as HyperDX's Kubernetes page, side panels and
 * Infrastructure tab query it (MetricName, ` - Gauge` / ` - Sum`, grouped by the resource's
 * k8s.pod.name, k8s.namespace.name and k8s.node.name; a log's k8s.pod.uid as the filter).
 */
import type { TestClickHouse } from '../helpers/clickhouse';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { type Container, NODE, PODS, sendCluster } from '../fixtures/kubernetes/cluster';

const KEY = 'kubernetes-clickhouse-key';
const WAIT_MS = 60_000;
const MIB = 1024 * 1024;
/** Five flushes a minute apart, ending now (HyperDX's default window). */
const FLUSHES = 5;

const attr = (key: string): string => `ResourceAttributes['${key}']`;

describe("a Datadog agent's Kubernetes series as HyperDX's Kubernetes views read them", () => {
  const running = useClickHouseStack();
  const ch = (): TestClickHouse => running.ch;
  const now = Math.floor(Date.now() / 1000);
  const timestamps = Array.from({ length: FLUSHES }, (_, i) => now - (FLUSHES - 1 - i) * 60);

  beforeAll(async () => {
    await sendCluster(running.stack.intakeUrl, KEY, timestamps);
    await ch().waitForRows(`SELECT 1 FROM otel_metrics_gauge WHERE MetricName = 'k8s.pod.cpu.usage'`, PODS.length * FLUSHES, WAIT_MS);
    await ch().waitForRows(`SELECT 1 FROM otel_metrics_gauge WHERE MetricName = 'k8s.pod.phase'`, PODS.length * FLUSHES, WAIT_MS);
    await ch().waitForRows(`SELECT 1 FROM otel_logs WHERE ${attr('k8s.pod.uid')} != ''`, PODS.length * 2, WAIT_MS);
  });

  it('the pods table: one row per pod (name, namespace, node), Running, with CPU and memory', async () => {
    // the page's query: last phase, avg cpu (utilization or usage), avg memory, grouped by the three attributes
    const rows = await ch().query<{ pod: string; namespace: string; node: string; phase: number; cpu: number; memory: number }>(
      `SELECT ${attr('k8s.pod.name')} AS pod, ${attr('k8s.namespace.name')} AS namespace, ${attr('k8s.node.name')} AS node,
              argMaxIf(Value, TimeUnix, MetricName = 'k8s.pod.phase') AS phase,
              avgIf(Value, MetricName IN ('k8s.pod.cpu.utilization', 'k8s.pod.cpu.usage')) AS cpu,
              avgIf(Value, MetricName = 'k8s.pod.memory.usage') AS memory
       FROM otel_metrics_gauge WHERE MetricName IN ('k8s.pod.phase', 'k8s.pod.cpu.usage', 'k8s.pod.memory.usage')
       GROUP BY pod, namespace, node ORDER BY pod`,
    );
    const sum = (pod: (typeof PODS)[0], of: (c: Container) => number): number => pod.containers.reduce((n, c) => n + of(c), 0);
    expect(rows.map((r) => ({ ...r, cpu: Number(r.cpu.toFixed(9)) }))).toEqual(
      [...PODS].sort((a, b) => a.name.localeCompare(b.name)).map((p) => ({ pod: p.name, namespace: p.namespace, node: NODE, phase: 2, cpu: Number((sum(p, (c) => c.cpuNanocores) / 1e9).toFixed(9)), memory: sum(p, (c) => c.memoryBytes) })),
    );
  });

  it('a pod row: restarts, uptime (a cumulative Sum) and the limit utilizations', async () => {
    const [checkout] = PODS;
    const [restarts] = await ch().query<{ n: number }>(`SELECT max(Value) AS n FROM otel_metrics_gauge WHERE MetricName = 'k8s.container.restarts' AND ${attr('k8s.pod.name')} = {pod:String}`, { pod: checkout!.name });
    expect(restarts?.n).toBe(1);
    const uptime = await ch().query<{ value: number; temporality: number; monotonic: boolean }>(
      `SELECT argMax(Value, TimeUnix) AS value, any(AggregationTemporality) AS temporality, any(IsMonotonic) AS monotonic FROM otel_metrics_sum WHERE MetricName = 'k8s.pod.uptime' AND ${attr('k8s.pod.name')} = {pod:String}`,
      { pod: checkout!.name },
    );
    expect(uptime).toEqual([{ value: 3600, temporality: 2, monotonic: true }]);
    const [utilization] = await ch().query<{ cpu: number; memory: number }>(
      `SELECT avgIf(Value, MetricName = 'k8s.pod.cpu_limit_utilization') AS cpu, avgIf(Value, MetricName = 'k8s.pod.memory_limit_utilization') AS memory FROM otel_metrics_gauge WHERE ${attr('k8s.pod.name')} = {pod:String}`,
      { pod: checkout!.name },
    );
    expect(utilization?.cpu).toBeCloseTo(0.3, 9);
    expect(utilization?.memory).toBeCloseTo(0.5, 9);
  });

  it('the nodes table: one node, Ready, with CPU (cores), memory (bytes) and uptime', async () => {
    const rows = await ch().query<{ node: string; cpu: number; memory: number; ready: number }>(
      `SELECT ${attr('k8s.node.name')} AS node, avgIf(Value, MetricName IN ('k8s.node.cpu.utilization', 'k8s.node.cpu.usage')) AS cpu,
              avgIf(Value, MetricName = 'k8s.node.memory.usage') AS memory, avgIf(Value, MetricName = 'k8s.node.condition_ready') AS ready
       FROM otel_metrics_gauge WHERE MetricName IN ('k8s.node.cpu.usage', 'k8s.node.memory.usage', 'k8s.node.condition_ready') GROUP BY node`,
    );
    expect(rows).toEqual([{ node: NODE, cpu: 0.75, memory: 2048 * MIB, ready: 1 }]);
    await ch().waitForRows(`SELECT 1 FROM otel_metrics_sum WHERE MetricName = 'k8s.node.uptime' AND ${attr('k8s.node.name')} = '${NODE}'`, FLUSHES, WAIT_MS);
  });

  it('the namespaces table: the pods of each namespace summed', async () => {
    const rows = await ch().query<{ namespace: string; memory: number }>(
      `SELECT namespace, sum(memory) AS memory FROM (
         SELECT ${attr('k8s.namespace.name')} AS namespace, ${attr('k8s.pod.name')} AS pod, avg(Value) AS memory
         FROM otel_metrics_gauge WHERE MetricName = 'k8s.pod.memory.usage' GROUP BY namespace, pod)
       GROUP BY namespace ORDER BY namespace`,
    );
    expect(rows).toEqual([
      { namespace: 'kube-system', memory: 20 * MIB },
      { namespace: 'shop', memory: (256 + 64 + 128) * MIB },
    ]);
  });

  it("a pod's log carries k8s.pod.uid and k8s.node.name; the Infrastructure tab's charts for that uid have points", async () => {
    const [checkout] = PODS;
    const logs = await ch().query<{ uid: string; node: string }>(`SELECT DISTINCT ${attr('k8s.pod.uid')} AS uid, ${attr('k8s.node.name')} AS node FROM otel_logs WHERE ${attr('k8s.pod.name')} = {pod:String}`, { pod: checkout!.name });
    expect(logs).toEqual([{ uid: checkout!.uid, node: NODE }]);
    // DBInfraPanel: `k8s.pod.` + cpu.utilization / memory.usage, ` - Gauge`, where ResourceAttributes.k8s.pod.uid = the log's
    const charts = await ch().query<{ metric: string; points: string }>(
      `SELECT MetricName AS metric, toString(count()) AS points FROM otel_metrics_gauge
       WHERE MetricName IN ('k8s.pod.cpu.usage', 'k8s.pod.memory.usage') AND ${attr('k8s.pod.uid')} = {uid:String} GROUP BY metric ORDER BY metric`,
      { uid: checkout!.uid },
    );
    expect(charts.map((c) => c.metric)).toEqual(['k8s.pod.cpu.usage', 'k8s.pod.memory.usage']);
    for (const c of charts) expect(Number(c.points)).toBeGreaterThanOrEqual(FLUSHES - 1);
  });
});
