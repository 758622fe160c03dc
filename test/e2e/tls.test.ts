/**
 * OTLP over TLS to a real collector: the sidecar with OTEL_EXPORTER_OTLP_ENDPOINT=https://… and
 * OTEL_EXPORTER_OTLP_CERTIFICATE delivers; without the CA it refuses the collector's certificate,
 * so senders get 503 (retry), never a 2xx for undelivered data. With mutual TLS it delivers when
 * given its client certificate (OTEL_EXPORTER_OTLP_CLIENT_KEY/CERTIFICATE) and gets 503 without.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logRecords, waitFor } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

const dir = mkdtempSync(join(tmpdir(), 'dd-bridge-tls-'));
const file = (name: string): string => join(dir, name);
const openssl = (...args: string[]): void => {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
};

function makeCertificates(): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=dd-otlp-bridge test CA');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
  writeFileSync(file('tls.yaml'), `receivers:\n  otlp:\n    protocols:\n      grpc:\n        tls:\n          cert_file: ${file('server.pem')}\n          key_file: ${file('server.key')}\n`);
  // mutual TLS: the collector also asks for a client certificate signed by the same CA
  openssl('req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=dd-otlp-bridge');
  openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '1');
  writeFileSync(file('mtls.yaml'), `receivers:\n  otlp:\n    protocols:\n      grpc:\n        tls:\n          cert_file: ${file('server.pem')}\n          key_file: ${file('server.key')}\n          client_ca_file: ${file('ca.pem')}\n`);
}

const post = (stack: TestStack, message: string): Promise<Response> => fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message, ddtags: 'run:tls' }]), headers: { 'Content-Type': 'application/json' } });

/** A sidecar exporting over TLS to a collector started with `collectorConfig`, with this TLS environment. */
async function withTlsStack(collectorConfig: string, sidecarEnv: Record<string, string>, test: (stack: TestStack) => Promise<void>): Promise<void> {
  const stack = await startStack({ collectorConfigs: [file(collectorConfig)], otlpEndpoint: 'https://localhost:{port}', sidecarEnv });
  try {
    await test(stack);
  } finally {
    await stack.stop();
  }
}

async function expectDelivered(stack: TestStack, message: string): Promise<void> {
  expect((await post(stack, message)).status).toBe(202);
  const records = await waitFor(
    () => logRecords(stack.sinkDir).filter((r) => r.body === message),
    (r) => r.length === 1,
  );
  expect(records).toHaveLength(1);
}

async function expectRefused(stack: TestStack, message: string): Promise<void> {
  expect((await post(stack, message)).status).toBe(503);
  await new Promise((r) => setTimeout(r, 300));
  expect(logRecords(stack.sinkDir).filter((r) => r.body === message)).toHaveLength(0);
}

const CA = { OTEL_EXPORTER_OTLP_CERTIFICATE: file('ca.pem') };

describe('OTLP/gRPC over TLS', () => {
  beforeAll(makeCertificates);

  it('delivers to a TLS collector when the CA is configured', () => withTlsStack('tls.yaml', CA, (stack) => expectDelivered(stack, 'over tls')));

  it('refuses an untrusted collector certificate: 503, nothing delivered', () => withTlsStack('tls.yaml', {}, (stack) => expectRefused(stack, 'untrusted')));

  it('mutual TLS: delivers with the client certificate, 503 and nothing delivered without it', async () => {
    const clientCertificate = { ...CA, OTEL_EXPORTER_OTLP_CLIENT_KEY: file('client.key'), OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: file('client.pem') };
    await withTlsStack('mtls.yaml', clientCertificate, (stack) => expectDelivered(stack, 'over mtls'));
    await withTlsStack('mtls.yaml', CA, (stack) => expectRefused(stack, 'no client cert'));
  });
});
