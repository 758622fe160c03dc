/**
 * POST /intake/: the agent's events, host metadata (start-up, then about every 30 min) and
 * agent-check metadata. Events become log records (translate.ts) and are exported before
 * the 202; host metadata updates the per-host table that enriches every signal's resource from
 * that host (host-metadata.ts); the rest is validated and acknowledged (the agent retries 404/405
 * forever).
 */
import { parseJsonBody } from '../../core/wire/json';
import { hostMetadataOf } from './host-metadata';
import { intakeEvents } from './parse';
import { translateEvents } from './translate';
import { exportThen, json, type IntakeRoute, type RouteContext } from '../route';

/** Host metadata into the host table, with the address it came from; anything else that is not events, logged and dropped. */
function learnHost(payload: unknown, remoteAddress: string, ctx: RouteContext): void {
  const metadata = hostMetadataOf(payload);
  if (metadata) {
    ctx.caches.hosts.set(metadata.host, metadata.attributes);
    ctx.caches.hosts.setAddress(remoteAddress, metadata.host);
    ctx.log.debug('agent host metadata learned', { host: metadata.host, attributes: metadata.attributes.map((kv) => kv.key) });
  } else ctx.log.debug('agent metadata acknowledged', { keys: payload && typeof payload === 'object' ? Object.keys(payload).slice(0, 10) : [] });
}

export const agentIntakeRoute: IntakeRoute = {
  name: 'intake',
  methods: ['POST'],
  paths: ['/intake', '/intake/'],
  sender: 'agent',
  readsBody: true,
  accept(req, ctx) {
    const payload = parseJsonBody(req.body, 'intake');
    const events = intakeEvents(payload);
    if (events.length === 0) learnHost(payload, req.remoteAddress, ctx);
    return exportThen(ctx, events.length > 0 ? { signal: 'logs', resources: translateEvents(events, req.receivedAtNs, ctx.caches) } : undefined, () => json(202, {}));
  },
};
