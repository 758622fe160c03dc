/**
 * Tracers talking to :8126 say who they are in headers; for v0.3–v0.5,
 * whose bodies carry spans only, the agent builds the TracerPayload from them, and so do we.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { emptyTracerPayload, type DdTracerPayload } from '../datadog';

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
};

export const tracerPayloadFromHeaders = (headers: IncomingHttpHeaders): DdTracerPayload => ({
  ...emptyTracerPayload(),
  languageName: header(headers, 'datadog-meta-lang'),
  languageVersion: header(headers, 'datadog-meta-lang-version'),
  tracerVersion: header(headers, 'datadog-meta-tracer-version'),
  containerId: header(headers, 'datadog-container-id'),
});

type IdentityField = 'languageName' | 'languageVersion' | 'tracerVersion' | 'containerId';
const IDENTITY_FIELDS: readonly IdentityField[] = ['languageName', 'languageVersion', 'tracerVersion', 'containerId'];

/** For formats whose body says who the tracer is (v0.7, v1.0): the headers fill only what the body leaves empty. */
export function withHeaderIdentity(parsed: DdTracerPayload, identity: DdTracerPayload): DdTracerPayload {
  const out = { ...parsed };
  for (const field of IDENTITY_FIELDS) out[field] ||= identity[field];
  return out;
}
