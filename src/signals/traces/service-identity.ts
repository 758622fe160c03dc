/**
 * One service identity for spans and APM-stats metrics (docs/translation.md, Service identity).
 * A Datadog integration span may carry its own service (`py-shop-postgres`) with the process's
 * service in `_dd.base_service` (`py-shop`); spans are grouped under the base service, the
 * process that did the work, as its logs are. APM stats are grouped by the span's own service and
 * do not say the base service, so the spans teach this table which base service each integration
 * service belongs to, per environment, and the stats translation asks it.
 *
 * Two processes of one environment may name their integration spans alike (`postgres.db` is
 * dd-trace-go's default for every program): once one integration service has been seen under two
 * base services the answer is unknown, and stats keep their own service rather than be credited to
 * the wrong one. Bounded: past `maxEntries` pairs the table starts afresh (spans teach it again
 * within a flush). Nested maps rather than one joined key: every integration span asks, and a
 * lookup that hits allocates nothing.
 */

/** Seen under more than one base service. */
const AMBIGUOUS = '';
const DEFAULT_MAX_ENTRIES = 10_000;

export class ServiceIdentities {
  private readonly byEnv = new Map<string, Map<string, string>>();
  private entries = 0;

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** `service` (a span's own) ran inside the process whose service is `base`. */
  learn(env: string, service: string, base: string): void {
    let bases = this.byEnv.get(env);
    const known = bases?.get(service);
    if (known === base || known === AMBIGUOUS) return;
    if (known === undefined && ++this.entries > this.maxEntries) {
      this.byEnv.clear();
      this.entries = 1;
      bases = undefined;
    }
    if (bases === undefined) {
      bases = new Map();
      this.byEnv.set(env, bases);
    }
    bases.set(service, known === undefined ? base : AMBIGUOUS);
  }

  /** The base service spans of `service` were grouped under, when exactly one is known. */
  baseOf(env: string, service: string): string | undefined {
    return this.byEnv.get(env)?.get(service) || undefined;
  }
}
