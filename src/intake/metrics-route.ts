/**
 * What every metric route does once its body is parsed: translate, export, and answer 202 only
 * after the collector took the data (a failed export throws the HttpError the sender should get:
 * 503, which every Datadog sender retries). Points that cannot be translated are logged with
 * their count by reason, never a reason to refuse the rest.
 *
 * `agent diagnose` probes every metric route with the body `{}`, protobuf routes included
 * (datadog-agent `pkg/diagnose/connectivity/endpoint_info.go`); it is acknowledged, not decoded.
 */
import { emptyPayload, type MetricsPayload } from '../datadog/metrics';
import { MetricStreamEncoder } from '../otlp/encode';
import { translateMetrics } from '../translate/metrics/chain';
import { exportThen, json, type IntakeRequest, type IntakeRoute } from './route';

const isProbe = (body: Buffer): boolean => body.length <= 8 && body.toString('utf8').trim() === '{}';

export interface MetricRouteSpec {
  name: string;
  paths: readonly string[];
  parse(req: IntakeRequest): MetricsPayload;
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
    handle(req, ctx) {
      const payload = isProbe(req.body) ? emptyPayload() : spec.parse(req);
      const metrics = new MetricStreamEncoder();
      const dropped = translateMetrics(payload, ctx.metricStreams, req.receivedAtNs, metrics);
      for (const [reason, count] of Object.entries(dropped)) ctx.metrics.pointsDropped.inc({ route: spec.name, reason }, count);
      if (Object.keys(dropped).length > 0) ctx.log.info('metric points not translated', { route: spec.name, dropped });
      return exportThen(ctx, metrics.requests(ctx.config.exportMaxBytes), () => json(202, spec.accepted));
    },
  };
}
