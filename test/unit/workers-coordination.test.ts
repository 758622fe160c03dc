/**
 * The protocol by which workers share what their caches learn (src/cli/workers/): the primary's
 * Coordinator and each worker's WorkerSharedState, wired by in-memory channels that clone every
 * message as the cluster's advanced serialization does. The e2e proof with real processes is
 * test/e2e/workers.test.ts.
 */
import { UnavailableError } from '../../src/core/errors';
import { createLogger } from '../../src/core/observability/log';
import type { KeyValue } from '../../src/core/otlp/model';
import { Coordinator } from '../../src/cli/workers/coordinator';
import { Channel, type PrimaryChannel, type PrimaryRequest, type WorkerChannel, type WorkerRequest } from '../../src/cli/workers/protocol';
import { WorkerSharedState } from '../../src/cli/workers/shared-caches';
import { widenTraceId } from '../../src/signals/shared/trace-id';
import type { TranslatorCacheOptions } from '../../src/signals/caches';

const OPTIONS: TranslatorCacheOptions = {
  traceIds: { maxEntries: 1000, ttlMs: 60_000 },
  metricStreams: { maxEntries: 1000, idleMs: 60_000 },
  hosts: { maxHosts: 100, ttlMs: 60_000 },
  semconv: { http: 'old', database: 'old' },
  kubernetesMetrics: { otelNames: true, datadogNames: true },
};
const silent = createLogger('error', {}, () => undefined);

interface TestCluster {
  coordinator: Coordinator;
  workers: WorkerSharedState[];
  /** what the primary saw, by type */
  requests: WorkerRequest['type'][];
}

/** A coordinator and `n` workers, each message cloned and delivered on a later turn of the event loop. */
function testCluster(n: number): TestCluster {
  const coordinator = new Coordinator(OPTIONS, n);
  const requests: WorkerRequest['type'][] = [];
  const workers: WorkerSharedState[] = [];
  for (let id = 0; id < n; id++) {
    let toWorker: WorkerChannel | undefined;
    const toPrimary: PrimaryChannel = new Channel<PrimaryRequest, WorkerRequest>(
      (m) => setImmediate(() => toWorker?.receive(structuredClone(m))),
      (request) => {
        requests.push(request.type);
        return coordinator.handle(id, request);
      },
    );
    toWorker = new Channel<WorkerRequest, PrimaryRequest>(
      (m) => setImmediate(() => toPrimary.receive(structuredClone(m))),
      (request) => workers[id]?.answer(request) ?? null,
    );
    coordinator.join(id, id, toPrimary);
    const channel = toWorker;
    workers.push(new WorkerSharedState(OPTIONS, () => channel, silent));
  }
  return { coordinator, workers, requests };
}

const LOW = 0x1234_5678_9abc_def0n;
const HIGH = 0x6543_2100_0000_0001n;
const S = 1_000_000_000n;

describe('workers share the 128-bit trace ids', () => {
  it('a log on worker 1 is widened with the high half a span taught worker 0, once the span was published', async () => {
    const { workers } = testCluster(2);
    const [w0, w1] = workers as [WorkerSharedState, WorkerSharedState];
    const spans = w0.session();
    spans.record(() => w0.caches.traceIds.remember(LOW, HIGH));
    await spans.publish();

    const logs = w1.session();
    const widen = (): bigint => widenTraceId(LOW, undefined, w1.caches.traceIds);
    expect(logs.record(widen)).toBe(LOW); // worker 1 never saw the span
    expect(await logs.fetchMisses()).toBe(true);
    expect(logs.record(widen)).toBe((HIGH << 64n) | LOW);
    // learned for good: the next log needs no round trip
    const next = w1.session();
    expect(next.record(widen)).toBe((HIGH << 64n) | LOW);
    expect(await next.fetchMisses()).toBe(false);
  });

  it('asks for every missed id of a request in one round trip, and says when nobody knew any', async () => {
    const { workers, requests } = testCluster(2);
    const session = (workers[1] as WorkerSharedState).session();
    session.record(() => {
      for (const low of [1n, 2n, 3n]) widenTraceId(low, undefined, (workers[1] as WorkerSharedState).caches.traceIds);
    });
    expect(await session.fetchMisses()).toBe(false);
    expect(requests.filter((t) => t === 'lookup')).toHaveLength(1);
  });

  it('publishes nothing, and waits for nobody, when a request taught nothing new', async () => {
    const { workers, requests } = testCluster(2);
    const w0 = workers[0] as WorkerSharedState;
    const first = w0.session();
    first.record(() => w0.caches.traceIds.remember(LOW, HIGH));
    await first.publish();
    const again = w0.session();
    again.record(() => w0.caches.traceIds.remember(LOW, HIGH));
    await again.publish();
    expect(requests.filter((t) => t === 'publish')).toHaveLength(1);
  });

  it('answers 503 (UnavailableError) when the primary cannot be told', async () => {
    const broken = new Channel<WorkerRequest, PrimaryRequest>(
      () => {
        throw new Error('channel closed');
      },
      () => null,
    );
    const worker = new WorkerSharedState(OPTIONS, () => broken, silent);
    const session = worker.session();
    session.record(() => worker.caches.traceIds.remember(LOW, HIGH));
    await expect(session.publish()).rejects.toBeInstanceOf(UnavailableError);
  });
});

