/**
 * The sidecar as `serve` and `stack` run it: one process. It scales by replicas (several
 * processes or pods behind one address), not by workers of its own: docs/decisions/007-one-process.md.
 */
import type { Config } from '../config';
import type { Logger } from '../core/observability/log';
import { startSidecar } from './sidecar';

/** Starts the sidecar; resolves to what stops it. */
export async function serve(config: Config, log: Logger): Promise<() => Promise<void>> {
  const sidecar = await startSidecar(config, log);
  return () => sidecar.stop();
}
