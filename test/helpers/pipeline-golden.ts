/** One processor golden (test/fixtures/pipelines/processors.json): a processor as Datadog writes it, a log, and the log after it. */
import type { JsonValue } from '../../src/core/wire/json';
import { compilePipeline, runSteps } from '../../src/signals/logs/pipelines/compile';
import { RecordBudget } from '../../src/signals/logs/pipelines/budget';
import { PipelineLog, nestAttributes } from '../../src/signals/logs/pipelines/log';
import { readPipeline } from '../../src/signals/logs/pipelines/spec';

export interface GoldenLog {
  message: string;
  service?: string;
  tags?: string[];
  attributes?: Record<string, JsonValue>;
}

export interface GoldenCase {
  name: string;
  processor: Record<string, JsonValue>;
  input: GoldenLog;
  expected?: Record<string, JsonValue>;
}

/** The log after `processor`, as the golden file states it (nested attributes, reserved values beside them). */
export function runGolden(c: GoldenCase): Record<string, JsonValue> {
  const { pipeline } = readPipeline({ type: 'pipeline', name: 'golden', processors: [c.processor] }, '');
  const unsupported: { path: string; reason: string }[] = [];
  const compiled = compilePipeline(pipeline, '', unsupported);
  if (unsupported.length > 0) throw new Error(JSON.stringify(unsupported));
  const log = new PipelineLog();
  log.message = c.input.message;
  log.service = c.input.service;
  log.tags = c.input.tags ?? [];
  for (const [k, v] of Object.entries(c.input.attributes ?? {})) log.set(k, v);
  runSteps(compiled?.steps ?? [], log, RecordBudget.unlimited());
  const out: Record<string, JsonValue> = { message: log.message, attributes: nestAttributes(log.attributes) };
  if (log.status !== undefined) out.status = log.status;
  if (log.service !== undefined) out.service = log.service;
  if (log.tags.length > 0) out.tags = log.tags;
  if (log.timestampMs !== undefined) out.timestamp = log.timestampMs;
  if (log.traceId !== undefined) out.traceId = log.traceId;
  return out;
}
