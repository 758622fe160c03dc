/**
 * OTLP/gRPC exporter. Requests are encoded once by src/core/otlp/encode.ts and sent as they are by the
 * unary client in ./grpc-client, so there is no protobuf → object → protobuf round trip.
 */
import { readFileSync } from 'node:fs';
import type { ExportOptions } from '../../config';
import { ExportRefusedError } from '../errors';
import type { Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import type { EncodedExport } from '../otlp/encode';
import type { Signal } from '../otlp/model';
import { decodeExportResponse } from '../otlp/response';
import type { ExportOutcome, Exporter } from './exporter';
import { GrpcClient, GrpcError, GrpcStatus, statusName, type GrpcClientOptions } from './grpc-client';
import { backoffDelays, isPermanent, isRetryable, retryDeadlineFloor } from './retry-policy';

const METHODS: Record<Signal, string> = {
  logs: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
  traces: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  metrics: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
};

/** Waits `ms`, or less when one of `aborts` fires. */
const sleep = (ms: number, aborts: readonly (AbortSignal | undefined)[]): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      for (const abort of aborts) abort?.removeEventListener('abort', done);
      resolve();
    }
    for (const abort of aborts) abort?.addEventListener('abort', done, { once: true });
  });

const refusalOf = (failure: GrpcError): ExportRefusedError => new ExportRefusedError(failure.code, statusName(failure.code), failure.details, isPermanent(failure.code));

export interface GrpcTarget {
  address: string;
  tls: boolean;
}

/** `http://h:p` → plain text, `https://h:p` → TLS, bare `h:p` → plain text unless insecure=false. */
export function parseOtlpEndpoint(endpoint: string, insecure: boolean | undefined): GrpcTarget {
  const m = /^(https?):\/\/([^/]+)\/?$/i.exec(endpoint.trim());
  if (m) {
    const tls = (m[1] as string).toLowerCase() === 'https';
    // credentials in the URL (user:password@) are not gRPC's: the connection is to host:port
    const host = (m[2] as string).replace(/^[^@]*@/, '');
    return { address: /:\d+$/.test(host) ? host : `${host}:${tls ? 443 : 4317}`, tls };
  }
  if (/^[^/\s]+:\d+$/.test(endpoint.trim())) return { address: endpoint.trim(), tls: insecure === false };
  // not echoed: a malformed endpoint may still hold credentials
  throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT is not http(s)://host:port or host:port');
}

function tlsFor(target: GrpcTarget, config: ExportOptions): GrpcClientOptions['tls'] {
  if (!target.tls) return undefined;
  const read = (path: string | undefined): Buffer | undefined => (path ? readFileSync(path) : undefined);
  return { ca: read(config.otlpCertificate), key: read(config.otlpClientKey), cert: read(config.otlpClientCertificate) };
}

/** Collector metadata: configured headers, plus ClickStack's raw token when none names authorization. */
export function exportMetadata(headers: Record<string, string>, authToken: string | undefined): Record<string, string> {
  const md: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) md[k.toLowerCase()] = v;
  if (authToken && !('authorization' in md)) md.authorization = authToken;
  return md;
}

export class OtlpGrpcExporter implements Exporter {
  private readonly client: GrpcClient;
  /** fired by close(): retries stop, exports still waiting are answered 503 */
  private readonly closing = new AbortController();

  constructor(
    private readonly config: ExportOptions,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
  ) {
    const target = parseOtlpEndpoint(config.otlpEndpoint, config.otlpInsecure);
    this.client = new GrpcClient({
      address: target.address,
      tls: tlsFor(target, config),
      metadata: exportMetadata(config.otlpHeaders, config.otlpAuthToken),
      gzip: config.otlpCompression === 'gzip',
      pingTimeoutMs: 10_000,
      userAgent: 'dd-otlp-bridge',
    });
  }

  async export(requests: EncodedExport[]): Promise<ExportOutcome> {
    const outcome: ExportOutcome = { accepted: 0, rejected: 0 };
    // sequential: the collector sees records in the order the sender wrote them
    for (const request of requests) {
      const rejected = await this.send(request, Date.now() + this.config.exportRetryMaxElapsedMs);
      outcome.rejected += rejected;
      outcome.accepted += request.records - rejected;
    }
    return outcome;
  }

