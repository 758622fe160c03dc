/**
 * The exporter against a stand-in gRPC server (unit level: the real collector is exercised in
 * test/e2e). The server answers with scripted statuses and partial successes.
 */
import * as grpc from '@grpc/grpc-js';
import { fakeCollector } from '../helpers/fake-grpc';
import { loadConfig, parseArgs, type Config } from '../../src/config';
import type { ExportOutcome } from '../../src/core/export/exporter';
import { OtlpGrpcExporter, parseOtlpEndpoint } from '../../src/core/export/otlp-grpc';
import { createLogger } from '../../src/core/observability/log';
import { BridgeMetrics } from '../../src/core/observability/metrics';
import { encodeExportRequests } from '../../src/core/otlp/encode';
import type { ResourceLogs } from '../../src/core/otlp/model';
import { ExportRefusedError } from '../../src/core/errors';
import { replyTo } from '../helpers/error-reply';
import { lookupType } from '../helpers/otlp-proto';

const logs = (n: number, text = 'x'): ResourceLogs[] => [
  {
    resource: { attributes: [{ key: 'service.name', value: { string: 'svc' } }] },
    scopeLogs: [{ scope: { name: 's' }, logRecords: Array.from({ length: n }, (_, i) => ({ timeUnixNano: 1n, observedTimeUnixNano: 2n, severityNumber: 9, severityText: 'info', body: { string: `${text}${i}` }, attributes: [] })) }],
  },
];

/** Encoded as the routes do (limit as --export-max-bytes), then exported. */
const exportLogs = (exporter: OtlpGrpcExporter, resources: ResourceLogs[], maxBytes = 4 * 1024 * 1024): Promise<ExportOutcome> => exporter.export(encodeExportRequests({ signal: 'logs', resources }, maxBytes));
const configFor = (port: number, extra: string[] = []): Config => loadConfig(parseArgs(['--otlp-endpoint', `http://127.0.0.1:${port}`, '--export-retry-max-elapsed-ms', '1500', ...extra]), {});
const silent = createLogger('error', {}, () => undefined);
const partialSuccess = (rejected: number, message: string): Buffer => {
  const type = lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
  return Buffer.from(type.encode(type.fromObject({ partialSuccess: { rejectedLogRecords: rejected, errorMessage: message } })).finish());
};

