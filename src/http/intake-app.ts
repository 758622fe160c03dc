/**
 * The intake HTTP application: transport concerns shared by every route (auth, size limits,
 * decompression, export, error replies, self-metrics) around the route's own synchronous step.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { loggablePath, presentedKey } from '../signals/shared/api-keys';
import { parseContentEncoding, undoCodings } from './decode';
import type { ServerOptions } from '../config';
import type { Exporter } from '../core/export/exporter';
import type { Accepted, IntakeReply, IntakeRequest, IntakeRoute, RouteContext } from '../signals/route';
import { agentState, AGENT_VERSION, infoDocument } from '../signals/control/info';
import { unknownRouteReply } from '../signals/control/unknown';
import { freeNow } from '../core/owned-buffers';
import { rateLimited, type Logger } from '../core/observability/log';
import type { BridgeMetrics } from '../core/observability/metrics';
import { parseMediaType } from '../core/wire/media-type';
import { normalizePath } from '../signals/shared/request-path';
import { AccessDeniedError, isDomainError, OverloadedError } from '../core/errors';
import { errorReplyFor } from './error-reply';
import type { InflightBudget, Lease } from './inflight-budget';
import { readBody, type BodyLimits } from './read-body';
import { RouteTable } from './route-table';

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The query parameters of a request target; unlike `new URL`, never throws on a malformed target. */
const queryOf = (url: string): URLSearchParams => {
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
};

/**
 * Lines a client can trigger at request rate (overloads, refusals, unknown routes) are written
 * once per message per this interval, with the count left out: a flood of overload 503s wrote a
 * million lines (222 MB) before (issue 21).
 */
const REQUEST_LOG_INTERVAL_MS = 10_000;

/**
 * Requests of one connection handled at once. Datadog senders never pipeline; a client that
 * pipelines without reading its replies was served every request it wrote (RSS 356 MiB, /health
 * stalled 10.7 s, issue 21). Further requests wait (see MAX_WAITING_REQUESTS).
 */
export const MAX_PIPELINED_REQUESTS = 4;

/**
 * Requests of one connection that may wait for those in progress. A client further ahead of its
 * replies than this (about 2 MiB of parsed requests) is not reading them: its connection is closed.
 */
export const MAX_WAITING_REQUESTS = 1_000;

/**
 * Replies after which the connection cannot carry another request: the body was not read to its
 * end (too large, too slow).
 */
const CLOSES_CONNECTION = new Set([408, 413]);

/**
 * The trace-agent stamps every tracer reply but /info with its version and a hash of /info;
 * tracers re-read /info when the hash changes.
 */
const tracerHeaders = (ctx: RouteContext): Record<string, string> => ({ 'Datadog-Agent-Version': AGENT_VERSION, 'Datadog-Agent-State': agentState(infoDocument(ctx)) });

/** What every request of the intake shares. */
interface Shared {
  ctx: RouteContext;
  exporter: Exporter;
  options: ServerOptions;
  metrics: BridgeMetrics;
  /** rate-limited (REQUEST_LOG_INTERVAL_MS) */
  log: Logger;
  budget: InflightBudget;
  bodyLimits: BodyLimits;
}

/**
 * The intake's request listener. Routing is a table lookup (route-table.ts) rather than express:
 * express cost ~7 % of the CPU of a small request and ~15 MiB of resident memory for ~70
 * packages, and it did nothing else here (docs/decisions/001-no-express.md).
 */
