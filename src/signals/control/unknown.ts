/**
 * The reply for paths we do not implement. Never a silent 200 (the upstream receiver's catch-all
 * answers 200 and drops the data). Data-carrying methods get 400: it is the one status that every
 * Datadog sender gives up on (the agent's forwarder retries 404 and 5xx forever),
 * so an unsupported payload is refused loudly instead of piling up in the
 * agent's retry queue. Reads get 404. The path is not echoed: the sender knows it, a key may be in
 * it in some spelling, and the log line names it (redacted) for the operator.
 */
import type { IntakeReply } from '../route';

export function unknownRouteReply(method: string): IntakeReply {
  const readOnly = method === 'GET' || method === 'HEAD';
  return {
    status: readOnly ? 404 : 400,
    body: `dd-otlp-bridge does not implement ${method} on this path; ${readOnly ? 'nothing is served here' : 'the payload was NOT forwarded'} (see the README's route table)\n`,
    contentType: 'text/plain; charset=utf-8',
  };
}
