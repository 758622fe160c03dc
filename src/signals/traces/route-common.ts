/**
 * What every trace route shares: translate, export, and answer only once the collector has the
 * spans (a 503 from the exporter reaches the sender as is — tracers drop on it, the trace-agent
 * retries). Tracer routes then answer with sampling rates:
 * every service at rate 1, so tracers keep every trace under automatic sampling. The rates never
 * change, so their version is a constant; a tracer that already holds it gets `{}`.
 */
import { createHash } from 'node:crypto';
import type { DdTracePayload, DdTracerPayload } from './datadog';
import { spanStreamEncoder } from '../../core/otlp/encode';
import { translateTraces } from './chain';
import { exportThen, type ExportThenReply, type IntakeReply, type IntakeRequest, type IntakeRoute, type RouteContext } from '../route';

const RATES_BODY = JSON.stringify({ rate_by_service: { 'service:,env:': 1 } }) + '\n';
const RATES_VERSION = createHash('sha256').update(RATES_BODY).digest('hex').slice(0, 16);
const RATES_HEADER = 'datadog-rates-payload-version';

/** Translates and encodes for the server to export, then reply (see exportThen). */
export function exportTraces(payload: DdTracePayload, req: IntakeRequest, ctx: RouteContext, reply: () => IntakeReply): ExportThenReply {
  const spans = spanStreamEncoder();
  // a trace-agent names its host in the payload; a tracer that sends to us directly may name none
  const senderHost = payload.agent ? undefined : ctx.caches.hosts.hostAt(req.remoteAddress);
  translateTraces({ caches: ctx.caches, receivedAtNs: req.receivedAtNs, options: ctx.config, tally: {}, senderHost }, spans)(payload);
  return exportThen(ctx, spans.requests(ctx.config.exportMaxBytes), reply);
}

export function rateByServiceReply(req: IntakeRequest): IntakeReply {
  const held = req.headers[RATES_HEADER];
  const version = Array.isArray(held) ? held[0] : held;
  const reply: IntakeReply = { status: 200, body: RATES_BODY, contentType: 'application/json' };
  if (!version) return reply;
  return { ...reply, ...(version === RATES_VERSION ? { body: '{}' } : {}), headers: { 'Datadog-Rates-Payload-Version': RATES_VERSION } };
}

/** The plain `OK` of /v0.3 (and of the trace-agent's intake). */
export const okReply = (): IntakeReply => ({ status: 200, body: 'OK\n', contentType: 'text/plain; charset=utf-8' });

/**
 * A tracer-facing trace route (PUT and POST, no key): parse one tracer payload, export, reply.
 * The reply is made before the export: a closure over `req` would keep its body alive for the
 * whole round trip to the collector, long enough to be promoted and wait for a major GC.
 */
export const tracerTracesRoute = (version: string, parse: (req: IntakeRequest) => DdTracerPayload, reply: (req: IntakeRequest) => IntakeReply): IntakeRoute => ({
  name: `traces_${version}`,
  methods: ['PUT', 'POST'],
  paths: [`/${version}/traces`],
  sender: 'tracer',
  readsBody: true,
  accept(req, ctx) {
    const answer = reply(req);
    return exportTraces({ tracerPayloads: [parse(req)] }, req, ctx, () => answer);
  },
});
