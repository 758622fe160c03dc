/**
 * PUT/POST /v1.0/traces: the V1 protocol (string-streamed msgpack, parse/v1.ts). dd-trace-go 2.x
 * sends it by default once /info lists the route, and falls back to v0.4 when it does not; the
 * reply is v0.4's, rates and `Datadog-Rates-Payload-Version` included.
 */
import { parseV1Traces } from './parse/v1';
import { tracerPayloadFromHeaders } from './parse/tracer-headers';
import { rateByServiceReply, tracerTracesRoute } from './route-common';

export const tracesV1Route = tracerTracesRoute('v1.0', (req) => parseV1Traces(req.body, tracerPayloadFromHeaders(req.headers), 'v1.0 traces'), rateByServiceReply);
