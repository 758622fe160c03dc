/**
 * The collector's --config arguments (tools/src/collector/run.ts): the collector's merge replaces
 * lists, so when two overlays each enable extensions their union must come after them.
 */
import { configArgs, overlaysFor } from '../../tools/src/collector/run';

const unionArg = (args: string[]): string | undefined => args.find((a) => a.startsWith('yaml:service::extensions'));

describe('configArgs', () => {
  it('gives auth and the persistent queue both their extensions', () => {
    expect(unionArg(configArgs(['auth', 'persistentQueue']))).toBe('yaml:service::extensions: [health_check, bearertokenauth/ingest, file_storage/queue]');
  });

  it('adds nothing when the last overlay already lists every extension', () => {
    expect(unionArg(configArgs(['persistentQueue']))).toBeUndefined();
    expect(unionArg(configArgs(['auth', 'fileSink']))).toBeUndefined();
  });

  it('puts the union after the overlays and before extra files, which keep the last word', () => {
    const args = configArgs(['auth', 'persistentQueue'], ['/site/overrides.yaml']);
    const files = args.filter((_a, i) => args[i - 1] === '--config');
    expect(files.at(-2)).toMatch(/^yaml:service::extensions/);
    expect(files.at(-1)).toBe('/site/overrides.yaml');
  });
});

describe('overlaysFor', () => {
  it('writes files without a DB, and to ClickHouse through the persistent queue with one', () => {
    expect(overlaysFor({})).toEqual(['fileSink']);
    expect(overlaysFor({ DB_ENDPOINT: 'tcp://db:9000', OTLP_AUTH_TOKEN: 't' })).toEqual(['auth', 'persistentQueue']);
    expect(overlaysFor({ DB_ENDPOINT: 'tcp://db:9000', COLLECTOR_DATADOG_FANOUT: 'true' })).toEqual(['datadog', 'persistentQueue']);
  });
});
