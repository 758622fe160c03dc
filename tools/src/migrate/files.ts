/** The files a command line names: the input exports, the metadata.csv files of --metric-types. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../src/config';

/**
 * Each path named, or the files under it `keep` accepts when it is a directory (recursively, in a
 * stable order). A path that cannot be read is a ConfigError naming it, after `label` when given.
 */
export function filesUnder(paths: readonly string[], keep: (file: string) => boolean, label = ''): string[] {
  return paths.flatMap((p) => {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(p);
    } catch (err) {
      throw new ConfigError(`${label}${p}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!stat.isDirectory()) return [p];
    return readdirSync(p, { recursive: true, encoding: 'utf8' })
      .filter(keep)
      .sort()
      .map((f) => join(p, f));
  });
}
