/** POST /api/v1/series: API clients, datadog-metrics, and agents with `use_v2_api.series: false`. */
import { parseSeriesV1 } from './parse-v1';
import { metricRoute, whole } from './route-common';
import type { IntakeRoute } from '../route';

export const seriesV1Route: IntakeRoute = metricRoute({ name: 'series_v1', paths: ['/api/v1/series'], read: whole((req) => parseSeriesV1(req.body)), accepted: { status: 'ok' } });
