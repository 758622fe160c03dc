/** The files a command line names: the input exports, the metadata.csv files of --metric-types. */
import { readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
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

/** An input export and what identifies it when it carries no Datadog id. */
export interface ExportFile {
  file: string;
  /** its path under the DIR named (its name alone when named itself), `/`-separated */
  identity: string;
}

/**
 * The `*.json` exports under the paths named. An export without a Datadog id (integrations-core's
 * files have none) is known by its path under the directory named, never by its title: two
 * monitors may share a name, and a renamed one is still the same monitor.
 */
export function exportFiles(paths: readonly string[]): ExportFile[] {
  return paths.flatMap((p) => filesUnder([p], (f) => f.endsWith('.json')).map((file) => ({ file, identity: (file === p ? basename(file) : relative(p, file)).split(sep).join('/') })));
}
