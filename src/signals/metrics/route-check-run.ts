/** POST /api/v1/check_run: service checks from the agent (array) and API clients (one object too). */
import { parseCheckRuns } from './parse-check-run';
import { metricRoute, whole } from './route-common';
import type { IntakeRoute } from '../route';

export const checkRunRoute: IntakeRoute = metricRoute({ name: 'check_run', paths: ['/api/v1/check_run'], read: whole((req) => parseCheckRuns(req.body)), accepted: { status: 'ok' } });
