/**
 * A real ClickHouse for end-to-end tests (tools/src/clickhouse/launcher.ts): free ports, a fresh
 * temporary data directory, the venv shared by every test run (DD_BRIDGE_CLICKHOUSE_HOME, else
 * ~/.cache/dd-otlp-bridge/clickhouse; jest's global setup makes it once).
 */
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseCredentials, ClickHouseLogin } from '../../tools/src/clickhouse/credentials';
import { startClickHouse, type RunningClickHouse } from '../../tools/src/clickhouse/launcher';
import { freePort } from './ports';

export const TEST_CLICKHOUSE_HOME = process.env.DD_BRIDGE_CLICKHOUSE_HOME || join(homedir(), '.cache', 'dd-otlp-bridge', 'clickhouse');

export interface TestClickHouse {
  httpUrl: string;
  tcpEndpoint: string;
  dataDir: string;
  /** The reader's and the collector's logins (the shared test home's credentials.json). */
  credentials: ClickHouseCredentials;
  pid(): number;
  /** Runs `sql` over HTTP as the read-only user, with `{name:Type}` parameters; rows (JSONEachRow). */
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, string | number>): Promise<T[]>;
  /** Polls `sql` until it returns at least `min` rows; the last rows seen are in the error on timeout. */
  waitForRows<T = Record<string, unknown>>(sql: string, min: number, timeoutMs: number, params?: Record<string, string | number>): Promise<T[]>;
  stop(): Promise<void>;
  /** Stops and starts again on the same data directory and ports. */
  restart(): Promise<void>;
}

/**
 * One POST on its own connection (a pooled keep-alive socket would hold up the server's stop for
 * its 5 s connection drain), as `login`. Rejects with ClickHouse's own error text on a non-200.
 */
export function clickHouseQuery<T = Record<string, unknown>>(httpUrl: string, login: ClickHouseLogin, sql: string, params: Record<string, string | number> = {}): Promise<T[]> {
  const url = new URL(httpUrl);
  url.searchParams.set('default_format', 'JSONEachRow');
  for (const [name, value] of Object.entries(params)) url.searchParams.set(`param_${name}`, String(value));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, timeout: 30_000, auth: `${login.user}:${login.password}` }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`ClickHouse ${res.statusCode}: ${text.trim()}\n  for: ${sql}`));
        resolve(
          text
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as T),
        );
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`ClickHouse query timed out: ${sql}`)));
    req.end(sql);
  });
}

/** `uiOrigins`: the browser origins that may query it (a HyperDX the test serves); none by default, as `stack` without --ui. */
export async function startTestClickHouse(options: { uiOrigins?: readonly string[] } = {}): Promise<TestClickHouse> {
  const [httpPort, tcpPort] = await Promise.all([freePort(), freePort()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'dd-bridge-clickhouse-'));
  const launch = (): Promise<RunningClickHouse> => startClickHouse({ home: TEST_CLICKHOUSE_HOME, dataDir, httpPort, tcpPort, logFile: `${dataDir}.log`, uiOrigins: options.uiOrigins });
  let server: RunningClickHouse | undefined = await launch();
  const { httpUrl, credentials } = server;
  const query = <T = Record<string, unknown>>(sql: string, params?: Record<string, string | number>): Promise<T[]> => clickHouseQuery<T>(httpUrl, credentials.reader, sql, params);
  return {
    httpUrl,
    tcpEndpoint: server.tcpEndpoint,
    dataDir,
    credentials,
    pid: () => server?.pid ?? -1,
    query,
    async waitForRows<T = Record<string, unknown>>(sql: string, min: number, timeoutMs: number, params?: Record<string, string | number>): Promise<T[]> {
      const deadline = Date.now() + timeoutMs;
      let rows: T[] = [];
      let lastError: unknown;
      while (Date.now() < deadline) {
        try {
          rows = await query<T>(sql, params);
          if (rows.length >= min) return rows;
        } catch (err) {
          lastError = err; // the table may not exist yet: the exporter creates it on start-up
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`waited ${timeoutMs} ms for ${min} rows of: ${sql}\n  got ${rows.length}: ${JSON.stringify(rows.slice(0, 3))}${lastError ? `\n  last error: ${(lastError as Error).message}` : ''}`);
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async restart() {
      await server?.stop();
      server = await launch();
    },
  };
}
