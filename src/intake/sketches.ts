/** POST /api/beta/sketches (and the legacy /api/v1/sketches): the agent's distributions. */
import { decodeSketchPayload } from '../parse/metrics-sketches';
import { metricRoute, whole } from './metrics-route';
import type { IntakeRoute } from './route';

export const sketchesRoute: IntakeRoute =
  metricRoute({ name: 'sketches', paths: ['/api/beta/sketches', '/api/v1/sketches'], read: whole((req) => decodeSketchPayload(req.body)), accepted: {} });
