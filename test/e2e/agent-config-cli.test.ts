/**
 * `dd-otlp-bridge-tools agent-config` as an operator runs it: the CLI on a temporary copy of a
 * realistic datadog.yaml. Proves the write/backup/idempotency/revert cycle, that --dry-run writes
 * nothing, that broken input is refused untouched, and that no key ever reaches the terminal.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';

const CLI = join(REPO_ROOT, 'tools', 'bin', 'dd-otlp-bridge-tools.js');
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'agent-config');
const NEW_KEY = 'ingest-7d2f9a41c0b84e6f';
const OLD_KEY = '3f1b9c0d5e7a4b2c8d6e0f1a2b3c4d5e';

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, 'agent-config', ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
};

function workCopy(fixture = 'installer-default'): { dir: string; file: string; original: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ddb-agent-'));
  const file = join(dir, 'datadog.yaml');
  copyFileSync(join(FIXTURES, fixture, 'before.yaml'), file);
  chmodSync(file, 0o640);
  return { dir, file, original: readFileSync(file, 'utf8') };
}

const backups = (dir: string) => readdirSync(dir).filter((f) => /^datadog\.yaml\.bak-\d{8}T\d{6}Z(-\d+)?$/.test(f));
const migrateArgs = (file: string) => [file, '--url', 'http://bridge.internal:8126', '--api-key', NEW_KEY];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
});

describe('agent-config CLI', () => {
  it('--dry-run prints a unified diff with the keys masked and writes nothing', () => {
    const { dir, file, original } = workCopy();
    const r = run(...migrateArgs(file), '--dry-run');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^--- .*datadog\.yaml\n\+\+\+ .*\n@@ -\d+,\d+ \+\d+,\d+ @@\n/);
    expect(r.out).toContain('-api_key: ********\n+api_key: ********\n');
    expect(r.out).toContain('+dd_url: http://bridge.internal:8126\n');
    expect(r.all).not.toContain(NEW_KEY);
    expect(r.all).not.toContain(OLD_KEY);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(backups(dir)).toEqual([]);
  });

  it('writes the golden result with a backup, keeps the mode, then a second run changes nothing', () => {
    const { dir, file, original } = workCopy();
    const first = run(...migrateArgs(file));
    expect(first.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(FIXTURES, 'installer-default', 'after.yaml'), 'utf8'));
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const [backup] = backups(dir);
    expect(readFileSync(join(dir, backup!), 'utf8')).toBe(original);
    expect(statSync(join(dir, backup!)).mode & 0o777).toBe(0o640);
    expect(first.out).toContain('sudo systemctl restart datadog-agent');
    expect(first.out).toContain('datadog-agent status');
    expect(first.all).not.toContain(NEW_KEY);
    expect(first.all).not.toContain(OLD_KEY);

    const migrated = readFileSync(file, 'utf8');
    const second = run(...migrateArgs(file));
    expect(second.status).toBe(0);
    expect(second.out).toMatch(/nothing to change, nothing written/);
    expect(readFileSync(file, 'utf8')).toBe(migrated);
    expect(backups(dir)).toHaveLength(1);
  });

  it('--revert restores the original byte for byte and consumes the backup; dual shipping reverts too', () => {
    const { dir, file, original } = workCopy('dual-ship');
    expect(run(file, '--url', 'http://bridge.internal:8126', '--api-key', NEW_KEY, '--dual-ship').status).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('additional_endpoints');
    const preview = run(file, '--revert', '--dry-run');
    expect(preview.status).toBe(0);
    expect(preview.out).toContain('-dd_url: http://bridge.internal:8126');
    expect(preview.all).not.toContain('0123456789abcdef0123456789abcdef');
    expect(readFileSync(file, 'utf8')).not.toBe(original);

    const reverted = run(file, '--revert');
    expect(reverted.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(backups(dir)).toEqual([]);
    const again = run(file, '--revert');
    expect(again.status).toBe(1);
    expect(again.err).toMatch(/no backup/);
  });

  it('reads the key from --api-key-file', () => {
    const { dir, file } = workCopy();
    writeFileSync(join(dir, 'key'), `${NEW_KEY}\n`);
    const r = run(file, '--url', 'http://bridge.internal:8126', '--api-key-file', join(dir, 'key'));
    expect(r.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`api_key: ${NEW_KEY}\n`);
    expect(r.all).not.toContain(NEW_KEY);
  });

  it('refuses a broken file and leaves it untouched, without a backup', () => {
    const { dir, file } = workCopy();
    const broken = 'api_key: abc\napm_config:\n  enabled: [true\n';
    writeFileSync(file, broken);
    const r = run(...migrateArgs(file));
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/not valid YAML.*left unchanged/s);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(backups(dir)).toEqual([]);
  });

  it.each([
    [['--url', 'bridge.internal:8126'], /expected http\(s\):\/\/host:port/],
    [['--url', 'http://bridge.internal'], /explicit port/],
    [[], /--url is required/],
    [['--url', 'http://b:8126', '--bogus'], /unknown option --bogus/],
  ])('usage errors exit 2: %j', (extra, message) => {
    const { file, original } = workCopy();
    const r = run(file, ...extra);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(message);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('has its own --help, and the workbench help names it', () => {
    expect(run('--help').out).toMatch(/^Usage: dd-otlp-bridge-tools agent-config/);
    const main = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(main.stdout).toContain('agent-config <datadog.yaml>');
  });
});
