/**
 * GET /api/v1/validate: the agent's forwarder checks its key at start-up and hourly. 200 means
 * valid, 403 invalid; anything else is "unknown" to the agent, so answer exactly those two.
 */
import { presentedKey } from '../shared/api-keys';
import { json, type IntakeRoute } from '../route';

export const validateRoute: IntakeRoute = {
  name: 'validate',
  methods: ['GET'],
  paths: ['/api/v1/validate'],
  sender: 'agent',
  selfAuthenticating: true,
  readsBody: false,
  accept(req, ctx) {
    if (!ctx.authEnabled || ctx.isValidKey(presentedKey(req.headers, req.query, req.path))) return json(200, { valid: true });
    return json(403, { errors: ['Forbidden'] });
  },
};
