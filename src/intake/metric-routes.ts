/** Metric intake routes (agent, API clients), one file per route. */
import type { IntakeRoute } from './route';

export const METRIC_ROUTES: readonly IntakeRoute[] = [];
