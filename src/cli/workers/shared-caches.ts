/**
 * A worker's side of the caches several workers share (src/signals/shared-state.ts): the caches
 * the translators use, each noting what the request being translated teaches it and what it looks
 * up in vain, and the session that tells the primary (coordinator.ts) and asks it.
 *
 * - 128-bit trace ids: a worker keeps what it learned and what it was told; the primary holds
 *   every pair. What a request taught is published before its 2xx; ids a request missed are asked
 *   for in one round trip, and the request translated again when the primary knew any.
 * - metric start times: a stream is carried by one worker at a time. A worker that meets a stream
 *   it does not carry asks for it; the primary has the worker that carried it hand it over.
 * - host metadata and service identities: published, and told to every other worker.
 */
import { UnavailableError } from '../../core/errors';
import type { KeyValue } from '../../core/otlp/model';
import { rateLimited, type Logger } from '../../core/observability/log';
import { createTranslatorCaches, type TranslatorCacheOptions, type TranslatorCaches } from '../../signals/caches';
import { copyOfState, DEFAULT_START_TIME_OPTIONS, StreamStartTimes, type StartTimeOptions, type StreamState } from '../../signals/metrics/start-times';
import { HostMetadataTable, type HostMetadataOptions } from '../../signals/shared/host-metadata';
import { TraceIdCache, type TraceIdCacheOptions } from '../../signals/shared/trace-id';
import type { SharedState, SharedStateSession } from '../../signals/shared-state';
import { ServiceIdentities } from '../../signals/traces/service-identity';
import type { Broadcast, Lessons, PrimaryRequest, WorkerChannel } from './protocol';

/** How long a worker waits for the primary: past it a publish is answered 503 (the sender retries), a lookup finds nothing. */
export const PRIMARY_TIMEOUT_MS = 5_000;

/** One line per message per this interval, as the intake writes its request-rate lines (src/http/intake-app.ts). */
const LOG_INTERVAL_MS = 10_000;

/** What one request's passes taught and missed. */
class Recording {
  readonly lessons: Lessons = { traceIds: [], hosts: [], services: [] };
  readonly missedTraceIds = new Set<bigint>();
  readonly missedStreams = new Set<string>();
  /** each stream the first pass changed, as it was before (undefined: new here) */
  readonly changedStreams = new Map<string, StreamState | undefined>();
}

const sameState = (a: StreamState | undefined, b: StreamState | undefined): boolean => a?.lastNs === b?.lastNs && a?.startNs === b?.startNs;

/** The recording of the request whose step is running (steps are synchronous: one at a time). */
interface Recorder {
  current: Recording | undefined;
}

class SharingTraceIdCache extends TraceIdCache {
  constructor(
    options: TraceIdCacheOptions | undefined,
    private readonly recorder: Recorder,
  ) {
    super(options);
  }

  override remember(low: bigint, high: bigint): void {
    if (high !== 0n && super.highFor(low) !== high) this.recorder.current?.lessons.traceIds.push(low, high);
    super.remember(low, high);
  }

  override highFor(low: bigint): bigint | undefined {
    const high = super.highFor(low);
    if (high === undefined) this.recorder.current?.missedTraceIds.add(low);
    return high;
  }

  /** What the primary said: known here from now on, and not taught back. */
  adopt(low: bigint, high: bigint): void {
    super.remember(low, high);
  }
}

class SharingStreamStartTimes extends StreamStartTimes {
  constructor(
    options: StartTimeOptions,
    private readonly recorder: Recorder,
  ) {
    super(options);
  }

  protected override unknownStream(key: string): void {
    this.recorder.current?.missedStreams.add(key);
  }

  protected override changing(key: string, before: StreamState | undefined): void {
    const changed = this.recorder.current?.changedStreams;
    if (changed && !changed.has(key)) changed.set(key, before && copyOfState(before));
  }

  /**
   * Puts the streams a first pass changed back as it found them, for a second pass to give the
   * same windows. A stream another request changed since (`left`: what the first pass left) is
   * left as that request made it.
   */
  rewind(before: ReadonlyMap<string, StreamState | undefined>, left: ReadonlyMap<string, StreamState | undefined>): void {
    for (const [key, state] of before) {
      if (!sameState(this.stateOf(key), left.get(key))) continue;
      if (state === undefined) this.take(key);
      else this.put(key, state);
    }
  }
}

class SharingHostMetadataTable extends HostMetadataTable {
  constructor(
    options: HostMetadataOptions | undefined,
    private readonly recorder: Recorder,
  ) {
    super(options);
  }

  override set(host: string, attributes: readonly KeyValue[]): void {
    super.set(host, attributes);
    this.recorder.current?.lessons.hosts.push([host, attributes]);
  }

  adopt(host: string, attributes: readonly KeyValue[]): void {
    super.set(host, attributes);
  }
}

class SharingServiceIdentities extends ServiceIdentities {
  constructor(private readonly recorder: Recorder) {
    super();
  }

