/**
 * Fuzzing of every metric body format (see test/helpers/fuzz.ts): each golden input is encoded to
 * its wire form as a seed, mutated, then parsed, translated and encoded. Only the parser may
 * refuse, and only with a 4xx.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MetricsPayload } from '../../src/signals/metrics/datadog';
import { MetricStreamEncoder } from '../../src/core/otlp/encode';
import { parseCheckRuns } from '../../src/signals/metrics/parse-check-run';
import { parseDistributionPoints } from '../../src/signals/metrics/parse-distribution';
import { decodeSketchPayload } from '../../src/signals/metrics/parse-sketches';
import { parseSeriesV1 } from '../../src/signals/metrics/parse-v1';
import { parseSeriesV2Json } from '../../src/signals/metrics/parse-v2-json';
import { decodeMetricPayload } from '../../src/signals/metrics/parse-v2-proto';
import { decodeV3Payload } from '../../src/signals/metrics/parse-v3';
import { translateMetrics } from '../../src/signals/metrics/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { encodeMetricPayload, encodeSketchPayload, v3Body, type V3Series } from '../fixtures/metrics/agent-payloads';
import { fuzzTarget } from '../helpers/fuzz';
import { translationContext } from '../helpers/translation';

const asJson = (input: unknown): Buffer => Buffer.from(JSON.stringify(input));

/** Per format: how a golden input becomes wire bytes, and the parser of those bytes. */
const FORMATS: Record<string, { wire: (input: unknown) => Buffer; parse: (body: Buffer) => MetricsPayload }> = {
  v1: { wire: asJson, parse: parseSeriesV1 },
  'v2-json': { wire: asJson, parse: parseSeriesV2Json },
  'v2-proto': { wire: (i) => encodeMetricPayload(i as Record<string, unknown>), parse: decodeMetricPayload },
  sketches: { wire: (i) => encodeSketchPayload(i as Record<string, unknown>), parse: decodeSketchPayload },
  v3: { wire: (i) => v3Body(i as V3Series[]), parse: decodeV3Payload },
  check_run: { wire: asJson, parse: parseCheckRuns },
  distribution_points: { wire: asJson, parse: parseDistributionPoints },
};

const DIR = join(__dirname, '..', 'fixtures', 'metrics', 'chain');
const goldens = readdirSync(DIR).map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { format: string; input: unknown });
const caches = createTranslatorCaches({ metricStreams: { maxEntries: 1000, idleMs: 60_000 } });

for (const [format, { wire, parse }] of Object.entries(FORMATS)) {
  const seeds = goldens.filter((g) => g.format === format).map((g) => wire(g.input));
  fuzzTarget(`metrics-${format}`, seeds.length > 0 ? seeds : [Buffer.from('{}')], (input) => {
    // as the routes do: metrics streamed into the encoder, then packed
    const metrics = new MetricStreamEncoder();
    translateMetrics(translationContext(caches, 1_700_000_000_000_000_000n), metrics)(parse(input));
    metrics.requests(64 * 1024);
  });
}
