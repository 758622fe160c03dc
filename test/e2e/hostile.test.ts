/**
 * Hostile and broken clients against the running sidecar: each gets a clear 4xx (or its
 * connection closed) and nothing else breaks — the next normal request still succeeds.
 */
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { logRecords, waitFor } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

let stack: TestStack;
let port: number;
beforeAll(async () => {
  stack = await startStack({ sidecarEnv: { DD_BRIDGE_HEADERS_TIMEOUT_MS: '500', DD_BRIDGE_REQUEST_TIMEOUT_MS: '1500' } });
  port = Number(new URL(stack.intakeUrl).port);
});
afterAll(async () => stack?.stop());

const openSocket = (): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

/** Everything the server sends until it closes the connection, and how long that took. */
const untilClosed = (s: Socket): Promise<{ data: string; ms: number }> =>
  new Promise((resolve) => {
    const started = Date.now();
    let data = '';
    s.on('data', (d) => (data += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ data, ms: Date.now() - started }));
  });

async function stillServes(): Promise<void> {
  const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message: 'still alive', ddtags: 'run:hostile' }]), headers: { 'Content-Type': 'application/json' } });
  expect(res.status).toBe(202);
}

it('closes a connection whose headers never finish (slowloris) with 408', async () => {
  const s = await openSocket();
  s.write('POST /api/v2/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
  const { data, ms } = await untilClosed(s);
  expect(data).toMatch(/^HTTP\/1\.1 408/);
  expect(ms).toBeLessThan(5_000);
  await stillServes();
});

it('closes a connection whose body never finishes', async () => {
  const s = await openSocket();
  s.write('POST /api/v2/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{"message":');
  const { ms } = await untilClosed(s);
  expect(ms).toBeLessThan(6_000);
  await stillServes();
});

it('survives a body cut short by the client and forwards nothing from it', async () => {
  const s = await openSocket();
  s.write('POST /api/v2/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{"message":"truncated-body"');
  s.destroy();
  await stillServes();
  await new Promise((r) => setTimeout(r, 300));
  expect(logRecords(stack.sinkDir).filter((r) => r.body === 'truncated-body')).toHaveLength(0);
});

it('keeps serving with 1500 idle connections open', async () => {
  const sockets = await Promise.all(Array.from({ length: 1500 }, openSocket));
  try {
    await stillServes();
  } finally {
    for (const s of sockets) s.destroy();
  }
});

it.each([
  ['protobuf to the JSON logs route', { 'Content-Type': 'application/x-protobuf' }, '[]', 415],
  ['JSON nested 100000 deep', { 'Content-Type': 'application/json' }, '['.repeat(100_000) + ']'.repeat(100_000), 400],
  ['a top-level string', { 'Content-Type': 'application/json' }, '"just a string"', 400],
  ['an array of numbers', { 'Content-Type': 'application/json' }, '[1,2,3]', 400],
  ['gzip header on plain bytes', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '[{"message":"x"}]', 400],
  ['a stacked unknown encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip, br' }, '[]', 415],
])('answers %s with a clear 4xx', async (_name, headers, body, status) => {
  const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body, headers });
  expect(res.status).toBe(status);
  expect((await res.text()).length).toBeGreaterThan(10);
  await stillServes();
});

it('names the failing element in a parse error', async () => {
  const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message: 'ok' }, 42]), headers: { 'Content-Type': 'application/json' } });
  expect(res.status).toBe(400);
  expect(await res.text()).toMatch(/\[1\] must be an object/);
});

it('decodes gzip when the body really is gzip, after all the abuse', async () => {
  const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: gzipSync(JSON.stringify([{ message: 'after abuse', ddtags: 'run:hostile' }])), headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } });
  expect(res.status).toBe(202);
  const records = await waitFor(
    () => logRecords(stack.sinkDir).filter((r) => r.body === 'after abuse'),
    (r) => r.length === 1,
  );
  expect(records).toHaveLength(1);
});
