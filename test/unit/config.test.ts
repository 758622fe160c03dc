import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptedKeys, ConfigError, EXPORT_OPTIONS, helpText, loadConfig, OPTIONS, optionsFor, parseArgs, parseOtlpHeaders, parseReusePort, ROUTE_OPTIONS } from '../../src/config';

const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(parseArgs(argv), env);

describe('config', () => {
  it('has sensible defaults: intake off on loopback :8126, admin on loopback only, OTLP to localhost:4317, 64 MiB decoded limit', () => {
    const c = load([]);
    expect(c.enabled).toBe(false);
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8126 });
    // /health and /metrics ask for no key: reachable from elsewhere only when configured so
    expect(c.adminListen).toEqual({ host: '127.0.0.1', port: 9126 });
    expect(c.otlpEndpoint).toBe('http://localhost:4317');
    expect(c.maxDecodedBytes).toBe(64 * 1024 * 1024);
    expect(c.exportMaxBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it.each([
    ['ENABLE_VENDOR_RECEIVER', 'true', true],
    ['ENABLE_DATADOG_RECEIVER', 'true', true],
    ['ENABLE_VENDOR_RECEIVER', 'false', false],
    ['ENABLE_DATADOG_RECEIVER', 'TRUE', true],
  ])('%s=%s → enabled %s', (name, value, expected) => {
    expect(load([], { [name]: value }).enabled).toBe(expected);
  });

  it('--reuse-port: off by default; on only where node honours it (22.12 and later)', () => {
    expect(load([]).reusePort).toBe(false);
    expect(parseReusePort('true', 'DD_BRIDGE_REUSE_PORT', 'v22.12.0')).toBe(true);
    expect(parseReusePort('true', 'DD_BRIDGE_REUSE_PORT', 'v24.21.0')).toBe(true);
    expect(parseReusePort('false', 'DD_BRIDGE_REUSE_PORT', 'v20.20.2')).toBe(false);
    expect(() => parseReusePort('true', 'DD_BRIDGE_REUSE_PORT', 'v22.11.0')).toThrow(/DD_BRIDGE_REUSE_PORT: needs Node.js 22.12 or later \(this is v22.11.0\)/);
  });

  it('rejects a toggle value that is not a boolean', () => {
    expect(() => load([], { ENABLE_VENDOR_RECEIVER: 'maybe' })).toThrow(/ENABLE_VENDOR_RECEIVER: expected true or false/);
  });

  it('takes flag over env over file over default', () => {
    const file = join(tmpdir(), `ddb-${process.pid}.yaml`);
    writeFileSync(file, 'listen: "127.0.0.1:7000"\nmax_body_bytes: 1000\notlp:\n  endpoint: http://file:4317\n  headers:\n    authorization: abc def\napi_keys: [k1, k2]\n');
    const c = load(['--config', file, '--listen', '127.0.0.1:9000'], { DD_BRIDGE_MAX_BODY_BYTES: '2000' });
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(c.maxBodyBytes).toBe(2000);
    expect(c.otlpEndpoint).toBe('http://file:4317');
    expect(c.otlpHeaders).toEqual({ authorization: 'abc def' });
    expect(c.apiKeys).toEqual(['k1', 'k2']);
  });

  it('parses OTEL_EXPORTER_OTLP_HEADERS per the spec (percent-encoded values, keys lower-cased)', () => {
    expect(parseOtlpHeaders('Authorization=tok%20en, x-team = a=b', 'h')).toEqual({ authorization: 'tok en', 'x-team': 'a=b' });
    expect(() => parseOtlpHeaders('novalue', 'h')).toThrow(ConfigError);
  });

  it('follows OTEL_SEMCONV_STABILITY_OPT_IN: old names by default, /dup over the plain entry, other groups ignored', () => {
    expect(load([]).semconvOptIn).toEqual({ http: 'old', database: 'old' });
    expect(load([], { OTEL_SEMCONV_STABILITY_OPT_IN: 'http' }).semconvOptIn).toEqual({ http: 'stable', database: 'old' });
    expect(load([], { OTEL_SEMCONV_STABILITY_OPT_IN: ' messaging, DATABASE , database/dup,http/dup,http' }).semconvOptIn).toEqual({ http: 'dup', database: 'dup' });
    expect(load(['--semconv-stability-opt-in', 'database'], { OTEL_SEMCONV_STABILITY_OPT_IN: 'http' }).semconvOptIn).toEqual({ http: 'old', database: 'stable' });
  });

  it('accepts OTLP_AUTH_TOKEN as an ingestion key beside the configured list', () => {
    expect(acceptedKeys(load(['--api-keys', 'a,b'], { OTLP_AUTH_TOKEN: ' tok ' })).sort()).toEqual(['a', 'b', 'tok']);
    expect(acceptedKeys(load(['--api-keys', 'a,b'], { OTLP_AUTH_TOKEN: ' ' }))).toEqual(['a', 'b']);
    expect(acceptedKeys(load(['--api-keys', 'a,b']))).toEqual(['a', 'b']);
  });

  it('refuses unknown flags and bad values with the source named', () => {
    expect(() => parseArgs(['--nope'])).toThrow(/unknown option --nope/);
    expect(() => load(['--listen', 'localhost'])).toThrow(/--listen: expected host:port/);
    expect(() => load([], { DD_BRIDGE_MAX_BODY_BYTES: '-1' })).toThrow(/DD_BRIDGE_MAX_BODY_BYTES: expected a positive integer/);
  });

  it('reads flags in every form: a lone boolean is true, a boolean takes a following value, --flag=value', () => {
    expect(parseArgs(['serve', '--enable', '--listen', '127.0.0.1:1']).positionals).toEqual(['serve']);
    expect(load(['--enable']).enabled).toBe(true);
    expect(load(['--enable', 'false']).enabled).toBe(false);
    expect(load(['--enable=false', '--listen=127.0.0.1:1']).listen).toEqual({ host: '127.0.0.1', port: 1 });
    expect(parseArgs(['-h']).help).toBe(true);
    expect(() => parseArgs(['--listen'])).toThrow(/option --listen needs a value/);
  });

  it('reads OTLP_AUTH_TOKEN through the table, and hands each component only its part', () => {
    const c = load([], { OTLP_AUTH_TOKEN: ' tok ' });
    expect(c.otlpAuthToken).toBe('tok');
    expect(optionsFor(c, EXPORT_OPTIONS).otlpAuthToken).toBe('tok');
    expect(Object.keys(optionsFor(c, ROUTE_OPTIONS)).sort()).toEqual([...ROUTE_OPTIONS].sort());
    expect(load(['--otlp-auth-token', 'flag'], { OTLP_AUTH_TOKEN: 'env' }).otlpAuthToken).toBe('flag');
  });

  it('documents every option in --help with its env names', () => {
    const help = helpText();
    for (const o of OPTIONS) {
      expect(help).toContain(o.flag);
      for (const e of o.env) expect(help).toContain(e);
    }
  });
});

describe('README', () => {
  it('documents every option with its flag and environment variables', () => {
    const readme = require('node:fs').readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8') as string;
    for (const o of OPTIONS) {
      expect(readme).toContain(`\`${o.flag}\``);
      for (const e of o.env) expect(readme).toContain(e);
    }
  });
});
