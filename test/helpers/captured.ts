/**
 * Replays a captured client's requests (test/fixtures/captured/<client>-<version>/requests.json,
 * written by test/clients/capture-agent.ts) against a running bridge, byte for byte: the same
 * method, path, body file and headers the client sent. The API key, never captured, is the
 * test's: in the header, and wherever the capture agent wrote `<redacted>` in the path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedRequest } from '../clients/capture-agent';
import { logRecords, waitFor } from './sink';
import { sinkSpans } from './sink-traces';
import { startStack, type TestStack } from './stack';

export const capturedDir = (client: string): string => join(__dirname, '..', 'fixtures', 'captured', client);

export const capturedRequests = (dir: string): CapturedRequest[] => JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8')) as CapturedRequest[];

/** Headers fetch sets itself, or that described the capture connection rather than the payload. */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding', 'keep-alive']);

const replayHeaders = (r: CapturedRequest, apiKey: string): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(r.headers).filter(([name]) => !CONNECTION_HEADERS.has(name))),
  ...(r.contentType ? { 'content-type': r.contentType } : {}),
  ...(r.contentEncoding ? { 'content-encoding': r.contentEncoding } : {}),
  'dd-api-key': apiKey,
});

export interface ReplayResult {
  request: CapturedRequest;
  status: number;
}

/**
 * Sends each kept request in capture order (skipped ones, whose bodies were not kept, are left
 * out; so are those `leaveOut` names, with the reason in the calling test).
 */
export async function replayCaptured(dir: string, intakeUrl: string, apiKey: string, leaveOut?: RegExp): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const request of capturedRequests(dir).filter((r) => !r.skipped && !leaveOut?.test(r.path))) {
    const body = request.body ? readFileSync(join(dir, request.body)) : undefined;
    const path = request.path.replaceAll('<redacted>', encodeURIComponent(apiKey));
    const res = await fetch(`${intakeUrl}${path}`, { method: request.method, headers: replayHeaders(request, apiKey), body });
    await res.arrayBuffer();
    results.push({ request, status: res.status });
  }
  return results;
}

/** `METHOD path → status` for every reply that was not a 2xx, so a failure names the request. */
export const non2xx = (results: readonly ReplayResult[]): string[] => results.filter((r) => r.status < 200 || r.status > 299).map((r) => `${r.request.method} ${r.request.path} → ${r.status}`);

export interface ReplaySpec {
  /** The fixture directory's name under test/fixtures/captured/. */
  fixture: string;
  /** Paths the fixture must hold, so a re-capture that lost a signal fails here. */
  paths: string[];
  /** Spans and log records the fixture's README counts. */
  spans: number;
  logRecords: number;
  leaveOut?: RegExp;
  /** Replies other than a 2xx that a sender is meant to get, by path (remote config: 404). */
  expectedReplies?: Record<string, number>;
  /** What else must reach the collector, checked once spans and logs have. */
  alsoDelivered?: (sinkDir: string) => Promise<void>;
}

/**
 * One e2e suite per captured client: replay it against a fresh bridge and collector, expect a 2xx
 * for every request (but the replies the spec names), then the counted spans and log records in
 * the collector's output. What they became is for the translation tests.
 */
export function describeCapturedReplay(title: string, spec: ReplaySpec): void {
  const key = `${spec.fixture}-key`;
  describe(title, () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startStack({ authToken: key });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('is accepted with 2xx and its spans and log records reach the collector', async () => {
      const results = await replayCaptured(capturedDir(spec.fixture), stack.intakeUrl, key, spec.leaveOut);
      expect(results.map((r) => r.request.path)).toEqual(expect.arrayContaining(spec.paths));
      const expected = spec.expectedReplies ?? {};
      expect(non2xx(results.filter((r) => !(r.request.path in expected)))).toEqual([]);
      for (const [path, status] of Object.entries(expected)) expect(results.find((r) => r.request.path === path)?.status).toBe(status);
      const spans = await waitFor(
        () => sinkSpans(stack.sinkDir),
        (s) => s.length >= spec.spans,
      );
      expect(spans).toHaveLength(spec.spans);
      const logs = await waitFor(
        () => logRecords(stack.sinkDir),
        (r) => r.length >= spec.logRecords,
      );
      expect(logs).toHaveLength(spec.logRecords);
      await spec.alsoDelivered?.(stack.sinkDir);
    });
  });
}
