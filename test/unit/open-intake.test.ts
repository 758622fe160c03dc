/**
 * Nothing listens beyond loopback open by default: the intake defaults to 127.0.0.1, and a sidecar
 * told to listen beyond it without API keys refuses to start (src/cli/sidecar.ts) unless
 * --allow-open-intake says it is meant.
 */
import { createServer } from 'node:net';
import { ConfigError, loadConfig, parseArgs } from '../../src/config';
import { startSidecar } from '../../src/cli/sidecar';
import { createLogger } from '../../src/core/observability/log';
import type { Exporter } from '../../src/core/export/exporter';
import { freePort } from '../helpers/ports';

const exporter: Exporter = { export: async () => ({ accepted: 0, rejected: 0 }), close: async () => undefined };
const start = (args: string[], lines: string[] = []) =>
  startSidecar(
    loadConfig(parseArgs(['--enable', '--admin-listen', '127.0.0.1:0', ...args]), {}),
    createLogger('debug', {}, (l) => lines.push(l)),
    { exporter },
  );

/** True when nothing listens on `port` of every interface. */
const free = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '0.0.0.0', () => probe.close(() => resolve(true)));
  });

describe('an intake without API keys', () => {
  it('listens on loopback by default', () => {
    expect(loadConfig(parseArgs([]), {}).listen).toEqual({ host: '127.0.0.1', port: 8126 });
  });

  it('on loopback: starts, and warns', async () => {
    const lines: string[] = [];
    const sidecar = await start(['--listen', '127.0.0.1:0'], lines);
    expect(sidecar.intakeAddress?.address).toBe('127.0.0.1');
    expect(lines.join('\n')).toMatch(/no API keys configured: the intake accepts every request on loopback/);
    await sidecar.stop();
  });

  it('beyond loopback: refuses to start, saying what to set, and leaves no port open', async () => {
    const admin = await freePort();
    const err = await start(['--listen', '0.0.0.0:0', '--admin-listen', `127.0.0.1:${admin}`]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/without API keys: set OTLP_AUTH_TOKEN or DD_BRIDGE_API_KEYS .* or --allow-open-intake/);
    expect(await free(admin)).toBe(true);
  });

  it('beyond loopback with --allow-open-intake, or with a key: starts', async () => {
    const lines: string[] = [];
    const open = await start(['--listen', '0.0.0.0:0', '--allow-open-intake'], lines);
    expect(lines.join('\n')).toMatch(/--allow-open-intake: the intake accepts every request from any host/);
    await open.stop();
    const keyed = await start(['--listen', '0.0.0.0:0', '--api-keys', 'k-1']);
    expect(keyed.intakeAddress?.address).toBe('0.0.0.0');
    await keyed.stop();
  });
});
