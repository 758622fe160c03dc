/**
 * Logs from real clients, end to end through the real collector:
 * (a) @datadog/datadog-api-client submitLog, plain and gzip;
 * (b) pino and winston lines written under dd-trace log injection, shipped as the logs agent
 *     ships them (agent-json array, zstd, the agent's headers);
 * (c) a 1000-line agent batch.
 */
import { client, v2 } from '@datadog/datadog-api-client';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { shipAsAgent as ship } from '../helpers/agent-logs';
import { logRecords, waitFor, type SinkLogRecord } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

const KEY = 'logs-e2e-key';

function apiClient(stack: TestStack): v2.LogsApi {
  const configuration = client.createConfiguration({
    baseServer: new client.ServerConfiguration(stack.intakeUrl, {}),
    authMethods: { apiKeyAuth: KEY },
    enableRetry: false,
  });
  return new v2.LogsApi(configuration);
}

interface InjectedRun {
  ids: { traceId128: string; traceIdLow: string; spanId: string };
  lines: string[];
}

function runInjectedApp(env: Record<string, string> = {}): InjectedRun {
  const out = execFileSync(process.execPath, [join(__dirname, '..', 'fixtures', 'logs', 'app', 'injected-logs.js')], {
    env: { PATH: process.env.PATH, DD_TRACE_TELEMETRY_ENABLED: 'false', DD_REMOTE_CONFIGURATION_ENABLED: 'false', DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as InjectedRun;
}

const shipAsAgent = (stack: TestStack, lines: string[], tags: string): Promise<Response> => ship(stack.intakeUrl, KEY, lines, tags);

const byBody = (records: SinkLogRecord[], body: string): SinkLogRecord => {
  const found = records.find((r) => r.body === body);
  if (!found) throw new Error(`no record with body "${body}" among ${records.map((r) => r.body).join(' | ')}`);
  return found;
};

describe('logs from real clients', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ authToken: KEY });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    ['plain', undefined],
    ['gzip', 'gzip'],
  ] as const)('@datadog/datadog-api-client submitLog (%s)', async (_name, encoding) => {
    const id = randomUUID();
    const body: v2.HTTPLogItem[] = [{ message: `api log ${id}`, ddsource: 'api-client', hostname: 'api-host', service: 'billing', ddtags: `env:qa,run:${id}`, additionalProperties: { status: 'error', usr: { id: 7 } } }];
    await apiClient(stack).submitLog({ body, ...(encoding ? { contentEncoding: encoding } : {}), ddtags: 'team:payments' });
    const [record] = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.run === id),
      (r) => r.length === 1,
    );
    expect(record).toBeDefined();
    expect(record!.body).toBe(`api log ${id}`);
    expect(record!.resource).toMatchObject({ 'service.name': 'billing', 'host.name': 'api-host', 'deployment.environment.name': 'qa' });
    expect(record!.record.severityNumber).toBe(17);
    expect(record!.record.severityText).toBe('error');
    expect(record!.attributes).toMatchObject({ team: 'payments', 'usr.id': '7', 'datadog.ddsource': 'api-client' });
    // no timestamp sent: the receive time, not the epoch
    expect(BigInt(record!.record.timeUnixNano)).toBeGreaterThan(BigInt(Date.now() - 60_000) * 1_000_000n);
  });

  it('pino and winston under dd-trace log injection, shipped as agent-json + zstd (128-bit log ids)', async () => {
    const run = runInjectedApp();
    const tag = randomUUID();
    const res = await shipAsAgent(stack, run.lines, `env:e2e,filename:/var/log/app.log,run:${tag}`);
    expect(res.status).toBe(202);
    const records = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.run === tag),
      (r) => r.length === 4,
    );
    expect(records).toHaveLength(4);
    const spanIdHex = BigInt(run.ids.spanId).toString(16).padStart(16, '0');
    const expectations: [string, number, string][] = [
      ['pino order placed', 9, 'info'],
      ['pino payment failed', 17, 'error'],
      ['winston stock low', 13, 'warn'],
      ['winston refund failed', 17, 'error'],
    ];
    for (const [body, number, text] of expectations) {
      const r = byBody(records, body);
      expect(r.record.severityNumber).toBe(number);
      expect(r.record.severityText).toBe(text);
      expect(r.record.traceId).toBe(run.ids.traceId128);
      expect(r.record.spanId).toBe(spanIdHex);
      // dd.service/env/version from the injection win over the agent's envelope
      expect(r.resource).toMatchObject({ 'service.name': 'shop-api', 'deployment.environment.name': 'e2e', 'service.version': '1.2.3' });
      expect(r.attributes['dd.trace_id']).toBeUndefined();
    }
    const pinoInfo = byBody(records, 'pino order placed');
    expect(pinoInfo.attributes).toMatchObject({ 'order.id': 'o-1', 'order.total': 12.5, filename: '/var/log/app.log' });
    // pino's own `time` (ms), not the agent's read time
    const line = JSON.parse(run.lines[0] as string) as { time: number };
    expect(pinoInfo.record.timeUnixNano).toBe(`${line.time}000000`);
    const pinoError = byBody(records, 'pino payment failed');
    expect(pinoError.attributes['exception.message']).toBe('card declined');
    expect(String(pinoError.attributes['exception.stacktrace'])).toMatch(/^Error: card declined/);
    const winstonWarn = byBody(records, 'winston stock low');
    expect(winstonWarn.attributes).toMatchObject({ sku: 'A-1', remaining: '2' });
    const winstonLine = JSON.parse(run.lines[2] as string) as { timestamp: string };
    expect(Number(BigInt(winstonWarn.record.timeUnixNano) / 1_000_000n)).toBe(Date.parse(winstonLine.timestamp));
  });

  it('with 128-bit log ids off, a decimal trace_id becomes the low half (no span seen yet to widen it)', async () => {
    const run = runInjectedApp({ DD_TRACE_128_BIT_TRACEID_LOGGING_ENABLED: 'false' });
    const tag = randomUUID();
    expect((await shipAsAgent(stack, run.lines.slice(0, 1), `run:${tag}`)).status).toBe(202);
    const [record] = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.run === tag),
      (r) => r.length === 1,
    );
    expect(record!.record.traceId).toBe('0000000000000000' + BigInt(run.ids.traceIdLow).toString(16).padStart(16, '0'));
  });

  it('a 1000-line agent batch arrives whole, in order, in one resource', async () => {
    const tag = randomUUID();
    const lines = Array.from({ length: 1000 }, (_, i) => (i % 2 ? JSON.stringify({ level: 'debug', msg: `json line ${i}`, seq: i }) : `plain line ${i}`));
    const res = await shipAsAgent(stack, lines, `env:batch,run:${tag}`);
    expect(res.status).toBe(202);
    const records = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.run === tag),
      (r) => r.length >= 1000,
    );
    expect(records).toHaveLength(1000);
    expect(records.map((r) => r.body)).toEqual(lines.map((l, i) => (i % 2 ? `json line ${i}` : l)));
    expect(new Set(records.map((r) => JSON.stringify(r.resource))).size).toBe(1);
    expect(records.filter((r) => r.record.severityText === 'debug')).toHaveLength(500);
  });
});
