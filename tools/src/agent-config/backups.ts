/**
 * Backups next to the agent's file and writes that keep the file usable by the agent: the new
 * content replaces the file atomically (never a half-written datadog.yaml) and keeps its mode and
 * owner (the agent runs as dd-agent and must still read a file edited by root).
 */
import { chmodSync, chownSync, copyFileSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const BACKUP = /^(.+)\.bak-(\d{8}T\d{6}Z)(?:-(\d+))?$/;

/** `20260102T030405Z`: sorts as text in time order. */
export const backupStamp = (at: Date): string =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

export interface Backup {
  path: string;
  stamp: string;
  seq: number;
}

/** Backups of `file`, oldest first. */
export function listBackups(file: string): Backup[] {
  const target = realpathSync(file);
  const name = basename(target);
  return readdirSync(dirname(target))
    .flatMap((entry) => {
      const m = BACKUP.exec(entry);
      return m && m[1] === name ? [{ path: join(dirname(target), entry), stamp: m[2]!, seq: Number(m[3] ?? 0) }] : [];
    })
    .sort((a, b) => a.stamp.localeCompare(b.stamp) || a.seq - b.seq);
}

/** Copies `file` to `<file>.bak-<stamp>` (a `-N` suffix when two runs share a second). */
export function writeBackup(file: string, at: Date): string {
  const target = realpathSync(file);
  const stamp = backupStamp(at);
  const taken = new Set(
    listBackups(target)
      .filter((b) => b.stamp === stamp)
      .map((b) => b.seq),
  );
  let seq = 0;
  while (taken.has(seq)) seq++;
  const path = `${target}.bak-${stamp}${seq ? `-${seq}` : ''}`;
  copyFileSync(target, path);
  keepOwnership(target, path);
  return path;
}

/** The backup holds the API key too: same mode and owner as the file itself. */
function keepOwnership(from: string, to: string): void {
  const st = statSync(from);
  chmodSync(to, st.mode & 0o7777);
  try {
    chownSync(to, st.uid, st.gid);
  } catch {
    // not root: the file stays ours, which is who could already read the original
  }
}

/** Replaces the file (through a symlink, the file it points at) by `content` in one rename. */
export function replaceFile(file: string, content: string): void {
  const target = realpathSync(file);
  const temp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}`);
  // owner-only until it has the original's mode: the content holds the API key
  writeFileSync(temp, content, { flag: 'wx', mode: 0o600 });
  try {
    keepOwnership(target, temp);
    renameSync(temp, target);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
}
