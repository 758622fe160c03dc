/**
 * The sidecar process: admin server always, intake server only when enabled, one exporter and
 * one trace-id cache shared by every route.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyChecker, redactUrl } from '../auth/api-keys';
import { acceptedKeys, type Config, type HostPort } from '../config';
import { zstdImplementation } from '../decode';
import { CoalescingExporter } from '../export/coalescing-exporter';
import type { Exporter } from '../export/exporter';
import { OtlpGrpcExporter } from '../export/otlp-grpc';
import { DiskSpool } from '../export/spool';
import { SpoolingExporter } from '../export/spooling-exporter';
import { ROUTES, tracerEndpoints } from '../intake';
import type { IntakeRoute, RouteContext } from '../intake/route';
import type { Logger } from '../observability/log';
import { BridgeMetrics } from '../observability/metrics';
import { StreamStartTimes } from '../translate/metrics/start-times';
import { TraceIdCache } from '../translate/trace-id';
import { createAdminServer, type HealthState } from './admin-server';
import { InflightBudget } from './inflight-budget';
import { createIntakeApp } from './intake-app';

export interface Sidecar {
  intakeAddress: AddressInfo | undefined;
  adminAddress: AddressInfo;
  metrics: BridgeMetrics;
  stop(): Promise<void>;
}

const listen = (server: Server, at: HostPort): Promise<AddressInfo> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });

/**
 * Stops accepting connections and lets requests in progress finish; connections that go idle
 * meanwhile are closed as they do, and whatever is still open after `graceMs` is cut.
 */
const close = (server: Server, graceMs = 0): Promise<void> =>
  new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });

/** Where encoded exports go: the collector, or the durable spool in front of it. */
function createExporter(config: Config, env: NodeJS.ProcessEnv, metrics: BridgeMetrics, log: Logger): Exporter {
  const grpc = new OtlpGrpcExporter(config, env.OTLP_AUTH_TOKEN?.trim() || undefined, metrics, log);
  if (!config.spoolDir) return grpc;
  const spool = DiskSpool.open({ dir: config.spoolDir, maxBytes: config.spoolMaxBytes, segmentBytes: 64 * 1024 * 1024, fsync: config.spoolFsync });
  log.info('durable spool enabled', { dir: config.spoolDir, maxBytes: config.spoolMaxBytes, fsync: config.spoolFsync, pendingBytes: spool.bytes });
  return new SpoolingExporter(spool, grpc, metrics, log);
}

/** What tests and benchmarks put in place of the real parts. */
export interface SidecarOverrides {
  /** instead of the collector (and spool) behind the coalescer */
  exporter?: Exporter;
  /** instead of every intake route (test/bench/floor-sidecar.ts: a route that does no route work) */
  routes?: readonly IntakeRoute[];
}

export async function startSidecar(config: Config, env: NodeJS.ProcessEnv, log: Logger, overrides: SidecarOverrides = {}): Promise<Sidecar> {
  const metrics = new BridgeMetrics();
  let status: HealthState['status'] = config.enabled ? 'ok' : 'disabled';
  let intakeListen: string | undefined;
  const collectorEndpoint = redactUrl(config.otlpEndpoint);
  const admin = createAdminServer(
    () => ({ status, intake: { enabled: config.enabled, ...(intakeListen ? { listen: intakeListen } : {}) }, collector: { endpoint: collectorEndpoint } }),
    metrics,
  );
  const adminAddress = await listen(admin, config.adminListen);

  if (!config.enabled) {
    log.info('Datadog intake is disabled; set ENABLE_VENDOR_RECEIVER=true (or ENABLE_DATADOG_RECEIVER=true) to enable it', { admin: `${adminAddress.address}:${adminAddress.port}` });
    return { intakeAddress: undefined, adminAddress, metrics, stop: () => close(admin) };
  }

  const keys = acceptedKeys(config, env);
  if (keys.length === 0) log.warn('no API keys configured: the intake accepts every request; set OTLP_AUTH_TOKEN or DD_BRIDGE_API_KEYS to require DD-API-KEY');
  const exporter = overrides.exporter ?? new CoalescingExporter(createExporter(config, env, metrics, log), config.exportMaxBytes, metrics);
  const routes = overrides.routes ?? ROUTES;
  const ctx: RouteContext = {
    config,
    exporter,
    log,
    authEnabled: keys.length > 0,
    isValidKey: keyChecker(keys),
    tracerEndpoints: tracerEndpoints(routes),
    traceIds: new TraceIdCache({ maxEntries: config.traceIdCacheSize, ttlMs: config.traceIdCacheTtlMs }),
    metricStreams: new StreamStartTimes({ maxEntries: config.metricStreamsMax, idleMs: config.metricStreamsIdleMs }),
    metrics,
  };
  const intake = createIntakeApp(routes, ctx, metrics, log, new InflightBudget(config.maxInflightRequests, config.maxInflightBytes));
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
  const intakeAddress = await listen(server, config.listen);
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
      const started = Date.now();
      await close(server, config.shutdownGraceMs);
      await exporter.close();
      log.info('intake stopped', { ms: Date.now() - started, spooledBytes: metrics.spoolBytes.get() });
      await close(admin);
    },
  };
}
