/** Every intake route this sidecar serves. Anything not listed gets the unknown-route reply. */
import { agentIntakeRoute } from './agent-intake';
import { eventsRoute } from './events';
import { infoRoute } from './info';
import { logsRoute } from './logs';
import { metadataRoute } from './metadata';
import { METRIC_ROUTES } from './metric-routes';
import { remoteConfigRoute } from './remote-config';
import type { IntakeRoute } from './route';
import { telemetryRoute } from './telemetry';
import { TRACE_ROUTES } from './trace-routes';
import { validateRoute } from './validate';

export const ROUTES: readonly IntakeRoute[] = [validateRoute, agentIntakeRoute, eventsRoute, metadataRoute, logsRoute, ...METRIC_ROUTES, ...TRACE_ROUTES, infoRoute, remoteConfigRoute, telemetryRoute];

/** Tracer data endpoints advertised in /info: tracer routes that carry data, not the probes. */
const TRACER_PROBES = new Set(['info', 'remote_config', 'telemetry']);
export const tracerEndpoints = (routes: readonly IntakeRoute[]): string[] => routes.filter((r) => r.sender === 'tracer' && !TRACER_PROBES.has(r.name)).flatMap((r) => r.paths);
