/**
 * The sidecar process: admin server always, intake server only when enabled, one exporter and
 * one trace-id cache shared by every route.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyChecker, keyRedactor, redactUrl } from '../signals/shared/api-keys';
import { acceptedKeys, ConfigError, EXPORT_OPTIONS, optionsFor, ROUTE_OPTIONS, SERVER_OPTIONS, type Config, type HostPort } from '../config';
import { zstdImplementation } from '../http/decode';
import { CoalescingExporter } from '../core/export/coalescing-exporter';
import type { Exporter } from '../core/export/exporter';
import { OtlpGrpcExporter } from '../core/export/otlp-grpc';
import { DiskSpool } from '../core/export/spool';
import { SpoolingExporter } from '../core/export/spooling-exporter';
import { ROUTES, tracerEndpoints } from '../signals/routes';
import type { IntakeRoute, RouteContext } from '../signals/route';
import { redacting, type Logger } from '../core/observability/log';
import { BridgeMetrics } from '../core/observability/metrics';
import { startLogPipelines } from './log-pipelines';
import { createTranslatorCaches } from '../signals/caches';
import { createAdminServer, type HealthState } from '../http/admin-server';
import { InflightBudget } from '../http/inflight-budget';
import { createIntakeApp } from '../http/intake-app';
import { formerWorkerSpools } from './former-spools';

export interface Sidecar {
  intakeAddress: AddressInfo | undefined;
  adminAddress: AddressInfo;
  metrics: BridgeMetrics;
  stop(): Promise<void>;
}

const listen = (server: Server, at: HostPort, reusePort = false): Promise<AddressInfo> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: at.port, host: at.host, reusePort }, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });

/**
 * Stops accepting connections; resolves once every connection has ended. Connections that go
 * idle meanwhile are closed as they do; the caller cuts the rest when it stops waiting.
 */
const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });

const closeNow = (server: Server): Promise<void> => {
  const closed = close(server);
  server.closeAllConnections();
  return closed;
};

/**
 * After the grace: how long the 503s of cut exports get to reach their senders before the
 * connections are cut, and how long the exporter chain then gets to let go of the collector.
 */
const AFTER_GRACE_MS = 250;

/** True when `done` settles within `ms` (a rejection counts: the caller has logged it). */
const settlesWithin = (done: Promise<unknown>, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    done.then(settled, settled);
  });

interface Exporters {
  exporter: Exporter;
  /** the collector's exporter itself, which shutdown may have to cut on its own */
  collector: OtlpGrpcExporter;
  /** drainers of the per-worker spools an earlier version left (former-spools.ts), which take no new data */
  former: SpoolingExporter[];
}

const openSpool = (config: Config, dir: string): DiskSpool => DiskSpool.open({ dir, maxBytes: config.spoolMaxBytes, segmentBytes: 64 * 1024 * 1024, fsync: config.spoolFsync });

/**
 * Delivers what an earlier version's worker spooled. Its gauges are its own (they would overwrite
 * the spool's); what the collector accepts is counted with the rest.
 */
function drainFormerSpool(config: Config, dir: string, metrics: BridgeMetrics, log: Logger): SpoolingExporter {
  const spool = openSpool(config, dir);
  log.info('delivering a spool an earlier version left', { dir, pendingBytes: spool.bytes });
  return new SpoolingExporter(spool, new OtlpGrpcExporter(optionsFor(config, EXPORT_OPTIONS), metrics, log), new BridgeMetrics(), log, { batchBytes: config.exportMaxBytes });
}

/**
 * Where encoded exports go: batched, to the collector; or to the durable spool in front of it,
 * which keeps each request as records of its own and merges them only as it sends them on.
 */
function createExporter(config: Config, metrics: BridgeMetrics, log: Logger): Exporters {
  const collector = new OtlpGrpcExporter(optionsFor(config, EXPORT_OPTIONS), metrics, log);
  if (!config.spoolDir) return { exporter: new CoalescingExporter(collector, config.exportMaxBytes, metrics), collector, former: [] };
  const spool = openSpool(config, config.spoolDir);
  log.info('durable spool enabled', { dir: config.spoolDir, maxBytes: config.spoolMaxBytes, fsync: config.spoolFsync, pendingBytes: spool.bytes });
  const former = formerWorkerSpools(config.spoolDir).map((dir) => drainFormerSpool(config, dir, metrics, log));
  return { exporter: new SpoolingExporter(spool, collector, metrics, log, { batchBytes: config.exportMaxBytes }), collector, former };
}

/**
 * One deadline, `graceMs` from now, for the intake server, the exporter chain and the gRPC
 * client. Requests in progress may finish until then (exports keep retrying); at the deadline the
 * exports still waiting on the collector are failed, so their requests are answered 503 (the
 * sender retries), and shortly after that whatever is still open is cut. A collector that hangs
 * or is down therefore holds the process for at most the grace and twice AFTER_GRACE_MS.
 */
async function shutDown(server: Server, exporter: Exporter, collector: OtlpGrpcExporter | undefined, graceMs: number, log: Logger): Promise<void> {
  const deadline = Date.now() + graceMs;
  const remaining = (): number => Math.max(0, deadline - Date.now());
  const served = close(server);
  const servedInTime = await settlesWithin(served, remaining());
  const closed = exporter.close(remaining()).catch((err: unknown) => log.error('closing the exporter failed', { error: err }));
  if (!(await settlesWithin(closed, remaining()))) {
    // SpoolingExporter.close waits for its drainer's call: ending the calls ends that wait too
    void collector?.close(0);
  }
  if (!servedInTime) {
    await settlesWithin(served, AFTER_GRACE_MS);
    server.closeAllConnections();
    log.warn('shutdown grace over: requests still in progress were answered 503 or cut', { graceMs });
  }
  if (!(await settlesWithin(closed, AFTER_GRACE_MS))) log.warn('the exporter did not close within the grace; exiting without it', { graceMs });
}

