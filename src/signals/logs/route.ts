/**
 * POST /api/v2/logs (logs agent, API clients, logger transports) and the legacy /v1/input
 * (and /v1/input/<key>). 202 only once the collector has the records; the agent's `{}` probe
 * exports nothing.
 */
import { UnsupportedMediaTypeError } from '../../core/errors';
import { logStreamEncoder } from '../../core/otlp/encode';
import { isJson } from '../../core/wire/media-type';
import { parseLogsBody } from './parse';
import { translateLogs } from './chain';
import { exportThen, json, type IntakeRoute } from '../route';

export const logsRoute: IntakeRoute = {
  name: 'logs',
  methods: ['POST'],
  paths: ['/api/v2/logs', '/v1/input', '/v1/input/:key'],
  sender: 'agent',
  readsBody: true,
  accept(req, ctx) {
    if (req.mediaType && !isJson(req.mediaType)) throw new UnsupportedMediaTypeError(`logs: Content-Type ${req.mediaType.essence} is not supported; send application/json`);
    const payload = parseLogsBody(req.body, req.query);
    const records = logStreamEncoder();
    const stats = { applied: 0, overBudget: 0 };
    const pipelines = { set: ctx.caches.logPipelines.current, budgetMs: ctx.config.logPipelineBudgetMs, stats };
    translateLogs(payload, req.receivedAtNs, { caches: ctx.caches, decodeJsonMessage: ctx.config.decodeJsonMessage, textCorrelation: ctx.config.logTextCorrelation, pipelines }, records);
    if (stats.applied > 0) ctx.metrics.logPipelineRecords.inc({ outcome: 'applied' }, stats.applied);
    if (stats.overBudget > 0) ctx.metrics.logPipelineRecords.inc({ outcome: 'over_budget' }, stats.overBudget);
    return exportThen(ctx, records.requests(ctx.config.exportMaxBytes), () => json(202, {}));
  },
};
