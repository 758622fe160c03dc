/**
 * The contract every intake route implements. A route file declares where it listens and what
 * it needs; the server does transport (auth, body limits, decompression, export, replies,
 * metrics) once, so a route only parses, translates and encodes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteOptions } from '../config';
import type { Logger } from '../core/observability/log';
import { encodeExportRequests, type EncodedExport } from '../core/otlp/encode';
import type { SignalBatch } from '../core/otlp/model';
import type { MediaType } from '../core/wire/media-type';
import type { BridgeMetrics } from '../core/observability/metrics';
import type { TranslatorCaches } from './caches';

/**
 * Who calls the route, which decides whether an API key is required: agents and API clients
 * always send DD-API-KEY; tracers talking to :8126 never do.
 */
export type SenderClass = 'agent' | 'tracer';

export interface IntakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  /** Decompressed body (empty for bodiless routes). */
  body: Buffer;
  mediaType: MediaType | undefined;
  receivedAtNs: bigint;
  /** The connection's remote address ('' when unknown): where a sender that names no host runs. */
  remoteAddress: string;
  /** The accepted key when auth is on, for routes that echo it nowhere but need to know one was sent. */
  authenticated: boolean;
}

export interface IntakeReply {
  status: number;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteContext {
  config: RouteOptions;
  log: Logger;
  /** True when API keys are configured (auth on). */
  authEnabled: boolean;
  /** Constant-time check of a candidate key against the configured ones. */
  isValidKey(candidate: string | undefined): boolean;
  /** `text` with every configured key replaced, in any spelling (keyRedactor in shared/api-keys.ts): for what a refusal echoes. */
  redactKeys(text: string): string;
  /** Paths of tracer-facing routes actually served, for /info. */
  tracerEndpoints: readonly string[];
  /** The translators' process-lifetime caches (trace ids, metric stream start times, …), made once by the sidecar. */
  caches: TranslatorCaches;
  /** Self-metrics, for what a route counts itself (e.g. points it could not translate). */
  metrics: BridgeMetrics;
}

export interface IntakeRoute {
  /** Metric label and log field; stable, lower-case. */
  name: string;
  methods: readonly ('GET' | 'POST' | 'PUT')[];
  /** Exact paths, or a last segment `:name` (one segment) or `*name` (one or more), as src/http/route-table.ts matches them. */
  paths: readonly string[];
  /** What /info lists for a tracer route whose paths are patterns, as the agent spells it; `paths` otherwise. */
  infoPaths?: readonly string[];
  sender: SenderClass;
  /** Routes that check the key themselves (e.g. /api/v1/validate) are not refused up front. */
  selfAuthenticating?: boolean;
  readsBody: boolean;
  /**
   * Parses, translates and encodes the request, and says what to export and how to reply. It is
   * synchronous on purpose: the server frees the body's memory as soon as it returns
   * (src/core/owned-buffers.ts), so no route can read the body across an await; what is left to do
   * with the bytes afterwards — the export — works on copies (the encoded requests).
   */
  accept(req: IntakeRequest, ctx: RouteContext): Accepted;
}

/** What the server exports for a route, then the reply it sends once the collector has it all. */
export interface ExportThenReply {
  /** in order, in one export call: accepted or refused (503) together */
  exports: EncodedExport[];
  reply: () => IntakeReply;
}

/** A route's answer to a request: a reply at once, or an export and then a reply. */
export type Accepted = IntakeReply | ExportThenReply;

/**
 * Encodes `batch` (when there is one) for the server to export before it replies. `reply` is a
 * function so that routes pass a constant or make the reply up front: V8 keeps an async function's
 * parameters and locals alive across every await, so awaiting the export inside the route held the
 * request's parsed payload and translated model for the whole round trip to the collector. With
 * several requests in flight that was most of what the garbage collector had to trace. Here
 * nothing a route made waits on the collector but the encoded requests and `reply`.
 */
export function exportThen(ctx: RouteContext, batch: SignalBatch | EncodedExport[] | undefined, reply: () => IntakeReply): ExportThenReply {
  // routes that encode while translating (traces, logs, metrics) hand over requests; the others, their model
  const exports = batch === undefined ? [] : Array.isArray(batch) ? batch : encodeExportRequests(batch, ctx.config.exportMaxBytes);
  return { exports, reply };
}

export const json = (status: number, value: unknown, headers?: Record<string, string>): IntakeReply => ({
  status,
  body: JSON.stringify(value),
  contentType: 'application/json',
  ...(headers ? { headers } : {}),
});
