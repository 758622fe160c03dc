/**
 * A long-lived ./render-server.js: HyperDX's own code drawing tiles over a ClickHouse, one
 * request at a time per line, several in flight.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ClickHouseLogin } from '../../tools/src/clickhouse/credentials';
import { ensureApiNode, ensureHyperdxApi } from './setup';

export interface RenderRequest {
  /** the tile as the management API takes it */
  tile: Record<string, unknown>;
  /** the tile's source, as the API stores it */
  source: Record<string, unknown>;
  dateRange: [number, number];
  granularity: string;
  filters?: { type: 'sql' | 'lucene'; condition: string }[];
}

export interface Rendered {
  rows: Record<string, unknown>[];
  meta: { name: string; type: string }[];
}

export interface Renderer<Request = RenderRequest> {
  render: (request: Request) => Promise<Rendered>;
  stop: () => Promise<void>;
}

/**
 * `login`: the read-only login HyperDX's connection uses (passed in the environment, never on the
 * command line). `script`: another server of the same protocol (./alert-server.js), `env` its
 * settings.
 */
export async function startRenderer<Request = RenderRequest>(clickhouseUrl: string, login: ClickHouseLogin, script = 'render-server.js', env: Record<string, string> = {}): Promise<Renderer<Request>> {
  const apiDir = join(ensureHyperdxApi(), 'packages', 'api');
  const child: ChildProcess = spawn(ensureApiNode(), ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(__dirname, script), clickhouseUrl], {
    cwd: apiDir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', TS_NODE_TRANSPILE_ONLY: 'true', RENDER_CLICKHOUSE_USER: login.user, RENDER_CLICKHOUSE_PASSWORD: login.password, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const pending = new Map<number, { resolve: (r: Rendered) => void; reject: (e: Error) => void }>();
  let ready: () => void;
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  // the API's modules may log to stdout as they load: only a JSON line with an id (or ready) is a reply
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let reply: { id?: number; ready?: boolean; error?: string } & Partial<Rendered>;
    try {
      reply = JSON.parse(line);
    } catch {
      return;
    }
    if (reply.ready) ready();
    const waiting = reply.id === undefined ? undefined : pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id!);
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else waiting.resolve({ rows: reply.rows ?? [], meta: reply.meta ?? [] });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const w of pending.values()) w.reject(new Error(`render-server exited: ${stderr.join('').slice(-2000)}`));
    pending.clear();
  });
  await Promise.race([started, exited.then(() => Promise.reject(new Error(`render-server exited at start: ${stderr.join('').slice(-4000)}`)))]);
  let next = 0;
  return {
    render: (request) =>
      new Promise<Rendered>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        child.stdin!.write(`${JSON.stringify({ id, ...request })}\n`);
      }),
    stop: async () => {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
