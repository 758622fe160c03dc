/**
 * The embedded ClickHouse's passwords: made at its first start, kept in its home (mode 0600) and
 * reused by every later start on that home. `credentials.json` holds both users; `reader.netrc` is
 * the reader's alone, in the form `curl --netrc-file` reads, so the printed curl never carries the
 * password itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClickHouseLogin {
  user: string;
  password: string;
}

export interface ClickHouseCredentials {
  /** Read-only: HyperDX and curl. */
  reader: ClickHouseLogin;
  /** Creates and fills the otel_* tables: the collector's exporter. */
  collector: ClickHouseLogin;
  /** `<home>/credentials.json`. */
  file: string;
  /** `<home>/reader.netrc`, for `curl --netrc-file`. */
  netrc: string;
}

export const CREDENTIALS_FILE = 'credentials.json';
export const READER_NETRC = 'reader.netrc';
const OWNER_ONLY = 0o600;

export const newPassword = (): string => randomBytes(24).toString('base64url');
export const sha256Hex = (password: string): string => createHash('sha256').update(password).digest('hex');

const isLogin = (value: unknown, user: string): value is ClickHouseLogin =>
  typeof value === 'object' && value !== null && (value as ClickHouseLogin).user === user && typeof (value as ClickHouseLogin).password === 'string' && (value as ClickHouseLogin).password !== '';

function parseCredentials(file: string): Pick<ClickHouseCredentials, 'reader' | 'collector'> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { reader?: unknown; collector?: unknown };
  if (!isLogin(parsed.reader, 'reader') || !isLogin(parsed.collector, 'collector')) throw new Error(`${file}: expected {"reader": {"user": "reader", "password": …}, "collector": {"user": "collector", "password": …}}; delete it to make new passwords`);
  return { reader: parsed.reader, collector: parsed.collector };
}

/**
 * Written to a private temporary name, then hard-linked into place: the link fails when the file
 * exists, so of two first starts at once (test suites share a home) one makes the passwords and
 * both use them.
 */
function createOnce(file: string): void {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const logins = { reader: { user: 'reader', password: newPassword() }, collector: { user: 'collector', password: newPassword() } };
  writeFileSync(draft, `${JSON.stringify(logins, null, 2)}\n`, { mode: OWNER_ONLY, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(draft, { force: true });
  }
}

const netrcText = (reader: ClickHouseLogin): string => ['127.0.0.1', 'localhost'].map((host) => `machine ${host} login ${reader.user} password ${reader.password}\n`).join('');

/** The home's passwords, made on its first start; both files end up 0600 whatever they were. */
export function ensureClickHouseCredentials(home: string): ClickHouseCredentials {
  mkdirSync(home, { recursive: true });
  const file = join(home, CREDENTIALS_FILE);
  const netrc = join(home, READER_NETRC);
  if (!existsSync(file)) createOnce(file);
  if ((statSync(file).mode & 0o777) !== OWNER_ONLY) chmodSync(file, OWNER_ONLY);
  const logins = parseCredentials(file);
  writeFileSync(netrc, netrcText(logins.reader), { mode: OWNER_ONLY });
  chmodSync(netrc, OWNER_ONLY);
  return { ...logins, file, netrc };
}
