/**
 * Differential conformance on a small payload set (bench/conformance.ts): the same agent
 * logs, tracer traces, series and sketches through the upstream Datadog receiver (reference
 * collector) and through the sidecar + our collector. Both OTLP outputs are normalised and
 * compared record by record; every difference must be declared deliberate, with its reason, in
 * bench/conformance-deliberate.ts.
 */
import { conformance, declaredAs, type ConformanceResult, type Difference } from '../../bench/conformance';

const describeDifference = (d: Difference): string => `${d.signal} ${d.field} (${d.kind}): ours ${d.example.ours ?? '–'}, upstream ${d.example.upstream ?? '–'}`;

let result: ConformanceResult;

// both collectors are built by the conformance project's global setup; here they are only looked up
beforeAll(async () => {
  result = await conformance(10);
});

it('writes every log record, span and data point on both sides', () => {
  expect(result.records.sent).toBeGreaterThan(30);
  expect(result.records).toEqual({ sent: result.records.sent, ours: result.records.sent, upstream: result.records.sent });
  expect(result.differences.filter((d) => d.field === 'record').map(describeDifference)).toEqual([]);
});

it('differs from upstream only where a difference is declared deliberate', () => {
  expect(result.differences.filter((d) => !declaredAs(d)).map(describeDifference)).toEqual([]);
});
