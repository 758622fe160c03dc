/** Every intake route this sidecar serves. Anything not listed gets the unknown-route reply. */
import { agentIntakeRoute } from './events/agent-intake-route';
import { eventsRoute } from './events/route';
import { infoRoute } from './control/info';
import { logsRoute } from './logs/route';
import { metadataRoute } from './control/metadata';
import { METRIC_ROUTES } from './metrics/routes';
import { remoteConfigRoute } from './control/remote-config';
import type { IntakeRoute } from './route';
import { telemetryRoute } from './control/telemetry';
import { TRACE_ROUTES } from './traces/routes';
import { validateRoute } from './control/validate';

export const ROUTES: readonly IntakeRoute[] = [validateRoute, agentIntakeRoute, eventsRoute, metadataRoute, logsRoute, ...METRIC_ROUTES, ...TRACE_ROUTES, infoRoute, remoteConfigRoute, telemetryRoute];

/**
 * Tracer endpoints advertised in /info: tracer routes that carry data, and the telemetry proxy
 * (a tracer turns its telemetry off when /info does not list it), not the probes.
 */
const TRACER_PROBES = new Set(['info', 'remote_config']);
export const tracerEndpoints = (routes: readonly IntakeRoute[]): string[] => routes.filter((r) => r.sender === 'tracer' && !TRACER_PROBES.has(r.name)).flatMap((r) => r.infoPaths ?? r.paths);
