/**
 * Specs (spec.ts) to runnable pipelines: queries parsed, grok rules compiled, every processor a
 * closure over what it needs. What cannot be compiled (a query that does not parse, a grok rule
 * using a regex feature JavaScript lacks) is reported with its path, and the rest of the
 * pipeline still runs, as Datadog runs the rest of a pipeline past a processor that does nothing.
 */
import type { JsonValue } from '../../../core/wire/json';
import { compileGrok, runGrok, type Extracted } from './grok/compile';
import { PipelineLog } from './log';
import { parseQuery, type Query } from './query';
import { matches } from './query-match';
import { arithmetic } from './processors/arithmetic';
import { arrayProcessor } from './processors/array';
import { category } from './processors/category';
import { lookup } from './processors/lookup';
import { geoIpParser, urlParser, userAgentParser } from './processors/parsers';
import { attributeRemapper, reservedRemapper } from './processors/remappers';
import type { ProcessorStep } from './processors/step';
import { stringBuilder } from './processors/string-builder';
import { RecordBudget } from './budget';
import type { GrokSpec, PipelineSpec, ProcessorSpec, Unsupported } from './types';

export interface CompiledPipeline {
  name: string;
  filter: Query;
  /** The query's text, for indexing by source (pipeline-set.ts). */
  filterText: string;
  steps: ProcessorStep[];
  /** The sample lines its grok parsers carry (warmUp). */
  samples: string[];
}

/** Texts longer than this are not grok-parsed (a line that long is a dump, not a log line). */
export const MAX_GROK_INPUT = 64 * 1024;

/** Counts the engine keeps for /metrics. */
export const engineCounters = { grokInputTooLong: 0 };

const isObject = (value: JsonValue): value is Record<string, JsonValue> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What one match extracted, written into the log: each name replaces what the log held there,
 * and the extractions of the match merge with each other (calico's `%{integer:calico.x.count}`
 * stays beside a later `%{…:calico.x:keyvalue}`; linux-audit's second `msg` object replaces the
 * first processor's). A name '' merges an object's members into the root.
 */
function writeExtracted(log: PipelineLog, extracted: Extracted): void {
  for (const [name, value] of extracted) {
    if (name !== '') log.delete(name);
    else if (isObject(value)) for (const key in value) log.delete(key);
  }
  for (const [name, value] of extracted) {
    if (name !== '') log.merge(name, value);
    else if (isObject(value)) for (const key in value) log.merge(key, value[key] as JsonValue);
  }
}

function grokStep(spec: GrokSpec, path: string, unsupported: Unsupported[]): ProcessorStep {
  const { rules, unsupported: bad } = compileGrok(spec.supportRules, spec.matchRules, path);
  unsupported.push(...bad);
  return (log, budget) => {
    const value = log.get(spec.source);
    if (typeof value !== 'string') return;
    // Datadog's intake trims the message: a line's trailing blanks are not part of its last value
    const text = spec.source === 'message' ? value.trim() : value;
    if (text.length > MAX_GROK_INPUT) {
      engineCounters.grokInputTooLong++;
      return;
    }
    const extracted = runGrok(rules, text, budget);
    if (extracted) writeExtracted(log, extracted);
  };
}

/** Runs `steps` in order, checking the record's budget before each. */
export function runSteps(steps: readonly ProcessorStep[], log: PipelineLog, budget: RecordBudget): void {
  for (let i = 0; i < steps.length; i++) {
    budget.check();
    (steps[i] as ProcessorStep)(log, budget);
  }
}

function processorStep(spec: ProcessorSpec, path: string, unsupported: Unsupported[]): ProcessorStep | undefined {
  switch (spec.type) {
    case 'pipeline': {
      const nested = compilePipeline(spec, path, unsupported);
      if (!nested) return undefined;
      return (log, budget) => {
        if (matches(nested.filter, log)) runSteps(nested.steps, log, budget);
      };
    }
    case 'grok-parser':
      return grokStep(spec, path, unsupported);
    case 'attribute-remapper':
      return attributeRemapper(spec);
    case 'date-remapper':
    case 'status-remapper':
    case 'service-remapper':
    case 'message-remapper':
    case 'trace-id-remapper':
    case 'span-id-remapper':
      return reservedRemapper(spec);
    case 'category-processor':
      return category(spec);
    case 'url-parser':
      return urlParser(spec);
    case 'user-agent-parser':
      return userAgentParser(spec);
    case 'geo-ip-parser':
      return geoIpParser(spec);
    case 'arithmetic-processor':
      return arithmetic(spec);
    case 'string-builder-processor':
      return stringBuilder(spec);
    case 'lookup-processor':
      return lookup(spec);
    case 'array-processor':
      return arrayProcessor(spec);
  }
}

/** The pipeline ready to run, or undefined when it is disabled or its filter does not parse (reported). */
export function compilePipeline(spec: PipelineSpec, where: string, unsupported: Unsupported[]): CompiledPipeline | undefined {
  const path = where === '' ? spec.name : `${where} > ${spec.name}`;
  if (!spec.enabled) return undefined;
  let filter: Query;
  try {
    filter = parseQuery(spec.filter);
  } catch (e) {
    unsupported.push({ path, reason: (e as Error).message });
    return undefined;
  }
  const steps: ProcessorStep[] = [];
  for (const p of spec.processors) {
    if (!p.enabled) continue;
    const at = `${path} > ${p.name || p.type}`;
    try {
      const step = processorStep(p, p.type === 'pipeline' ? path : at, unsupported);
      if (step) steps.push(step);
    } catch (e) {
      unsupported.push({ path: at, reason: (e as Error).message });
    }
  }
  return { name: spec.name, filter, filterText: spec.filter, steps, samples: samplesOf(spec) };
}

function samplesOf(spec: PipelineSpec): string[] {
  return spec.processors.flatMap((p) => (p.type === 'grok-parser' ? p.samples : p.type === 'pipeline' ? samplesOf(p) : []));
}

/**
 * Runs the pipeline over its own sample lines, once, at load: the first run of an expression or
 * of a processor's code costs far more than the next (V8 compiles both on first use), and that
 * cost would otherwise fall on the first real records and spend their time budget.
 */
export function warmUp(pipeline: CompiledPipeline): void {
  for (const sample of pipeline.samples) {
    const log = new PipelineLog();
    log.message = sample;
    try {
      runSteps(pipeline.steps, log, RecordBudget.unlimited());
    } catch {
      // a sample that makes a processor throw warms nothing more; the real records report it
    }
  }
}
