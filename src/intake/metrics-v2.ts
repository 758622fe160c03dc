/**
 * POST /api/v2/series: the agent's default series route (protobuf MetricPayload) and the public
 * API client's (JSON). Content-Type decides, with `charset` and other parameters allowed; a body
 * with no usable Content-Type that opens with `{` is JSON (a protobuf MetricPayload never starts
 * with that byte).
 */
import { isJson, isProtobuf } from '../parse/media-type';
import { parseSeriesV2Json } from '../parse/metrics-v2-json';
import { decodeMetricPayload } from '../parse/metrics-v2-proto';
import { metricRoute } from './metrics-route';
import type { IntakeRequest, IntakeRoute } from './route';

const isJsonBody = (req: IntakeRequest): boolean => isJson(req.mediaType) || (!isProtobuf(req.mediaType) && req.body[0] === 0x7b);

export const seriesV2Route: IntakeRoute =
  metricRoute(
    {
      name: 'series_v2',
      paths: ['/api/v2/series'],
      parse: (req) => (isJsonBody(req) ? parseSeriesV2Json(req.body) : decodeMetricPayload(req.body)),
      accepted: { errors: [] },
    });
