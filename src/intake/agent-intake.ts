/**
 * POST /intake/: host metadata (start-up, then about every 30 min), agent-check metadata and
 * events. Acknowledged with 202 so the agent does not retry (it retries 404/405 forever); the body
 * is still decoded, so a corrupt payload gets its 400.
 */
import { parseJsonBody } from '../parse/json';
import { json, type IntakeRoute } from './route';

export const agentIntakeRoute: IntakeRoute = {
  name: 'intake',
  methods: ['POST'],
  paths: ['/intake', '/intake/'],
  sender: 'agent',
  readsBody: true,
  handle(req, ctx) {
    const payload = parseJsonBody(req.body, 'intake');
    ctx.log.debug('agent intake payload acknowledged', { keys: payload && typeof payload === 'object' ? Object.keys(payload).slice(0, 10) : [] });
    return json(202, {});
  },
};
