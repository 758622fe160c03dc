/**
 * A pipeline in the API's spelling, checked by the sidecar's own engine
 * (src/signals/logs/pipelines/): what it reads, compiles and runs, and what it does not, each
 * with its path. The pipeline the sidecar is given keeps only the processors the engine reads (a
 * processor kind it does not run would be reported at every load); disabled ones are kept as
 * they were, and the grok parsers' samples are run through their rules, a sample no rule matches
 * being a warning.
 */
import type { JsonValue } from '../../../../src/core/wire/json';
import { compilePipeline } from '../../../../src/signals/logs/pipelines/compile';
import { compileGrok, runGrok } from '../../../../src/signals/logs/pipelines/grok/compile';
import { RecordBudget } from '../../../../src/signals/logs/pipelines/budget';
import { readPipeline } from '../../../../src/signals/logs/pipelines/spec';
import type { PipelineSpec, ProcessorSpec, Unsupported } from '../../../../src/signals/logs/pipelines/types';

export interface CheckedPipeline {
  name: string;
  /** The pipeline as the sidecar gets it: the processors the engine does not read left out. */
  pipeline: Record<string, JsonValue>;
  /** Processors (nested pipelines' included) that run. */
  running: number;
  disabled: string[];
  notRun: Unsupported[];
  warnings: string[];
}

type Json = Record<string, JsonValue>;

const isObject = (v: JsonValue | undefined): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether the engine reads this processor (its kind and fields), tried alone. */
function readable(processor: JsonValue): boolean {
  const { pipeline, unsupported } = readPipeline({ type: 'pipeline', name: 'probe', processors: [processor] }, '');
  return unsupported.length === 0 && pipeline.processors.length === 1;
}

/** `pipeline` with every processor the engine does not read removed, nested pipelines too. */
function runnable(pipeline: Json): Json {
  const processors = Array.isArray(pipeline.processors) ? pipeline.processors : [];
  const kept = processors.filter(readable).map((p) => (isObject(p) && p.type === 'pipeline' ? runnable(p) : p));
  return { ...pipeline, processors: kept };
}

function count(spec: PipelineSpec, path: string, disabled: string[]): number {
  let running = 0;
  for (const p of spec.processors) {
    const at = `${path} > ${p.name || p.type}`;
    if (!p.enabled) {
      disabled.push(at);
      continue;
    }
    running += p.type === 'pipeline' ? count(p, at, disabled) : 1;
  }
  return running;
}

function grokParsers(spec: PipelineSpec, path: string): [string, Extract<ProcessorSpec, { type: 'grok-parser' }>][] {
  return spec.processors.flatMap((p) => {
    const at = `${path} > ${p.name || p.type}`;
    if (p.type === 'pipeline') return grokParsers(p, at);
    return p.type === 'grok-parser' && p.enabled ? [[at, p] as [string, typeof p]] : [];
  });
}

function sampleWarnings(spec: PipelineSpec, path: string): string[] {
  const warnings: string[] = [];
  for (const [at, grok] of grokParsers(spec, path)) {
    const { rules } = compileGrok(grok.supportRules, grok.matchRules, at);
    grok.samples.forEach((sample, i) => {
      if (runGrok(rules, sample.trim(), RecordBudget.unlimited()) === undefined) warnings.push(`${at}: sample ${i + 1} matches none of its rules (${JSON.stringify(sample.length > 80 ? `${sample.slice(0, 80)}…` : sample)})`);
    });
  }
  return warnings;
}

/** The pipeline checked; `where` names it in paths (`export.json [2]`). */
export function checkPipeline(raw: Json, where: string): CheckedPipeline {
  const { pipeline: spec, unsupported } = readPipeline(raw, where);
  const notRun = [...unsupported];
  compilePipeline(spec, where, notRun);
  const path = `${where} > ${spec.name}`;
  const disabled: string[] = [];
  const running = spec.enabled ? count(spec, path, disabled) : 0;
  if (!spec.enabled) disabled.push(path);
  return { name: spec.name, pipeline: runnable(raw), running, disabled, notRun, warnings: sampleWarnings(spec, path) };
}
