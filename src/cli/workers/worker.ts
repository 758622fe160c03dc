/**
 * A worker process (`--workers N` > 1): the sidecar's intake on the port all workers share
 * (node:cluster hands each new connection to one of them in turn), without the admin port, which
 * the primary serves. Its caches learn from the others' through the primary (shared-caches.ts);
 * its spool is its own (spool-dirs.ts). It obeys the primary: it stops when told to, and exits at
 * once when the primary is gone (a crash of the whole sidecar, as `kill -9` of one process is).
 */
import type { Config } from '../../config';
import type { Logger } from '../../core/observability/log';
import { startSidecar, translatorCacheOptions, type Sidecar } from '../sidecar';
import { Channel, type PrimaryRequest, type WorkerChannel, type WorkerRequest, type WorkerStatus } from './protocol';
import { PRIMARY_TIMEOUT_MS, WorkerSharedState } from './shared-caches';

/** The IPC channel to the primary (process.send exists in a cluster worker). */
function primaryChannel(handle: (request: PrimaryRequest) => unknown): WorkerChannel {
  const channel: WorkerChannel = new Channel<WorkerRequest, PrimaryRequest>((message) => {
    // once the primary is gone the worker exits ('disconnect'); a send meanwhile must not throw from an 'error' event
    process.send?.(message, undefined, undefined, () => undefined);
  }, handle);
  process.on('message', (message) => channel.receive(message));
  return channel;
}

export async function runWorker(config: Config, baseLog: Logger): Promise<void> {
  let sidecar: Sidecar | undefined;
  let status: WorkerStatus = 'starting';
  let shared: WorkerSharedState | undefined;
  let log = baseLog;
  const stop = (): void => {
    if (status === 'stopping') return;
    status = 'stopping';
    const stopped = sidecar ? sidecar.stop() : Promise.resolve();
    stopped.then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('error during shutdown', { error: err });
        process.exit(1);
      },
    );
  };
  const channel = primaryChannel((request) => {
    if (request.type === 'stats') return { status, metrics: sidecar?.metrics.snapshot() ?? [] };
    if (request.type === 'stop') return stop();
    // before the hello's answer this worker carries no stream and has nothing to adopt
    return shared?.answer(request) ?? (request.type === 'release' ? request.streams.map(() => undefined) : null);
  });
  process.on('disconnect', () => {
    if (status !== 'stopping') process.exit(1);
  });
  // the primary decides when workers stop (a terminal's Ctrl-C reaches every process of the group)
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => undefined);

  const hello = await channel.request({ type: 'hello' }, PRIMARY_TIMEOUT_MS);
  log = baseLog.child({ worker: hello.index });
  shared = new WorkerSharedState(translatorCacheOptions(config), () => channel, log);
  shared.adopt(hello.known);
  sidecar = await startSidecar(config, log, {}, { index: hello.index, workers: hello.workers, caches: shared.caches, shared });
  if (status === 'starting') status = 'ok';
  const at = sidecar.intakeAddress;
  await channel.request({ type: 'ready', listen: at ? `${at.address}:${at.port}` : '' }, PRIMARY_TIMEOUT_MS);
}
