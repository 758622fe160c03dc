/** PUT/POST /v0.7/traces: one TracerPayload as msgpack (libdatadog-based tracers). */
import { parseV07Payload } from './parse/v07';
import { tracerPayloadFromHeaders } from './parse/tracer-headers';
import { rateByServiceReply, tracerTracesRoute } from './route-common';

export const tracesV07Route = tracerTracesRoute('v0.7', (req) => parseV07Payload(req.body, tracerPayloadFromHeaders(req.headers), 'v0.7 traces'), rateByServiceReply);
