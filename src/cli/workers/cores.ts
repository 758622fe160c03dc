/**
 * `--workers auto`: the cores this process may use. os.availableParallelism() follows the CPU
 * affinity (a cpuset, taskset) but not a CPU quota, which is how a container runtime usually
 * limits CPU (`docker run --cpus 2`, a Kubernetes CPU limit): there a quota of 2 cores on a
 * 64-core host would start 64 workers, each with its own heap. The quota, rounded up, bounds it.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

type Read = (path: string) => string | undefined;

const readOrUndefined: Read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // no such cgroup file: no quota to read
  }
};

const cores = (quota: number, period: number): number | undefined => (quota > 0 && period > 0 ? Math.ceil(quota / period) : undefined);

/** The CPU quota of this process's cgroup in whole cores, when there is one: cgroup v2 `cpu.max`, else v1's CFS quota. */
export function cgroupCpuQuota(read: Read = readOrUndefined): number | undefined {
  const v2 = read('/sys/fs/cgroup/cpu.max')?.trim().split(/\s+/);
  if (v2) return v2[0] === 'max' ? undefined : cores(Number(v2[0]), Number(v2[1]));
  const quota = read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us');
  const period = read('/sys/fs/cgroup/cpu/cpu.cfs_period_us');
  return quota === undefined || period === undefined ? undefined : cores(Number(quota), Number(period));
}

export const availableCores = (read: Read = readOrUndefined): number => Math.max(1, Math.min(availableParallelism(), cgroupCpuQuota(read) ?? Infinity));
