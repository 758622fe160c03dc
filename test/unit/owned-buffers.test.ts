/**
 * Early freeing of large Buffers (src/core/owned-buffers.ts): which Buffers are freed, and
 * that the two places that free them — the intake once a route returned, the coalescer once an
 * export succeeded — never free bytes something still reads.
 */
import { compress } from '@mongodb-js/zstd';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { loadConfig, parseArgs } from '../../src/config';
import { decodeBody } from '../../src/http/decode';
import { availableZstdImplementations, decodeZstd } from '../../src/http/decode/zstd';
import { CoalescingExporter } from '../../src/core/export/coalescing-exporter';
import type { ExportOutcome, Exporter } from '../../src/core/export/exporter';
import type { IntakeRequest, IntakeRoute, RouteContext } from '../../src/signals/route';
import { freeNow, own, OWNED_MIN_BYTES } from '../../src/core/owned-buffers';
import { createLogger } from '../../src/core/observability/log';
import { BridgeMetrics } from '../../src/core/observability/metrics';
import { encodeExportRequests, type EncodedExport } from '../../src/core/otlp/encode';
import { ExportRefusedError, UnavailableError } from '../../src/core/errors';
import { GrpcStatus } from '../../src/core/export/grpc-client';
import { InflightBudget } from '../../src/http/inflight-budget';
import { createIntakeApp } from '../../src/http/intake-app';
import { createTranslatorCaches } from '../../src/signals/caches';
import { lookupType } from '../helpers/otlp-proto';

const LARGE = OWNED_MIN_BYTES * 2;
const filled = (size: number, byte: number): Buffer => Buffer.allocUnsafe(size).fill(byte);

describe('own / freeNow', () => {
  it('frees an owned Buffer: its bytes are gone from every view', () => {
    const buffer = own(filled(LARGE, 7));
    const view = buffer.subarray(10, 20);
    freeNow(buffer);
    expect([buffer.length, view.length]).toEqual([0, 0]);
  });

  it('leaves alone what was never owned, what is too small to own, and views not starting at byte 0', () => {
    const unowned = filled(LARGE, 1);
    const small = own(filled(OWNED_MIN_BYTES - 1, 2));
    const pooled = own(Buffer.from('pooled'));
    const whole = filled(LARGE * 2, 3);
    const tail = own(whole.subarray(1));
    for (const b of [unowned, small, pooled, tail]) freeNow(b);
    expect([unowned.length, small.length, pooled.length, tail.length, whole.length]).toEqual([LARGE, OWNED_MIN_BYTES - 1, 6, LARGE * 2 - 1, LARGE * 2]);
    expect(unowned.every((b) => b === 1) && small.every((b) => b === 2) && tail.every((b) => b === 3)).toBe(true);
  });

  it('owns no Buffer shorter than half of a raised Buffer.poolSize: a pool at byte 0 must not be freed', () => {
    const poolSize = Buffer.poolSize;
    Buffer.poolSize = OWNED_MIN_BYTES * 4;
    try {
      // small allocations until one opens a new pool (of the raised size), then its neighbour
      let first = Buffer.allocUnsafe(64);
      for (let i = 0; i < 1000 && !(first.byteOffset === 0 && first.buffer.byteLength === Buffer.poolSize); i++) first = Buffer.allocUnsafe(64);
      expect([first.byteOffset, first.buffer.byteLength]).toEqual([0, Buffer.poolSize]);
      const neighbour = Buffer.allocUnsafe(64).fill(5);
      expect(neighbour.buffer).toBe(first.buffer);
      freeNow(own(first));
      expect([first.length, neighbour.length, neighbour.every((b) => b === 5)]).toEqual([64, 64, true]);
      // a Buffer of its own shorter than half the pool is not owned; one as long as that is
      const short = own(filled(Buffer.poolSize / 2 - 1, 8));
      const long = own(filled(Buffer.poolSize / 2, 9));
      freeNow(short);
      freeNow(long);
      expect([short.length, long.length]).toEqual([Buffer.poolSize / 2 - 1, 0]);
    } finally {
      Buffer.poolSize = poolSize;
    }
  });

  it('frees an owned prefix (a decoder output sized from a bound) through that prefix only', () => {
    const memory = filled(LARGE * 2, 6);
    const prefix = own(memory.subarray(0, LARGE));
    freeNow(memory);
    freeNow(prefix.subarray(0, LARGE - 1));
    expect([prefix.length, memory.length]).toEqual([LARGE, LARGE * 2]);
    freeNow(prefix);
    expect([prefix.length, memory.length]).toEqual([0, 0]);
  });

  it('frees only through the whole Buffer: a view of an owned one frees nothing, and a second free is a no-op', () => {
    const buffer = own(filled(LARGE, 4));
    freeNow(buffer.subarray(0, LARGE / 2));
    expect(buffer.length).toBe(LARGE);
    freeNow(buffer);
    freeNow(buffer);
    expect(buffer.length).toBe(0);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
  ] as const)('frees what zlib decoded from %s (%p), in one chunk or several', async (coding, compress) => {
    for (const size of [LARGE, 20 * LARGE]) {
      const decoded = await decodeBody(compress(filled(size, 6)), coding, { maxDecodedBytes: 64 * 1024 * 1024 });
      expect([decoded.length, decoded[size - 1]]).toEqual([size, 6]);
      freeNow(decoded);
      expect(decoded.length).toBe(0);
    }
  });

  // the optional zstd-napi addon (tools/bootstrap.js builds it where it can)
  (availableZstdImplementations().includes('addon') ? it : it.skip)('frees what libzstd decoded into our own Buffer, from one frame or two', async () => {
    const twoFrames = Buffer.concat([await compress(filled(LARGE / 2, 5), 1), await compress(filled(LARGE / 2, 5), 1)]);
    for (const body of [await compress(filled(LARGE, 5), 1), twoFrames]) {
      const decoded = await decodeZstd(body, { maxDecodedBytes: 8 * 1024 * 1024 }, 'addon');
      expect([decoded.length, decoded[0]]).toEqual([LARGE, 5]);
      freeNow(decoded);
      expect(decoded.length).toBe(0);
    }
  });
});

