/**
 * Whole-chain golden files for metrics: test/fixtures/metrics/chain/*.json each hold a body as a
 * sender writes it (JSON as sent, or the protobufjs object form of an agent payload, or v3 series
 * the fixture builder encodes the agent's way) beside the OTLP/JSON the parse + translate chain
 * must produce and what it counts as dropped. Set UPDATE_GOLDEN=1 to rewrite `expected` and
 * `dropped` after a deliberate change, then review the diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MetricsPayload } from '../../src/signals/metrics/datadog';
import { parseCheckRuns } from '../../src/signals/metrics/parse-check-run';
import { parseDistributionPoints } from '../../src/signals/metrics/parse-distribution';
import { decodeSketchPayload } from '../../src/signals/metrics/parse-sketches';
import { parseSeriesV1 } from '../../src/signals/metrics/parse-v1';
import { parseSeriesV2Json } from '../../src/signals/metrics/parse-v2-json';
import { decodeMetricPayload } from '../../src/signals/metrics/parse-v2-proto';
import { decodeV3Payload } from '../../src/signals/metrics/parse-v3';
import { encodeExportRequests, MetricStreamEncoder } from '../../src/core/otlp/encode';
import { translateMetrics, translateMetricsToModel } from '../../src/signals/metrics/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { encodeMetricPayload, encodeSketchPayload, v3Body, type V3Series } from '../fixtures/metrics/agent-payloads';
import { resourceMetricsJson } from '../helpers/otlp-json-metrics';
import { translationContext } from '../helpers/translation';

const DIR = join(__dirname, '..', 'fixtures', 'metrics', 'chain');

interface Golden {
  description: string;
  format: keyof typeof PARSE;
  receivedAtNs: string;
  input: unknown;
  expected: unknown;
  dropped: unknown;
}

const asJson = (input: unknown): Buffer => Buffer.from(JSON.stringify(input));
const PARSE = {
  v1: (input: unknown) => parseSeriesV1(asJson(input)),
  'v2-json': (input: unknown) => parseSeriesV2Json(asJson(input)),
  'v2-proto': (input: unknown) => decodeMetricPayload(encodeMetricPayload(input as Record<string, unknown>)),
  sketches: (input: unknown) => decodeSketchPayload(encodeSketchPayload(input as Record<string, unknown>)),
  v3: (input: unknown) => decodeV3Payload(v3Body(input as V3Series[])),
  check_run: (input: unknown) => parseCheckRuns(asJson(input)),
  distribution_points: (input: unknown) => parseDistributionPoints(asJson(input)),
} satisfies Record<string, (input: unknown) => MetricsPayload>;

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('metric chain goldens', () => {
  it('has golden files for every body format', () => {
    const formats = new Set(files.map((f) => (JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Golden).format));
    expect([...formats].sort()).toEqual(Object.keys(PARSE).sort());
  });

  it.each(files)('%s', (file) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const { resources, dropped } = translateMetricsToModel(PARSE[golden.format](golden.input), translationContext(createTranslatorCaches(), BigInt(golden.receivedAtNs)));
    const actual = resourceMetricsJson(resources);
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual, dropped }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
    expect(dropped).toEqual(golden.dropped);
  });

  it.each(files)('%s: streamed into the encoder, the same bytes as the model encoded', (file) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const receivedAtNs = BigInt(golden.receivedAtNs);
    // a small limit, so that splitting is compared too; each side with its own start-time memory
    for (const limit of [4 * 1024 * 1024, 400]) {
      const streamed = new MetricStreamEncoder();
      const streamedCtx = translationContext(createTranslatorCaches(), receivedAtNs);
      translateMetrics(streamedCtx, streamed)(PARSE[golden.format](golden.input));
      const dropped = streamedCtx.tally;
      const model = translateMetricsToModel(PARSE[golden.format](golden.input), translationContext(createTranslatorCaches(), receivedAtNs));
      const fromModel = encodeExportRequests({ signal: 'metrics', resources: model.resources }, limit);
      expect(fromModel.length).toBeGreaterThan(0);
      expect(streamed.requests(limit)).toEqual(fromModel);
      expect(dropped).toEqual(model.dropped);
    }
  });
});
