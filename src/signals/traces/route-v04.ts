/** PUT/POST /v0.4/traces: the default of most tracers (dd-trace-js included), msgpack or JSON. */
import { parseV04Traces } from './parse/v04';
import { tracerPayloadFromHeaders } from './parse/tracer-headers';
import { rateByServiceReply, tracerTracesRoute } from './route-common';

export const tracesV04Route = tracerTracesRoute('v0.4', (req) => parseV04Traces(req.body, req.mediaType, tracerPayloadFromHeaders(req.headers), 'v0.4 traces'), rateByServiceReply);
