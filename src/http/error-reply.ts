/**
 * What the sender hears for each domain error (src/core/errors.ts): the one place where statuses,
 * Retry-After and the advice appended to a message are chosen. Datadog senders retry 408 and 5xx
 * and drop on other 4xx (never 429, which the trace-agent drops), so data that is fine but cannot
 * be taken now gets 503 + Retry-After, and only data that can never be taken gets a 4xx.
 */
import type { DomainError } from '../core/errors';

export interface ErrorReply {
  status: number;
  /** the message and its advice, without the final newline */
  text: string;
  headers: Record<string, string>;
}

/** When a sender whose export the collector refused should come back: our own retries are already spent. */
const EXPORT_RETRY_AFTER_SECONDS = 5;

const refused = (status: number, err: DomainError): ErrorReply => ({ status, text: err.message, headers: {} });

const retryLater = (err: DomainError, seconds: number): ErrorReply => ({ status: 503, text: `${err.message}; retry later`, headers: { 'Retry-After': String(seconds) } });

export function errorReplyFor(err: DomainError): ErrorReply {
  switch (err.kind) {
    case 'malformed':
      return refused(400, err);
    case 'access-denied':
      return refused(403, err);
    case 'slow-upload':
      // intake-app.ts closes the connection with a 408: the rest of the body is not worth reading
      return { status: 408, text: `${err.message}; the connection is closed, retry`, headers: {} };
    case 'too-large':
      return refused(413, err);
    case 'unsupported-encoding':
    case 'unsupported-media-type':
      return refused(415, err);
    case 'export-refused':
      return err.permanent ? refused(400, err) : retryLater(err, EXPORT_RETRY_AFTER_SECONDS);
    case 'unavailable':
      return retryLater(err, err.retryAfterSeconds);
  }
}
