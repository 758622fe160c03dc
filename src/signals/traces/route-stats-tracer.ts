/**
 * PUT/POST /v0.6/stats: tracers that compute stats themselves send them here (only when /info
 * lists the route). Turned into RED metrics (see translate/traces/stats.ts); 200 with an empty
 * body once the collector has them.
 */
import { parseClientStats } from './parse/stats';
import { translateStats } from './stats';
import { exportThen, type IntakeRoute } from '../route';

export const statsTracerRoute: IntakeRoute = {
  name: 'stats_v0.6',
  methods: ['PUT', 'POST'],
  paths: ['/v0.6/stats'],
  sender: 'tracer',
  readsBody: true,
  accept(req, ctx) {
    const resources = translateStats(parseClientStats(req.body, 'v0.6 stats'), ctx.caches, ctx.caches.hosts.hostAt(req.remoteAddress));
    return exportThen(ctx, resources.length > 0 ? { signal: 'metrics', resources } : undefined, () => ({ status: 200 }));
  },
};
