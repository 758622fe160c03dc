/**
 * The unary gRPC client: how a finished stream turns into a reply or a status (pure), and the
 * connection's life against grpc-js's server and a peer that never answers. The real collector
 * (grpc-go) is the e2e tests' counterpart: every e2e export goes through this client.
 */
import { status as grpcJsStatus } from '@grpc/grpc-js';
import * as http2 from 'node:http2';
import { createServer, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { GrpcClient, GrpcError, GrpcStatus, grpcTimeout, outcomeOf, readReplyMessage, statusForHttp, statusForReset } from '../../src/core/export/grpc-client';
import { freeNow, own } from '../../src/core/owned-buffers';
import { fakeCollector } from '../helpers/fake-grpc';

const PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const frame = (message: Buffer, compressed = false): Buffer => {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
};
const ok = { ':status': 200, 'grpc-status': '0' } as unknown as http2.IncomingHttpHeaders;
/** A gRPC OK with an empty message, from a bare HTTP/2 server, once the request has been read. */
const answerOkAfterReading = (stream: http2.ServerHttp2Stream, delayMs = 0): void => {
  stream.resume();
  stream.on('end', () =>
    setTimeout(() => {
      if (stream.closed) return;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame(Buffer.alloc(0)));
    }, delayMs),
  );
};
/** which reading of an early reply this Node's HTTP/2 client gives (see the early-OK test) */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

const client = (port: number, extra: Partial<ConstructorParameters<typeof GrpcClient>[0]> = {}): GrpcClient => new GrpcClient({ address: `127.0.0.1:${port}`, metadata: {}, gzip: false, pingTimeoutMs: 200, userAgent: 'test', ...extra });

