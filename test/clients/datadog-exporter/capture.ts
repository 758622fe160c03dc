/**
 * Captures the collector's datadog exporter (in our own collector build, collector/builder.yaml)
 * into test/fixtures/captured/datadog-exporter-<version>/: starts the capture agent, runs the
 * collector with collector.yaml (every Datadog endpoint at the agent), posts the known OTLP input
 * (otlp-input.ts) over OTLP/HTTP JSON, waits until traces, logs, metrics and host metadata have
 * arrived, then stops the collector (which flushes what it holds) and writes the input files
 * beside the captured bytes.
 *
 * Run: DD_BRIDGE_COLLECTOR_CACHE=... node -r ./tools/register.js test/clients/datadog-exporter/capture.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectorBinaryPath, DEFAULT_MANIFEST, REPO_ROOT } from '../../../tools/src/collector/build';
import { freePort } from '../../helpers/ports';
import { type CaptureAgent, startCaptureAgent } from '../capture-agent';
import { logsInput, metricsInput, tracesInput } from './otlp-input';

/** The exporter's version as the manifest pins it (one module line names it). */
const exporterVersion = (): string => {
  const line = readFileSync(DEFAULT_MANIFEST, 'utf8')
    .split('\n')
    .find((l) => l.includes('exporter/datadogexporter'));
  const version = line?.trim().split(/\s+/).pop();
  if (!version) throw new Error(`${DEFAULT_MANIFEST} names no datadogexporter module`);
  return version.replace(/^v/, '');
};

/** The routes each kind of payload arrives on; the capture waits for one of each. */
const EXPECTED: Record<string, RegExp> = {
  traces: /^\/api\/v0\.2\/traces/,
  logs: /^\/api\/v2\/logs/,
  metrics: /^\/api\/v[12]\/series/,
  'host metadata': /^\/intake\/?$/,
};

const missing = (agent: CaptureAgent): string[] => Object.entries(EXPECTED).flatMap(([what, path]) => (agent.requests.some((r) => path.test(r.path)) ? [] : [what]));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

const post = async (url: string, body: unknown): Promise<boolean> => {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false; // the collector is not listening yet
  }
};

function startCollector(agentUrl: string, otlpPort: number, logFile: string): ChildProcess {
  const binary = collectorBinaryPath();
  if (!existsSync(binary)) throw new Error(`no collector at ${binary}: run npm run collector:build (with DD_BRIDGE_COLLECTOR_CACHE set)`);
  const child = spawn(binary, ['--config', join(__dirname, 'collector.yaml')], { env: { PATH: process.env.PATH, CAPTURE_URL: agentUrl, OTLP_HTTP_PORT: String(otlpPort) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c));
  child.stderr?.on('data', (c: Buffer) => output.push(c));
  child.on('exit', () => writeFileSync(logFile, Buffer.concat(output)));
  return child;
}

const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

async function main(): Promise<void> {
  const out = join(REPO_ROOT, 'test', 'fixtures', 'captured', `datadog-exporter-${exporterVersion()}`);
  // a re-capture replaces everything but the hand-written README.md
  if (existsSync(out)) for (const file of readdirSync(out)) if (file !== 'README.md') rmSync(join(out, file), { recursive: true });
  const agent = await startCaptureAgent({ dir: out });
  const otlpPort = await freePort();
  const logFile = join('/tmp', `dd-otlp-bridge-capture-collector-${process.pid}.log`);
  const collector = startCollector(agent.url, otlpPort, logFile);
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const inputs = { traces: tracesInput(startNs), logs: logsInput(startNs), metrics: metricsInput(startNs) };
  try {
    for (const [signal, body] of Object.entries(inputs)) {
      if (!(await until(() => post(`http://127.0.0.1:${otlpPort}/v1/${signal}`, body), 30_000))) throw new Error(`the collector did not accept /v1/${signal} (log: ${logFile})`);
      writeFileSync(join(out, `otlp-${signal}.json`), `${JSON.stringify(body, null, 2)}\n`);
    }
    await until(() => missing(agent).length === 0, 60_000);
  } finally {
    await stopped(collector);
    await agent.close();
  }
  const notSent = missing(agent);
  process.stdout.write(`${agent.requests.length} requests captured in ${out}${notSent.length ? `; never sent: ${notSent.join(', ')}` : ''} (collector log: ${logFile})\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
