/**
 * Foundation, end to end: the sidecar process in front of the real collector built from the
 * manifest, asserting on what the collector's file exporter wrote.
 */
import { compress as zstdCompress } from '@mongodb-js/zstd';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { logRecords, waitFor } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

const agentLog = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  message: `hello ${id}`,
  status: 'warn',
  timestamp: 1_700_000_000_123,
  hostname: 'web-1',
  service: 'checkout',
  ddsource: 'nodejs',
  ddtags: `env:prod,test_id:${id}`,
  ...extra,
});

type Encoding = 'identity' | 'gzip' | 'deflate' | 'zstd' | 'zstd1';
async function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  switch (encoding) {
    case 'identity':
      return body;
    case 'gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'zstd':
    case 'zstd1':
      return zstdCompress(body, 1);
  }
}

async function post(stack: TestStack, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(stack.intakeUrl + path, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
}

/**
 * POSTs every body to /api/v2/logs on its own connection so that all of them complete at the same
 * moment: each request is written but its last byte, then the last bytes go out together. Resolves
 * with the reply statuses, in order.
 */
async function arrivingTogether(intake: URL, bodies: string[]): Promise<number[]> {
  const sockets = await Promise.all(
    bodies.map(
      () =>
        new Promise<Socket>((resolve, reject) =>
          connect(Number(intake.port), intake.hostname, function (this: Socket) {
            resolve(this);
          }).once('error', reject),
        ),
    ),
  );
  const replies = sockets.map(
    (socket) =>
      new Promise<number>((resolve, reject) => {
        let head = '';
        socket.on('data', (d: Buffer) => {
          head += d.toString('latin1');
          const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
          if (status) {
            resolve(Number(status[1]));
            socket.destroy();
          }
        });
        socket.once('error', reject);
      }),
  );
  const requests = bodies.map((body) => Buffer.from(`POST /api/v2/logs HTTP/1.1\r\nHost: ${intake.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
  sockets.forEach((socket, i) => {
    socket.write(requests[i]!.subarray(0, -1));
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  sockets.forEach((socket, i) => {
    socket.write(requests[i]!.subarray(-1));
  });
  return Promise.all(replies);
}

const recordsWithTestId = (stack: TestStack, id: string) => logRecords(stack.sinkDir).filter((r) => r.attributes.test_id === id);
/** Waits for the record tagged `id`: exactly one arrives (none, or a duplicate, fails). */
const expectOneRecord = async (stack: TestStack, id: string): Promise<void> => {
  expect(
    await waitFor(
      () => recordsWithTestId(stack, id),
      (r) => r.length === 1,
    ),
  ).toHaveLength(1);
};

describe('sidecar + real collector (open intake)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each<Encoding>(['identity', 'gzip', 'deflate', 'zstd', 'zstd1'])('delivers agent logs sent with Content-Encoding %s', async (encoding) => {
    const id = randomUUID();
    const body = await compress(Buffer.from(JSON.stringify([agentLog(id), agentLog(id, { message: `second ${id}` })])), encoding);
    const res = await post(stack, '/api/v2/logs', body, encoding === 'identity' ? {} : { 'Content-Encoding': encoding });
    expect(res.status).toBe(202);
    const records = await waitFor(
      () => recordsWithTestId(stack, id),
      (r) => r.length >= 2,
    );
    expect(records.map((r) => r.body).sort()).toEqual([`hello ${id}`, `second ${id}`]);
    for (const r of records) {
      expect(r.resource['service.name']).toBe('checkout');
      expect(r.resource['host.name']).toBe('web-1');
      expect(r.resource['deployment.environment.name']).toBe('prod');
      expect(r.record.timeUnixNano).toBe('1700000000123000000');
      expect(r.record.severityText).toBe('warn');
      expect(r.record.severityNumber).toBe(13);
    }
  });

  it('accepts the legacy /v1/input route and a charset parameter on the media type', async () => {
    const id = randomUUID();
    const res = await post(stack, '/v1/input', JSON.stringify([agentLog(id)]), { 'Content-Type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(202);
    await expectOneRecord(stack, id);
  });

  it('answers the agent probes as the reference describes', async () => {
    const before = logRecords(stack.sinkDir).length;
    expect((await post(stack, '/api/v2/logs', '{}')).status).toBe(202);
    const validate = await fetch(`${stack.intakeUrl}/api/v1/validate?api_key=anything`);
    expect(validate.status).toBe(200);
    expect(await validate.json()).toEqual({ valid: true });
    expect((await post(stack, '/intake/', JSON.stringify({ internalHostname: 'h', uuid: 'u', os: 'linux' }))).status).toBe(202);
    expect((await post(stack, '/intake', gzipSync('{"events":{}}'), { 'Content-Encoding': 'gzip' })).status).toBe(202);
    expect((await post(stack, '/api/v1/metadata', JSON.stringify({ agent_metadata: {} }))).status).toBe(202);
    expect((await post(stack, '/v0.7/config', '{}')).status).toBe(404);
    expect((await post(stack, '/telemetry/proxy/api/v2/apmtelemetry', '{"request_type":"app-started"}')).status).toBe(202);
    const info = await fetch(`${stack.intakeUrl}/info`);
    expect(info.status).toBe(200);
    const doc = (await info.json()) as { endpoints: string[]; client_drop_p0s: boolean };
    expect(doc.client_drop_p0s).toBe(false);
    expect(Array.isArray(doc.endpoints)).toBe(true);
    // the logs `{}` probe must not have produced a record
    await new Promise((r) => setTimeout(r, 500));
    expect(logRecords(stack.sinkDir).length).toBe(before);
  });

  it('refuses unknown routes loudly and counts them', async () => {
    const res = await post(stack, '/api/v1/not-a-route', '{}');
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/does not implement POST on this path/);
    expect((await fetch(`${stack.intakeUrl}/nothing-here`)).status).toBe(404);
    const metrics = await (await fetch(`${stack.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/ddbridge_unknown_route_requests_total\{method="POST"\} [1-9]/);
    expect(metrics).toMatch(/ddbridge_unknown_route_requests_total\{method="GET"\} [1-9]/);
    expect(stack.sidecarOutput()).toMatch(/"path":"\/api\/v1\/not-a-route"/);
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const res = await fetch(`${stack.intakeUrl}/api/v2/logs`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers 415 to an unknown Content-Encoding and forwards nothing', async () => {
    const id = randomUUID();
    const res = await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]), { 'Content-Encoding': 'br' });
    expect(res.status).toBe(415);
    expect(await res.text()).toMatch(/br/);
    await new Promise((r) => setTimeout(r, 500));
    expect(recordsWithTestId(stack, id)).toHaveLength(0);
  });

  it('answers 400 with the reason to malformed JSON', async () => {
    const res = await post(stack, '/api/v2/logs', '[{"message": ');
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/not valid JSON/);
  });

  it('counts requests, bytes and exported records in /metrics and reports health', async () => {
    const health = await (await fetch(`${stack.adminUrl}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', intake: { enabled: true } });
    const metrics = await (await fetch(`${stack.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/ddbridge_http_requests_total\{route="logs",status="202"\} [1-9]/);
    expect(metrics).toMatch(/ddbridge_records_exported_total\{signal="logs"\} [1-9]/);
    expect(metrics).toMatch(/ddbridge_http_request_bytes_total\{route="logs"\} [1-9]/);
  });

  it('sends requests that arrive together to the collector in shared exports, every record once', async () => {
    const id = randomUUID();
    const coalesced = async (): Promise<number> => Number(/ddbridge_coalesced_batches_total\{signal="logs"\} (\d+)/.exec(await (await fetch(`${stack.adminUrl}/metrics`)).text())?.[1] ?? 0);
    const before = await coalesced();
    const senders = 20;
    const statuses = await arrivingTogether(
      new URL(stack.intakeUrl),
      Array.from({ length: senders }, (_, i) => JSON.stringify([agentLog(id, { message: `m${i}-a` }), agentLog(id, { message: `m${i}-b` })])),
    );
    expect(statuses).toEqual(Array(senders).fill(202));
    const records = await waitFor(
      () => recordsWithTestId(stack, id),
      (r) => r.length >= senders * 2,
    );
    expect(records.map((r) => r.body).sort()).toEqual(
      Array.from({ length: senders }, (_, i) => [`m${i}-a`, `m${i}-b`])
        .flat()
        .sort(),
    );
    expect(await coalesced()).toBeGreaterThan(before);
  });

  it('reports the process memory in /metrics, read at the scrape', async () => {
    const metrics = await (await fetch(`${stack.adminUrl}/metrics`)).text();
    const value = (series: string): number => Number(new RegExp(`^${series} (\\d+)$`, 'm').exec(metrics)?.[1]);
    const rss = value('process_resident_memory_bytes');
    // a Node process with express and grpc-js loaded is tens of MiB, far under a GiB
    expect(rss).toBeGreaterThan(20 * 1024 * 1024);
    expect(rss).toBeLessThan(1024 * 1024 * 1024);
    expect(value('nodejs_heap_size_bytes\\{state="used"\\}')).toBeLessThanOrEqual(value('nodejs_heap_size_bytes\\{state="total"\\}'));
    expect(value('nodejs_external_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('body limits', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_MAX_BODY_BYTES: String(256 * 1024), DD_BRIDGE_MAX_DECODED_BYTES: String(1024 * 1024) } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 413 to a body over the raw limit', async () => {
    const res = await post(stack, '/api/v2/logs', Buffer.alloc(300 * 1024, 0x20));
    expect(res.status).toBe(413);
  });

  it('answers 413 to a zstd bomb and stays up', async () => {
    const bomb = await zstdCompress(Buffer.alloc(64 * 1024 * 1024, 0x61), 3);
    expect(bomb.length).toBeLessThan(256 * 1024);
    const res = await post(stack, '/api/v2/logs', bomb, { 'Content-Encoding': 'zstd' });
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/exceeds/);
    const id = randomUUID();
    expect((await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]))).status).toBe(202);
    await expectOneRecord(stack, id);
  });
});

