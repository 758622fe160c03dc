/** `--workers auto` and a container's CPU quota (src/cli/workers/cores.ts). */
import { availableParallelism } from 'node:os';
import { availableCores, cgroupCpuQuota } from '../../src/cli/workers/cores';

const files =
  (contents: Record<string, string>) =>
  (path: string): string | undefined =>
    contents[path];

describe('cgroupCpuQuota', () => {
  it('reads cgroup v2 cpu.max in whole cores, rounded up; max is no quota', () => {
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu.max': '200000 100000\n' }))).toBe(2);
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu.max': '25000 100000\n' }))).toBe(1);
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' }))).toBe(2);
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeUndefined();
  });

  it("falls back to cgroup v1's CFS quota, where -1 is none", () => {
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '300000\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' }))).toBe(3);
    expect(cgroupCpuQuota(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' }))).toBeUndefined();
    expect(cgroupCpuQuota(files({}))).toBeUndefined();
  });
});

describe('availableCores', () => {
  it('is the CPU affinity bounded by the quota, and at least 1', () => {
    expect(availableCores(files({}))).toBe(availableParallelism());
    expect(availableCores(files({ '/sys/fs/cgroup/cpu.max': '100000 100000' }))).toBe(1);
    expect(availableCores(files({ '/sys/fs/cgroup/cpu.max': `${1000 * 100000} 100000` }))).toBe(availableParallelism());
  });
});
