/**
 * The embedded ClickHouse's passwords (tools/src/clickhouse/credentials.ts): made once per home,
 * owner-only files, reused by every later start, and a damaged file named in the error.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClickHouseCredentials } from '../../tools/src/clickhouse/credentials';

const home = (): string => mkdtempSync(join(tmpdir(), 'dd-bridge-ch-credentials-'));
const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

describe('embedded ClickHouse credentials', () => {
  it('the first start makes a password per user, in two files only the owner can read', () => {
    const made = ensureClickHouseCredentials(home());
    expect([made.reader.user, made.collector.user]).toEqual(['reader', 'collector']);
    expect(made.reader.password).toMatch(/^[\w-]{32}$/);
    expect(made.collector.password).toMatch(/^[\w-]{32}$/);
    expect(made.reader.password).not.toBe(made.collector.password);
    expect([modeOf(made.file), modeOf(made.netrc)]).toEqual(['600', '600']);
    // curl --netrc-file: the reader's login, for both names of the loopback host, and nothing else
    expect(readFileSync(made.netrc, 'utf8')).toBe(`machine 127.0.0.1 login reader password ${made.reader.password}\nmachine localhost login reader password ${made.reader.password}\n`);
  });

  it('later starts reuse them, and close a file that was opened up', () => {
    const dir = home();
    const first = ensureClickHouseCredentials(dir);
    chmodSync(first.file, 0o644);
    const again = ensureClickHouseCredentials(dir);
    expect(again.reader).toEqual(first.reader);
    expect(again.collector).toEqual(first.collector);
    expect(modeOf(again.file)).toBe('600');
  });

  it('a damaged file is named, with what to do', () => {
    const dir = home();
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ reader: { user: 'reader', password: '' } }), { mode: 0o600 });
    expect(() => ensureClickHouseCredentials(dir)).toThrow(`${join(dir, 'credentials.json')}: expected {"reader": {"user": "reader", "password": …}, "collector": {"user": "collector", "password": …}}; delete it to make new passwords`);
  });
});