describe('outcomeOf', () => {
  it('returns the reply message of an OK stream', () => {
    const message = Buffer.from('reply');
    expect(outcomeOf({ headers: { ':status': 200 } as unknown as http2.IncomingHttpHeaders, trailers: ok, data: frame(message), rstCode: 0 })).toEqual(message);
  });

  it('gunzips a compressed reply frame', () => {
    expect(readReplyMessage(frame(gzipSync(Buffer.from('zipped')), true)).toString()).toBe('zipped');
  });

  it('an empty reply is an empty message', () => {
    expect(outcomeOf({ headers: ok, data: Buffer.alloc(0), rstCode: 0 })).toEqual(Buffer.alloc(0));
  });

  it('a frame shorter than its prefix says is INTERNAL', () => {
    const short = frame(Buffer.from('abcdef')).subarray(0, 8);
    expect((outcomeOf({ headers: ok, data: short, rstCode: 0 }) as GrpcError).code).toBe(GrpcStatus.INTERNAL);
  });

  it('reads a trailers-only error and percent-decodes its message', () => {
    const headers = { ':status': 200, 'grpc-status': '3', 'grpc-message': 'bad%20field%3A%20x' } as unknown as http2.IncomingHttpHeaders;
    const outcome = outcomeOf({ headers, data: Buffer.alloc(0), rstCode: 0 }) as GrpcError;
    expect(outcome).toBeInstanceOf(GrpcError);
    expect([outcome.code, outcome.details]).toEqual([GrpcStatus.INVALID_ARGUMENT, 'bad field: x']);
  });

  it('an unknown status number is UNKNOWN', () => {
    const headers = { ':status': 200, 'grpc-status': '99' } as unknown as http2.IncomingHttpHeaders;
    expect((outcomeOf({ headers, data: Buffer.alloc(0), rstCode: 0 }) as GrpcError).code).toBe(GrpcStatus.UNKNOWN);
  });

  it('maps a non-gRPC HTTP reply (a proxy in between) by its HTTP status', () => {
    const outcome = outcomeOf({ headers: { ':status': 503 } as unknown as http2.IncomingHttpHeaders, data: Buffer.alloc(0), rstCode: 0 }) as GrpcError;
    expect(outcome.code).toBe(GrpcStatus.UNAVAILABLE);
    expect([400, 401, 403, 404, 429, 502, 504, 500].map(statusForHttp)).toEqual([
      GrpcStatus.INTERNAL,
      GrpcStatus.UNAUTHENTICATED,
      GrpcStatus.PERMISSION_DENIED,
      GrpcStatus.UNIMPLEMENTED,
      GrpcStatus.UNAVAILABLE,
      GrpcStatus.UNAVAILABLE,
      GrpcStatus.UNAVAILABLE,
      GrpcStatus.UNKNOWN,
    ]);
  });

  it('a stream that never got headers: transport errors are UNAVAILABLE, resets map by code', () => {
    expect((outcomeOf({ data: Buffer.alloc(0), rstCode: 2, transportError: new Error('ECONNREFUSED') }) as GrpcError).code).toBe(GrpcStatus.UNAVAILABLE);
    expect((outcomeOf({ data: Buffer.alloc(0), rstCode: http2.constants.NGHTTP2_REFUSED_STREAM }) as GrpcError).code).toBe(GrpcStatus.UNAVAILABLE);
    expect(statusForReset(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(statusForReset(http2.constants.NGHTTP2_CANCEL)).toBe(GrpcStatus.CANCELLED);
    expect(statusForReset(http2.constants.NGHTTP2_PROTOCOL_ERROR)).toBe(GrpcStatus.INTERNAL);
  });

  it('an OK :status without grpc-status is INTERNAL', () => {
    expect((outcomeOf({ headers: { ':status': 200 } as unknown as http2.IncomingHttpHeaders, data: Buffer.alloc(0), rstCode: 0 }) as GrpcError).code).toBe(GrpcStatus.INTERNAL);
  });
});

describe('grpcTimeout', () => {
  it('stays within the 8 digits the header allows', () => {
    expect([grpcTimeout(10_000), grpcTimeout(0.2), grpcTimeout(99_999_999), grpcTimeout(1e9), grpcTimeout(1e15)]).toEqual(['10000m', '1m', '99999999m', '1000000S', '99999999S']);
  });
});

describe('GrpcClient', () => {
  it('sends the message framed, with metadata and user agent, gzip when asked', async () => {
    const fake = await fakeCollector(() => ({ response: Buffer.from('r') }));
    const plain = client(fake.port, { metadata: { authorization: 'token' } });
    const zipped = client(fake.port, { gzip: true });
    try {
      expect((await plain.call(PATH, Buffer.from('hello'), 5_000)).toString()).toBe('r');
      expect((await zipped.call(PATH, Buffer.from('zipped hello'), 5_000)).toString()).toBe('r');
      expect(fake.calls.map((c) => c.body.toString())).toEqual(['hello', 'zipped hello']);
      expect(fake.calls[0]!.md.get('authorization')).toEqual(['token']);
      expect(String(fake.calls[0]!.md.get('user-agent')[0])).toMatch(/^test/);
    } finally {
      await Promise.all([plain.close(100), zipped.close(100)]);
      fake.stop();
    }
  });

  it('rejects with the server status and its message', async () => {
    const fake = await fakeCollector(() => ({ error: { code: grpcJsStatus.RESOURCE_EXHAUSTED, details: 'memory limit: try later' } }));
    const c = client(fake.port);
    try {
      const err = (await c.call(PATH, Buffer.from('x'), 5_000).catch((e: unknown) => e)) as GrpcError;
      expect([err.code, err.details]).toEqual([GrpcStatus.RESOURCE_EXHAUSTED, 'memory limit: try later']);
    } finally {
      await c.close(100);
      fake.stop();
    }
  });

  it('connects afresh after the server goes away (GOAWAY) and comes back on the same port', async () => {
    const first = await fakeCollector(() => ({}));
    const c = client(first.port);
    try {
      await c.call(PATH, Buffer.from('one'), 5_000);
      await first.drain();
      expect(((await c.call(PATH, Buffer.from('refused'), 5_000).catch((e: unknown) => e)) as GrpcError).code).toBe(GrpcStatus.UNAVAILABLE);
      const second = await fakeCollector(() => ({}), first.port);
      try {
        await c.call(PATH, Buffer.from('two'), 5_000);
        expect(second.calls.map((x) => x.body.toString())).toEqual(['two']);
      } finally {
        second.stop();
      }
    } finally {
      await c.close(100);
    }
  });

  it('a silent peer: DEADLINE_EXCEEDED, then an unanswered ping drops the connection', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const c = client(port);
    try {
      const err = (await c.call(PATH, Buffer.from('x'), 100).catch((e: unknown) => e)) as GrpcError;
      expect(err.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
      expect(sockets).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 400));
      await c.call(PATH, Buffer.from('x'), 100).catch(() => undefined);
      expect(sockets).toHaveLength(2);
    } finally {
      await c.close(100).catch(() => undefined);
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('close(grace) lets a call to a silent peer wait out the grace, then fails it UNAVAILABLE; an abort ends a call CANCELLED; a closed client refuses calls', async () => {
    const server = http2.createServer();
    const streams: http2.ServerHttp2Stream[] = [];
    server.on('stream', (stream) => {
      streams.push(stream);
      stream.resume();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = client((server.address() as { port: number }).port);
    try {
      const abort = new AbortController();
      const aborted = c.call(PATH, Buffer.from('a'), 60_000, abort.signal).then(
        () => undefined,
        (e: unknown) => e as GrpcError,
      );
      const pending = c.call(PATH, Buffer.from('b'), 60_000).then(
        () => undefined,
        (e: unknown) => e as GrpcError,
      );
      while (streams.length < 2) await new Promise((r) => setTimeout(r, 10));
      abort.abort();
      expect((await aborted)?.code).toBe(GrpcStatus.CANCELLED);
      let settled = false;
      void pending.then(() => (settled = true));
      const closed = c.close(300);
      await new Promise((r) => setTimeout(r, 100));
      expect(settled).toBe(false);
      await closed;
      expect((await pending)?.code).toBe(GrpcStatus.UNAVAILABLE);
      expect(((await c.call(PATH, Buffer.from('c'), 1_000).catch((e: unknown) => e)) as GrpcError).code).toBe(GrpcStatus.UNAVAILABLE);
    } finally {
      server.close();
    }
  });

  it('a deadline ends the call on time even when the peer stopped reading (the stream cannot be reset then)', async () => {
    // an HTTP/2 responder with windows wide open, behind a relay that can stop reading from the
    // client as a frozen collector does: the client's writes fill the socket, and the RST_STREAM
    // that would close the stream waits behind them
    const server = http2.createServer({ settings: { initialWindowSize: 2 ** 31 - 1 } });
    server.on('session', (session) => session.once('remoteSettings', () => session.setLocalWindowSize(2 ** 31 - 1)));
    server.on('stream', (stream) => answerOkAfterReading(stream));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const toServer = (server.address() as { port: number }).port;
    const sockets: Socket[] = [];
    const relay = createServer((fromClient) => {
      const upstream = new Socket().connect(toServer, '127.0.0.1');
      sockets.push(fromClient, upstream);
      fromClient.pipe(upstream);
      upstream.pipe(fromClient);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    // the ping that would drop the connection is given longer than this test waits
    const c = client((relay.address() as { port: number }).port, { pingTimeoutMs: 60_000 });
    try {
      await c.call(PATH, Buffer.from('warm'), 5_000); // settings exchanged: the windows are open
      const [fromClient, upstream] = sockets as [Socket, Socket];
      fromClient.unpipe(upstream);
      fromClient.pause();
      const started = Date.now();
      const err = (await c.call(PATH, Buffer.alloc(64 * 1024 * 1024, 1), 300).catch((e: unknown) => e)) as GrpcError;
      expect(err.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await c.close(0);
      for (const s of sockets) s.destroy();
      relay.close();
      server.close();
    }
  });

  it('a slow but live peer keeps its connection after a deadline', async () => {
    // a bare HTTP/2 gRPC responder that counts connections and can be told to answer late
    let delayMs = 0;
    let sessions = 0;
    const server = http2.createServer();
    server.on('session', () => sessions++);
    server.on('stream', (stream) => answerOkAfterReading(stream, delayMs));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = client((server.address() as { port: number }).port);
    try {
      await c.call(PATH, Buffer.from('warm'), 5_000);
      delayMs = 300;
      expect(((await c.call(PATH, Buffer.from('late'), 50).catch((e: unknown) => e)) as GrpcError).code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
      await new Promise((r) => setTimeout(r, 400));
      delayMs = 0;
      await c.call(PATH, Buffer.from('after'), 5_000);
      expect(sessions).toBe(1);
    } finally {
      await c.close(100);
      server.close();
    }
  });

  it('a message still being written when the peer answered OK is never freed early; a fully sent one may be', async () => {
    // answers OK at once and resets the stream without reading what the client is still sending
    const server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const early = headers['x-early'] === '1';
      if (early) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true });
        stream.close(http2.constants.NGHTTP2_NO_ERROR);
        return;
      }
      answerOkAfterReading(stream);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const early = client(port, { metadata: { 'x-early': '1' } });
    const normal = client(port);
    try {
      // far beyond HTTP/2's initial flow-control window, so the writes cannot all be done
      const pending = own(Buffer.alloc(16 * 1024 * 1024, 1));
      // Node 24 reads the early OK; Node 22 ends the stream without emitting its headers, so the
      // call fails as retryable (UNAVAILABLE) at once rather than at its deadline (DEADLINE_EXCEEDED)
      const early22 = { code: GrpcStatus.UNAVAILABLE, message: expect.stringContaining('without a reply') };
      const outcome = await early.call(PATH, pending, 5_000).then(
        () => 'ok',
        (err: GrpcError) => ({ code: err.code, message: err.message }),
      );
      expect(outcome).toEqual(NODE_MAJOR >= 24 ? 'ok' : early22);
      freeNow(pending);
      expect(pending.length).toBe(16 * 1024 * 1024);
      const sent = own(Buffer.alloc(256 * 1024, 2));
      await normal.call(PATH, sent, 5_000);
      freeNow(sent);
      expect(sent.length).toBe(0);
    } finally {
      await Promise.all([early.close(100), normal.close(100)]);
      server.close();
    }
  });
});
