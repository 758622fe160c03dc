/**
 * The intake against clients that try to stall it or to make it leak a key (issue 21), in process
 * on 127.0.0.1 with a fake exporter: stacked Content-Encoding, slow uploads, key spellings,
 * credentials in the collector URL, pipelining without reading, and request-rate log lines.
 */
import { connect, type Socket } from 'node:net';
import { loadConfig, parseArgs } from '../../src/config';
import type { Exporter } from '../../src/core/export/exporter';
import { createLogger } from '../../src/core/observability/log';
import type { EncodedExport } from '../../src/core/otlp/encode';
import type { HealthState } from '../../src/http/admin-server';
import { MAX_PIPELINED_REQUESTS, MAX_WAITING_REQUESTS } from '../../src/http/intake-app';
import { startSidecar, type Sidecar } from '../../src/cli/sidecar';

const KEY = 'Sekret-Key-123';
const WINDOW_MS = 1000;

/** Exports succeed at once, or wait while `held` until release(). */
class HoldingExporter implements Exporter {
  exported = 0;
  held = false;
  private readonly waiting: (() => void)[] = [];
  async export(_requests: EncodedExport[]) {
    this.exported++;
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return { accepted: 1, rejected: 0 };
  }
  release(): void {
    this.held = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
  async close() {}
}

const lines: string[] = [];
const exporter = new HoldingExporter();
let sidecar: Sidecar;
let port: number;
let admin: string;

beforeAll(async () => {
  const args = ['--enable', '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0', '--api-keys', KEY, '--max-inflight-requests', '64'];
  args.push('--upload-rate-window-ms', String(WINDOW_MS), '--min-upload-bytes-per-second', '1024');
  args.push('--otlp-endpoint', 'http://bridge:pa55word@collector:4317/?api_key=qu3rykey&region=eu');
  sidecar = await startSidecar(
    loadConfig(parseArgs(args), {}),
    createLogger('debug', {}, (line) => lines.push(line)),
    { exporter },
  );
  port = sidecar.intakeAddress!.port;
  admin = `http://127.0.0.1:${sidecar.adminAddress?.port}`;
});
afterAll(() => sidecar.stop());
afterEach(() => exporter.release());

const LOG_BODY = JSON.stringify([{ message: 'hello', ddtags: 'test:hardening' }]);
const post = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body: LOG_BODY, headers: { 'Content-Type': 'application/json', ...headers } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const openSocket = (): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

/** Everything the server sends on `s` until it closes the connection. */
const untilClosed = (s: Socket): Promise<string> =>
  new Promise((resolve) => {
    let data = '';
    s.on('data', (d: Buffer) => (data += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(data));
  });

/** The status of the first reply on `s`. */
const firstStatus = (s: Socket): Promise<number> =>
  new Promise((resolve, reject) => {
    let head = '';
    s.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m) resolve(Number(m[1]));
    });
    s.once('error', reject);
  });

const logRequest = (path = '/api/v2/logs'): string => `POST ${path} HTTP/1.1\r\nHost: x\r\nDD-API-KEY: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(LOG_BODY)}\r\n\r\n${LOG_BODY}`;

describe('stacked Content-Encoding', () => {
  it('answers 2000 stacked codings with 415 before the 9 MB body is even sent', async () => {
    const s = await openSocket();
    const status = firstStatus(s);
    s.write(`PUT /v0.4/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/msgpack\r\nContent-Encoding: ${Array(2000).fill('zstd').join(',')}\r\nContent-Length: 9000000\r\n\r\n`);
    expect(await status).toBe(415);
    s.destroy();
  });

  it('counts codings across repeated Content-Encoding header lines too', async () => {
    const s = await openSocket();
    const status = firstStatus(s);
    s.write(`PUT /v0.4/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/msgpack\r\n${'Content-Encoding: gzip\r\n'.repeat(5)}Content-Length: 1000\r\n\r\n`);
    expect(await status).toBe(415);
    s.destroy();
  });
});

