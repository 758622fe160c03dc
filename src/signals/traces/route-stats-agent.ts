/**
 * POST /api/v0.2/stats: the trace-agent's StatsPayload (msgpack, gzip), every tracer's stats
 * and the agent's own, exported as one batch of RED metrics (see translate/traces/stats.ts).
 */
import { parseAgentStats } from './parse/stats';
import { translateStats } from './stats';
import { exportThen, type IntakeRoute } from '../route';
import { okReply } from './route-common';

export const statsAgentRoute: IntakeRoute = {
  name: 'stats_agent',
  methods: ['POST'],
  paths: ['/api/v0.2/stats'],
  sender: 'agent',
  readsBody: true,
  accept(req, ctx) {
    const resources = translateStats(parseAgentStats(req.body, 'agent stats'), ctx.caches);
    return exportThen(ctx, resources.length > 0 ? { signal: 'metrics', resources } : undefined, okReply);
  },
};
