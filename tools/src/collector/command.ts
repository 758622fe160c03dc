/** `dd-otlp-bridge-tools collector build|path|validate`. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { collectorBinaryPath, ensureCollector } from './build';
import { durabilityFindings } from './durable';
import { BASE_CONFIG, collectorConfigCommand, OVERLAYS, overlayExists, type OverlayName } from './run';
import type { Logger } from '../../../src/core/observability/log';

/** Every combination of the overlays, the base alone first. */
export const CONFIG_VARIANTS: readonly OverlayName[][] = (Object.keys(OVERLAYS) as OverlayName[]).reduce<OverlayName[][]>((subsets, overlay) => subsets.concat(subsets.map((s) => [...s, overlay])), [[]]);

/** The environment every variant is checked with: what the overlays require, nothing secret. */
export const VALIDATE_ENV: NodeJS.ProcessEnv = { OTLP_AUTH_TOKEN: 'validate-token', DD_API_KEY: 'validate-key', DB_ENDPOINT: 'tcp://db:9000', DB_CLUSTER: 'validate-cluster' };

/** `otelcol validate` of one variant, then what its assembled configuration lost of the base's durability (durable.ts). */
export async function checkVariant(binary: string, variant: readonly OverlayName[], env: NodeJS.ProcessEnv): Promise<{ ok: boolean; output: string }> {
  const validated = await collectorConfigCommand(binary, 'validate', variant, env);
  if (!validated.ok) return validated;
  const printed = await collectorConfigCommand(binary, 'print-config', variant, env);
  if (!printed.ok) return printed;
  const findings = durabilityFindings(parse(readFileSync(BASE_CONFIG, 'utf8')), parse(printed.stdout));
  return { ok: findings.length === 0, output: findings.map((f) => `  ${f}\n`).join('') };
}

export async function collectorCommand(args: readonly string[], log: Logger): Promise<number> {
  const [sub] = args;
  if (sub === 'path') {
    process.stdout.write(collectorBinaryPath() + '\n');
    return 0;
  }
  if (sub === 'build') {
    process.stdout.write((await ensureCollector(log)) + '\n');
    return 0;
  }
  if (sub === 'validate') {
    const binary = await ensureCollector(log);
    let failed = 0;
    for (const variant of CONFIG_VARIANTS.filter((v) => v.every(overlayExists))) {
      const result = await checkVariant(binary, variant, { ...process.env, ...VALIDATE_ENV });
      const name = ['collector/config.yaml', ...variant].join(' + ');
      process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${name}\n${result.ok ? '' : result.output}`);
      if (!result.ok) failed++;
    }
    return failed === 0 ? 0 : 1;
  }
  process.stderr.write('usage: dd-otlp-bridge-tools collector build|path|validate\n');
  return 2;
}
