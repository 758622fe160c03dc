/**
 * Which collector failures are worth retrying, and how long to wait between tries. What the
 * sender hears when we give up is src/http/error-reply.ts's choice.
 *
 * Retryable codes follow the OTLP exporter spec; RESOURCE_EXHAUSTED is added because the
 * collector's memory_limiter uses it for "try later". Only INVALID_ARGUMENT is permanent: on an
 * auth failure the data is fine, our token is wrong, and an operator fixing it must not cost data.
 */
import { GrpcStatus } from './grpc-client';

const RETRYABLE = new Set<number>([GrpcStatus.CANCELLED, GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.ABORTED, GrpcStatus.OUT_OF_RANGE, GrpcStatus.UNAVAILABLE, GrpcStatus.DATA_LOSS]);

export const isRetryable = (code: number): boolean => RETRYABLE.has(code);

/** The collector calls the data itself invalid: neither we nor the sender should send these bytes again. */
export const isPermanent = (code: number): boolean => code === GrpcStatus.INVALID_ARGUMENT;

/** Exponential backoff with full jitter: 100 ms doubling to a 2 s ceiling. */
export function* backoffDelays(initialMs = 100, maxMs = 2_000): Generator<number, never> {
  for (let ceiling = initialMs; ; ceiling = Math.min(ceiling * 2, maxMs)) yield Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
