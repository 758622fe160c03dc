/**
 * Loading the Datadog log pipelines `--log-pipelines` names, at start and again on SIGHUP. A
 * reload compiles the new set aside and then replaces the one in force in one assignment: a
 * request being translated keeps the set it started with, the next one gets the new set, and none
 * is refused meanwhile. A reload that fails keeps the set in force and says why.
 */
import type { Config } from '../config';
import type { Logger } from '../core/observability/log';
import type { TranslatorCaches } from '../signals/caches';
import { loadPipelines } from '../signals/logs/pipelines/pipeline-set';

/** What cannot run is listed once per load, not per record: this many lines, then a count. */
const UNSUPPORTED_LINES = 20;

function load(config: Config, caches: TranslatorCaches, log: Logger): void {
  const { set, unsupported, counts } = loadPipelines(config.logPipelines);
  caches.logPipelines.current = set;
  log.info('log pipelines loaded', { integration: counts.integration, custom: counts.custom, unsupported: unsupported.length });
  for (const u of unsupported.slice(0, UNSUPPORTED_LINES)) log.warn('log pipeline part not run', { at: u.path, reason: u.reason });
  if (unsupported.length > UNSUPPORTED_LINES) log.warn('more log pipeline parts not run', { count: unsupported.length - UNSUPPORTED_LINES });
}

/** Loads the pipelines (a path that cannot be read fails the start) and reloads them on SIGHUP; returns what stops listening. */
export function startLogPipelines(config: Config, caches: TranslatorCaches, log: Logger): () => void {
  if (config.logPipelines.length === 0) return () => {};
  load(config, caches, log);
  const reload = (): void => {
    try {
      load(config, caches, log);
    } catch (e) {
      log.error('log pipelines not reloaded; the ones in force stay', { error: (e as Error).message });
    }
  };
  process.on('SIGHUP', reload);
  return () => {
    process.off('SIGHUP', reload);
  };
}
