/**
 * Loading the Datadog log pipelines `--log-pipelines` names, at start and again on SIGHUP. A
 * reload compiles the new set aside, a file at a time with the event loop served between files,
 * and then replaces the one in force in one assignment: a request being translated keeps the set
 * it started with, the next one gets the new set, and none is refused or held meanwhile. A reload
 * that fails keeps the set in force and says why.
 */
import type { Config } from '../config';
import type { Logger } from '../core/observability/log';
import type { TranslatorCaches } from '../signals/caches';
import { type LoadedPipelines, loadPipelinesYielding } from '../signals/logs/pipelines/pipeline-set';

/** What cannot run is listed once per load, not per record: this many lines, then a count. */
const UNSUPPORTED_LINES = 20;

function inForce({ set, unsupported, counts }: LoadedPipelines, caches: TranslatorCaches, log: Logger): void {
  caches.logPipelines.current = set;
  log.info('log pipelines loaded', { integration: counts.integration, custom: counts.custom, unsupported: unsupported.length });
  for (const u of unsupported.slice(0, UNSUPPORTED_LINES)) log.warn('log pipeline part not run', { at: u.path, reason: u.reason });
  if (unsupported.length > UNSUPPORTED_LINES) log.warn('more log pipeline parts not run', { count: unsupported.length - UNSUPPORTED_LINES });
}

/**
 * Loads the pipelines (a path that cannot be read fails the start; the event loop is served
 * meanwhile, the admin port's health and metrics with it) and reloads them on SIGHUP, one reload
 * at a time (a SIGHUP during one asks for another after it); resolves with what stops listening.
 */
export async function startLogPipelines(config: Config, caches: TranslatorCaches, log: Logger): Promise<() => void> {
  if (config.logPipelines.length === 0) return () => {};
  inForce(await loadPipelinesYielding(config.logPipelines), caches, log);
  let reloading = false;
  let again = false;
  const reload = async (): Promise<void> => {
    if (reloading) {
      again = true;
      return;
    }
    reloading = true;
    do {
      again = false;
      try {
        inForce(await loadPipelinesYielding(config.logPipelines), caches, log);
      } catch (e) {
        log.error('log pipelines not reloaded; the ones in force stay', { error: (e as Error).message });
      }
    } while (again);
    reloading = false;
  };
  const onHup = (): void => {
    void reload();
  };
  process.on('SIGHUP', onHup);
  return () => {
    process.off('SIGHUP', onHup);
  };
}
