/** The workbench's `stack …` and `migrate …` commands as an operator runs them (tools/bin/), for the management CLI's e2e tests. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';

export const TOOLS_CLI = join(REPO_ROOT, 'tools', 'bin', 'dd-otlp-bridge-tools.js');
export const STACK_API_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'stack-api');

export interface Run {
  status: number | null;
  out: string;
  err: string;
}

export function assertCliBuilt(): void {
  if (!existsSync(TOOLS_CLI)) throw new Error(`${TOOLS_CLI} is missing`);
}

/** `dd-otlp-bridge-tools stack <args>`. */
export const runCli = (args: string[], env: Record<string, string>, stdin = ''): Promise<Run> => runTools(['stack', ...args], env, stdin);

/** `dd-otlp-bridge-tools <args>`. Async: a test server may answer from this process, which spawnSync would block. */
export function runTools(args: string[], env: Record<string, string>, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOOLS_CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
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
