/** Trace and APM-stats intake routes (tracers and trace-agent), one file per route. */
import type { IntakeRoute } from './route';

export const TRACE_ROUTES: readonly IntakeRoute[] = [];
