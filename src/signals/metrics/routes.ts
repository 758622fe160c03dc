/**
 * Metric intake routes (agent, API clients), one file per route. They share one start-time
 * memory, RouteContext.caches.metricStreams (bounded; see translate/metrics/start-times.ts): a stream's
 * points may arrive on different routes, e.g. v2 then v3 after an agent upgrade.
 */
import { checkRunRoute } from './route-check-run';
import { distributionPointsRoute } from './route-distribution-points';
import { seriesV1Route } from './route-v1';
import { seriesV2Route } from './route-v2';
import { metricsV3Route } from './route-v3';
import type { IntakeRoute } from '../route';
import { sketchesRoute } from './route-sketches';

export const METRIC_ROUTES: readonly IntakeRoute[] = [seriesV1Route, seriesV2Route, metricsV3Route, sketchesRoute, distributionPointsRoute, checkRunRoute];
