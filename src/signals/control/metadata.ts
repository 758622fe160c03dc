/**
 * POST /api/v1/metadata: agent inventories (agent/host/check metadata). Opaque to us; validated
 * as JSON and acknowledged so the agent neither retries nor logs errors.
 */
import { parseJsonBody } from '../../core/wire/json';
import { json, type IntakeRoute } from '../route';

export const metadataRoute: IntakeRoute = {
  name: 'metadata',
  methods: ['POST'],
  paths: ['/api/v1/metadata'],
  sender: 'agent',
  readsBody: true,
  accept(req) {
    parseJsonBody(req.body, 'metadata');
    return json(202, {});
  },
};
