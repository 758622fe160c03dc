/**
 * The OpenTelemetry metrics HyperDX's Kubernetes page, its pod, node and namespace side panels
 * and its Infrastructure tab read (HyperDX KubernetesDashboardPage.tsx, *DetailsSidePanel.tsx,
 * components/infraCorrelations.ts), named, typed and encoded as the collector's kubeletstats and
 * k8s_cluster receivers write them (contrib receiver/kubeletstatsreceiver and
 * receiver/k8sclusterreceiver metadata.yaml): HyperDX reads gauges by name with ` - Gauge`, the
 * uptimes with ` - Sum` (the last cumulative value), the pod phase as k8s_cluster's number, the
 * node's readiness as 1 / 0 / -1.
 */
import { AggregationTemporality, type Metric } from '../../../core/otlp/model';

/** k8s_cluster's `k8s.pod.phase` numbers, which HyperDX's KubePhase reads (types.ts). */
export const POD_PHASES: ReadonlyMap<string, number> = new Map([
  ['pending', 1],
  ['running', 2],
  ['succeeded', 3],
  ['failed', 4],
  ['unknown', 5],
]);

/** k8s_cluster's `k8s.node.condition_ready`: the Ready condition's status. */
export const READY_STATUS: ReadonlyMap<string, number> = new Map([
  ['true', 1],
  ['false', 0],
  ['unknown', -1],
]);

const NS_PER_S = 1_000_000_000n;

export interface Output {
  name: string;
  unit: string;
  kind: 'double' | 'int' | 'uptime';
}

const double = (name: string, unit: string): Output => ({ name, unit, kind: 'double' });
const int = (name: string, unit: string): Output => ({ name, unit, kind: 'int' });
const uptime = (name: string): Output => ({ name, unit: 's', kind: 'uptime' });

export const OUTPUTS = {
  podCpu: double('k8s.pod.cpu.usage', '{cpu}'),
  podMemory: int('k8s.pod.memory.usage', 'By'),
  podCpuLimitUtilization: double('k8s.pod.cpu_limit_utilization', '1'),
  podMemoryLimitUtilization: double('k8s.pod.memory_limit_utilization', '1'),
  podPhase: int('k8s.pod.phase', ''),
  podUptime: uptime('k8s.pod.uptime'),
  containerRestarts: int('k8s.container.restarts', '{restart}'),
  nodeCpu: double('k8s.node.cpu.usage', '{cpu}'),
  nodeMemory: int('k8s.node.memory.usage', 'By'),
  nodeFsAvailable: int('k8s.node.filesystem.available', 'By'),
  nodeReady: int('k8s.node.condition_ready', ''),
  nodeUptime: uptime('k8s.node.uptime'),
} as const;

/**
 * One point of `output` at `timeUnixNano`, or undefined for a value it cannot hold (not finite; a
 * whole number past 2⁵³). An uptime is a cumulative, monotonic Sum of whole seconds that started
 * when the pod or node did: its start time is its time less its value.
 */
export function metricOf(output: Output, value: number, timeUnixNano: bigint): Metric | undefined {
  const base = { name: output.name, unit: output.unit };
  if (output.kind === 'double') return Number.isFinite(value) ? { ...base, gauge: { dataPoints: [{ attributes: [], startTimeUnixNano: 0n, timeUnixNano, value: { double: value } }] } } : undefined;
  const rounded = Math.round(value);
  if (!Number.isSafeInteger(rounded)) return undefined;
  const whole = BigInt(rounded);
  if (output.kind === 'int') return { ...base, gauge: { dataPoints: [{ attributes: [], startTimeUnixNano: 0n, timeUnixNano, value: { int: whole } }] } };
  const started = timeUnixNano - whole * NS_PER_S;
  const point = { attributes: [], startTimeUnixNano: started > 0n ? started : 0n, timeUnixNano, value: { int: whole } };
  return { ...base, sum: { dataPoints: [point], aggregationTemporality: AggregationTemporality.Cumulative, isMonotonic: true } };
}