describe('workers share metric streams: one worker carries a stream at a time', () => {
  const [a, b] = ['count\0requests\0A', 'count\0errors\0B'];
  const starts = (w: WorkerSharedState, points: [string, bigint][]) => (): bigint[] => points.map(([stream, t]) => w.caches.metricStreams.startFor(stream, t));
  /** One request: a pass, and another when the primary knew what the first missed. */
  const translate = async (w: WorkerSharedState, points: [string, bigint][]): Promise<bigint[]> => {
    const session = w.session();
    const first = session.record(starts(w, points));
    return (await session.fetchMisses()) ? session.record(starts(w, points)) : first;
  };

  it("a stream's next point on another worker starts where the last one ended, and back again", async () => {
    const { workers } = testCluster(2);
    const [w0, w1] = workers as [WorkerSharedState, WorkerSharedState];
    const point = async (w: WorkerSharedState, t: bigint): Promise<bigint | undefined> => (await translate(w, [[a, t]]))[0];
    expect(await point(w0, 100n * S)).toBe(100n * S);
    expect(await point(w1, 110n * S)).toBe(100n * S);
    expect(await point(w0, 120n * S)).toBe(110n * S);
    expect(await point(w0, 130n * S)).toBe(120n * S);
    // the same point resent to the other worker (a retry after a 503) keeps its window
    expect(await point(w1, 130n * S)).toBe(120n * S);
  });

  it('a request translated twice gives the streams this worker carried the windows of one pass', async () => {
    const [w0, w1] = testCluster(2).workers as [WorkerSharedState, WorkerSharedState];
    expect(await translate(w0, [[a, 100n * S]])).toEqual([100n * S]);
    expect(await translate(w1, [[b, 100n * S]])).toEqual([100n * S]);
    // w1 carries b, so w0 translates this request twice; a's two points must not see the first pass
    expect(
      await translate(w0, [
        [a, 110n * S],
        [a, 120n * S],
        [b, 120n * S],
      ]),
    ).toEqual([100n * S, 110n * S, 100n * S]);
    expect(
      await translate(w0, [
        [a, 130n * S],
        [b, 130n * S],
      ]),
    ).toEqual([120n * S, 120n * S]);
  });

  it('a request that carried a stream on while another waited for the primary keeps what it did', async () => {
    const [w0, w1] = testCluster(2).workers as [WorkerSharedState, WorkerSharedState];
    await translate(w0, [[a, 100n * S]]);
    await translate(w1, [[b, 100n * S]]);
    const waiting = w0.session();
    const step = starts(w0, [
      [a, 110n * S],
      [a, 120n * S],
      [b, 120n * S],
    ]);
    waiting.record(step);
    const fetched = waiting.fetchMisses();
    // another request on the same worker, between the first pass and the primary's answer
    expect(await translate(w0, [[a, 130n * S]])).toEqual([120n * S]);
    expect(await fetched).toBe(true);
    // a is no longer as the first pass left it: its points are late now, and a goes on from 130 s
    expect(waiting.record(step)).toEqual([110n * S, 120n * S, 100n * S]);
    expect(await translate(w0, [[a, 140n * S]])).toEqual([130n * S]);
  });

  it('a stream new to every worker starts at its own timestamp', async () => {
    const { workers } = testCluster(2);
    const w1 = workers[1] as WorkerSharedState;
    const session = w1.session();
    expect(session.record(() => w1.caches.metricStreams.startFor('gauge\0cpu\0B', 50n * S))).toBe(50n * S);
    expect(await session.fetchMisses()).toBe(false);
  });
});

describe('workers share host metadata and service identities', () => {
  const attributes: KeyValue[] = [{ key: 'host.tags', value: { string: 'team:core' } } as unknown as KeyValue];

  it("every other worker has a host's metadata once its publish resolved, and a worker that starts later gets it in its hello", async () => {
    const { coordinator, workers } = testCluster(3);
    const [w0, w1, w2] = workers as [WorkerSharedState, WorkerSharedState, WorkerSharedState];
    const session = w0.session();
    session.record(() => w0.caches.hosts.set('web-1', attributes));
    await session.publish();
    expect(w1.caches.hosts.attributesOf('web-1')).toEqual(attributes);
    expect(w2.caches.hosts.attributesOf('web-1')).toEqual(attributes);
    const hello = (await coordinator.handle(7, { type: 'hello' })) as { known: { hosts: unknown } };
    expect(hello.known.hosts).toEqual([['web-1', attributes]]);
  });

  it('the base service an integration span taught one worker groups the stats on another', async () => {
    const { workers } = testCluster(2);
    const [w0, w1] = workers as [WorkerSharedState, WorkerSharedState];
    const session = w0.session();
    session.record(() => w0.caches.serviceIdentities.learn('prod', 'shop-postgres', 'shop'));
    await session.publish();
    expect(w1.caches.serviceIdentities.baseOf('prod', 'shop-postgres')).toBe('shop');
  });
});

describe('Channel', () => {
  it('rejects a request nobody answers within its time, and every pending one when the other side is gone', async () => {
    const silentPeer = new Channel<WorkerRequest, PrimaryRequest>(
      () => undefined,
      () => null,
    );
    await expect(silentPeer.request({ type: 'hello' }, 20)).rejects.toThrow('no reply to "hello" within 20 ms');
    const pending = silentPeer.request({ type: 'hello' }, 60_000);
    silentPeer.close('the worker exited');
    await expect(pending).rejects.toThrow('the worker exited');
  });
});
