/**
 * GET /info: tracers read it at start-up to learn which endpoints and features the agent has.
 * It lists exactly the tracer endpoints registered on this server (so a tracer never picks a
 * format we cannot take), and `client_drop_p0s: false` so tracers keep sending every trace.
 */
import { createHash } from 'node:crypto';
import type { IntakeRoute, RouteContext } from '../route';

export const AGENT_VERSION = '7.99.0';

export function infoDocument(ctx: Pick<RouteContext, 'tracerEndpoints' | 'config'>): string {
  const doc = {
    version: AGENT_VERSION,
    git_commit: 'dd-otlp-bridge',
    endpoints: ctx.tracerEndpoints,
    feature_flags: [],
    client_drop_p0s: false,
    span_meta_structs: false,
    long_running_spans: false,
    span_events: true,
    evp_proxy_allowed_headers: [],
    config: {
      default_env: 'none',
      target_tps: 10,
      max_eps: 200,
      receiver_port: ctx.config.listen.port,
      receiver_socket: '',
      connection_limit: 0,
      receiver_timeout: 0,
      max_request_bytes: ctx.config.maxBodyBytes,
      statsd_port: 0,
      max_memory: 0,
      max_cpu: 0,
      analyzed_spans_by_service: {},
      obfuscation: null,
    },
    peer_tags: [],
  };
  return JSON.stringify(doc, null, 2);
}

/** Tracers re-read /info when this changes (the agent sends it on every reply). */
export const agentState = (infoBody: string): string => createHash('sha256').update(infoBody).digest('hex');

export const infoRoute: IntakeRoute = {
  name: 'info',
  methods: ['GET'],
  paths: ['/info'],
  sender: 'tracer',
  readsBody: false,
  accept(_req, ctx) {
    return { status: 200, body: infoDocument(ctx), contentType: 'application/json' };
  },
};
