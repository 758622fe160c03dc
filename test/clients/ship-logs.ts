/**
 * Ships a log file as the Datadog logs agent ships a tailed file: one agent-json entry per line,
 * zstd-compressed, POSTed to /api/v2/logs with the agent's headers. Tracers do not send logs, so
 * this is how a captured app's log files reach a bridge (or the capture agent). The lines are the
 * client's, byte for byte; the envelope around them is ours, built from the fields the logs agent
 * sets (the same as test/e2e/logs-clients.test.ts and test/fixtures/logs/chain/agent-json-plain.json):
 * `status` is always `info` and `timestamp` the time the line was read, as for any file the agent
 * tails without processing rules.
 *
 * Run: node -r ./tools/register.js test/clients/ship-logs.ts --url URL --file PATH --service S
 *        --source SRC [--hostname H] [--tags k:v,...]
 */
import { compress as zstdCompress } from '@mongodb-js/zstd';
import { readFileSync } from 'node:fs';

/** What the logs agent sets on every line it tails. */
export interface LogsAgentEnvelope {
  hostname: string;
  service: string;
  ddsource: string;
  ddtags: string;
}

export interface AgentJsonEntry extends LogsAgentEnvelope {
  message: string;
  status: 'info';
  timestamp: number;
}

const AGENT_VERSION = '7.77.0';

/** A file's lines as the agent reads them: split on newlines, empty lines skipped. */
export const fileLines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

export const agentJsonEntries = (lines: readonly string[], envelope: LogsAgentEnvelope, readAtMs: number): AgentJsonEntry[] => lines.map((message) => ({ message, status: 'info', timestamp: readAtMs, ...envelope }));

export interface AgentJsonRequest {
  body: Buffer;
  headers: Record<string, string>;
}

/** The zstd body and headers of one logs-agent batch (the API key header only when one is given). */
export async function agentJsonRequest(entries: readonly AgentJsonEntry[], apiKey?: string): Promise<AgentJsonRequest> {
  const now = String(Date.now());
  return {
    body: await zstdCompress(Buffer.from(JSON.stringify(entries)), 1),
    headers: {
      'Content-Type': 'application/json',
      'Content-Encoding': 'zstd',
      'DD-PROTOCOL': 'agent-json',
      'DD-EVP-ORIGIN': 'agent',
      'DD-EVP-ORIGIN-VERSION': AGENT_VERSION,
      'User-Agent': `datadog-agent/${AGENT_VERSION}`,
      'dd-message-timestamp': String(entries[0]?.timestamp ?? now),
      'dd-current-timestamp': now,
      ...(apiKey ? { 'DD-API-KEY': apiKey } : {}),
    },
  };
}

export interface ShipOptions {
  url: string;
  file: string;
  envelope: LogsAgentEnvelope;
  apiKey?: string;
}

/** Sends the whole file as one batch; resolves with the reply's status. */
export async function shipLogFile(o: ShipOptions): Promise<number> {
  const entries = agentJsonEntries(fileLines(readFileSync(o.file, 'utf8')), o.envelope, Date.now());
  const { body, headers } = await agentJsonRequest(entries, o.apiKey);
  const res = await fetch(`${o.url}/api/v2/logs`, { method: 'POST', body, headers });
  await res.arrayBuffer();
  return res.status;
}

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

if (require.main === module) {
  const [url, file, service, ddsource] = ['--url', '--file', '--service', '--source'].map(argValue);
  if (!url || !file || !service || !ddsource) {
    process.stderr.write('usage: ship-logs.ts --url URL --file PATH --service S --source SRC [--hostname H] [--tags k:v,...]\n');
    process.exit(2);
  }
  const envelope = { hostname: argValue('--hostname') ?? 'capture-host', service, ddsource, ddtags: argValue('--tags') ?? '' };
  shipLogFile({ url, file, envelope, apiKey: process.env.DD_API_KEY }).then((status) => {
    process.stdout.write(`${file}: ${status}\n`);
    process.exitCode = status >= 200 && status < 300 ? 0 : 1;
  });
}
