/** `dd-otlp-bridge-tools collector build|path|validate`. */
import { collectorBinaryPath, ensureCollector } from './build';
import { overlayExists, validateConfig, type OverlayName } from './run';
import type { Logger } from '../../../src/core/observability/log';

/** Every shipped combination: each overlay alone and with auth, and the stack's ClickHouse one (auth, Datadog fan-out, persistent queue). */
export const CONFIG_VARIANTS: readonly OverlayName[][] = [[], ['auth'], ['fileSink'], ['auth', 'fileSink'], ['datadog'], ['auth', 'datadog'], ['persistentQueue'], ['auth', 'persistentQueue'], ['auth', 'datadog', 'persistentQueue']];

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
      const result = await validateConfig(binary, variant, { ...process.env, OTLP_AUTH_TOKEN: 'validate-token', DD_API_KEY: 'validate-key' });
      const name = ['collector/config.yaml', ...variant].join(' + ');
      process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${name}\n${result.ok ? '' : result.output}`);
      if (!result.ok) failed++;
    }
    return failed === 0 ? 0 : 1;
  }
  process.stderr.write('usage: dd-otlp-bridge-tools collector build|path|validate\n');
  return 2;
}
