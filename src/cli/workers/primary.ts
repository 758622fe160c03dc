/**
 * The primary of a sidecar with several workers (`--workers N` > 1). It serves no intake and
 * translates nothing: it forks the workers (node:cluster: they share the intake port, each new
 * connection handed to the next worker in turn), answers their questions about what the others
 * learned (coordinator.ts), serves the admin port for all of them (/metrics sums their series,
 * /health is ok only when every worker is), restarts a worker that dies, and on SIGTERM has
 * every worker drain within the grace.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config';
import { createAdminServer, type HealthState } from '../../http/admin-server';
import type { Logger } from '../../core/observability/log';
import { BridgeMetrics } from '../../core/observability/metrics';
import { redactUrl } from '../../signals/shared/api-keys';
import { translatorCacheOptions } from '../sidecar';
import { Coordinator, WORKER_TIMEOUT_MS } from './coordinator';
import { Channel, type PrimaryChannel, type PrimaryRequest, type WorkerRequest } from './protocol';

/** A worker that stayed up this long is healthy again: its next crash restarts it without delay. */
const STABLE_MS = 30_000;
const FIRST_RESTART_MS = 250;
const MAX_RESTART_MS = 30_000;
/** Beyond the grace: what a worker's own shutdown may take past it (sidecar.ts: twice AFTER_GRACE_MS) and its exit. */
const EXIT_MARGIN_MS = 2_000;

interface Slot {
  index: number;
  worker: Worker | undefined;
  channel: PrimaryChannel | undefined;
  ready: boolean;
  /** restarts in a row that did not stay up STABLE_MS */
  failures: number;
  startedAt: number;
}

export interface Primary {
  adminAddress: AddressInfo;
  stop(): Promise<void>;
}

const listenAdmin = (server: Server, config: Config): Promise<AddressInfo> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.adminListen.port, config.adminListen.host, () => resolve(server.address() as AddressInfo));
  });

export const restartDelayMs = (failures: number): number => Math.min(MAX_RESTART_MS, FIRST_RESTART_MS * 2 ** Math.max(0, failures - 1));

/** `workerArgv`: the command line each worker runs, when not this process's own (see serve.ts). */
export async function startPrimary(config: Config, log: Logger, workers: number, workerArgv?: readonly string[]): Promise<Primary> {
  const coordinator = new Coordinator(translatorCacheOptions(config), workers);
  const slots: Slot[] = Array.from({ length: workers }, (_, index) => ({ index, worker: undefined, channel: undefined, ready: false, failures: 0, startedAt: 0 }));
  let stopping = false;
  let intakeListen: string | undefined;
  const own = new BridgeMetrics();
  log.info('starting workers', { workers, pid: process.pid });

  const health = async (): Promise<HealthState> => {
    const stats = await coordinator.stats();
    const ok = [...stats.values()].filter((s) => s.status === 'ok').length;
    const status: HealthState['status'] = stopping ? 'stopping' : ok === workers ? 'ok' : intakeListen ? 'degraded' : 'starting';
    return { status, intake: { enabled: true, ...(intakeListen ? { listen: intakeListen } : {}) }, collector: { endpoint: redactUrl(config.otlpEndpoint) }, workers: { configured: workers, ok } };
  };
  const metrics = { render: async (): Promise<string> => BridgeMetrics.renderSum([own.snapshot(), ...[...(await coordinator.stats()).values()].map((s) => s.metrics)]) };
  const admin = createAdminServer(health, metrics);
  const adminAddress = await listenAdmin(admin, config);

  let allReady: () => void = () => undefined;
  let startFailed: (err: Error) => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    allReady = resolve;
    startFailed = reject;
  });

  // bigints (trace ids, start times) and byte arrays cross as they are
  cluster.setupPrimary({ serialization: 'advanced', ...(workerArgv ? { args: [...workerArgv] } : {}) });
  const fork = (slot: Slot): void => {
    const worker = cluster.fork();
    const id = worker.id;
    slot.worker = worker;
    slot.ready = false;
    slot.startedAt = Date.now();
    const channel: PrimaryChannel = new Channel<PrimaryRequest, WorkerRequest>(
      // a worker that just died has no channel: what it was asked times out (WORKER_TIMEOUT_MS) instead of an 'error' event that would end the primary
      (message) => worker.send(message, undefined, undefined, () => undefined),
      (request) => {
        if (request.type === 'ready') onReady(slot, request.listen);
        return coordinator.handle(id, request);
      },
    );
    slot.channel = channel;
    coordinator.join(id, slot.index, channel);
    worker.on('message', (message) => channel.receive(message));
    worker.on('exit', (code, signal) => onExit(slot, worker, code, signal));
  };

  const onReady = (slot: Slot, listen: string): void => {
    slot.ready = true;
    log.info('worker started', { worker: slot.index, pid: slot.worker?.process.pid, listen });
    if (intakeListen === undefined && slots.every((s) => s.ready)) {
      intakeListen = listen;
      log.info('Datadog intake listening', { listen, admin: `${adminAddress.address}:${adminAddress.port}`, workers, collector: redactUrl(config.otlpEndpoint) });
      allReady();
    }
  };

  const onExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null): void => {
    coordinator.leave(worker.id);
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    const wasReady = slot.ready;
    slot.ready = false;
    if (stopping) {
      log.info('worker exited', { worker: slot.index, pid: worker.process.pid, code, signal });
      return;
    }
    if (intakeListen === undefined && !wasReady) {
      startFailed(new Error(`worker ${slot.index} exited before it served (code ${code}, signal ${signal}); see its log above`));
      return;
    }
    slot.failures = Date.now() - slot.startedAt >= STABLE_MS ? 1 : slot.failures + 1;
    const restartInMs = restartDelayMs(slot.failures);
    // what it had in flight got no 2xx: the senders retry, on another worker or on this one's successor
    log.error('worker exited unexpectedly; restarting it', { worker: slot.index, pid: worker.process.pid, code, signal, restartInMs });
    setTimeout(() => {
      if (!stopping) fork(slot);
    }, restartInMs).unref();
  };

  const stopAll = async (): Promise<void> => {
    stopping = true;
    const exited = slots.map((slot) => {
      const worker = slot.worker;
      if (!worker || worker.isDead()) return Promise.resolve();
      const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      void slot.channel?.request({ type: 'stop' }, WORKER_TIMEOUT_MS).catch(() => undefined);
      return gone;
    });
    const all = Promise.all(exited);
    const timer = setTimeout(() => {
      for (const slot of slots)
        if (slot.worker && !slot.worker.isDead()) {
          log.warn('worker did not stop within the grace; killing it', { worker: slot.index, pid: slot.worker.process.pid, graceMs: config.shutdownGraceMs });
          slot.worker.process.kill('SIGKILL');
        }
    }, config.shutdownGraceMs + EXIT_MARGIN_MS);
    await all;
    clearTimeout(timer);
    await new Promise<void>((resolve) => {
      admin.close(() => resolve());
      admin.closeAllConnections();
    });
  };

  for (const slot of slots) fork(slot);
  try {
    await started;
  } catch (err) {
    await stopAll();
    throw err;
  }
  return { adminAddress, stop: stopAll };
}