describe('slow uploads', () => {
  it('300 sockets trickling bodies hold no request slot (64 here) and are cut off with 408', async () => {
    const before = sidecar.metrics.requests.get({ route: 'logs', status: '408' });
    const sockets = await Promise.all(Array.from({ length: 300 }, openSocket));
    const closed = sockets.map(untilClosed);
    for (const s of sockets) s.write(`POST /api/v2/logs HTTP/1.1\r\nHost: x\r\nDD-API-KEY: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[`);
    const trickle = setInterval(() => {
      for (const s of sockets) if (s.writable) s.write(' ');
    }, 100);
    try {
      await sleep(200);
      for (let i = 0; i < 8; i++) expect((await post('/api/v2/logs', { 'DD-API-KEY': KEY })).status).toBe(202);
      const replies = await Promise.all(closed);
      expect(replies.every((r) => r.startsWith('HTTP/1.1 408'))).toBe(true);
      expect(replies[0]).toContain('slower than 1024 bytes/s');
    } finally {
      clearInterval(trickle);
      for (const s of sockets) s.destroy();
    }
    expect(sidecar.metrics.requests.get({ route: 'logs', status: '408' }) - before).toBe(300);
    expect((await post('/api/v2/logs', { 'DD-API-KEY': KEY })).status).toBe(202);
  });

  it('reads a body that keeps the minimum rate to its end, however many windows it takes', async () => {
    const body = Buffer.from(JSON.stringify([{ message: 'x'.repeat(6000) }]));
    const s = await openSocket();
    const status = firstStatus(s);
    s.write(`POST /api/v2/logs HTTP/1.1\r\nHost: x\r\nDD-API-KEY: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    // 2400 bytes/s for 2.5 windows
    for (let at = 0; at < body.length; at += 600) {
      s.write(body.subarray(at, at + 600));
      await sleep(250);
    }
    expect(await status).toBe(202);
    s.destroy();
  });
});

describe('API keys in the path', () => {
  it.each([`/V1/INPUT/${KEY}`, `//v1/input/${KEY}`, `/v1/input//${KEY}`, `/v1/input/${KEY}/`])('accepts the key in %s', async (path) => {
    const before = exporter.exported;
    expect((await post(path)).status).toBe(202);
    expect(exporter.exported).toBe(before + 1);
  });

  it('refuses a wrong key, a key spelt in another case, and one that cannot be decoded with 403, counted as refusals', async () => {
    const internal = sidecar.metrics.internalErrors.get({ route: 'logs' });
    for (const path of ['/V1/INPUT/Wrong-Key-987', `/v1/input/${KEY.toLowerCase()}`, '/v1/input/%ZZ']) {
      const res = await post(path);
      expect(res.status).toBe(403);
      expect(await res.text()).not.toMatch(/wrong-key|sekret/i);
    }
    expect(sidecar.metrics.internalErrors.get({ route: 'logs' })).toBe(internal);
  });

  it('echoes no path in a reply to an unknown route or a wrong method (test/unit/key-spellings.test.ts tries every spelling)', async () => {
    const unknown = await post(`//V1/input/${KEY}/extra`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe("dd-otlp-bridge does not implement POST on this path; the payload was NOT forwarded (see the README's route table)\n");
    const wrongMethod = await fetch(`http://127.0.0.1:${port}/V1/INPUT/${KEY}`);
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.text()).toBe('GET is not allowed on the logs route; use POST\n');
  });
});

describe('credentials in the collector URL', () => {
  it('are in neither /health nor the start-up log line', async () => {
    const health = (await (await fetch(`${admin}/health`)).json()) as HealthState;
    expect(health.collector.endpoint).toBe('http://<redacted>@collector:4317/?api_key=<redacted>&region=eu');
    const startup = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'Datadog intake listening');
    expect(startup.collector).toBe(health.collector.endpoint);
  });
});

describe('pipelining', () => {
  it(`handles at most ${MAX_PIPELINED_REQUESTS} requests of a connection at once, the rest once those are answered`, async () => {
    exporter.held = true;
    const before = exporter.exported;
    const s = await openSocket();
    s.write(Array(50).fill(logRequest()).join(''));
    await sleep(500);
    expect(exporter.exported - before).toBe(MAX_PIPELINED_REQUESTS);
    expect((await fetch(`${admin}/health`)).status).toBe(200);
    let replies = '';
    s.on('data', (d: Buffer) => (replies += d.toString('latin1')));
    exporter.release();
    for (let i = 0; i < 100 && (replies.match(/HTTP\/1\.1 /g) ?? []).length < 50; i++) await sleep(50);
    expect(replies.match(/HTTP\/1\.1 \d{3}/g)).toEqual(Array(50).fill('HTTP/1.1 202'));
    expect(exporter.exported - before).toBe(50);
    s.destroy();
  });

  it('drops the requests still waiting when their connection closes', async () => {
    exporter.held = true;
    const info = () => sidecar.metrics.requests.get({ route: 'info', status: '200' });
    const before = info();
    const s = await openSocket();
    s.write(Array(MAX_PIPELINED_REQUESTS).fill(logRequest()).join('') + 'GET /info HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(10));
    await sleep(300);
    s.destroy();
    await sleep(100);
    exporter.release();
    await sleep(300);
    expect(info()).toBe(before);
  });

  it(`closes a connection more than ${MAX_WAITING_REQUESTS} requests ahead of its replies; others are served`, async () => {
    const count = 15_000;
    const handled = () => sidecar.metrics.requests.get({ route: 'info', status: '200' });
    const before = handled();
    const s = await openSocket();
    s.pause();
    const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
    s.on('error', () => undefined);
    s.write(Array(count).fill('GET /info HTTP/1.1\r\nHost: x\r\n\r\n').join(''));
    await closed;
    const served = handled() - before;
    console.log(`handled ${served} of ${count} pipelined requests before the connection was closed`);
    expect(served).toBeLessThanOrEqual(MAX_PIPELINED_REQUESTS + MAX_WAITING_REQUESTS);
    expect(lines.some((l) => l.includes('sent requests far ahead of reading their replies'))).toBe(true);
    expect((await fetch(`${admin}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/info`)).status).toBe(200);
  });
});

describe('request-rate log lines', () => {
  it('writes one line per message per interval however many requests trigger it', async () => {
    const from = lines.length;
    for (let i = 0; i < 30; i++) {
      expect((await post(`/no/such/route/${i}`)).status).toBe(400);
      expect((await post('/api/v2/logs', { 'DD-API-KEY': `wrong-${i}` })).status).toBe(403);
    }
    const msgs = lines.slice(from).map((l) => JSON.parse(l).msg as string);
    expect(msgs.filter((m) => m === 'request to a route this sidecar does not implement').length).toBeLessThanOrEqual(1);
    expect(msgs.filter((m) => m === 'request refused').length).toBeLessThanOrEqual(1);
  });
});

afterAll(() => {
  const all = lines.join('\n');
  expect(all).not.toContain(KEY);
  expect(all).not.toContain('Wrong-Key-987');
  expect(all).not.toContain('pa55word');
  expect(all).not.toContain('qu3rykey');
});