describe('auth with OTLP_AUTH_TOKEN (sidecar and collector both guarded)', () => {
  const token = 'test-ingestion-key';
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ authToken: token });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses a missing or wrong key with 403 and forwards nothing', async () => {
    const id = randomUUID();
    expect((await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]))).status).toBe(403);
    expect((await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]), { 'DD-API-KEY': 'wrong' })).status).toBe(403);
    await new Promise((r) => setTimeout(r, 500));
    expect(recordsWithTestId(stack, id)).toHaveLength(0);
  });

  it('accepts the right key in the header, the query or the /v1/input path, and forwards with the token', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    expect((await post(stack, '/api/v2/logs', JSON.stringify([agentLog(ids[0]!)]), { 'DD-API-KEY': token })).status).toBe(202);
    expect((await post(stack, `/api/v2/logs?dd-api-key=${token}`, JSON.stringify([agentLog(ids[1]!)]))).status).toBe(202);
    expect((await post(stack, `/v1/input/${token}`, JSON.stringify([agentLog(ids[2]!)]))).status).toBe(202);
    for (const id of ids) await expectOneRecord(stack, id);
  });

  it('answers /api/v1/validate with 200 or 403', async () => {
    expect((await fetch(`${stack.intakeUrl}/api/v1/validate?api_key=${token}`)).status).toBe(200);
    const bad = await fetch(`${stack.intakeUrl}/api/v1/validate?api_key=nope`);
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({ errors: ['Forbidden'] });
  });

  it('never writes a key into its logs, not even a wrong one in the /v1/input/<key> path', async () => {
    expect((await post(stack, '/V1/INPUT/wrong-path-key-1234', JSON.stringify([agentLog(randomUUID())]))).status).toBe(403);
    // refusals are logged once per 10 s, and the 403s above came first: the first unknown route shows the redaction
    expect((await post(stack, '//v1/input/wrong-path-key-5678/extra', JSON.stringify([agentLog(randomUUID())]))).status).toBe(400);
    expect(stack.sidecarOutput()).toContain('"path":"/v1/input/<redacted>"');
    expect(stack.sidecarOutput()).not.toContain('wrong-path-key-1234');
    expect(stack.sidecarOutput()).not.toContain('wrong-path-key-5678');
    expect(stack.sidecarOutput()).not.toContain(token);
    expect(stack.sidecarOutput()).not.toContain('"wrong"');
  });
});

