/** What the Datadog logs agent does with tailed lines: agent-json entries, zstd, its headers. */
import { compress as zstdCompress } from '@mongodb-js/zstd';

export async function shipAsAgent(intakeUrl: string, apiKey: string, lines: string[], tags: string, service = 'shop-api', source = 'nodejs'): Promise<Response> {
  const now = Date.now();
  const entries = lines.map((message) => ({ message, status: 'info', timestamp: now, hostname: 'agent-host', service, ddsource: source, ddtags: tags }));
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
