/** POST /api/v1/distribution_points: raw distribution values from API clients and datadog-metrics. */
import { parseDistributionPoints } from './parse-distribution';
import { metricRoute, whole } from './route-common';
import type { IntakeRoute } from '../route';

export const distributionPointsRoute: IntakeRoute = metricRoute({ name: 'distribution_points', paths: ['/api/v1/distribution_points'], read: whole((req) => parseDistributionPoints(req.body)), accepted: { status: 'ok' } });
