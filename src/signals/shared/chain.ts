/**
 * The one shape of a translation, for every signal. A chain is started for one request with its
 * context — the process caches the chain declares it reads, when the request arrived, the route's
 * translation options, and a tally of what could not be translated — and the sink its records go
 * to; it is then fed the request's payload, or the pieces of a payload read in pieces, in order.
 * Inside, each record goes through the chain's steps (step.ts) in the order of its one list:
 * LOG_STEPS, SPAN_STEPS, METRIC_STEPS.
 */
import type { RouteOptions } from '../../config';

/** The route options a translation reads. */
export type TranslationOptions = Pick<RouteOptions, 'decodeJsonMessage' | 'logTextCorrelation' | 'logPipelineBudgetMs'>;

/** What could not be translated, by reason: request-scoped, counted in /metrics by the route. */
export type Tally = Partial<Record<string, number>>;

export interface TranslationContext<C> {
  /** the process-lifetime caches the chain reads (each chain names them in its own type) */
  caches: C;
  /** when the request arrived: the time of what carries none */
  receivedAtNs: bigint;
  options: TranslationOptions;
  tally: Tally;
  /** the host the request's connection came from, for a sender that names none (HostMetadataTable.hostAt) */
  senderHost?: string;
}

/**
 * A started chain: takes a payload (or the next piece of one) and hands its records to the sink.
 * A chain that makes one record of several (metrics/kubernetes) has an `end`, called once the
 * request's last piece was taken.
 */
export interface Translation<P> {
  (payload: P): void;
  end?: () => void;
}

/** Adds `count` to `reason` in a tally. */
export function countIn(tally: Tally, reason: string, count = 1): void {
  tally[reason] = (tally[reason] ?? 0) + count;
}