/** What tests and benchmarks put in place of the real parts. */
export interface SidecarOverrides {
  /** instead of the collector (and spool) behind the coalescer */
  exporter?: Exporter;
  /** instead of every intake route (bench/floor-sidecar.ts: a route that does no route work) */
  routes?: readonly IntakeRoute[];
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * An intake without keys accepts every request: fine on loopback (a local stack, tests), refused
 * beyond it unless the operator says so (--allow-open-intake): nothing runs open by default.
 */
function refuseOpenIntake(config: Config, log: Logger): void {
  if (isLoopback(config.listen.host)) {
    log.warn('no API keys configured: the intake accepts every request on loopback; set OTLP_AUTH_TOKEN or DD_BRIDGE_API_KEYS to require DD-API-KEY');
    return;
  }
  const at = `${config.listen.host}:${config.listen.port}`;
  if (!config.allowOpenIntake)
    throw new ConfigError(`the intake would listen on ${at}, beyond this host, without API keys: set OTLP_AUTH_TOKEN or DD_BRIDGE_API_KEYS (the keys agents send), or --allow-open-intake (DD_BRIDGE_ALLOW_OPEN_INTAKE=true) to accept every request`);
  log.warn('no API keys configured and --allow-open-intake: the intake accepts every request from any host', { listen: at });
}

export async function startSidecar(config: Config, given: Logger, overrides: SidecarOverrides = {}): Promise<Sidecar> {
  const keys = acceptedKeys(config);
  // whatever a line is about (a sender's header, a collector's error), no configured key is in it
  const redactKeys = keyRedactor(keys);
  const log = redacting(given, redactKeys);
  // before anything listens: a refused start leaves no port open
  if (config.enabled && keys.length === 0) refuseOpenIntake(config, log);
  const metrics = new BridgeMetrics();
  let status: HealthState['status'] = config.enabled ? 'ok' : 'disabled';
  let intakeListen: string | undefined;
  const collectorEndpoint = redactUrl(config.otlpEndpoint);
  const admin = createAdminServer(() => ({ status, intake: { enabled: config.enabled, ...(intakeListen ? { listen: intakeListen } : {}) }, collector: { endpoint: collectorEndpoint } }), metrics);
  const adminAddress = await listen(admin, config.adminListen);

  if (!config.enabled) {
    log.info('Datadog intake is disabled; set ENABLE_VENDOR_RECEIVER=true (or ENABLE_DATADOG_RECEIVER=true) to enable it', { admin: `${adminAddress.address}:${adminAddress.port}` });
    return { intakeAddress: undefined, adminAddress, metrics, stop: () => closeNow(admin) };
  }

  const { exporter, collector, former } = overrides.exporter ? { exporter: overrides.exporter, collector: undefined, former: [] } : createExporter(config, metrics, log);
  const routes = overrides.routes ?? ROUTES;
  const ctx: RouteContext = {
    config: optionsFor(config, ROUTE_OPTIONS),
    log,
    authEnabled: keys.length > 0,
    isValidKey: keyChecker(keys),
    redactKeys,
    tracerEndpoints: tracerEndpoints(routes),
    caches: createTranslatorCaches({
      traceIds: { maxEntries: config.traceIdCacheSize, ttlMs: config.traceIdCacheTtlMs },
      metricStreams: { maxEntries: config.metricStreamsMax, idleMs: config.metricStreamsIdleMs },
      hosts: { maxHosts: config.hostMetadataMaxHosts, ttlMs: config.hostMetadataTtlMs },
      semconv: config.semconvOptIn,
      keepInternalTags: config.keepInternalTags,
      kubernetesMetrics: { otelNames: config.k8sOtelMetrics, datadogNames: config.k8sDatadogMetrics },
    }),
    metrics,
  };
  const stopPipelines = await startLogPipelines(config, ctx.caches, log);
  const intake = createIntakeApp(routes, ctx, exporter, optionsFor(config, SERVER_OPTIONS), metrics, log, new InflightBudget(config.maxInflightRequests, config.maxInflightBytes));
  const server = createServer(
    {
      keepAlive: true,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // node checks those timeouts only this often (default 30 s): a slow client would outstay them
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
    intake,
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const intakeAddress = await listen(server, config.listen, config.reusePort);
  intakeListen = `${intakeAddress.address}:${intakeAddress.port}`;
  log.info('Datadog intake listening', {
    listen: intakeListen,
    admin: `${adminAddress.address}:${adminAddress.port}`,
    collector: collectorEndpoint,
    auth: keys.length > 0 ? `${keys.length} key(s)` : 'open',
    zstd: zstdImplementation,
  });

  return {
    intakeAddress,
    adminAddress,
    metrics,
    async stop() {
      status = 'stopping';
      stopPipelines();
      const started = Date.now();
      const formerClosed = settlesWithin(Promise.all(former.map((f) => f.close())), config.shutdownGraceMs);
      await shutDown(server, exporter, collector, config.shutdownGraceMs, log);
      log.info('intake stopped', { ms: Date.now() - started, spooledBytes: metrics.spoolBytes.get() });
      await formerClosed;
      await closeNow(admin);
    },
  };
}
