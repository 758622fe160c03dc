/** PUT/POST /v0.3/traces: old tracers, msgpack or JSON; answered with a plain `OK`. */
import { parseV04Traces } from './parse/v04';
import { tracerPayloadFromHeaders } from './parse/tracer-headers';
import { okReply, tracerTracesRoute } from './route-common';

export const tracesV03Route = tracerTracesRoute('v0.3', (req) => parseV04Traces(req.body, req.mediaType, tracerPayloadFromHeaders(req.headers), 'v0.3 traces'), okReply);