  override learn(env: string, service: string, base: string): void {
    // the common case, a pair already known, teaches nothing
    if (this.baseOf(env, service) !== base) this.recorder.current?.lessons.services.push([env, service, base]);
    super.learn(env, service, base);
  }

  adopt(env: string, service: string, base: string): void {
    super.learn(env, service, base);
  }
}

/** A worker's caches and what it tells and asks the primary about them. */
export class WorkerSharedState implements SharedState {
  readonly caches: TranslatorCaches;
  private readonly recorder: Recorder = { current: undefined };
  private readonly traceIds: SharingTraceIdCache;
  private readonly streams: SharingStreamStartTimes;
  private readonly hosts: SharingHostMetadataTable;
  private readonly services: SharingServiceIdentities;
  /** a primary that does not answer would otherwise be logged at request rate */
  private readonly log: Logger;

  constructor(
    options: TranslatorCacheOptions,
    private readonly primary: () => WorkerChannel,
    log: Logger,
  ) {
    this.log = rateLimited(log, LOG_INTERVAL_MS);
    this.traceIds = new SharingTraceIdCache(options.traceIds, this.recorder);
    this.streams = new SharingStreamStartTimes(options.metricStreams ?? DEFAULT_START_TIME_OPTIONS, this.recorder);
    this.hosts = new SharingHostMetadataTable(options.hosts, this.recorder);
    this.services = new SharingServiceIdentities(this.recorder);
    this.caches = createTranslatorCaches(options, { traceIds: this.traceIds, metricStreams: this.streams, hosts: this.hosts, serviceIdentities: this.services });
  }

  session(): SharedStateSession {
    return new Session(this.recorder, this);
  }

  /** The primary's requests about the caches; undefined for the others (worker.ts answers those). */
  answer(request: PrimaryRequest): null | (StreamState | undefined)[] | undefined {
    if (request.type === 'adopt') {
      this.adopt(request.lessons);
      return null;
    }
    return request.type === 'release' ? this.release(request.streams) : undefined;
  }

  /** What another worker learned (the primary tells every worker). */
  adopt(lessons: Broadcast): void {
    for (const [host, attributes] of lessons.hosts) this.hosts.adopt(host, attributes);
    for (const [env, service, base] of lessons.services) this.services.adopt(env, service, base);
  }

  /** Hands streams over to the worker that now meets them. */
  release(keys: readonly string[]): (StreamState | undefined)[] {
    return keys.map((key) => this.streams.take(key));
  }

  /**
   * Asks the primary for what a request missed; true when it knew anything, and then the streams
   * the first pass changed are as it found them again, for the second.
   */
  async fetch(recording: Recording): Promise<boolean> {
    const traceIds = [...recording.missedTraceIds];
    const streams = [...recording.missedStreams];
    const changed = new Map(recording.changedStreams);
    recording.missedTraceIds.clear();
    recording.missedStreams.clear();
    recording.changedStreams.clear();
    if (traceIds.length === 0 && streams.length === 0) return false;
    // taken before the round trip, during which other requests may carry these streams on
    const left = new Map([...changed.keys()].map((key) => [key, this.streams.stateOf(key)]));
    const found = await this.primary()
      .request({ type: 'lookup', traceIds, streams }, PRIMARY_TIMEOUT_MS)
      .catch((err: Error) => {
        // translated with what this worker knows: a log keeps its 64-bit id, a stream starts afresh
        this.log.warn('could not ask the primary what other workers learned', { error: err.message });
        return undefined;
      });
    if (!found) return false;
    const any = found.highs.some((high) => high !== undefined) || found.streams.some((state) => state !== undefined);
    if (!any) return false;
    this.streams.rewind(changed, left);
    found.highs.forEach((high, i) => {
      if (high !== undefined) this.traceIds.adopt(traceIds[i] as bigint, high);
    });
    found.streams.forEach((state, i) => {
      if (state !== undefined) this.streams.put(streams[i] as string, state);
    });
    return true;
  }

  /** Tells the primary what a request taught; rejects (503 for the sender) when it cannot. */
  publish(lessons: Lessons): Promise<void> {
    if (lessons.traceIds.length === 0 && lessons.hosts.length === 0 && lessons.services.length === 0) return Promise.resolve();
    return this.primary()
      .request({ type: 'publish', lessons }, PRIMARY_TIMEOUT_MS)
      .then(
        () => undefined,
        (err: Error) => {
          throw new UnavailableError(`the other workers could not be told what this request taught (${err.message})`, 1);
        },
      );
  }
}

class Session implements SharedStateSession {
  private readonly recording = new Recording();

  constructor(
    private readonly recorder: Recorder,
    private readonly state: WorkerSharedState,
  ) {}

  record<T>(step: () => T): T {
    this.recorder.current = this.recording;
    try {
      return step();
    } finally {
      this.recorder.current = undefined;
    }
  }

  fetchMisses(): Promise<boolean> {
    return this.state.fetch(this.recording);
  }

  publish(): Promise<void> {
    return this.state.publish(this.recording.lessons);
  }
}
