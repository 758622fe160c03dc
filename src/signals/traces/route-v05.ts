/** PUT/POST /v0.5/traces: the string-table form (dd-trace-js with protocolVersion 0.5). */
import { parseV05Traces } from './parse/v05';
import { tracerPayloadFromHeaders } from './parse/tracer-headers';
import { rateByServiceReply, tracerTracesRoute } from './route-common';

export const tracesV05Route = tracerTracesRoute('v0.5', (req) => parseV05Traces(req.body, tracerPayloadFromHeaders(req.headers), 'v0.5 traces'), rateByServiceReply);
