/**
 * What the translators' caches (caches.ts) learn that other processes serving the same intake must
 * see, when the sidecar runs several (`--workers`, src/cli/workers/). One process has none: its
 * RouteContext carries no SharedState, and the server runs a route's step once, as it always did.
 *
 * A route's step is synchronous (route.ts), so what the caches learn and miss while it runs belongs
 * to that request alone: a session records it around the step, asks the other processes for what
 * was missed, and says when they know what was learned.
 */
export interface SharedStateSession {
  /** Runs one pass of a route's step, noting what the caches learned and what they looked up in vain. */
  record<T>(step: () => T): T;
  /**
   * Asks the other processes for what the passes so far missed and puts the answers in the caches;
   * true when something was found, so that another pass would translate differently.
   */
  fetchMisses(): Promise<boolean>;
  /** Resolves once every process knows what the passes learned; the sender's 2xx waits for it. */
  publish(): Promise<void>;
}

export interface SharedState {
  session(): SharedStateSession;
}
