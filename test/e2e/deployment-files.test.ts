/**
 * The shipped deployment files are checked by the real tools: `otelcol validate` with the collector
 * built from the manifest, on the base config and every overlay combination; hadolint on the
 * Dockerfile.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CONFIG_VARIANTS } from '../../tools/src/collector/command';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { validateConfig } from '../../tools/src/collector/run';
import { ensureHadolint } from '../helpers/tools';

const binary = (): string => process.env.DD_BRIDGE_TEST_COLLECTOR as string;

describe('collector/config.yaml', () => {
  it.each(CONFIG_VARIANTS.map((v) => [v.length ? v.join(' + ') : 'base', v] as const))('passes otelcol validate: %s', async (_name, variant) => {
    const result = await validateConfig(binary(), variant, { PATH: process.env.PATH, OTLP_AUTH_TOKEN: 'token', DD_API_KEY: 'key', DB_ENDPOINT: 'tcp://db:9000' });
    expect(result.output).toBe(result.ok ? result.output : '(validate passes)');
    expect(result.ok).toBe(true);
  });

  it('a broken config is refused by validate (the check can fail)', async () => {
    const result = spawnSync(binary(), ['validate', '--config', join(REPO_ROOT, 'collector', 'config.yaml'), '--config', 'yaml:service::pipelines::logs::exporters: [nosuch]'], { encoding: 'utf8' });
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
