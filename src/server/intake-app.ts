/**
 * The intake HTTP application: transport concerns shared by every route (auth, size limits,
 * decompression, error replies, self-metrics), then the route's own handler.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { loggablePath, presentedKey } from '../auth/api-keys';
import { decodeBody } from '../decode';
import type { IntakeReply, IntakeRequest, IntakeRoute, RouteContext } from '../intake/route';
import { agentState, AGENT_VERSION, infoDocument } from '../intake/info';
import { unknownRouteReply } from '../intake/unknown';
import { freeNow } from '../memory/owned-buffers';
import type { Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import { parseMediaType } from '../parse/media-type';
import { HttpError } from './errors';
import { OverloadedError, type InflightBudget, type Lease } from './inflight-budget';
import { readBody } from './read-body';
import { pathOf, RouteTable } from './route-table';

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/**
 * The trace-agent stamps every tracer reply but /info with its version and a hash of /info;
 * tracers re-read /info when the hash changes.
 */
const tracerHeaders = (ctx: RouteContext): Record<string, string> => ({ 'Datadog-Agent-Version': AGENT_VERSION, 'Datadog-Agent-State': agentState(infoDocument(ctx)) });

/**
 * The intake's request listener. Routing is a table lookup (route-table.ts) rather than express:
 * express cost ~7 % of the CPU of a small request and ~15 MiB of resident memory for ~70
 * packages, and it did nothing else here (README, Dependency choices).
 */
export function createIntakeApp(routes: readonly IntakeRoute[], ctx: RouteContext, metrics: BridgeMetrics, log: Logger, budget: InflightBudget): RequestListener {
  const table = new RouteTable(routes);
  const stamp = Object.entries(tracerHeaders(ctx));
  return (req, res) => {
    const path = pathOf(req.url ?? '/');
    const method = req.method ?? 'GET';
    const route = table.match(path);
    if (!route) {
      const reply = unknownRouteReply(method, path);
      metrics.unknownRoutes.inc({ method });
      log.warn('request to a route this sidecar does not implement', { method, path: loggablePath(path), status: reply.status });
      return send(res, reply);
    }
    // HEAD is served by a GET route, as HTTP has it (node sends no body)
    const served = method === 'HEAD' ? 'GET' : method;
    if (!(route.methods as readonly string[]).includes(served)) {
      metrics.requests.inc({ route: route.name, status: '405' });
      return send(res, { status: 405, body: `${method} is not allowed on ${path}; use ${route.methods.join(' or ')}\n`, headers: { Allow: route.methods.join(', ') } });
    }
    if (route.sender === 'tracer' && route.name !== 'info') for (const [k, v] of stamp) res.setHeader(k, v);
    void serve(route, req, path, res, ctx, metrics, log, budget);
  };
}

async function serve(route: IntakeRoute, req: IncomingMessage, path: string, res: ServerResponse, ctx: RouteContext, metrics: BridgeMetrics, log: Logger, budget: InflightBudget): Promise<void> {
  let reply: IntakeReply;
  let lease: Lease | undefined;
  try {
    lease = budget.lease();
    reply = await handle(route, req, path, ctx, metrics, lease);
  } catch (err) {
    if (err instanceof OverloadedError) metrics.overloaded.inc({ route: route.name });
    reply = errorReply(err, route, req.method ?? '', path, log, metrics);
  } finally {
    lease?.release();
  }
  metrics.requests.inc({ route: route.name, status: String(reply.status) });
  send(res, reply);
}

async function handle(route: IntakeRoute, req: IncomingMessage, path: string, ctx: RouteContext, metrics: BridgeMetrics, lease: Lease): Promise<IntakeReply> {
  const receivedAtNs = nowNs();
  const query = new URL(req.url ?? '/', 'http://intake').searchParams;
  const mustAuth = ctx.authEnabled && !route.selfAuthenticating && (route.sender === 'agent' || ctx.config.authTracerRoutes);
  const authenticated = ctx.isValidKey(presentedKey(req.headers, query, path));
  if (mustAuth && !authenticated) {
    metrics.authFailures.inc({ route: route.name });
    throw new HttpError(403, 'API key missing or not accepted (send it in the DD-API-KEY header)');
  }
  let body: Buffer = Buffer.alloc(0);
  let raw = body;
  if (route.readsBody) {
    raw = await readBody(req, ctx.config.maxBodyBytes, lease.reserve);
    metrics.bytesIn.inc({ route: route.name }, raw.length);
    body = await decodeBody(raw, req.headers['content-encoding'], { maxDecodedBytes: ctx.config.maxDecodedBytes });
    if (body !== raw) lease.reserve(body.length);
    metrics.bytesDecoded.inc({ route: route.name }, body.length);
  }
  const intakeRequest: IntakeRequest = {
    method: req.method ?? '',
    path,
    headers: req.headers,
    query,
    body,
    mediaType: parseMediaType(req.headers['content-type']),
    receivedAtNs,
    authenticated,
  };
  try {
    return route.handle(intakeRequest, ctx);
  } finally {
    // the route has parsed, translated and encoded: only copies of the body's bytes are left
    freeNow(body);
    freeNow(raw);
  }
}

function errorReply(err: unknown, route: IntakeRoute, method: string, path: string, log: Logger, metrics: BridgeMetrics): IntakeReply {
  if (err instanceof HttpError) {
    const fields = { route: route.name, method, path: loggablePath(path), status: err.status, error: err.message };
    if (err.status >= 500) log.warn('request not accepted', fields);
    else log.info('request refused', fields);
    return { status: err.status, body: err.message + '\n', contentType: 'text/plain; charset=utf-8', headers: { ...err.headers } };
  }
  metrics.internalErrors.inc({ route: route.name });
  log.error('unexpected error while handling a request; the payload was refused', { route: route.name, method, path: loggablePath(path), error: err });
  // Failures to export are HttpErrors (503) above; anything else is a bug that this payload will
  // hit every time. 400 makes the sender drop it: a 5xx would make the logs agent resend the same
  // batch forever and block everything behind it.
  return { status: 400, body: `dd-otlp-bridge could not translate this payload (${(err as Error)?.message ?? 'unknown error'}); it was not forwarded\n`, contentType: 'text/plain; charset=utf-8' };
}

function send(res: ServerResponse, reply: IntakeReply): void {
  if (res.headersSent) return;
  res.statusCode = reply.status;
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (reply.status === 413) res.setHeader('Connection', 'close');
  if (reply.body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', reply.contentType ?? 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(reply.body);
}