describe('OtlpGrpcExporter', () => {
  it('sends pre-encoded requests with the raw ClickStack token and counts what was accepted', async () => {
    const fake = await fakeCollector(() => ({}));
    const metrics = new BridgeMetrics();
    const exporter = new OtlpGrpcExporter(configFor(fake.port, ['--otlp-auth-token', 'secret-token']), metrics, silent);
    try {
      expect(await exportLogs(exporter, logs(3))).toEqual({ accepted: 3, rejected: 0 });
      expect(fake.calls).toHaveLength(1);
      expect(fake.calls[0]!.md.get('authorization')).toEqual(['secret-token']);
      const decoded = lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest').decode(fake.calls[0]!.body) as unknown as { resourceLogs: { scopeLogs: { logRecords: unknown[] }[] }[] };
      expect(decoded.resourceLogs[0]!.scopeLogs[0]!.logRecords).toHaveLength(3);
      expect(metrics.recordsOut.get({ signal: 'logs' })).toBe(3);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('prefers an explicit authorization header over OTLP_AUTH_TOKEN', async () => {
    const fake = await fakeCollector(() => ({}));
    const exporter = new OtlpGrpcExporter(configFor(fake.port, ['--otlp-headers', 'authorization=Bearer%20x', '--otlp-auth-token', 'token']), new BridgeMetrics(), silent);
    try {
      await exportLogs(exporter, logs(1));
      expect(fake.calls[0]!.md.get('authorization')).toEqual(['Bearer x']);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('splits below the message limit and sends the parts in order', async () => {
    const fake = await fakeCollector(() => ({}));
    const exporter = new OtlpGrpcExporter(configFor(fake.port, ['--export-max-bytes', '2000']), new BridgeMetrics(), silent);
    try {
      expect(await exportLogs(exporter, logs(200, 'y'.repeat(50)), 2000)).toEqual({ accepted: 200, rejected: 0 });
      expect(fake.calls.length).toBeGreaterThan(5);
      for (const c of fake.calls) expect(c.body.length).toBeLessThanOrEqual(2000);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('retries UNAVAILABLE and succeeds when the collector recovers', async () => {
    let n = 0;
    const fake = await fakeCollector(() => (++n <= 2 ? { error: { code: grpc.status.UNAVAILABLE, details: 'busy' } } : {}));
    const metrics = new BridgeMetrics();
    const exporter = new OtlpGrpcExporter(configFor(fake.port), metrics, silent);
    try {
      expect(await exportLogs(exporter, logs(1))).toEqual({ accepted: 1, rejected: 0 });
      expect(n).toBe(3);
      expect(metrics.exportFailures.get({ signal: 'logs', code: 'UNAVAILABLE' })).toBe(2);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('gives up with 503 + Retry-After when the collector stays unavailable', async () => {
    const fake = await fakeCollector(() => ({ error: { code: grpc.status.UNAVAILABLE } }));
    const exporter = new OtlpGrpcExporter(configFor(fake.port), new BridgeMetrics(), silent);
    try {
      const err = await exportLogs(exporter, logs(1)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExportRefusedError);
      expect(replyTo(err).status).toBe(503);
      expect(replyTo(err).headers['Retry-After']).toBeDefined();
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('answers 400 without retrying when the collector calls the data invalid', async () => {
    const fake = await fakeCollector(() => ({ error: { code: grpc.status.INVALID_ARGUMENT, details: 'bad field' } }));
    const exporter = new OtlpGrpcExporter(configFor(fake.port), new BridgeMetrics(), silent);
    try {
      const err = await exportLogs(exporter, logs(1)).catch((e: unknown) => e);
      expect(replyTo(err).status).toBe(400);
      expect(replyTo(err).text).toMatch(/bad field/);
      expect(fake.calls).toHaveLength(1);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('counts and reports a partial success without failing the request', async () => {
    const fake = await fakeCollector(() => ({ response: partialSuccess(2, 'dropped two') }));
    const metrics = new BridgeMetrics();
    const lines: string[] = [];
    const exporter = new OtlpGrpcExporter(
      configFor(fake.port),
      metrics,
      createLogger('warn', {}, (l) => lines.push(l)),
    );
    try {
      expect(await exportLogs(exporter, logs(5))).toEqual({ accepted: 3, rejected: 2 });
      expect(metrics.recordsRejected.get({ signal: 'logs' })).toBe(2);
      expect(lines.join('\n')).toMatch(/dropped two/);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('never makes a retry with a deadline below a second, though a busy event loop overran the waits before it', async () => {
    // each failure keeps the event loop busy for 400 ms (the fake collector runs in this process),
    // so the waits between retries end late and eat into the time left
    const busyFor = (ms: number): void => {
      for (const until = Date.now() + ms; Date.now() < until; );
    };
    const fake = await fakeCollector(() => {
      busyFor(400);
      return { error: { code: grpc.status.UNAVAILABLE, details: 'busy' } };
    });
    const exporter = new OtlpGrpcExporter(configFor(fake.port, ['--export-retry-max-elapsed-ms', '3000']), new BridgeMetrics(), silent);
    try {
      expect(replyTo(await exportLogs(exporter, logs(1)).catch((e: unknown) => e)).status).toBe(503);
      const deadlines = fake.calls.map((c) => c.deadlineMs);
      expect(deadlines.length).toBeGreaterThan(1);
      expect(deadlines[0]).toBeGreaterThan(2_500);
      // the deadline arrives a little spent (it is counted from when the call started)
      for (const ms of deadlines) expect(ms).toBeGreaterThan(900);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('sendOnce: one call with the whole --otlp-timeout-ms deadline, no retry', async () => {
    const fake = await fakeCollector(() => ({ error: { code: grpc.status.UNAVAILABLE } }));
    const exporter = new OtlpGrpcExporter(configFor(fake.port, ['--otlp-timeout-ms', '7000']), new BridgeMetrics(), silent);
    try {
      const [request] = encodeExportRequests({ signal: 'logs', resources: logs(1) }, 4 * 1024 * 1024);
      expect(replyTo(await exporter.sendOnce(request!).catch((e: unknown) => e)).status).toBe(503);
      expect(fake.calls.map((c) => Math.round(c.deadlineMs / 1000))).toEqual([7]);
    } finally {
      await exporter.close();
      fake.stop();
    }
  });

  it('answers 503 when nothing listens at the endpoint', async () => {
    const exporter = new OtlpGrpcExporter(configFor(1), new BridgeMetrics(), silent);
    try {
      expect(replyTo(await exportLogs(exporter, logs(1)).catch((e: unknown) => e)).status).toBe(503);
    } finally {
      await exporter.close();
    }
  });
});

describe('parseOtlpEndpoint', () => {
  it('connects to host:port whatever credentials the URL carries, and echoes no malformed endpoint', () => {
    expect(parseOtlpEndpoint('http://user:s3cret@collector:4317', undefined)).toEqual({ address: 'collector:4317', tls: false });
    expect(parseOtlpEndpoint('https://token@collector', undefined)).toEqual({ address: 'collector:443', tls: true });
    expect(() => parseOtlpEndpoint('ftp://user:s3cret@collector:4317/x', undefined)).toThrow(/^(?!.*s3cret).*host:port/);
  });
});
