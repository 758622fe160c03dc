/**
 * /health and /metrics on their own port, bound even when intake is disabled: an orchestrator
 * probing a disabled sidecar must see a healthy process, not restart-loop it. Nothing here asks
 * for a key, so it listens on loopback unless configured otherwise (config/options.ts, adminListen).
 */
import { createServer, type Server } from 'node:http';
import { normalizePath } from '../signals/shared/request-path';

export interface HealthState {
  status: 'ok' | 'disabled' | 'stopping';
  intake: { enabled: boolean; listen?: string };
  /** as redactUrl (src/signals/shared/api-keys.ts) leaves it: no credentials */
  collector: { endpoint: string };
}

/** Only a serving sidecar, or one whose intake is off on purpose, is healthy. */
const HEALTHY = new Set<HealthState['status']>(['ok', 'disabled']);

export function createAdminServer(health: () => HealthState, metrics: { render(): string }): Server {
  return createServer((req, res) => {
    const path = normalizePath(req.url ?? '/');
    if (req.method === 'GET' && (path === '/health' || path === '/healthz' || path === '/')) {
      const state = health();
      res.writeHead(HEALTHY.has(state.status) ? 200 : 503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(state));
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(metrics.render());
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found: try /health or /metrics\n');
  });
}
