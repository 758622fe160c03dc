/**
 * POST /api/intake/metrics/v3/series and /sketches: agent 7.81+ columnar intake, so agents need not
 * be forced back to v2 (upstream at ClickStack's version silently drops both; docs/translation.md,
 * Differences from the upstream receiver (metrics)). One route: each series says in its type word
 * whether it is a sketch.
 */
import { decodeV3Payload } from './parse-v3';
import { metricRoute, whole } from './route-common';
import type { IntakeRoute } from '../route';

export const metricsV3Route: IntakeRoute = metricRoute({ name: 'metrics_v3', paths: ['/api/intake/metrics/v3/series', '/api/intake/metrics/v3/sketches'], read: whole((req) => decodeV3Payload(req.body)), accepted: {} });