describe('collector outage', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 503 with Retry-After while the collector is down, and loses nothing once the sender retries', async () => {
    await stack.stopCollector();
    const ids = Array.from({ length: 5 }, () => randomUUID());
    for (const id of ids) {
      const res = await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
    }
    await stack.startCollector();
    // a Datadog sender retries what got 503; do what it does until each is accepted
    for (const id of ids) {
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 202; attempt++) {
        status = (await post(stack, '/api/v2/logs', JSON.stringify([agentLog(id)]))).status;
        if (status !== 202) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).toBe(202);
    }
    for (const id of ids) await expectOneRecord(stack, id);
  });
});

describe('toggle', () => {
  it('off by default: intake port not bound, health says disabled, process stays up with one hint', async () => {
    const stack = await startStack({ collector: false, sidecarEnv: { ENABLE_VENDOR_RECEIVER: '' } });
    try {
      const health = await (await fetch(`${stack.adminUrl}/health`)).json();
      expect(health).toMatchObject({ status: 'disabled', intake: { enabled: false } });
      await expect(fetch(`${stack.intakeUrl}/info`)).rejects.toThrow();
      expect(stack.sidecarOutput()).toMatch(/ENABLE_VENDOR_RECEIVER=true/);
      await new Promise((r) => setTimeout(r, 300));
      expect((await fetch(`${stack.adminUrl}/health`)).status).toBe(200);
    } finally {
      await stack.stop();
    }
  });

  it('ENABLE_DATADOG_RECEIVER=true (ClickStack name) turns it on', async () => {
    const stack = await startStack({ collector: false, sidecarEnv: { ENABLE_VENDOR_RECEIVER: '', ENABLE_DATADOG_RECEIVER: 'true' } });
    try {
      expect((await fetch(`${stack.intakeUrl}/info`)).status).toBe(200);
    } finally {
      await stack.stop();
    }
  });
});