describe('the intake frees a request body once its route has returned', () => {
  const seen: { body: Buffer; firstByteWhileHandling: number }[] = [];
  const route: IntakeRoute = {
    name: 'probe',
    methods: ['POST'],
    paths: ['/probe'],
    sender: 'tracer',
    readsBody: true,
    accept(req: IntakeRequest) {
      seen.push({ body: req.body, firstByteWhileHandling: req.body[0] ?? -1 });
      return { status: 200, body: String(req.body.length) };
    },
  };
  /** Exports a copy of the body's first byte; the reply says how long the body was when the export ran. */
  const exporting: IntakeRoute = {
    ...route,
    name: 'probe_export',
    paths: ['/probe-export'],
    accept(req: IntakeRequest) {
      seen.push({ body: req.body, firstByteWhileHandling: req.body[0] ?? -1 });
      return { exports: [{ signal: 'logs', body: Buffer.from(req.body.subarray(0, 1)), records: 1 }], reply: () => ({ status: 202, body: exported.join(',') }) };
    },
  };
  // @ts-expect-error a route's step is synchronous: it cannot await while it holds the body
  const _awaiting: IntakeRoute = { ...route, accept: async (req: IntakeRequest) => ({ status: 200, body: String(req.body.length) }) };
  /** What the exporter saw, per export: the bytes it was handed, the request body's length then. */
  const exported: string[] = [];
  const exporter: Exporter = {
    export: async (requests) => {
      exported.push(`${requests.map((r) => r.body[0]).join('')}/${seen.at(-1)?.body.length}`);
      if (requests[0]?.body[0] === 0) throw new UnavailableError('collector unavailable', 5);
      return { accepted: requests.length, rejected: 0 };
    },
    close: async () => undefined,
  };
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const config = loadConfig(parseArgs(['--enable']), {});
    const ctx: RouteContext = {
      config,
      log: createLogger('error', {}, () => undefined),
      authEnabled: false,
      isValidKey: () => true,
      redactKeys: (text) => text,
      tracerEndpoints: [],
      caches: createTranslatorCaches({ traceIds: { maxEntries: 10, ttlMs: 1000 }, metricStreams: { maxEntries: 10, idleMs: 1000 } }),
      metrics: new BridgeMetrics(),
    };
    const metrics = new BridgeMetrics();
    server = createServer(createIntakeApp([route, exporting], ctx, exporter, config, metrics, ctx.log, new InflightBudget(10, 64 * 1024 * 1024)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    seen.length = 0;
    exported.length = 0;
  });

  const post = async (body: Buffer, headers: Record<string, string> = {}, path = '/probe'): Promise<string> => (await fetch(`${base}${path}`, { method: 'POST', body, headers })).text();

  it('exports what the route encoded after the body was freed, then replies as the route said', async () => {
    expect(await post(filled(8 * LARGE, 7), {}, '/probe-export')).toBe('7/0');
    expect(seen.map((s) => [s.firstByteWhileHandling, s.body.length])).toEqual([[7, 0]]);
  });

  it('a failed export is answered with its error, not the route’s reply', async () => {
    const res = await fetch(`${base}/probe-export`, { method: 'POST', body: filled(8 * LARGE, 0) });
    expect([res.status, await res.text(), exported]).toEqual([503, 'collector unavailable; retry later\n', ['0/0']]);
  });

  it('a large body read in several chunks: whole while the route runs, freed after', async () => {
    const size = 8 * LARGE;
    expect(await post(filled(size, 9))).toBe(String(size));
    expect(seen.map((s) => [s.firstByteWhileHandling, s.body.length])).toEqual([[9, 0]]);
  });

  it('a gzip body: the decoded bytes are freed too', async () => {
    const size = 8 * LARGE;
    expect(await post(gzipSync(filled(size, 8)), { 'Content-Encoding': 'gzip' })).toBe(String(size));
    expect(seen.map((s) => [s.firstByteWhileHandling, s.body.length])).toEqual([[8, 0]]);
  });

  it('a small body is left to the garbage collector', async () => {
    expect(await post(Buffer.from('small'))).toBe('5');
    expect(seen[0]!.body.toString()).toBe('small');
  });
});

