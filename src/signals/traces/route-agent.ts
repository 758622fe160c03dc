/**
 * POST /api/v0.2/traces: the trace-agent's AgentPayload (zstd or gzip, undone by the server),
 * classic and idx tracer payloads alike. The whole payload is exported as one batch, so it is
 * accepted or refused as a whole and a retry never duplicates half of it (upstream consumes
 * tracer payloads one by one).
 */
import { decodeAgentPayload } from './parse/agent-payload';
import type { IntakeRoute } from '../route';
import { exportTraces, okReply } from './route-common';

export const tracesAgentRoute: IntakeRoute = {
  name: 'traces_agent',
  methods: ['POST'],
  paths: ['/api/v0.2/traces'],
  sender: 'agent',
  readsBody: true,
  accept: (req, ctx) => exportTraces(decodeAgentPayload(req.body), req, ctx, okReply),
};
