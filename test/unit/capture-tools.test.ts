/**
 * The capture tools that make test/fixtures/captured/ (test/clients/): the capture agent must keep a
 * client's bytes exactly and never a key, answer tracers as the agent does, and ship-logs must wrap
 * a file's lines unchanged in the logs agent's envelope.
 */
import { decompress as zstdDecompress } from '@mongodb-js/zstd';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CaptureAgent, type CapturedRequest, startCaptureAgent } from '../clients/capture-agent';
import { fileLines, shipLogFile } from '../clients/ship-logs';

const KEY = 'f00dfeedf00dfeedf00dfeedf00dfeed';

describe('capture agent', () => {
  let dir: string;
  let agent: CaptureAgent;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capture-agent-'));
    agent = await startCaptureAgent({ dir, skip: /^\/telemetry\// });
  });
  afterEach(() => agent.close());

  const index = (): CapturedRequest[] => JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8')) as CapturedRequest[];

  it('keeps the body byte for byte and no key in any file', async () => {
    const body = Buffer.from([0x93, 0x00, 0xff, 0x0a, 0x7b]);
    const res = await fetch(`${agent.url}/v1/input/${KEY}?api_key=${KEY}&x=1`, {
      method: 'POST',
      body,
      headers: { 'DD-API-KEY': KEY, 'X-Api-Key': KEY, Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/msgpack', 'Content-Encoding': 'zstd', 'X-Kept': 'yes' },
    });
    expect(res.status).toBe(202);
    const [r] = index();
    expect(r).toMatchObject({ method: 'POST', path: '/v1/input/<redacted>?api_key=<redacted>&x=1', contentType: 'application/msgpack', contentEncoding: 'zstd', bytes: 5, body: '001-v1_input_redacted.msgpack.zstd' });
    expect(r?.headers['x-kept']).toBe('yes');
    expect(readFileSync(join(dir, r?.body ?? ''))).toEqual(body);
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes(KEY)).toBe(false);
  });

  it('answers /info with the V1 trace route and telemetry proxy, and traces with rate_by_service', async () => {
    const info = await fetch(`${agent.url}/info`);
    expect(((await info.json()) as { endpoints: string[] }).endpoints).toEqual(expect.arrayContaining(['/v1.0/traces', '/v0.4/traces', '/telemetry/proxy/']));
    const traces = await fetch(`${agent.url}/v0.4/traces`, { method: 'PUT', body: Buffer.from([0x90]), headers: { 'Content-Type': 'application/msgpack' } });
    expect(traces.status).toBe(200);
    expect(await traces.json()).toEqual({ rate_by_service: {} });
    expect(traces.headers.get('datadog-agent-state')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists a skipped request without keeping its body', async () => {
    await fetch(`${agent.url}/telemetry/proxy/api/v2/apmtelemetry`, { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
    expect(index()).toEqual([expect.objectContaining({ path: '/telemetry/proxy/api/v2/apmtelemetry', skipped: true, bytes: 7 })]);
    expect(index()[0]?.body).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['requests.json']);
  });
});

describe('ship-logs', () => {
  it('skips empty lines and keeps every other one as written', () => {
    expect(fileLines('a  \n\n{"b":1}\r\nc\n')).toEqual(['a  ', '{"b":1}\r', 'c']);
  });

  it("sends the file's lines unchanged in the logs agent's zstd agent-json envelope", async () => {
    const received: { req: IncomingMessage; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          received.push({ req, body: Buffer.concat(chunks) });
          res.writeHead(202).end('{}');
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const file = join(mkdtempSync(join(tmpdir(), 'ship-logs-')), 'app.log');
    const lines = ['2026-01-01 00:00:00,001 ERROR [shop] [dd.trace_id=1 dd.span_id=2] - boom', '{"level":"warn","msg":"x"}'];
    writeFileSync(file, `${lines.join('\n')}\n`);
    try {
      const envelope = { hostname: 'h', service: 's', ddsource: 'python', ddtags: 'env:e' };
      expect(await shipLogFile({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, file, envelope })).toBe(202);
      const [{ req, body }] = received as [{ req: IncomingMessage; body: Buffer }];
      expect(req.url).toBe('/api/v2/logs');
      expect(req.headers).toMatchObject({ 'content-type': 'application/json', 'content-encoding': 'zstd', 'dd-protocol': 'agent-json', 'dd-evp-origin': 'agent' });
      expect(req.headers['dd-api-key']).toBeUndefined();
      const entries = JSON.parse((await zstdDecompress(body)).toString()) as Record<string, unknown>[];
      expect(entries.map((e) => e.message)).toEqual(lines);
      expect(entries[0]).toEqual({ message: lines[0], status: 'info', timestamp: expect.any(Number), ...envelope });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