export function createIntakeApp(routes: readonly IntakeRoute[], ctx: RouteContext, exporter: Exporter, options: ServerOptions, metrics: BridgeMetrics, log: Logger, budget: InflightBudget): RequestListener {
  const table = new RouteTable(routes);
  const stamp = Object.entries(tracerHeaders(ctx));
  const shared: Shared = {
    ctx,
    exporter,
    options,
    metrics,
    log: rateLimited(log, REQUEST_LOG_INTERVAL_MS),
    budget,
    bodyLimits: { maxBytes: options.maxBodyBytes, minBytesPerSecond: options.minUploadBytesPerSecond, rateWindowMs: options.uploadRateWindowMs },
  };
  const gates = new WeakMap<Socket, PipelineGate>();
  return (req, res) => {
    const path = normalizePath(req.url ?? '/');
    const method = req.method ?? 'GET';
    const route = table.match(path);
    if (!route) {
      const reply = unknownRouteReply(method);
      metrics.unknownRoutes.inc({ method });
      shared.log.warn('request to a route this sidecar does not implement', { method, path: loggablePath(path), status: reply.status });
      return send(res, reply);
    }
    // HEAD is served by a GET route, as HTTP has it (node sends no body)
    const served = method === 'HEAD' ? 'GET' : method;
    if (!(route.methods as readonly string[]).includes(served)) {
      metrics.requests.inc({ route: route.name, status: '405' });
      return send(res, { status: 405, body: `${method} is not allowed on the ${route.name} route; use ${route.methods.join(' or ')}\n`, headers: { Allow: route.methods.join(', ') } });
    }
    if (route.sender === 'tracer' && route.name !== 'info') for (const [k, v] of stamp) res.setHeader(k, v);
    const socket = req.socket;
    let gate = gates.get(socket);
    if (!gate) {
      gate = new PipelineGate(socket, shared.log);
      gates.set(socket, gate);
    }
    gate.run(res, () => void serve(route, req, path, res, shared));
  };
}

/**
 * Runs a connection's requests at most MAX_PIPELINED_REQUESTS at a time, in arrival order, and
 * closes a connection that gets more than MAX_WAITING_REQUESTS ahead of its replies. One counts
 * until its reply has been handed on (the response's `close`). Pausing the socket cannot bound
 * the queue: node reads a connection straight into its parser, dispatches every request of a
 * chunk at once, and resumes the socket whenever a finished request is dumped; its own pause
 * (while replies wait to drain) sees only replies already written, which queued requests have not.
 */
class PipelineGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly log: Logger,
  ) {}

  run(res: ServerResponse, start: () => void): void {
    if (this.socket.destroyed) return;
    res.once('close', () => this.finished());
    if (this.running < MAX_PIPELINED_REQUESTS) {
      this.running++;
      start();
      return;
    }
    this.waiting.push(start);
    if (this.waiting.length > MAX_WAITING_REQUESTS) {
      this.log.warn('closed a connection that sent requests far ahead of reading their replies', { waiting: this.waiting.length, remote: this.socket.remoteAddress });
      this.waiting.length = 0;
      this.socket.destroy();
    }
  }

  private finished(): void {
    // a closed connection closes every response still waiting: none of them can be answered
    if (this.socket.destroyed) return;
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

async function serve(route: IntakeRoute, req: IncomingMessage, path: string, res: ServerResponse, shared: Shared): Promise<void> {
  const lease = shared.budget.lease();
  let reply: IntakeReply;
  try {
    reply = await handle(route, req, path, shared, lease);
  } catch (err) {
    if (err instanceof OverloadedError) shared.metrics.overloaded.inc({ route: route.name });
    reply = errorReply(err, route, req.method ?? '', path, shared);
  } finally {
    lease.release();
  }
  shared.metrics.requests.inc({ route: route.name, status: String(reply.status) });
  send(res, reply);
}

async function handle(route: IntakeRoute, req: IncomingMessage, path: string, { ctx, exporter, options, metrics, bodyLimits }: Shared, lease: Lease): Promise<IntakeReply> {
  const receivedAtNs = nowNs();
  const query = queryOf(req.url ?? '/');
  const mustAuth = ctx.authEnabled && !route.selfAuthenticating && (route.sender === 'agent' || options.authTracerRoutes);
  const authenticated = ctx.isValidKey(presentedKey(req.headers, query, path));
  if (mustAuth && !authenticated) {
    metrics.authFailures.inc({ route: route.name });
    throw new AccessDeniedError('API key missing or not accepted (send it in the DD-API-KEY header)');
  }
  let body: Buffer = Buffer.alloc(0);
  let raw = body;
  if (route.readsBody) {
    // the header is judged before the upload: a refused one costs neither upload nor decoding
    const codecs = parseContentEncoding(req.headers['content-encoding']);
    raw = await readBody(req, bodyLimits, lease.reserve);
    lease.admit();
    metrics.bytesIn.inc({ route: route.name }, raw.length);
    body = await undoCodings(raw, codecs, { maxDecodedBytes: options.maxDecodedBytes });
    if (body !== raw) lease.reserve(body.length);
    metrics.bytesDecoded.inc({ route: route.name }, body.length);
  } else {
    lease.admit();
  }
  const intakeRequest: IntakeRequest = {
    method: req.method ?? '',
    path,
    headers: req.headers,
    query,
    body,
    mediaType: parseMediaType(req.headers['content-type']),
    receivedAtNs,
    remoteAddress: req.socket.remoteAddress ?? '',
    authenticated,
  };
  return deliver(acceptAndFree(route, intakeRequest, raw, ctx), exporter);
}

/** The route's step, then the body's memory is freed: the route has parsed, translated and encoded, so only copies of its bytes are left. */
function acceptAndFree(route: IntakeRoute, req: IntakeRequest, raw: Buffer, ctx: RouteContext): Accepted {
  try {
    return route.accept(req, ctx);
  } finally {
    freeNow(req.body);
    freeNow(raw);
  }
}

/**
 * Exports what a route encoded (when it encoded anything), then makes its reply; a failed export
 * rejects with the domain error whose reply the sender gets (error-reply.ts). Not an async
 * function, so that only `reply` waits on the collector (see exportThen in src/signals/route.ts).
 * The benches serve routes through it too.
 */
export function deliver(accepted: Accepted, exporter: Exporter): Promise<IntakeReply> {
  if (!('exports' in accepted)) return Promise.resolve(accepted);
  const { exports, reply } = accepted;
  return (exports.length > 0 ? exporter.export(exports) : Promise.resolve()).then(reply);
}

/**
 * The reply to a request that failed, and its log line. A refusal may echo what the sender sent (a
 * Content-Encoding it named): configured keys are taken out of it, as the sidecar's logger takes
 * them out of every line.
 */
function errorReply(err: unknown, route: IntakeRoute, method: string, path: string, { ctx, log, metrics }: Shared): IntakeReply {
  if (isDomainError(err)) {
    const { status, text, headers } = errorReplyFor(err);
    const fields = { route: route.name, method, path: loggablePath(path), status, error: text };
    if (status >= 500) log.warn('request not accepted', fields);
    else log.info('request refused', fields);
    return { status, body: ctx.redactKeys(text) + '\n', contentType: 'text/plain; charset=utf-8', headers };
  }
  metrics.internalErrors.inc({ route: route.name });
  log.error('unexpected error while handling a request; the payload was refused', { route: route.name, method, path: loggablePath(path), error: err });
  // Failures to export are domain errors (503) above; anything else is a bug that this payload will
  // hit every time. 400 makes the sender drop it: a 5xx would make the logs agent resend the same
  // batch forever and block everything behind it.
  return { status: 400, body: ctx.redactKeys(`dd-otlp-bridge could not translate this payload (${(err as Error)?.message ?? 'unknown error'}); it was not forwarded\n`), contentType: 'text/plain; charset=utf-8' };
}

function send(res: ServerResponse, reply: IntakeReply): void {
  if (res.headersSent) return;
  res.statusCode = reply.status;
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (CLOSES_CONNECTION.has(reply.status)) res.setHeader('Connection', 'close');
  if (reply.body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', reply.contentType ?? 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(reply.body);
}
