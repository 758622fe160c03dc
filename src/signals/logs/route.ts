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
import type { Tally } from '../shared/chain';
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
    const tally: Tally = {};
    translateLogs({ caches: ctx.caches, receivedAtNs: req.receivedAtNs, options: ctx.config, tally }, records)(payload);
    if (tally.pipeline_applied) ctx.metrics.logPipelineRecords.inc({ outcome: 'applied' }, tally.pipeline_applied);
    if (tally.pipeline_over_budget) ctx.metrics.logPipelineRecords.inc({ outcome: 'over_budget' }, tally.pipeline_over_budget);
    return exportThen(ctx, records.requests(ctx.config.exportMaxBytes), () => json(202, {}));
  },
};
