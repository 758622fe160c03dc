/**
 * The pipelines the sidecar runs, in order, indexed by the `source` their filter names: an
 * integration pipeline's filter is `source:nginx`, so a log picks its candidates with one map
 * lookup, and a log whose source no pipeline names (and no pipeline without a source filter
 * exists) costs that lookup and nothing more. Loaded from folders and files: an
 * integrations-core checkout (`<integration>/assets/logs/<name>.yaml`, the `_tests.yaml` beside
 * them skipped) and pipeline files (`*.json`, `*.yaml`: one pipeline, a list, or
 * `{pipelines: […]}` as `migrate pipelines` writes them). Custom pipelines run before
 * integration ones, each group in file order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../../../core/wire/json';
import { compilePipeline, warmUp, type CompiledPipeline } from './compile';
import type { Query } from './query';
import { readPipeline } from './spec';
import type { Unsupported } from './types';

export class PipelineSet {
  private readonly bySource = new Map<string, readonly CompiledPipeline[]>();
  /** The pipelines with no single-source filter: every log is a candidate. */
  private readonly anySource: readonly CompiledPipeline[];

  constructor(readonly pipelines: readonly CompiledPipeline[]) {
    const sources = pipelines.map((p) => sourcesOf(p.filter));
    this.anySource = pipelines.filter((_, i) => sources[i] === undefined);
    const named = new Set(sources.flatMap((s) => (s ? [...s] : [])));
    for (const source of named)
      this.bySource.set(
        source,
        pipelines.filter((_, i) => sources[i] === undefined || (sources[i] as Set<string>).has(source)),
      );
  }

  /** The pipelines a log of `source` may match, in order; empty for most logs of an unknown source. */
  candidates(source: string | undefined): readonly CompiledPipeline[] {
    return (source === undefined ? undefined : this.bySource.get(source.toLowerCase())) ?? this.anySource;
  }

  get size(): number {
    return this.pipelines.length;
  }
}

export const NO_PIPELINES = new PipelineSet([]);

/** `source:a` or `source:a OR source:b` as the set of sources; undefined for any other filter. */
function sourcesOf(query: Query): Set<string> | undefined {
  if (query.kind === 'field' && !query.field.attribute && query.field.name === 'source' && query.test.kind === 'equals' && !query.test.pattern.wildcard) return new Set([query.test.pattern.text.toLowerCase()]);
  if (query.kind !== 'or') return undefined;
  const all = new Set<string>();
  for (const q of query.of) {
    const s = sourcesOf(q);
    if (!s) return undefined;
    for (const v of s) all.add(v);
  }
  return all;
}

export interface LoadedPipelines {
  set: PipelineSet;
  unsupported: Unsupported[];
  /** Integration and custom pipeline counts, for the start-up log line. */
  counts: { integration: number; custom: number };
}

const isPipelineFile = (name: string): boolean => /\.(ya?ml|json)$/i.test(name) && !/_tests\.ya?ml$/i.test(name);

function parseFile(file: string): JsonValue {
  const text = readFileSync(file, 'utf8');
  return (file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as JsonValue;
}

/** The pipeline definitions a file holds. */
function definitionsOf(value: JsonValue): JsonValue[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object' && Array.isArray(value.pipelines)) return value.pipelines;
  return [value];
}

/** Integration pipeline files of an integrations-core layout under `dir`. */
function integrationFiles(dir: string): string[] {
  const files: string[] = [];
  for (const integration of readdirSync(dir).sort()) {
    const logs = join(dir, integration, 'assets', 'logs');
    if (!existsSync(logs) || !statSync(logs).isDirectory()) continue;
    for (const name of readdirSync(logs).sort()) if (isPipelineFile(name)) files.push(join(logs, name));
  }
  return files;
}

/** Pipelines from `paths` (folders or files), compiled; a path that cannot be read throws. */
export function loadPipelines(paths: readonly string[]): LoadedPipelines {
  const unsupported: Unsupported[] = [];
  const custom: CompiledPipeline[] = [];
  const integration: CompiledPipeline[] = [];
  const add = (file: string, into: CompiledPipeline[]): void => {
    for (const definition of definitionsOf(parseFile(file))) {
      const { pipeline, unsupported: bad } = readPipeline(definition, file);
      unsupported.push(...bad);
      const compiled = compilePipeline(pipeline, file, unsupported);
      if (!compiled) continue;
      warmUp(compiled);
      into.push(compiled);
    }
  };
  for (const path of paths) {
    if (!statSync(path).isDirectory()) {
      add(path, custom);
      continue;
    }
    for (const file of integrationFiles(path)) add(file, integration);
    for (const name of readdirSync(path).sort()) if (isPipelineFile(name) && statSync(join(path, name)).isFile()) add(join(path, name), custom);
  }
  return { set: new PipelineSet([...custom, ...integration]), unsupported, counts: { integration: integration.length, custom: custom.length } };
}
