/**
 * Cheap attacks on the HTTP layer: a body wrapped in thousands of stacked Content-Encodings, and
 * hundreds of connections that announce a large body and trickle it. Neither may starve /health
 * or the legitimate agents: they get their 2xx (no 503 flood) and nothing acknowledged is lost.
 */
import { compress as zstdCompress } from '@mongodb-js/zstd';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { startAgentLoad } from '../../helpers/agent-load';
import { expectNothingLost } from '../../helpers/delivery';
import { healthLine, probeHealth } from '../../helpers/health-probe';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const KEY = 'hostile-http-key-5f1c0a';
const SLOW_SOCKETS = 300;

/** One request whose body is zstd-compressed `layers` times, so each coding named is real work to undo. */
async function stackedEncoding(stack: TestStack, path: string, body: Buffer, layers: number): Promise<{ status: number | string; text: string; ms: number }> {
  const started = Date.now();
  const headers = { 'Content-Type': 'application/json', 'DD-API-KEY': KEY, 'Content-Encoding': Array(layers).fill('zstd').join(',') };
  try {
    const res = await fetch(`${stack.intakeUrl}${path}`, { method: 'POST', body, headers, signal: AbortSignal.timeout(60_000) });
    return { status: res.status, text: await res.text(), ms: Date.now() - started };
  } catch (err) {
    return { status: `network-error (${(err as Error).name})`, text: '', ms: Date.now() - started };
  }
}

/** A logs batch of about 1 MiB, wrapped in `layers` real zstd codings. */
async function nestedZstdBody(run: string, layers: number): Promise<Buffer> {
  const lines = Array.from({ length: 2000 }, (_, i) => ({ message: `stacked ${i} ${randomBytes(192).toString('base64')}`, ddtags: `run:${run}` }));
  let body: Buffer = Buffer.from(JSON.stringify(lines));
  for (let i = 0; i < layers; i++) body = await zstdCompress(body, 1);
  return body;
}

/**
 * Opens a connection that sends complete headers announcing `contentLength` bytes, then one body
 * byte every `everyMs`. Loopback only; the caller destroys the sockets.
 */
function slowBody(port: number, contentLength: number, everyMs: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // being cut off is an allowed answer
  socket.on('data', () => undefined);
  socket.once('connect', () => {
    socket.write(`POST /api/v2/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nDD-API-KEY: ${KEY}\r\nContent-Length: ${contentLength}\r\n\r\n[`);
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(' ')), everyMs);
    socket.once('close', () => clearInterval(timer));
  });
  return socket;
}

describe('hostile HTTP', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_API_KEYS: KEY } });
  });
  afterAll(async () => stack?.stop());

  it('stacked Content-Encoding (a body really compressed 300 times, several at once): refused with 415 before decoding, /health keeps answering', async () => {
    const run = `stacked-${Date.now()}`;
    const body = await nestedZstdBody(run, 300);
    const health = probeHealth(stack.adminUrl);
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 4 }, () => stackedEncoding(stack, '/api/v2/logs', body, 300)));
    const elapsed = Date.now() - started;
    const h = await health.stop();
    process.stderr.write(`[fault] stacked Content-Encoding: statuses=${replies.map((r) => r.status).join(',')} slowest=${Math.max(...replies.map((r) => r.ms))} ms attack=${elapsed} ms ${healthLine(h)}\n`);
    // every layer is valid zstd: undone one by one, the batch would be accepted (202)
    for (const r of replies) expect(r.status).toBe(415);
    for (const r of replies) expect(r.text).toMatch(/codings/);
    expect(h.answered).toBeGreaterThan(0);
    expect(stack.sidecarRunning()).toBe(true);
  });

  it(`${SLOW_SOCKETS} slow bodies at once: agent load is still acknowledged (no 503 flood) and nothing is lost`, async () => {
    const port = Number(new URL(stack.intakeUrl).port);
    const sockets = Array.from({ length: SLOW_SOCKETS }, () => slowBody(port, 10 * 1024 * 1024, 500));
    try {
      await sleep(1000); // every slow request is now in progress
      const run = `slow-bodies-${Date.now()}`;
      const load = startAgentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: Math.max(3000, FAULT_SECONDS * 1000), run, headers: { 'DD-API-KEY': KEY } });
      const result = await Promise.race([
        load.done,
        sleep(30_000 + FAULT_SECONDS * 1000).then(() => {
          load.cancel();
          return load.done;
        }),
      ]);
      const open = sockets.filter((s) => !s.destroyed).length;
      const d = await expectNothingLost('slow bodies', stack.sinkDir, run, result);
      process.stderr.write(`[fault] slow bodies: slow-sockets-still-open=${open}/${SLOW_SOCKETS} acknowledged=${d.acknowledged}\n`);
      const replies = [...result.statuses.values()].reduce((a, b) => a + b, 0);
      const unavailable = result.statuses.get('503') ?? 0;
      expect(unavailable).toBeLessThanOrEqual(Math.max(5, replies / 10));
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});
