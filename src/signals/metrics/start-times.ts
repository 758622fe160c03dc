/**
 * Start times for delta points whose window the sender did not state (counts and rates without an
 * interval, sketches, distribution points): a point's window starts where the previous point of the
 * same stream ended. Upstream keeps every stream's last timestamp forever and gives first points
 * StartTimeUnixNano 0, the epoch, which some backends reject (docs/translation.md, Start times).
 *
 * Here the memory is bounded twice: at most `maxEntries` streams (least recently seen evicted
 * first) and none idle longer than `idleMs`; an identity is kept as it is only when short, as a
 * fixed-size hash otherwise, so long tag lists cost no more than short ones (identity() hashes
 * the origin once, so that a point needs no hash of its own). A stream not seen recently starts
 * its window at its own timestamp. The same point sent again (the agent retries after a 503) gets
 * the same start. A point of a known stream rewrites its entry in place and moves it to the end
 * of the recency order (RecencyMap): a new entry and a Map write per point was the largest part of
 * the sidecar's peak RSS on sketches.
 */
import { hash } from 'node:crypto';
import { RecencyMap } from '../shared/recency-map';
import { resourceKey } from '../shared/resource-promotion';
import type { KeyValue } from '../../core/otlp/model';
import type { MetricOrigin } from './resource';
import { secondsToNanos } from './time';

export interface StartTimeOptions {
  maxEntries: number;
  idleMs: number;
}

export const DEFAULT_START_TIME_OPTIONS: StartTimeOptions = { maxEntries: 100_000, idleMs: 15 * 60_000 };

interface StreamEntry {
  lastNs: bigint;
  startNs: bigint;
  idleUntil: number;
}

export class StreamStartTimes {
  /** Least recently seen first, where both eviction and idle expiry look. */
  private readonly streams = new RecencyMap<string, StreamEntry>();
  /** While `inOrder`: no entry's idleUntil is earlier than this, so nothing can have expired before it. */
  private earliestIdle = Infinity;
  /** Whether every idleUntil set so far is at or after the one before (the clock never stepped back). */
  private inOrder = true;
  private lastIdle = -Infinity;
  /** digestOf's, by attribute list: weak, so a list nobody holds takes its digest with it */
  private readonly digests = new WeakMap<readonly KeyValue[], string>();

  constructor(
    private readonly options: StartTimeOptions = DEFAULT_START_TIME_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Start of the window ending at `timeNs` for the stream `identity` (any string naming it). */
  startFor(identity: string, timeNs: bigint): bigint {
    const now = this.now();
    // only look at the front when something may have expired: most points have nothing to expire
    if (!(this.inOrder && now < this.earliestIdle)) this.expireIdle(now);
    const key = storedKey(identity);
    const seen = this.streams.get(key);
    if (seen && timeNs < seen.lastNs) return timeNs; // a late point: its window is unknown, and the stream's end stays put
    const startNs = !seen ? timeNs : timeNs === seen.lastNs ? seen.startNs : seen.lastNs;
    const idleUntil = now + this.options.idleMs;
    if (seen) {
      seen.lastNs = timeNs;
      seen.startNs = startNs;
      seen.idleUntil = idleUntil;
      this.streams.set(key, seen);
    } else this.streams.set(key, { lastNs: timeNs, startNs, idleUntil });
    if (idleUntil < this.lastIdle) this.inOrder = false;
    this.lastIdle = idleUntil;
    this.earliestIdle = Math.min(this.earliestIdle, idleUntil);
    if (this.streams.size > this.options.maxEntries) this.streams.dropOldest();
    return startNs;
  }

  get size(): number {
    return this.streams.size;
  }

  /** A stream: one metric of one kind from one resource with one set of point attributes. */
  identity(kind: string, name: string, origin: MetricOrigin): string {
    return `${kind}\0${name}\0${this.digestOf(origin.resource)}${this.digestOf(origin.attributes)}`;
  }

  /**
   * sha256 of attributes, order-independent, made once per attribute list rather than per point:
   * origins share their resource and attribute lists within a request (see memoizedOrigin), so a
   * payload hashes each distinct resource and attribute set once. Fixed-size (44 characters) and
   * free of `\0`, so the identity still splits one way only.
   */
  private digestOf(attributes: readonly KeyValue[]): string {
    let digest = this.digests.get(attributes);
    if (digest === undefined) {
      digest = hash('sha256', resourceKey(attributes), 'base64');
      this.digests.set(attributes, digest);
    }
    return digest;
  }

  /**
   * Every entry was last touched no later than the ones after it, so the idle ones sit at the
   * front; while the clock has not stepped back, the first one kept is also the earliest to expire.
   */
  private expireIdle(now: number): void {
    for (let entry = this.streams.oldest(); entry !== undefined; entry = this.streams.oldest()) {
      if (entry.idleUntil > now) {
        this.earliestIdle = entry.idleUntil;
        return;
      }
      this.streams.dropOldest();
    }
    this.earliestIdle = Infinity;
  }
}

/** Longest identity stored as it is (the kind, the name and two digests of 44 characters fit it). */
const MAX_PLAIN_KEY = 192;

/** Short identities as they are, long ones hashed (identity() always holds a `\0`, which base64 has not, so the two never meet). */
const storedKey = (identity: string): string => (identity.length <= MAX_PLAIN_KEY ? identity : hash('sha256', identity, 'base64'));

/**
 * Where delta points' windows start: the `interval` seconds before each point when the sender
 * says (the agent's flush or check interval: exact and stateless, and the stream identity is not
 * even computed), otherwise from the stream's history.
 */
export function windowStarts(streams: StreamStartTimes, identity: () => string, intervalSeconds: number): (timeNs: bigint) => bigint {
  const width = intervalSeconds > 0 ? secondsToNanos(intervalSeconds) : undefined;
  // a window reaching back past the epoch is clamped to it (fixed64 has no negative times)
  if (width !== undefined) return (timeNs) => (timeNs > width ? timeNs - width : 0n);
  const stream = identity();
  return (timeNs) => streams.startFor(stream, timeNs);
}
