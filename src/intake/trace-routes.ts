/** Trace and APM-stats intake routes (tracers and trace-agent), one file per route. */
import type { IntakeRoute } from './route';
import { statsAgentRoute } from './stats-agent';
import { statsTracerRoute } from './stats-tracer';
import { tracesAgentRoute } from './traces-agent';
import { tracesV03Route } from './traces-v03';
import { tracesV04Route } from './traces-v04';
import { tracesV05Route } from './traces-v05';
import { tracesV07Route } from './traces-v07';

export const TRACE_ROUTES: readonly IntakeRoute[] = [tracesV03Route, tracesV04Route, tracesV05Route, tracesV07Route, statsTracerRoute, tracesAgentRoute, statsAgentRoute];
