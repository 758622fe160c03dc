/**
 * A stand-in Datadog agent that records what real clients send, byte for byte, so their payloads
 * can be kept as fixtures (test/fixtures/captured/). It answers like our sidecar's control routes
 * (src/signals/control/: its /info document, listing every tracer endpoint agent 7.77 offers) and
 * like the agent's intake routes (see docs/translation.md), but keeps every request instead of
 * translating it: method, path, headers without anything key-like, and the body exactly as sent
 * (still compressed if the client compressed it).
 *
 * Run: node -r ./tools/register.js test/clients/capture-agent.ts --out DIR [--port 8126] [--skip REGEX] [--without-v1]
 * It prints `listening <url>` once ready and writes DIR/requests.json after every request.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig, optionsFor, parseArgs, ROUTE_OPTIONS } from '../../src/config';
import { AGENT_VERSION, agentState, infoDocument } from '../../src/signals/control/info';

/**
 * The tracer endpoints agent 7.77 advertises, including the V1 trace protocol and the telemetry
 * proxy, so tracers that can use them do.
 */
export const CAPTURE_ENDPOINTS = ['/v0.3/traces', '/v0.4/traces', '/v0.5/traces', '/v0.7/traces', '/v1.0/traces', '/v0.6/stats', '/telemetry/proxy/', '/info'];

/** The V1 trace protocol endpoint: left out of /info to capture what a tracer sends an older agent. */
const V1_TRACES = '/v1.0/traces';

/**
 * Our sidecar's own /info document (src/signals/control/info.ts), with the endpoints above, less
 * `/v1.0/traces` when `withoutV1`.
 */
export const captureInfoDocument = (port: number, withoutV1 = false): string => {
  const config = optionsFor(loadConfig(parseArgs([]), {}), ROUTE_OPTIONS);
  const tracerEndpoints = withoutV1 ? CAPTURE_ENDPOINTS.filter((e) => e !== V1_TRACES) : CAPTURE_ENDPOINTS;
  return infoDocument({ tracerEndpoints, config: { ...config, listen: { ...config.listen, port } } });
};

/** One recorded request, as listed in requests.json. */
export interface CapturedRequest {
  seq: number;
  method: string;
  /** The path with any API key in it replaced by `<redacted>`. */
  path: string;
  contentType?: string;
  contentEncoding?: string;
  /** Every other header except key-like ones (API keys, tokens, cookies, authorization). */
  headers: Record<string, string>;
  /** The body file, relative to the capture directory; absent for an empty or skipped body. */
  body?: string;
  bytes: number;
  /** True when the path matched --skip: the request is listed, its body not kept. */
  skipped?: boolean;
}

const KEY_LIKE = /key|token|secret|auth|cookie|password/i;

export const redactPath = (url: string): string => url.replace(/(\/v1\/input\/)[^/?]+/i, '$1<redacted>').replace(/([?&](?:dd-)?api[_-]?key=)[^&]*/gi, '$1<redacted>');

const keptHeaders = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (KEY_LIKE.test(name) || name === 'content-type' || name === 'content-encoding' || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
};

const EXTENSIONS: [RegExp, string][] = [
  [/msgpack/, 'msgpack'],
  [/protobuf/, 'pb'],
  [/json/, 'json'],
  [/text/, 'txt'],
];

/** A file name that says which request it was and how the bytes are encoded. */
const bodyFileName = (r: CapturedRequest): string => {
  const slug = r.path
    .split('?')[0]
    .replace(/[^A-Za-z0-9.]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const ext = EXTENSIONS.find(([re]) => re.test(r.contentType ?? ''))?.[1] ?? 'bin';
  const encoding = r.contentEncoding ? `.${r.contentEncoding.replace(/[^a-z0-9]/gi, '')}` : '';
  return `${String(r.seq).padStart(3, '0')}-${slug}.${ext}${encoding}`;
};

interface Reply {
  status: number;
  body: string;
  contentType?: string;
}

const RATES: Reply = { status: 200, body: '{"rate_by_service":{}}\n', contentType: 'application/json' };

/** The replies the agent (or the intake behind it) gives; anything not listed gets 202 `{}`. */
const replyFor = (method: string, path: string, info: string): Reply => {
  const p = path.split('?')[0].toLowerCase();
  if (p === '/info') return { status: 200, body: info, contentType: 'application/json' };
  if (p === '/v0.7/config') return { status: 404, body: '' }; // remote config off, as our sidecar answers
  if (/^\/v0\.3\/traces\/?$/.test(p)) return { status: 200, body: 'OK\n', contentType: 'text/plain' };
  if (/^\/v(0\.[457]|1\.0)\/traces\/?$/.test(p)) return RATES;
  if (p === '/v0.6/stats' || p.startsWith('/dogstatsd/')) return { status: 200, body: '' };
  if (p === '/api/v1/validate') return { status: 200, body: '{"valid":true}', contentType: 'application/json' };
  if (method === 'GET') return { status: 200, body: '{}', contentType: 'application/json' };
  return { status: 202, body: '{}', contentType: 'application/json' };
};

export interface CaptureAgentOptions {
  dir: string;
  port?: number;
  host?: string;
  /** Paths matching this are listed but their bodies not kept (tracer self-telemetry, say). */
  skip?: RegExp;
  /** Leave `/v1.0/traces` out of /info, so tracers that would switch to it stay on v0.4. */
  withoutV1?: boolean;
}

export interface CaptureAgent {
  url: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

function recorder(o: CaptureAgentOptions, requests: CapturedRequest[]) {
  mkdirSync(o.dir, { recursive: true });
  return (req: IncomingMessage, body: Buffer): void => {
    const path = redactPath(req.url ?? '/');
    const r: CapturedRequest = {
      seq: requests.length + 1,
      method: req.method ?? 'GET',
      path,
      contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'],
      headers: keptHeaders(req),
      bytes: body.length,
    };
    if (o.skip?.test(path)) r.skipped = true;
    else if (body.length > 0) {
      r.body = bodyFileName(r);
      writeFileSync(join(o.dir, r.body), body);
    }
    requests.push(r);
    writeFileSync(join(o.dir, 'requests.json'), `${JSON.stringify(requests, null, 2)}\n`);
  };
}

export async function startCaptureAgent(o: CaptureAgentOptions): Promise<CaptureAgent> {
  const requests: CapturedRequest[] = [];
  const record = recorder(o, requests);
  let info = '';
  let state = '';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    record(req, body);
    const reply = replyFor(req.method ?? 'GET', req.url ?? '/', info);
    res.writeHead(reply.status, {
      'Datadog-Agent-Version': AGENT_VERSION,
      'Datadog-Agent-State': state,
      ...(reply.contentType ? { 'Content-Type': reply.contentType } : {}),
    });
    res.end(reply.body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      res.writeHead(500).end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  info = captureInfoDocument(port, o.withoutV1);
  state = agentState(info);
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // tracers keep connections alive; close() alone would wait on them
      }),
  };
}

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

if (require.main === module) {
  const dir = argValue('--out');
  if (!dir) {
    process.stderr.write('usage: capture-agent.ts --out DIR [--port 8126] [--host 127.0.0.1] [--skip REGEX] [--without-v1]\n');
    process.exit(2);
  }
  const skip = argValue('--skip');
  startCaptureAgent({ dir, port: Number(argValue('--port') ?? 8126), host: argValue('--host'), skip: skip ? new RegExp(skip) : undefined, withoutV1: process.argv.includes('--without-v1') }).then((agent) => {
    process.stdout.write(`listening ${agent.url}\n`);
    const stop = (): void => {
      agent.close().then(() => process.exit(0));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
