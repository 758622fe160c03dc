/**
 * OTLP/gRPC client. Requests are encoded once by src/otlp/encode and handed to grpc-js as
 * pre-serialized bytes (pass-through serializers), so there is no protobuf → object → protobuf
 * round trip on the hot path.
 */
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import type { Config } from '../config';
import type { Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import type { EncodedExport } from '../otlp/encode';
import type { Signal } from '../otlp/model';
import { decodeExportResponse } from '../otlp/response';
import { HttpError } from '../server/errors';
import type { ExportOutcome, Exporter } from './exporter';
import { backoffDelays, isRetryable, replyForFailure } from './retry-policy';

const METHODS: Record<Signal, string> = {
  logs: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
  traces: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  metrics: '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
};

const passThrough = (b: Buffer): Buffer => b;

const sleep = (ms: number, abort?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      abort?.removeEventListener('abort', done);
      resolve();
    }
    abort?.addEventListener('abort', done, { once: true });
  });

export interface GrpcTarget {
  address: string;
  tls: boolean;
}

/** `http://h:p` → plain text, `https://h:p` → TLS, bare `h:p` → plain text unless insecure=false. */
export function parseOtlpEndpoint(endpoint: string, insecure: boolean | undefined): GrpcTarget {
  const m = /^(https?):\/\/([^/]+)\/?$/i.exec(endpoint.trim());
  if (m) {
    const tls = (m[1] as string).toLowerCase() === 'https';
    const host = m[2] as string;
    return { address: /:\d+$/.test(host) ? host : `${host}:${tls ? 443 : 4317}`, tls };
  }
  if (/^[^/\s]+:\d+$/.test(endpoint.trim())) return { address: endpoint.trim(), tls: insecure === false };
  throw new HttpError(500, `OTEL_EXPORTER_OTLP_ENDPOINT "${endpoint}" is not http(s)://host:port or host:port`);
}

function credentialsFor(target: GrpcTarget, config: Config): grpc.ChannelCredentials {
  if (!target.tls) return grpc.credentials.createInsecure();
  const read = (path: string | undefined): Buffer | null => (path ? readFileSync(path) : null);
  return grpc.credentials.createSsl(read(config.otlpCertificate), read(config.otlpClientKey), read(config.otlpClientCertificate));
}

/** Collector metadata: configured headers, plus ClickStack's raw token when none names authorization. */
export function exportMetadata(headers: Record<string, string>, authToken: string | undefined): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k, v);
  if (authToken && !('authorization' in headers)) md.set('authorization', authToken);
  return md;
}

export class OtlpGrpcExporter implements Exporter {
  private readonly client: grpc.Client;
  private readonly metadata: grpc.Metadata;

  constructor(
    private readonly config: Config,
    authToken: string | undefined,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
  ) {
    const target = parseOtlpEndpoint(config.otlpEndpoint, config.otlpInsecure);
    this.client = new grpc.Client(target.address, credentialsFor(target, config), {
      'grpc.default_compression_algorithm': config.otlpCompression === 'gzip' ? 2 : 0,
      // our own limit is exportMaxBytes; the channel's must not be the one that bites
      'grpc.max_send_message_length': Math.max(config.exportMaxBytes * 2, 4 * 1024 * 1024),
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.enable_retries': 0,
      // grpc-js backs reconnects off to 120 s; senders retry every few seconds and must find the
      // collector as soon as it is back, and a reconnect attempt to a nearby collector is cheap
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1_000,
    });
    this.metadata = exportMetadata(config.otlpHeaders, authToken);
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
   * Sends one pre-encoded request, retrying retryable failures until `giveUpAt` (Infinity for
   * the spool drainer) or until `abort` fires; resolves with the number of records the collector
   * rejected permanently.
   */
  async send(request: EncodedExport, giveUpAt: number, abort?: AbortSignal): Promise<number> {
    const labels = { signal: request.signal };
    const delays = backoffDelays();
    this.metrics.exportsInFlight.add(labels, 1);
    try {
      for (;;) {
        try {
          const response = await this.call(request, Math.max(Math.min(this.config.otlpTimeoutMs, giveUpAt - Date.now()), 1));
          return this.account(request, decodeExportResponse(response));
        } catch (err) {
          const code = (err as grpc.ServiceError).code ?? grpc.status.UNKNOWN;
          this.metrics.exportFailures.inc({ signal: request.signal, code: grpc.status[code] ?? String(code) });
          const delay = delays.next().value as number;
          if (!isRetryable(code) || Date.now() + delay >= giveUpAt || abort?.aborted) {
            this.log.warn('export to collector failed', { signal: request.signal, code: grpc.status[code], error: (err as Error).message, records: request.records });
            throw replyForFailure(code, (err as grpc.ServiceError).details ?? (err as Error).message);
          }
          await sleep(delay, abort);
        }
      }
    } finally {
      this.metrics.exportsInFlight.add(labels, -1);
    }
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

  private call(request: EncodedExport, timeoutMs: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        METHODS[request.signal],
        passThrough,
        passThrough,
        request.body,
        this.metadata,
        { deadline: Date.now() + timeoutMs },
        (err, value) => (err ? reject(err) : resolve(value ?? Buffer.alloc(0))),
      );
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
