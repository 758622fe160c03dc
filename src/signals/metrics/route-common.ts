/**
 * What every metric route does once its body is parsed: translate, export, and answer 202 only
 * after the collector took the data (a failed export throws a domain error, which the server
 * answers with 503 unless the collector called the data invalid; every Datadog sender retries
 * 503). Points that cannot be translated are logged with their count by reason, never a reason
 * to refuse the rest.
 *
 * A body parsed in pieces is translated piece by piece; if a later piece turns out malformed the
 * request is refused (400) and nothing is exported, but the streams of the earlier pieces have
 * already recorded their points' times (start-times.ts). That is the end of the window those
 * points covered, so a stream's next point still gets the window it stands for.
 *
 * `agent diagnose` probes every metric route with the body `{}`, protobuf routes included
 * (datadog-agent `pkg/diagnose/connectivity/endpoint_info.go`); it is acknowledged, not decoded.
 */
import type { DropCounts, MetricsPayload } from './datadog';
import { MetricStreamEncoder, type EncodedExport } from '../../core/otlp/encode';
import { translateMetrics } from './chain';
import { exportThen, json, type IntakeRequest, type IntakeRoute, type RouteContext } from '../route';

const isProbe = (body: Buffer): boolean => body.length <= 8 && body.toString('utf8').trim() === '{}';

export interface MetricRouteSpec {
  name: string;
  paths: readonly string[];
  /** Parses the body and hands its content to `take`: whole, or in pieces, in order. */
  read(req: IntakeRequest, take: (piece: MetricsPayload) => void): void;
  /** the 202 body the real intake sends on this route */
  accepted: unknown;
}

export function metricRoute(spec: MetricRouteSpec): IntakeRoute {
  return {
    name: spec.name,
    methods: ['POST'],
    paths: spec.paths,
    sender: 'agent',
    readsBody: true,
    accept(req, ctx) {
      const { requests, dropped } = translateBody(spec, req, ctx);
      for (const [reason, count] of Object.entries(dropped)) ctx.metrics.pointsDropped.inc({ route: spec.name, reason }, count);
      if (Object.keys(dropped).length > 0) ctx.log.info('metric points not translated', { route: spec.name, dropped });
      return exportThen(ctx, requests, () => json(202, spec.accepted));
    },
  };
}

/**
 * Not inlined into `accept` on purpose: V8 keeps the variables any closure captures in one
 * context per call, shared by every closure made in that call, so a `take` closure made in
 * `accept` kept the request's translation (its groups and every encoded point's slice) alive
 * through the export's round trip, held by the reply closure (+2.6–6.5 % CPU on series side by side).
 */
function translateBody(spec: MetricRouteSpec, req: IntakeRequest, ctx: RouteContext): { requests: EncodedExport[]; dropped: DropCounts } {
  const metrics = new MetricStreamEncoder();
  const dropped: DropCounts = {};
  const translate = translateMetrics({ caches: ctx.caches, receivedAtNs: req.receivedAtNs, options: ctx.config, tally: dropped }, metrics);
  if (!isProbe(req.body)) spec.read(req, translate);
  translate.end?.();
  return { requests: metrics.requests(ctx.config.exportMaxBytes), dropped };
}

/** For a route whose bodies are parsed whole. */
export const whole =
  (parse: (req: IntakeRequest) => MetricsPayload): MetricRouteSpec['read'] =>
  (req, take) =>
    take(parse(req));
