import type { Logger } from '../core/observability/log';

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then exit. */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('error during shutdown', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
