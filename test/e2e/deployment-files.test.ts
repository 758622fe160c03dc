/**
 * The shipped deployment files are checked by the real tools: `otelcol validate` with the collector
 * built from the manifest, on the base config and every overlay combination, and on each the
 * durability check (tools/src/collector/durable.ts) over the collector's own print-config: every
 * base processor kept, no batch processor, the disk queue with unlimited retries wherever
 * ClickHouse is the destination; hadolint on the Dockerfile.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { CONFIG_VARIANTS, checkVariant, VALIDATE_ENV } from '../../tools/src/collector/command';
import { durabilityFindings } from '../../tools/src/collector/durable';
import { BASE_CONFIG, collectorConfigCommand, MERGE_APPEND } from '../../tools/src/collector/run';
import { parse } from 'yaml';
import { ensureHadolint } from '../helpers/tools';

const binary = (): string => process.env.DD_BRIDGE_TEST_COLLECTOR as string;

describe('collector/config.yaml', () => {
  it.each(CONFIG_VARIANTS.map((v) => [v.length ? v.join(' + ') : 'base', v] as const))('passes otelcol validate and keeps the queue and every base processor: %s', async (_name, variant) => {
    const result = await checkVariant(binary(), variant, { PATH: process.env.PATH, ...VALIDATE_ENV });
    expect(result.output).toBe(result.ok ? result.output : '(validate passes, nothing lost)');
    expect(result.ok).toBe(true);
  });

  it('the check can fail: an extra file that replaces a processor list is found', async () => {
    const printed = await collectorConfigCommand(binary(), 'print-config', ['auth'], { PATH: process.env.PATH, ...VALIDATE_ENV }, ['yaml:service::pipelines::logs::processors: [batch]', 'yaml:processors::batch: {}']);
    expect(printed.ok).toBe(true);
    expect(durabilityFindings(parse(readFileSync(BASE_CONFIG, 'utf8')), parse(printed.stdout))).toEqual(["pipeline logs: processors [batch] do not start with the base's [memory_limiter]", 'pipeline logs: processor batch acknowledges what it holds in memory']);
  });

  it('a broken config is refused by validate (the check can fail)', async () => {
    const result = spawnSync(binary(), [MERGE_APPEND, 'validate', '--config', join(REPO_ROOT, 'collector', 'config.yaml'), '--config', 'yaml:service::pipelines::logs::exporters: [nosuch]'], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr + result.stdout).toMatch(/nosuch/);
  });

  it('the built collector has every component the manifest names', () => {
    const components = execFileSync(binary(), ['components'], { encoding: 'utf8' });
    for (const c of ['otlp', 'memory_limiter', 'batch', 'clickhouse', 'datadog', 'debug', 'file', 'health_check', 'bearertokenauth']) expect(components).toContain(`name: ${c}`);
  });
});

describe('Dockerfile', () => {
  it('passes hadolint', () => {
    const result = spawnSync(ensureHadolint(), [join(REPO_ROOT, 'Dockerfile')], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
