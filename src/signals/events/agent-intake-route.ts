/**
 * POST /intake/: the agent's events, host metadata (start-up, then about every 30 min) and
 * agent-check metadata. Events become log records (translate.ts) and are exported before
 * the 202; metadata is validated and acknowledged (the agent retries 404/405 forever).
 */
import { parseJsonBody } from '../../core/wire/json';
import { intakeEvents } from './parse';
import { translateEvents } from './translate';
import { exportThen, json, type IntakeRoute } from '../route';

export const agentIntakeRoute: IntakeRoute = {
  name: 'intake',
  methods: ['POST'],
  paths: ['/intake', '/intake/'],
  sender: 'agent',
  readsBody: true,
  accept(req, ctx) {
    const payload = parseJsonBody(req.body, 'intake');
    const events = intakeEvents(payload);
    if (events.length === 0) ctx.log.debug('agent metadata acknowledged', { keys: payload && typeof payload === 'object' ? Object.keys(payload).slice(0, 10) : [] });
    return exportThen(ctx, events.length > 0 ? { signal: 'logs', resources: translateEvents(events, req.receivedAtNs, ctx.caches.groupings) } : undefined, () => json(202, {}));
  },
};
