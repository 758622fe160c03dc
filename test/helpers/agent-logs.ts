/** What the Datadog logs agent does with tailed lines: agent-json entries, zstd, its headers. */
import { compress as zstdCompress } from '@mongodb-js/zstd';

/** One agent-json entry: what the agent sends for one log line. */
export interface AgentLogEntry {
  message: string;
  status: string;
  /** ms */
  timestamp: number;
  hostname: string;
  service: string;
  ddsource: string;
  ddtags: string;
}

/** Entries as the logs agent posts them: one zstd-compressed agent-json array. */
export async function shipEntriesAsAgent(intakeUrl: string, apiKey: string, entries: readonly AgentLogEntry[]): Promise<Response> {
  const now = Date.now();
  return fetch(`${intakeUrl}/api/v2/logs`, {
    method: 'POST',
    body: await zstdCompress(Buffer.from(JSON.stringify(entries)), 1),
    headers: {
      'DD-API-KEY': apiKey,
      'Content-Type': 'application/json',
      'Content-Encoding': 'zstd',
      'DD-PROTOCOL': 'agent-json',
      'DD-EVP-ORIGIN': 'agent',
      'DD-EVP-ORIGIN-VERSION': '7.70.0',
      'User-Agent': 'datadog-agent/7.70.0',
      'dd-message-timestamp': String(now),
    },
  });
}

export function shipAsAgent(intakeUrl: string, apiKey: string, lines: string[], tags: string, service = 'shop-api', source = 'nodejs'): Promise<Response> {
  const now = Date.now();
  return shipEntriesAsAgent(
    intakeUrl,
    apiKey,
    lines.map((message) => ({ message, status: 'info', timestamp: now, hostname: 'agent-host', service, ddsource: source, ddtags: tags })),
  );
}
