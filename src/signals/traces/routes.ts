/** Trace and APM-stats intake routes (tracers and trace-agent), one file per route. */
import type { IntakeRoute } from '../route';
import { statsAgentRoute } from './route-stats-agent';
import { statsTracerRoute } from './route-stats-tracer';
import { tracesAgentRoute } from './route-agent';
import { tracesV03Route } from './route-v03';
import { tracesV04Route } from './route-v04';
import { tracesV05Route } from './route-v05';
import { tracesV07Route } from './route-v07';
import { tracesV1Route } from './route-v1';

export const TRACE_ROUTES: readonly IntakeRoute[] = [tracesV03Route, tracesV04Route, tracesV05Route, tracesV07Route, tracesV1Route, statsTracerRoute, tracesAgentRoute, statsAgentRoute];
