/**
 * A busy machine for the fault tests: processes that spin on a core each, as many as asked, at
 * the sidecar's own priority. Timing that only works on an idle machine (timers firing on time,
 * deadlines computed before a wait) shows itself beside them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CpuHogs {
  count: number;
  stop(): Promise<void>;
}

export function startCpuHogs(count: number): CpuHogs {
  const hogs: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return {
    count,
    stop: () =>
      Promise.all(
        hogs.map(
          (hog) =>
            new Promise<void>((resolve) => {
              if (hog.exitCode !== null || hog.signalCode !== null) return resolve();
              hog.once('exit', () => resolve());
              hog.kill('SIGKILL');
            }),
        ),
      ).then(() => undefined),
  };
}

/** CPU time (user + system) process `pid` has used so far, in ms; NaN where /proc cannot tell (not Linux). */
export function cpuMsOf(pid: number): number {
  try {
    // after the command name in parentheses: state is field 3, utime and stime fields 14 and 15, in ticks of 10 ms
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
