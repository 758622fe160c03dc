/** PUT/POST /v0.4/traces: the default of most tracers (dd-trace-js included), msgpack or JSON. */
import { parseV04Traces } from '../parse/traces/v04';
import { tracerPayloadFromHeaders } from '../parse/traces/tracer-headers';
import { rateByServiceReply, tracerTracesRoute } from './traces-reply';

export const tracesV04Route = tracerTracesRoute('v0.4', (req) => parseV04Traces(req.body, req.mediaType, tracerPayloadFromHeaders(req.headers), 'v0.4 traces'), rateByServiceReply);
