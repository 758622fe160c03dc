/**
 * A unary gRPC client on node:http2, for the one call the sidecar makes: Export, with bytes that
 * are already protobuf. Measured against grpc-js on this machine
 * (docs/decisions/002-own-grpc-client.md), a call costs about half the CPU: grpc-js runs every call
 * through its channel, load-balancer, interceptor and filter stacks, none of which an exporter to
 * one collector needs.
 *
 * The wire follows the gRPC over HTTP/2 spec: a POST per call, the message in a 5-byte length
 * prefixed frame, the status in trailers (or in the headers of a trailers-only reply). One
 * session is shared by all calls and replaced when it closes or the collector sends GOAWAY.
 */
import * as http2 from 'node:http2';
import { gunzipSync, gzip } from 'node:zlib';
import { disown } from '../owned-buffers';

/** gRPC status codes (grpc/doc/statuscodes.md). */
export enum GrpcStatus {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

/** The code's name (`UNAVAILABLE`), or its number when it has none. */
export const statusName = (code: number): string => GrpcStatus[code] ?? String(code);

export class GrpcError extends Error {
  constructor(
    readonly code: GrpcStatus,
    readonly details: string,
  ) {
    super(`${statusName(code)}: ${details}`);
  }
}

export interface GrpcClientOptions {
  /** host:port */
  address: string;
  /** TLS when set; absent fields fall back to Node's defaults (system CAs, no client certificate) */
  tls?: { ca?: Buffer; key?: Buffer; cert?: Buffer };
  /** sent with every call (lower-cased names) */
  metadata: Record<string, string>;
  gzip: boolean;
  /** how long a ping may go unanswered once a call has timed out before the session is dropped */
  pingTimeoutMs: number;
  userAgent: string;
}

/** HTTP status of a reply that is not gRPC at all (a proxy's error page) → gRPC code, per the spec. */
export function statusForHttp(httpStatus: number): GrpcStatus {
  if (httpStatus === 400) return GrpcStatus.INTERNAL;
  if (httpStatus === 401) return GrpcStatus.UNAUTHENTICATED;
  if (httpStatus === 403) return GrpcStatus.PERMISSION_DENIED;
  if (httpStatus === 404) return GrpcStatus.UNIMPLEMENTED;
  if (httpStatus === 429 || httpStatus === 502 || httpStatus === 503 || httpStatus === 504) return GrpcStatus.UNAVAILABLE;
  return GrpcStatus.UNKNOWN;
}

/** RST_STREAM error code of a stream that ended without a status → gRPC code, per the spec. */
export function statusForReset(rstCode: number): GrpcStatus {
  const c = http2.constants;
  if (rstCode === c.NGHTTP2_REFUSED_STREAM) return GrpcStatus.UNAVAILABLE;
  if (rstCode === c.NGHTTP2_CANCEL) return GrpcStatus.CANCELLED;
  if (rstCode === c.NGHTTP2_ENHANCE_YOUR_CALM) return GrpcStatus.RESOURCE_EXHAUSTED;
  if (rstCode === c.NGHTTP2_INADEQUATE_SECURITY) return GrpcStatus.PERMISSION_DENIED;
  return GrpcStatus.INTERNAL;
}

/** grpc-message is percent-encoded on the wire. */
function decodeGrpcMessage(raw: string | string[] | undefined): string {
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The reply's message: the first length-prefixed frame, gunzipped when its flag says compressed. */
export function readReplyMessage(data: Buffer): Buffer {
  if (data.length < 5) return Buffer.alloc(0);
  const length = data.readUInt32BE(1);
  if (data.length < 5 + length) throw new GrpcError(GrpcStatus.INTERNAL, `reply frame says ${length} bytes, ${data.length - 5} arrived`);
  const message = data.subarray(5, 5 + length);
  return data[0] === 1 ? gunzipSync(message) : message;
}

interface Reply {
  headers?: http2.IncomingHttpHeaders;
  trailers?: http2.IncomingHttpHeaders;
  data: Buffer;
  rstCode: number;
  transportError?: Error;
}

/** What a finished stream amounts to: the reply message, or the GrpcError to reject with. */
export function outcomeOf(reply: Reply): Buffer | GrpcError {
  const { headers, trailers } = reply;
  if (!headers) {
    if (reply.transportError) return new GrpcError(GrpcStatus.UNAVAILABLE, reply.transportError.message);
    return new GrpcError(statusForReset(reply.rstCode), `stream closed before a reply (HTTP/2 code ${reply.rstCode})`);
  }
  const httpStatus = Number(headers[':status']);
  if (httpStatus !== 200) return new GrpcError(statusForHttp(httpStatus), `collector answered HTTP ${httpStatus}`);
  // trailers-only replies carry the status in the headers
  const fields = trailers ?? headers;
  const raw = fields['grpc-status'];
  if (raw === undefined) {
    if (reply.rstCode !== http2.constants.NGHTTP2_NO_ERROR) return new GrpcError(statusForReset(reply.rstCode), `stream reset (HTTP/2 code ${reply.rstCode})`);
    return new GrpcError(GrpcStatus.INTERNAL, 'reply without grpc-status');
  }
  const code = Number(raw) as GrpcStatus;
  if (code !== GrpcStatus.OK) return new GrpcError(code in GrpcStatus ? code : GrpcStatus.UNKNOWN, decodeGrpcMessage(fields['grpc-message']));
  try {
    return readReplyMessage(reply.data);
  } catch (err) {
    return err instanceof GrpcError ? err : new GrpcError(GrpcStatus.INTERNAL, (err as Error).message);
  }
}

const gzipAsync = (message: Buffer): Promise<Buffer> => new Promise((resolve, reject) => gzip(message, (err, out) => (err ? reject(err) : resolve(out))));

/** grpc-timeout allows at most 8 digits. */
export const grpcTimeout = (ms: number): string => (ms < 1e8 ? `${Math.max(1, Math.ceil(ms))}m` : `${Math.min(99_999_999, Math.ceil(ms / 1000))}S`);

const framePrefix = (length: number, compressed: boolean): Buffer => {
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(length, 1);
  return prefix;
};

export class GrpcClient {
  private session: http2.ClientHttp2Session | undefined;
  /** Calls in flight, each with the way to end it at once (close() out of grace, or its abort signal). */
  private readonly inFlight = new Set<(err: GrpcError) => void>();
  /** close() calls waiting for the calls in flight to end */
  private readonly idleWaiters = new Set<() => void>();
  private closed = false;
  private readonly authority: string;
  private readonly headers: http2.OutgoingHttpHeaders;

  constructor(private readonly options: GrpcClientOptions) {
    this.authority = `${options.tls ? 'https' : 'http'}://${options.address}`;
    this.headers = {
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': options.userAgent,
      'grpc-accept-encoding': 'identity,gzip',
      ...(options.gzip ? { 'grpc-encoding': 'gzip' } : {}),
      ...options.metadata,
    };
  }

  /**
   * Resolves with the reply message, rejects with a GrpcError (transport failures are UNAVAILABLE).
   * `abort` ends the call at once (CANCELLED), as close() does when its grace runs out (UNAVAILABLE).
   */
  async call(path: string, message: Buffer, timeoutMs: number, abort?: AbortSignal): Promise<Buffer> {
    const body = this.options.gzip ? await gzipAsync(message) : message;
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new GrpcError(GrpcStatus.UNAVAILABLE, 'the client is closed'));
      if (abort?.aborted) return reject(new GrpcError(GrpcStatus.CANCELLED, 'aborted'));
      let session: http2.ClientHttp2Session;
      let stream: http2.ClientHttp2Stream;
      try {
        session = this.live();
        stream = session.request({ ...this.headers, ':method': 'POST', ':path': path, 'grpc-timeout': grpcTimeout(timeoutMs) });
      } catch (err) {
        reject(new GrpcError(GrpcStatus.UNAVAILABLE, (err as Error).message));
        return;
      }
      const reply: Reply = { data: Buffer.alloc(0), rstCode: 0 };
      const chunks: Buffer[] = [];
      // a peer that answered (or was cut off) before reading everything may leave our writes of
      // `message` queued on the socket: its bytes must not be freed early
      const keepUnsentBytes = (): void => {
        if (!stream.writableFinished && body === message) disown(message);
      };
      // settled here rather than left to 'close': ending a call must not wait on what the peer
      // does next (the RST that closes the stream waits for a socket the peer may not be reading)
      const end = (err: GrpcError): void => {
        clearTimeout(deadline);
        abort?.removeEventListener('abort', onAbort);
        this.settled(end);
        keepUnsentBytes();
        reject(err);
        stream.close(http2.constants.NGHTTP2_CANCEL);
      };
      const deadline = setTimeout(() => {
        end(new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, `no reply within ${timeoutMs} ms`));
        this.probe(session);
      }, timeoutMs);
      const onAbort = (): void => end(new GrpcError(GrpcStatus.CANCELLED, 'aborted'));
      stream.on('response', (headers) => (reply.headers = headers));
      stream.on('trailers', (trailers) => (reply.trailers = trailers));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => (reply.transportError = err));
      abort?.addEventListener('abort', onAbort, { once: true });
      this.inFlight.add(end);
      const finish = (): void => {
        clearTimeout(deadline);
        abort?.removeEventListener('abort', onAbort);
        this.settled(end);
        reply.rstCode = stream.rstCode ?? 0;
        keepUnsentBytes();
        reply.data = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        const outcome = outcomeOf(reply);
        if (outcome instanceof GrpcError) reject(outcome);
        else resolve(outcome);
      };
      stream.on('close', finish);
      // Node 22 ends a stream whose reply (headers and END_STREAM) came while our writes were still
      // queued without emitting the reply's headers, and never emits 'close' for it
      // (test/unit/grpc-client.test.ts): a reply unseen is a retryable failure now, not a deadline later
      stream.on('end', () => {
        if (reply.headers) return;
        reply.transportError ??= new Error('the stream ended without a reply the client could read');
        finish();
        stream.close(http2.constants.NGHTTP2_CANCEL);
      });
      stream.write(framePrefix(body.length, this.options.gzip));
      stream.end(body);
    });
  }

  /**
   * Refuses new calls and lets those in flight finish for up to `graceMs`; then the ones still
   * waiting are rejected (UNAVAILABLE) and the connection is dropped (a peer that never answers
   * would hold a graceful close forever). A later call with less grace cuts sooner.
   */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    // GOAWAY: no new streams, those open may finish
    if (session && !session.destroyed) session.close();
    await this.idleWithin(graceMs);
    const failure = new GrpcError(GrpcStatus.UNAVAILABLE, 'the exporter closed before the collector answered');
    for (const end of this.inFlight) end(failure);
    // a session whose peer went silent may never emit 'close', even once destroyed: nothing waits for it
    session?.destroy();
  }

  /** Resolves once no call is in flight, or after `ms`. */
  private idleWithin(ms: number): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.idleWaiters.add(done);
    });
  }

  /** A call is over (answered, failed or ended): close() may be waiting for the last one. */
  private settled(end: (err: GrpcError) => void): void {
    if (!this.inFlight.delete(end) || this.inFlight.size > 0) return;
    for (const done of [...this.idleWaiters]) done();
  }

  /** The shared session; a new one when there is none or the last one is closing. */
  private live(): http2.ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const { tls } = this.options;
    const session = http2.connect(this.authority, {
      ...(tls ? { ca: tls.ca, key: tls.key, cert: tls.cert } : {}),
      settings: { enablePush: false },
      // Node refuses new streams past 10 MB of queued session data by default; the intake's
      // in-flight budget already bounds how many bytes can be waiting here
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    // a failed connect or a dead peer surfaces on the session's streams as 'error'; the session's
    // own 'error' needs a listener only so that it does not take the process down
    session.on('error', () => undefined);
    // GOAWAY: calls already sent finish on it, new ones need a new session
    session.once('goaway', () => this.forget(session));
    session.once('close', () => this.forget(session));
    // an idle connection to the collector must not keep a stopping process alive
    session.unref();
    this.session = session;
    return session;
  }

  private forget(session: http2.ClientHttp2Session): void {
    if (this.session === session) this.session = undefined;
  }

  /**
   * A call ran into its deadline: either the collector is slow or the connection is dead without
   * anyone having said so (a peer that vanished sends no RST). A ping tells them apart; a session
   * that does not answer is dropped so the next call connects afresh.
   */
  private probe(session: http2.ClientHttp2Session): void {
    if (session.closed || session.destroyed) return;
    const timer = setTimeout(() => {
      this.forget(session);
      session.destroy();
    }, this.options.pingTimeoutMs);
    timer.unref();
    try {
      session.ping((err) => {
        if (!err) clearTimeout(timer);
      });
    } catch {
      // too many unanswered pings in flight already: the timer decides
    }
  }
}
