/**
 * The sidecar as `serve` and `stack` run it: one process, or a primary and its workers
 * (src/cli/workers/) sharing the intake port.
 */
import type { Config } from '../config';
import type { Logger } from '../core/observability/log';
import { startSidecar } from './sidecar';
import { availableCores } from './workers/cores';
import { startPrimary } from './workers/primary';

/** `--workers auto`: the cores this process may run on (its CPU affinity and its cgroup's CPU quota, src/cli/workers/cores.ts). */
export const workerCount = (config: Config): number => (config.workers === 'auto' ? availableCores() : config.workers);

/**
 * Starts the sidecar; resolves to what stops it. `workerArgv` is the command line a worker runs
 * (`serve …`): by default this process's own, which is right for `serve` but not for a command
 * such as `stack`, whose workers must serve the intake and nothing else.
 */
export async function serve(config: Config, log: Logger, workerArgv?: readonly string[]): Promise<() => Promise<void>> {
  const workers = workerCount(config);
  if (workers > 1 && config.enabled) {
    const primary = await startPrimary(config, log, workers, workerArgv);
    return () => primary.stop();
  }
  const sidecar = await startSidecar(config, log);
  return () => sidecar.stop();
}
