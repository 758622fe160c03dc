/**
 * The Datadog series HyperDX's Kubernetes views are made from (docs/translation.md, Kubernetes
 * metrics), by name, with what each says, as the agent's checks send them. Every one is a gauge
 * on the wire: the kubelet check's `sender.Rate` is flushed as the per-second rate, a gauge
 * (interval 0). Names, units and tags from the checks' sources:
 *
 * - kubelet (datadog-agent pkg/collector/corechecks/containers/kubelet, integrations-core
 *   kubelet/metadata.csv): cadvisor provider `kubernetes.cpu.usage.total` (container cpu seconds
 *   × 10⁹ as a rate: nanocores) and `kubernetes.memory.usage` (bytes), pod provider
 *   `kubernetes.cpu.limits` (cores), `kubernetes.memory.limits` (bytes),
 *   `kubernetes.containers.restarts`; summary provider `kubernetes.node.filesystem.usage` (bytes)
 *   and `.usage_pct` (a fraction). Container series carry the container's tags (`container_id`,
 *   `kube_container_name`, `pod_name`, `kube_namespace`, …), never the pod's uid nor the node.
 * - kubernetes_state_core (datadog-agent pkg/collector/corechecks/cluster/ksm, integrations-core
 *   kubernetes_state_core/metadata.csv): `kubernetes_state.pod.status_phase` (1, tagged
 *   `pod_phase`), `.pod.uptime` (seconds), `.node.by_condition` (1, tagged `condition`,
 *   `status`); pod and node series tagged `node`.
 * - system checks (cpu, memory, uptime; integrations-core system_core/metadata.csv):
 *   `system.cpu.user`, `system.cpu.system` (percent of all cores), `system.cpu.num_cores`,
 *   `system.mem.used` (MiB), `system.uptime` (seconds).
 */

/** What one input series stands for. */
export type InputRole =
  | 'containerCpu'
  | 'containerMemory'
  | 'containerCpuLimit'
  | 'containerMemoryLimit'
  | 'containerRestarts'
  | 'nodeFsUsed'
  | 'nodeFsUsedFraction'
  | 'podPhase'
  | 'podUptime'
  | 'nodeCondition'
  | 'cpuUserPercent'
  | 'cpuSystemPercent'
  | 'cpuCores'
  | 'memoryUsedMiB'
  | 'uptime';

/** Whose series it is: the Kubernetes checks' may be left out once mapped (--k8s-datadog-metrics), the system checks' are host metrics and always kept. */
export type InputCheck = 'kubelet' | 'kubernetes_state_core' | 'system';

export interface Input {
  role: InputRole;
  check: InputCheck;
}

const input = (role: InputRole, check: InputCheck): Input => ({ role, check });

export const KUBERNETES_INPUTS: ReadonlyMap<string, Input> = new Map([
  ['kubernetes.cpu.usage.total', input('containerCpu', 'kubelet')],
  ['kubernetes.memory.usage', input('containerMemory', 'kubelet')],
  ['kubernetes.cpu.limits', input('containerCpuLimit', 'kubelet')],
  ['kubernetes.memory.limits', input('containerMemoryLimit', 'kubelet')],
  ['kubernetes.containers.restarts', input('containerRestarts', 'kubelet')],
  ['kubernetes.node.filesystem.usage', input('nodeFsUsed', 'kubelet')],
  ['kubernetes.node.filesystem.usage_pct', input('nodeFsUsedFraction', 'kubelet')],
  ['kubernetes_state.pod.status_phase', input('podPhase', 'kubernetes_state_core')],
  ['kubernetes_state.pod.uptime', input('podUptime', 'kubernetes_state_core')],
  ['kubernetes_state.node.by_condition', input('nodeCondition', 'kubernetes_state_core')],
  ['system.cpu.user', input('cpuUserPercent', 'system')],
  ['system.cpu.system', input('cpuSystemPercent', 'system')],
  ['system.cpu.num_cores', input('cpuCores', 'system')],
  ['system.mem.used', input('memoryUsedMiB', 'system')],
  ['system.uptime', input('uptime', 'system')],
]);

/** The series an input can be: no other name starts like these (a cheap test before the lookup, on every series). */
export const mayBeInput = (metric: string): boolean => metric.startsWith('kubernetes') || metric.startsWith('system.');
