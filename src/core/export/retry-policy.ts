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

/**
 * The shortest deadline a retry is started with (--otlp-timeout-ms when that is shorter). A call
 * needs a round trip to the collector and its work on the request: beside 3 CPU hogs on 2 cores
 * (load average 10), calls to the real collector took up to 103 ms for 20 log lines and 661 ms
 * for a 3.1 MiB request, gzip included. A retry left with less only adds to the collector's load
 * and fails (issue 33 saw retries sent with a 1 ms deadline).
 */
export const retryDeadlineFloor = (otlpTimeoutMs: number): number => Math.min(otlpTimeoutMs, 1_000);

/** Exponential backoff with full jitter: 100 ms doubling to a 2 s ceiling. */
export function* backoffDelays(initialMs = 100, maxMs = 2_000): Generator<number, never> {
  for (let ceiling = initialMs; ; ceiling = Math.min(ceiling * 2, maxMs)) yield Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
