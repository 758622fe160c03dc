/**
 * Which collector failures are worth retrying, and what the sender hears when we give up.
 *
 * Retryable codes follow the OTLP exporter spec; RESOURCE_EXHAUSTED is added because the
 * collector's memory_limiter uses it for "try later". Auth failures are retried by the *sender*
 * (503): the data is fine, our token is wrong, and an operator fixing it must not cost data.
 */
import { GrpcStatus, statusName } from './grpc-client';
import { HttpError } from '../server/errors';

const RETRYABLE = new Set<number>([GrpcStatus.CANCELLED, GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.ABORTED, GrpcStatus.OUT_OF_RANGE, GrpcStatus.UNAVAILABLE, GrpcStatus.DATA_LOSS]);

export const isRetryable = (code: number): boolean => RETRYABLE.has(code);

/** The reply a failed export earns, keeping the collector's gRPC code for callers that decide by it (the spool drainer). */
export class ExportFailure extends HttpError {
  constructor(
    readonly code: number,
    status: number,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(status, message, headers);
  }
}

/** Datadog senders retry 5xx (never 429, which the trace-agent drops); 400 makes them drop. */
export function replyForFailure(code: number, detail: string): ExportFailure {
  const name = statusName(code);
  if (code === GrpcStatus.INVALID_ARGUMENT) return new ExportFailure(code, 400, `collector rejected the data as invalid (${name}): ${detail}`);
  return new ExportFailure(code, 503, `collector did not accept the data (${name}); retry later`, { 'Retry-After': '5' });
}

/** Exponential backoff with full jitter: 100 ms doubling to a 2 s ceiling. */
export function* backoffDelays(initialMs = 100, maxMs = 2_000): Generator<number, never> {
  for (let ceiling = initialMs; ; ceiling = Math.min(ceiling * 2, maxMs)) yield Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