  /**
   * Sends one pre-encoded request, retrying retryable failures until `giveUpAt`, or until `abort`
   * fires or close() runs out of grace (either ends the call in flight too); resolves with the
   * number of records the collector rejected permanently. A retry is made only while it can still
   * get a deadline of retryDeadlineFloor(): the deadline is taken from the clock when the call
   * starts, so a wait that overran (a busy event loop wakes late) shortens it, never below that.
   */
  send(request: EncodedExport, giveUpAt: number, abort?: AbortSignal): Promise<number> {
    return this.waitingForCollector(request, async () => {
      const delays = backoffDelays();
      const floor = retryDeadlineFloor(this.config.otlpTimeoutMs);
      const stopped = (): boolean => abort?.aborted === true || this.closing.signal.aborted;
      for (;;) {
        const outcome = await this.attempt(request, Math.min(this.config.otlpTimeoutMs, giveUpAt - Date.now()), abort);
        if (!(outcome instanceof GrpcError)) return outcome;
        const delay = delays.next().value as number;
        if (!isRetryable(outcome.code) || stopped() || giveUpAt - Date.now() - delay < floor) throw this.refusal(request, outcome);
        await sleep(delay, [abort, this.closing.signal]);
        if (stopped() || giveUpAt - Date.now() < floor) throw this.refusal(request, outcome);
      }
    });
  }

  /**
   * One call with the whole --otlp-timeout-ms deadline and no retry (the spool's drainer retries
   * on its own schedule, and logs its failures through a rate limit); rejects with an
   * ExportRefusedError.
   */
  sendOnce(request: EncodedExport, abort?: AbortSignal): Promise<number> {
    return this.waitingForCollector(request, async () => {
      const outcome = await this.attempt(request, this.config.otlpTimeoutMs, abort);
      if (outcome instanceof GrpcError) throw refusalOf(outcome);
      return outcome;
    });
  }

  private async waitingForCollector<T>(request: EncodedExport, work: () => Promise<T>): Promise<T> {
    const labels = { signal: request.signal };
    this.metrics.exportsInFlight.add(labels, 1);
    try {
      return await work();
    } finally {
      this.metrics.exportsInFlight.add(labels, -1);
    }
  }

  /** One call: the records the collector rejected, or the failure (counted). */
  private async attempt(request: EncodedExport, timeoutMs: number, abort: AbortSignal | undefined): Promise<number | GrpcError> {
    try {
      const response = await this.client.call(METHODS[request.signal], request.body, timeoutMs, abort);
      return this.account(request, decodeExportResponse(response));
    } catch (err) {
      const failure = err instanceof GrpcError ? err : new GrpcError(GrpcStatus.UNKNOWN, (err as Error).message);
      this.metrics.exportFailures.inc({ signal: request.signal, code: statusName(failure.code) });
      return failure;
    }
  }

  private refusal(request: EncodedExport, failure: GrpcError): ExportRefusedError {
    this.log.warn('export to collector failed', { signal: request.signal, code: statusName(failure.code), error: failure.details, records: request.records });
    return refusalOf(failure);
  }

  private account(request: EncodedExport, partial: { rejected: number; errorMessage: string }): number {
    const rejected = Math.min(partial.rejected, request.records);
    this.metrics.recordsOut.inc({ signal: request.signal }, request.records - rejected);
    if (rejected > 0 || partial.errorMessage) {
      this.metrics.recordsRejected.inc({ signal: request.signal }, rejected);
      this.log.warn('collector rejected part of an export', { signal: request.signal, rejected, records: request.records, reason: partial.errorMessage });
    }
    return rejected;
  }

  /**
   * Calls in flight get up to `graceMs` to be answered; then they and any export still retrying
   * fail with 503, which the sender retries (the spool keeps what it holds). Later exports fail
   * at once.
   */
  close(graceMs = this.config.otlpTimeoutMs): Promise<void> {
    this.closing.abort();
    return this.client.close(graceMs);
  }
}
