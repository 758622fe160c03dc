/**
 * The pieces of `agent-config`: URL checking, change planning, refusals, the unified diff (checked
 * against diff(1)) and backups.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync, chmodSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { backupStamp, listBackups, replaceFile, writeBackup } from '../../tools/src/agent-config/backups';
import { unifiedDiff } from '../../tools/src/agent-config/diff';
import { afterWriteGuidance } from '../../tools/src/agent-config/guidance';
import { masker } from '../../tools/src/agent-config/mask';
import { planChanges, RewriteError, type AgentConfigOptions } from '../../tools/src/agent-config/plan';
import { rewriteAgentConfig } from '../../tools/src/agent-config/rewrite';
import { parseBridgeUrl } from '../../tools/src/agent-config/target';
import { ConfigError } from '../../src/config';

const options = (extra: Partial<AgentConfigOptions> = {}): AgentConfigOptions => ({ target: parseBridgeUrl('http://bridge:8126'), apiKey: 'ingest-key-1', ...extra });

describe('parseBridgeUrl', () => {
  it.each([
    ['http://bridge:8126', 'http://bridge:8126', 'bridge:8126', true],
    ['https://bridge.example.com:443/', 'https://bridge.example.com:443', 'bridge.example.com:443', false],
    ['http://10.0.0.5:18126', 'http://10.0.0.5:18126', '10.0.0.5:18126', true],
    ['http://[::1]:8126', 'http://[::1]:8126', '[::1]:8126', true],
  ])('%s → %s, logs %s', (raw, url, hostPort, plainHttp) => {
    expect(parseBridgeUrl(raw)).toEqual({ url, hostPort, plainHttp });
  });

  it.each(['bridge:8126', 'http://bridge', 'http://bridge:0', 'http://bridge:70000', 'ftp://bridge:21', 'http://bridge:8126/api/v2/logs', 'http://user:pw@bridge:8126', 'http://bridge:8126?x=1', 'http:// bridge:8126', ''])('refuses %j', (raw) => {
    expect(() => parseBridgeUrl(raw)).toThrow(ConfigError);
  });
});

describe('planChanges', () => {
  it('forces v2 series unless the bridge takes v3', () => {
    expect(planChanges({}, options()).some((c) => c.path.join('.') === 'use_v3_api.series.enabled')).toBe(true);
    expect(planChanges({}, options({ v3: true })).some((c) => c.path[0] === 'use_v3_api')).toBe(false);
  });

  it('keeps the file key when no --api-key is given', () => {
    expect(planChanges({ api_key: 'x' }, options({ apiKey: undefined })).some((c) => c.path[0] === 'api_key')).toBe(false);
  });

  it('counts a value reached through a merge key as set', () => {
    const doc = 'base: &b\n  force_use_http: true\nlogs_config:\n  <<: *b\n';
    expect(planChanges(parse(doc, { merge: true }), options()).some((c) => c.path.join('.') === 'logs_config.force_use_http')).toBe(false);
  });

  it('dual shipping takes the key from the file before the switch and from additional_endpoints after it', () => {
    const before = { api_key: 'dd-key-0001', site: 'us5.datadoghq.com' };
    const first = planChanges(before, options({ dualShip: true }));
    expect(first).toContainEqual({ op: 'append', path: ['additional_endpoints', 'https://app.us5.datadoghq.com'], item: 'dd-key-0001' });
    expect(first).toContainEqual({ op: 'append', path: ['apm_config', 'additional_endpoints', 'https://trace.agent.us5.datadoghq.com'], item: 'dd-key-0001' });
    const migrated = parse(rewriteAgentConfig('api_key: dd-key-0001\nsite: us5.datadoghq.com\n', options({ dualShip: true })).text) as unknown;
    expect(planChanges(migrated, options({ dualShip: true }))).toEqual([]);
  });

  it('dual shipping without any Datadog key is refused', () => {
    expect(() => planChanges({}, options({ dualShip: true }))).toThrow(/--vendor-api-key/);
    expect(() => planChanges({ dd_url: 'http://bridge:8126', api_key: 'ingest-key-1' }, options({ dualShip: true }))).toThrow(RewriteError);
  });
});

describe('rewriteAgentConfig refuses what it cannot do safely', () => {
  it.each([
    ['invalid YAML', 'api_key: [unclosed\n'],
    ['two documents', 'api_key: a\n---\napi_key: b\n'],
    ['a list at the top', '- api_key: a\n'],
    ['a duplicate key', 'api_key: a\napi_key: b\n'],
    ['an alias where a mapping must be edited', 'base: &b {enabled: false}\napm_config: *b\n'],
    ['a list where a mapping must be edited', 'logs_config:\n  - a\n'],
  ])('%s', (_what, text) => {
    expect(() => rewriteAgentConfig(text, options())).toThrow(RewriteError);
  });

  it('edits an anchored mapping in place, so its aliases see the change as YAML says they do', () => {
    const text = 'apm_config: &apm\n  enabled: false\nprocess_config:\n  apm: *apm\n';
    const tree = parse(rewriteAgentConfig(text, options()).text, { merge: true }) as { process_config: { apm: unknown }; apm_config: unknown };
    expect(tree.process_config.apm).toEqual(tree.apm_config);
  });

  it('replaces an explicit null with the nested block', () => {
    const out = rewriteAgentConfig('apm_config: null   # later\n', options()).text;
    expect(out).toMatch(/^apm_config:   # later\n  enabled: true\n  apm_dd_url: http:\/\/bridge:8126\n/);
  });

  it('fills an empty value after the colon, keeping its comment', () => {
    expect(rewriteAgentConfig('dd_url:   # set me\n', options()).text).toMatch(/^dd_url: http:\/\/bridge:8126   # set me\n/);
  });
});

describe('unifiedDiff', () => {
  const diffTool = (a: string, b: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ddb-diff-'));
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    const out = spawnSync('diff', ['-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' }).stdout;
    return out.split('\n').slice(2).join('\n');
  };
  const ours = (a: string, b: string): string => unifiedDiff(a, b, 'a', 'b').split('\n').slice(2).join('\n');
  const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'key: 1', '', '# x'), { maxLength: 40 }).map((l) => l.map((s) => s + '\n').join(''));

  it('is empty for equal texts', () => {
    expect(unifiedDiff('x\n', 'x\n', 'a', 'b')).toBe('');
  });

  /** A change's lines, in the order written. */
  const changes = (d: string): string[] => d.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-'));
  const CONTEXT = 3;

  /**
   * The hunks of a diff body (headers past the file names) are what `diff -u` writes: each header's
   * counts and starts agree with its lines and with the hunks before it, each change has at most
   * three lines of context on either side (fewer only at an end of the file), and hunks closer
   * than twice that are one hunk.
   */
  function expectDiffUShape(body: string, before: string): void {
    const oldLines = before === '' ? 0 : before.split('\n').length - 1;
    const hunks = body.split(/^(?=@@ )/m).filter(Boolean);
    let net = 0;
    let lastChangeEnd = -Infinity;
    for (const hunk of hunks) {
      const [header, ...rest] = hunk.replace(/\n$/, '').split('\n');
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(header ?? '');
      if (!m) throw new Error(`not a hunk header: ${header}`);
      const [os, oc, ns, nc] = [Number(m[1]), Number(m[2] ?? 1), Number(m[3]), Number(m[4] ?? 1)];
      const oStart = oc === 0 ? os : os - 1;
      const nStart = nc === 0 ? ns : ns - 1;
      const kinds = rest.map((l) => l[0]);
      expect([kinds.filter((k) => k !== '+').length, kinds.filter((k) => k !== '-').length]).toEqual([oc, nc]);
      expect(nStart - oStart).toBe(net);
      net += nc - oc;
      const first = kinds.findIndex((k) => k !== ' ');
      const last = kinds.length - 1 - [...kinds].reverse().findIndex((k) => k !== ' ');
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first === CONTEXT || (first < CONTEXT && oStart === 0)).toBe(true);
      const trailing = kinds.length - 1 - last;
      expect(trailing === CONTEXT || (trailing < CONTEXT && oStart + oc === oldLines)).toBe(true);
      const inner = kinds
        .slice(first, last + 1)
        .join('')
        .split(/[+-]+/);
      expect(Math.max(...inner.map((run) => run.length))).toBeLessThanOrEqual(2 * CONTEXT);
      // unchanged old lines between the previous hunk's last change and this hunk's first one
      const oldBeforeFirst = oStart + kinds.slice(0, first).filter((k) => k !== '+').length;
      expect(oldBeforeFirst - lastChangeEnd).toBeGreaterThan(2 * CONTEXT);
      lastChangeEnd = oStart + kinds.slice(0, last + 1).filter((k) => k !== '+').length;
    }
  }

  it('is shaped as diff -u on random line edits (hunks, counts, context), and as short as its edit', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        // diff(1) may pick another edit script of the same length, which can move a hunk's edges
        // (old b,b,a → new a,b,a: "-b +a" or "+a b -b"), so the shape is checked, not the text
        const mine = ours(a, b);
        expectDiffUShape(mine, a);
        expect(changes(mine).length).toBe(changes(diffTool(a, b)).length);
      }),
      // the pair on which comparing hunk headers with diff(1)'s failed one run in a few dozen
      { numRuns: 150, examples: [['b\nb\na\n# x\na\n', 'a\nb\na\n# x\na\n']] },
    );
  });

  it('checks the shape strictly enough to tell diff -u from a diff with other context', () => {
    const [a, b] = ['1\n2\n3\n4\n5\n6\n7\n8\n9\n', '1\n2\n3\n4\nfive\n6\n7\n8\n9\n'];
    expectDiffUShape(diffTool(a, b), a);
    expectDiffUShape(ours(a, b), a);
    const right = '@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n';
    expect(ours(a, b)).toBe(right);
    expectDiffUShape(right, a);
    expect(() => expectDiffUShape('@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n', a)).toThrow(); // one line of context
    expect(() => expectDiffUShape('@@ -1,9 +1,9 @@\n 1\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n', a)).toThrow(); // four
    expect(() => expectDiffUShape('@@ -2,7 +2,6 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n', a)).toThrow(); // a count off
    expect(() => expectDiffUShape('@@ -2,7 +3,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n', a)).toThrow(); // a start off
    const [c, d] = ['1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n', 'one\n2\n3\n4\n5\n6\n7\n8\n9\n10\neleven\n'];
    expectDiffUShape(diffTool(c, d), c);
    // two changes with nine lines between them are two hunks, not one
    expect(() => expectDiffUShape(`@@ -1,11 +1,11 @@\n-1\n+one\n${[2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => ` ${n}\n`).join('')}-11\n+eleven\n`, c)).toThrow();
  });

  it('patch(1) applies it to the old text and gets the new one', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const dir = mkdtempSync(join(tmpdir(), 'ddb-patch-'));
        writeFileSync(join(dir, 'file'), a);
        writeFileSync(join(dir, 'change.diff'), unifiedDiff(a, b, 'file', 'file'));
        if (a !== b) expect(spawnSync('patch', ['-s', join(dir, 'file'), join(dir, 'change.diff')], { encoding: 'utf8' }).status).toBe(0);
        expect(readFileSync(join(dir, 'file'), 'utf8')).toBe(b);
      }),
      { numRuns: 60 },
    );
  });
});