describe('the coalescer frees export bodies once the export succeeded', () => {
  const LOGS = lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
  /** A logs request whose one record's body is `size` copies of `char`: large enough to be owned. */
  const bigLogs = (char: string, size = LARGE): EncodedExport[] =>
    encodeExportRequests(
      {
        signal: 'logs',
        resources: [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 's' }, logRecords: [{ timeUnixNano: 1n, observedTimeUnixNano: 1n, severityNumber: 9, severityText: 'info', body: { string: char.repeat(size) }, attributes: [] }] }] }],
      },
      4 * 1024 * 1024,
    );
  /** Log bodies' first characters, read when the exporter is called (later the bytes may be gone). */
  const firstChars = (requests: readonly EncodedExport[]): string[] =>
    requests.flatMap((r) => {
      const decoded = LOGS.toObject(LOGS.decode(r.body)) as { resourceLogs: { scopeLogs: { logRecords: { body: { stringValue: string } }[] }[] }[] };
      return decoded.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords.map((l) => l.body.stringValue[0]!)));
    });

  /** Records what each export carried; `refuse` picks the error an export fails with. */
  function inner(refuse: (call: number) => Error | undefined): Exporter & { sent: string[][]; bodies: Buffer[][] } {
    const self = {
      sent: [] as string[][],
      bodies: [] as Buffer[][],
      async export(requests: EncodedExport[]): Promise<ExportOutcome> {
        self.sent.push(firstChars(requests));
        self.bodies.push(requests.map((r) => r.body));
        const err = refuse(self.sent.length);
        if (err) throw err;
        return { accepted: requests.length, rejected: 0 };
      },
      close: async () => undefined,
    };
    return self;
  }

  it('a shared export: the merged body is freed once every caller has its outcome', async () => {
    const to = inner(() => undefined);
    const exporter = new CoalescingExporter(to, 4 * 1024 * 1024, new BridgeMetrics());
    await Promise.all([exporter.export(bigLogs('a')), exporter.export(bigLogs('b'))]);
    expect(to.sent).toEqual([['a', 'b']]);
    expect(to.bodies.flat().map((b) => b.length)).toEqual([0]);
  });

  it('a lone export: its body is freed', async () => {
    const to = inner(() => undefined);
    const requests = bigLogs('c');
    await new CoalescingExporter(to, 4 * 1024 * 1024, new BridgeMetrics()).export(requests);
    expect(to.sent).toEqual([['c']]);
    expect(requests[0]!.body.length).toBe(0);
  });

  it('a shared export refused for good keeps the bytes: each caller’s own retry sends its records', async () => {
    const to = inner((call) => (call === 1 ? new ExportRefusedError(GrpcStatus.INVALID_ARGUMENT, 'INVALID_ARGUMENT', 'invalid', true) : undefined));
    const exporter = new CoalescingExporter(to, 4 * 1024 * 1024, new BridgeMetrics());
    await Promise.all([exporter.export(bigLogs('d')), exporter.export(bigLogs('e'))]);
    expect(to.sent).toEqual([['d', 'e'], ['d'], ['e']]);
  });

  it('a failed export keeps its bytes for the sender’s retry', async () => {
    const to = inner(() => new UnavailableError('collector down', 5));
    const requests = bigLogs('f');
    await expect(new CoalescingExporter(to, 4 * 1024 * 1024, new BridgeMetrics()).export(requests)).rejects.toThrow('collector down');
    expect(firstChars(requests)).toEqual(['f']);
  });
});
