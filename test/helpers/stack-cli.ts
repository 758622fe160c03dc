/** The built `dd-otlp-bridge stack …` and `migrate …` commands as an operator runs them, for the management CLI's e2e tests. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/tools/collector/build';

export const CLI = join(REPO_ROOT, 'dist', 'cli', 'main.js');
export const STACK_API_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'stack-api');

export interface Run {
  status: number | null;
  out: string;
  err: string;
}

export function assertCliBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
}

/** `dd-otlp-bridge stack <args>`. */
export const runCli = (args: string[], env: Record<string, string>, stdin = ''): Promise<Run> => runBridge(['stack', ...args], env, stdin);

/** `dd-otlp-bridge <args>`. Async: a test server may answer from this process, which spawnSync would block. */
export function runBridge(args: string[], env: Record<string, string>, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out, err }));
    child.stdin.end(stdin);
  });
}

export interface SeedAlertTargets {
  dashboardId: string;
  tileId: string;
  webhookId: string;
}

/** The alert of issue 23's seed, field for field, as the API stores it. */
export const seedAlertBody = ({ dashboardId, tileId, webhookId }: SeedAlertTargets) => ({
  dashboardId,
  tileId,
  threshold: 100,
  interval: '1h',
  source: 'tile',
  thresholdType: 'above',
  channel: { type: 'webhook', webhookId },
  name: 'Error Spike Alert',
  message: 'Error rate has exceeded 100 in the last hour',
});

/** The seed alert as an operator types it: `--tile-id` implies `source: tile`. */
export const seedAlertArgs = ({ dashboardId, tileId, webhookId }: SeedAlertTargets): string[] => [
  'alerts',
  'create',
  `--dashboard-id=${dashboardId}`,
  '--tile-id',
  tileId,
  '--threshold',
  '100',
  '--interval',
  '1h',
  '--threshold-type',
  'above',
  '--webhook-id',
  webhookId,
  '--name',
  'Error Spike Alert',
  '--message',
  'Error rate has exceeded 100 in the last hour',
];

/** The NAME column of a `--table` listing, header left out. */
export const tableNames = (table: string): string[] =>
  table
    .split('\n')
    .slice(1, -1)
    .map((line) => line.split(/\s+/)[1]!);