describe('backups', () => {
  const fresh = (content: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'ddb-bak-'));
    const file = join(dir, 'datadog.yaml');
    writeFileSync(file, content);
    chmodSync(file, 0o640);
    return file;
  };

  it('stamps in UTC, sortable as text', () => {
    expect(backupStamp(new Date('2026-01-02T03:04:05.678Z'))).toBe('20260102T030405Z');
  });

  it('two backups in one second get distinct names, listed oldest first', () => {
    const file = fresh('a: 1\n');
    const at = new Date('2026-01-02T03:04:05Z');
    const first = writeBackup(file, at);
    writeFileSync(file, 'a: 2\n');
    const second = writeBackup(file, at);
    expect(first).toBe(`${file}.bak-20260102T030405Z`);
    expect(second).toBe(`${file}.bak-20260102T030405Z-1`);
    expect(listBackups(file).map((b) => b.path)).toEqual([first, second]);
    expect(readFileSync(first, 'utf8')).toBe('a: 1\n');
    expect(statSync(second).mode & 0o777).toBe(0o640);
  });

  it('replaces the file keeping its mode, and writes through a symlink to its target', () => {
    const file = fresh('a: 1\n');
    const link = join(file, '..', 'link.yaml');
    symlinkSync(file, link);
    replaceFile(link, 'a: 2\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('a: 2\n');
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });
});

