/**
 * Everything the sidecar puts out for one request — the reply as it crossed the wire (status line,
 * headers, body), every log line and /metrics — for the tests that an API key reaches none of it.
 * Each request gets a fresh sidecar (stub exporter, in process): the intake writes a line a
 * request can trigger once per message per 10 s, so on a shared sidecar a later request's line
 * would not be written at all and its leak could not be seen.
 */
import { connect } from 'node:net';
import { startSidecar } from '../../src/cli/sidecar';
import { loadConfig, parseArgs } from '../../src/config';
import type { Exporter } from '../../src/core/export/exporter';
import { createLogger } from '../../src/core/observability/log';

export interface RawRequest {
  method: string;
  /** the request target exactly as written on the request line: no client normalises it */
  target: string;
  headers?: Record<string, string>;
}

const LOG_BODY = JSON.stringify([{ message: 'key leak probe' }]);

const acceptingExporter: Exporter = {
  export: async () => ({ accepted: 1, rejected: 0 }),
  close: async () => undefined,
};

/** The whole reply to `request` (a small logs body), as bytes read as latin1, once the server closed the connection. */
export function exchange(port: number, { method, target, headers = {} }: RawRequest): Promise<string> {
  const head = Object.entries({ Host: '127.0.0.1', 'Content-Type': 'application/json', ...headers, 'Content-Length': String(LOG_BODY.length), Connection: 'close' })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${method} ${target} HTTP/1.1\r\n${head}\r\n${LOG_BODY}`));
    let reply = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no reply to ${method} ${target}`)));
    socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
    socket.once('error', reject);
    socket.once('close', () => resolve(reply));
  });
}

/** Reply, log lines and /metrics of a fresh sidecar that accepts `keys` (none: auth off) after `request`. */
export async function outputsAfter(request: RawRequest, keys: readonly string[]): Promise<string> {
  const lines: string[] = [];
  const args = ['--enable', '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0', ...(keys.length > 0 ? ['--api-keys', keys.join(',')] : [])];
  const sidecar = await startSidecar(
    loadConfig(parseArgs(args), {}),
    createLogger('debug', {}, (line) => lines.push(line)),
    { exporter: acceptingExporter },
  );
  try {
    const reply = await exchange(sidecar.intakeAddress!.port, request);
    const metrics = await (await fetch(`http://127.0.0.1:${sidecar.adminAddress!.port}/metrics`)).text();
    return [reply, metrics, ...lines].join('\n');
  } finally {
    await sidecar.stop();
  }
}

/** `text` with percent-encoding undone `rounds` times over (`%2569` → `%69` → `i`), bytes as latin1. */
function percentDecoded(text: string, rounds = 4): string {
  let decoded = text;
  for (let i = 0; i < rounds; i++) decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return decoded;
}

/**
 * Fails with the lines of `output` in which `key` can be read, as it is or once percent-decoded, in
 * any case: Datadog keys are lower-case hex, so a key echoed lower-cased (as a Content-Encoding
 * name is) is the key.
 */
export function expectNoKey(output: string, key: string): void {
  const lowerKey = key.toLowerCase();
  const leaking = output.split(/\r?\n/).filter((line) => [line, percentDecoded(line)].some((text) => text.toLowerCase().includes(lowerKey)));
  expect(leaking).toEqual([]);
}
