/**
 * The load generator, run as its own process pinned to a core the receiver under test does not
 * use, so it never competes with what it measures. Bodies arrive pre-built and pre-compressed over
 * IPC; requests go over keep-alive connections.
 *
 * closed: `concurrency` senders each send the next body as soon as the previous reply arrives —
 *   the receiver's maximum sustained throughput.
 * open: requests leave on a fixed schedule at `rate` per second whatever the replies do, and a
 *   request's latency counts from when it was due, so a stalled receiver cannot hide its queue
 *   (no coordinated omission).
 */
import { Agent, request } from 'node:http';

export interface LoadSpec {
  url: string;
  path: string;
  headers: Record<string, string>;
  bodies: Buffer[];
  records: number[];
  mode: 'closed' | 'open';
  concurrency: number;
  /** requests per second (open mode) */
  rate: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  records: number;
  bytes: number;
  seconds: number;
  statuses: Record<string, number>;
  /** ms, of requests completed inside the measured window */
  latency: { p50: number; p90: number; p99: number; max: number };
  /** CPU the load generator itself used in the window, as a share of one core */
  loadgenCpu: number;
  /** records of every 2xx reply, warm-up and stragglers after the window included: what the destination must end up holding */
  ackedRecords: number;
  /** records of 2xx replies that arrived once the window opened, stragglers after it included (the end-to-end bench counts these up to the destination's drain) */
  ackedSinceStart: number;
}

interface Window {
  start: number;
  end: number;
  requests: number;
  records: number;
  bytes: number;
  statuses: Record<string, number>;
  latencies: number[];
  ackedRecords: number;
  ackedSinceStart: number;
}

export const percentile = (sorted: readonly number[], p: number): number => (sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number));

function send(spec: LoadSpec, agent: Agent, index: number): Promise<number> {
  const body = spec.bodies[index] as Buffer;
  return new Promise((resolve) => {
    const req = request(`${spec.url}${spec.path}`, { method: 'POST', agent, headers: { ...spec.headers, 'Content-Length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** Counts a reply if it arrived inside the window; only 2xx replies count as records delivered. */
function account(w: Window, spec: LoadSpec, index: number, status: number, dueAt: number): void {
  const now = performance.now();
  const ok = status >= 200 && status <= 299;
  if (ok) w.ackedRecords += spec.records[index] as number;
  if (ok && now >= w.start) w.ackedSinceStart += spec.records[index] as number;
  if (now < w.start || now > w.end) return;
  w.statuses[status] = (w.statuses[status] ?? 0) + 1;
  w.latencies.push(now - dueAt);
  if (!ok) return;
  w.requests++;
  w.records += spec.records[index] as number;
  w.bytes += (spec.bodies[index] as Buffer).length;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function closedLoop(spec: LoadSpec, agent: Agent, w: Window): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (performance.now() < w.end) {
        const index = next++ % spec.bodies.length;
        const sentAt = performance.now();
        account(w, spec, index, await send(spec, agent, index), sentAt);
      }
    }),
  );
}

async function openLoop(spec: LoadSpec, agent: Agent, w: Window): Promise<void> {
  const interval = 1000 / spec.rate;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; ; n++) {
    const dueAt = started + n * interval;
    if (dueAt > w.end) break;
    const wait = dueAt - performance.now();
    if (wait > 1) await sleep(wait);
    const index = n % spec.bodies.length;
    const p = send(spec, agent, index).then((status) => account(w, spec, index, status, dueAt));
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
}

/** `mark` is told when the measured window opens and closes, so the caller can sample the receiver's CPU then. */
export async function runLoad(spec: LoadSpec, mark: (at: 'start' | 'end') => void = () => undefined): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.mode === 'closed' ? spec.concurrency : Infinity });
  const start = performance.now() + spec.warmupMs;
  const w: Window = { start, end: start + spec.durationMs, requests: 0, records: 0, bytes: 0, statuses: {}, latencies: [], ackedRecords: 0, ackedSinceStart: 0 };
  let cpuAtStart = process.cpuUsage();
  const opened = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
    mark('start');
  }, spec.warmupMs);
  let ended = false;
  const end = (): void => {
    if (!ended) mark('end');
    ended = true;
  };
  const closed = setTimeout(end, spec.warmupMs + spec.durationMs);
  await (spec.mode === 'closed' ? closedLoop(spec, agent, w) : openLoop(spec, agent, w));
  clearTimeout(opened);
  clearTimeout(closed);
  // a closed loop can finish a hair before its timer: the window still has to close before the result
  end();
  const cpu = process.cpuUsage(cpuAtStart);
  agent.destroy();
  const sorted = w.latencies.sort((a, b) => a - b);
  const seconds = spec.durationMs / 1000;
  return {
    requests: w.requests,
    records: w.records,
    bytes: w.bytes,
    seconds,
    statuses: w.statuses,
    latency: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 },
    loadgenCpu: (cpu.user + cpu.system) / 1e6 / Math.max(seconds, 1e-9),
    ackedRecords: w.ackedRecords,
    ackedSinceStart: w.ackedSinceStart,
  };
}

export type LoadMessage = { mark: 'start' | 'end' } | { result: LoadResult };

// as a child process: one LoadSpec in; window marks, then one LoadResult out
if (require.main === module) {
  const send = (m: LoadMessage, then: () => void = () => undefined): void => void process.send?.(m, then);
  process.once('message', (spec: LoadSpec) => {
    runLoad({ ...spec, bodies: spec.bodies.map((b) => Buffer.from(b)) }, (at) => send({ mark: at })).then(
      (result) => send({ result }, () => process.exit(0)),
      (err: Error) => {
        process.stderr.write(`${err.stack}\n`);
        process.exit(1);
      },
    );
  });
}
