/**
 * POST /api/v1/check_run: a JSON array of service checks (the agent's
 * empty flush is `[]`), or one object from API clients. `tags` may be `null`; a missing
 * timestamp is left for the translator to fill.
 */
import { emptyPayload, type MetricsPayload, type ServiceCheck } from './datadog';
import { parseJsonBody, type JsonValue } from '../../core/wire/json';
import { fieldError, requiredNumber, isObject, objectAt, optionalNumber, optionalString, requiredString, stringList } from './parse-json';

const WHAT = 'check_run';

export function parseCheckRuns(body: Buffer): MetricsPayload {
  const value = parseJsonBody(body, WHAT);
  const checks = Array.isArray(value) ? value : isObject(value) ? [value] : undefined;
  if (!checks) throw fieldError(WHAT, '<body>', 'an array of service checks or one service check', value);
  return { ...emptyPayload(), serviceChecks: checks.map((c, i) => checkAt(c, `[${i}]`)) };
}

function checkAt(value: JsonValue, path: string): ServiceCheck {
  const o = objectAt(WHAT, value, path);
  const status = requiredNumber(WHAT, o.status, `${path}.status`);
  if (!Number.isInteger(status)) throw fieldError(WHAT, `${path}.status`, 'an integer 0–3', status);
  return {
    check: requiredString(WHAT, o.check, `${path}.check`),
    hostName: optionalString(WHAT, o.host_name, `${path}.host_name`),
    timestamp: optionalNumber(WHAT, o.timestamp, `${path}.timestamp`),
    status,
    message: optionalString(WHAT, o.message, `${path}.message`),
    tags: stringList(WHAT, o.tags, `${path}.tags`),
  };
}
