/**
 * /health and /metrics on their own port, bound even when intake is disabled: an orchestrator
 * probing a disabled sidecar must see a healthy process, not restart-loop it. Nothing here asks
 * for a key, so it listens on loopback unless configured otherwise (config/options.ts, adminListen).
 */
import { createServer, type Server } from 'node:http';
import { normalizePath } from '../signals/shared/request-path';

export interface HealthState {
  /** `starting` / `degraded`: with several workers, not every one of them is serving (yet) */
  status: 'ok' | 'disabled' | 'stopping' | 'starting' | 'degraded';
  intake: { enabled: boolean; listen?: string };
  /** as redactUrl (src/signals/shared/api-keys.ts) leaves it: no credentials */
  collector: { endpoint: string };
  /** with several workers (--workers): how many there should be and how many answered ok */
  workers?: { configured: number; ok: number };
}

/** Only a serving sidecar, or one whose intake is off on purpose, is healthy. */
const HEALTHY = new Set<HealthState['status']>(['ok', 'disabled']);

/**
 * `health` and `metrics` may answer later: with several workers the primary asks each of them
 * (src/cli/workers/primary.ts).
 */
export function createAdminServer(health: () => HealthState | Promise<HealthState>, metrics: { render(): string | Promise<string> }): Server {
  return createServer((req, res) => {
    const path = normalizePath(req.url ?? '/');
    if (req.method === 'GET' && (path === '/health' || path === '/healthz' || path === '/')) {
      void Promise.resolve(health()).then((state) => {
        res.writeHead(HEALTHY.has(state.status) ? 200 : 503, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(state));
      });
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      void Promise.resolve(metrics.render()).then((text) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(text);
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found: try /health or /metrics\n');
  });
}
