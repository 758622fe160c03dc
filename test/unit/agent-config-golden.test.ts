/**
 * Golden before/after pairs of realistic datadog.yaml files (test/fixtures/agent-config/<case>/).
 * UPDATE_GOLDEN=1 rewrites after.yaml; review the diff before committing it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { unifiedDiff } from '../../tools/src/agent-config/diff';
import type { AgentConfigOptions } from '../../tools/src/agent-config/plan';
import { rewriteAgentConfig } from '../../tools/src/agent-config/rewrite';
import { parseBridgeUrl } from '../../tools/src/agent-config/target';

const DIR = join(__dirname, '..', 'fixtures', 'agent-config');
const CASES = readdirSync(DIR).sort();

interface FixtureOptions {
  url: string;
  apiKey?: string;
  v3?: boolean;
  dualShip?: boolean;
  vendorApiKey?: string;
}

function load(name: string): { before: string; after: string | undefined; options: AgentConfigOptions } {
  const read = (file: string) => readFileSync(join(DIR, name, file), 'utf8');
  const raw = JSON.parse(read('options.json')) as FixtureOptions;
  return {
    before: read('before.yaml'),
    after: existsSync(join(DIR, name, 'after.yaml')) ? read('after.yaml') : undefined,
    options: { ...raw, target: parseBridgeUrl(raw.url) },
  };
}

const commentLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .filter((l) => l.trim().startsWith('#'))
    .map((l) => l.trim());

describe('agent-config golden files', () => {
  it('has the realistic cases', () => {
    expect(CASES).toEqual(expect.arrayContaining(['installer-default', 'existing-sections', 'anchors-and-env', 'already-migrated', 'dual-ship', 'windows-crlf']));
  });

  describe.each(CASES)('%s', (name) => {
    const { before, after, options } = load(name);
    const result = rewriteAgentConfig(before, options);
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, name, 'after.yaml'), result.text);

    it('rewrites before.yaml into after.yaml', () => {
      expect(result.text).toBe(after);
    });

    it('is idempotent: after.yaml needs no change', () => {
      const again = rewriteAgentConfig(result.text, options);
      expect(again.changes).toEqual([]);
      expect(again.text).toBe(result.text);
    });

    it('keeps every comment', () => {
      expect(commentLines(result.text)).toEqual(expect.arrayContaining(commentLines(before)));
    });

    it('means the wanted settings', () => {
      const tree = parse(result.text, { merge: true }) as Record<string, Record<string, unknown>>;
      expect(tree.dd_url).toBe(options.target.url);
      expect(tree.apm_config?.apm_dd_url).toBe(options.target.url);
      expect(tree.apm_config?.enabled).toBe(true);
      expect(tree.logs_enabled).toBe(true);
      expect(tree.logs_config?.logs_dd_url).toBe(options.target.hostPort);
      expect(tree.logs_config?.force_use_http).toBe(true);
      expect(tree.remote_updates).toBe(false);
      expect(tree.remote_configuration?.enabled).toBe(false);
      if (options.apiKey) expect(tree.api_key).toBe(options.apiKey);
    });

    it('removes or replaces only lines of the keys it sets (unless the layout had to be re-rendered)', () => {
      if (result.normalized) return;
      const keys = new Set(result.changes.flatMap((c) => c.path));
      const removed = unifiedDiff(before, result.text, 'a', 'b')
        .split('\n')
        .filter((l) => l.startsWith('-') && !l.startsWith('---'));
      for (const line of removed) expect([...keys].some((k) => line.includes(`${k}:`))).toBe(true);
    });
  });
});
