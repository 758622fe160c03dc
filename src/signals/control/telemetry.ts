/**
 * POST /telemetry/proxy/*: tracer self-telemetry (app-started, heartbeats). It describes the
 * tracer, not the user's application, and has no OTLP equivalent; 202 keeps dd-trace from falling
 * back to sending it to Datadog directly. Listed in /info, or tracers turn their telemetry off.
 * Counted by the request metric, logged at debug.
 */
import type { IntakeRoute } from '../route';

export const telemetryRoute: IntakeRoute = {
  name: 'telemetry',
  methods: ['POST'],
  paths: ['/telemetry/proxy/*path'],
  infoPaths: ['/telemetry/proxy/'],
  sender: 'tracer',
  readsBody: false,
  accept(req, ctx) {
    ctx.log.debug('tracer telemetry acknowledged', { requestType: req.headers['dd-telemetry-request-type'] });
    return { status: 202 };
  },
};