describe('guidance', () => {
  it('names the restart on each platform and the environment form without the key', () => {
    const text = afterWriteGuidance(rewriteAgentConfig('api_key: dd-key-0001\n', options({ dualShip: true })).settings);
    for (const s of ['systemctl restart datadog-agent', 'launchctl', 'Restart-Service', 'agent.exe" restart-service', 'docker restart', 'kubectl rollout restart daemonset/datadog-agent', 'datadog-agent status', 'datadog-agent diagnose']) {
      expect(text).toContain(s);
    }
    expect(text).toContain('DD_DD_URL=http://bridge:8126');
    expect(text).toContain('DD_APM_DD_URL=http://bridge:8126');
    expect(text).toContain('DD_LOGS_CONFIG_LOGS_DD_URL=bridge:8126');
    expect(text).toContain(`DD_APM_ADDITIONAL_ENDPOINTS='{"https://trace.agent.datadoghq.com":["<Datadog API key>"]}'`);
    expect(text).not.toContain('ingest-key-1');
    expect(text).not.toContain('dd-key-0001');
  });
});

describe('masker', () => {
  it('hides api_key values, additional_endpoints keys and given keys, wherever they appear', () => {
    const file = 'api_key: aaaa1111\nadditional_endpoints:\n  "https://app.datadoghq.com":\n    - bbbb2222\nlogs_config:\n  additional_endpoints:\n    - {api_key: cccc3333, Host: intake.example}\n';
    const mask = masker([file], ['dddd4444', undefined]);
    const shown = mask(`${file}key dddd4444 and aaaa1111 again`);
    for (const key of ['aaaa1111', 'bbbb2222', 'cccc3333', 'dddd4444']) expect(shown).not.toContain(key);
    expect(shown).toContain('Host: intake.example');
  });

  it('still hides the api_key line of a file that does not parse', () => {
    expect(masker(['api_key: eeee5555\n  broken: [\n'], [])('-api_key: eeee5555\n')).toBe('-api_key: ********\n');
  });
});
