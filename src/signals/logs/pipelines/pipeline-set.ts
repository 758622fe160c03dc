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

/** The files `paths` name, in load order, each with whether its pipelines are custom ones; a path that cannot be read throws. */
function filesToLoad(paths: readonly string[]): { file: string; custom: boolean }[] {
  const files: { file: string; custom: boolean }[] = [];
  for (const path of paths) {
    if (!statSync(path).isDirectory()) {
      files.push({ file: path, custom: true });
      continue;
    }
    for (const file of integrationFiles(path)) files.push({ file, custom: false });
    for (const name of readdirSync(path).sort()) if (isPipelineFile(name) && statSync(join(path, name)).isFile()) files.push({ file: join(path, name), custom: true });
  }
  return files;
}

/** One load: the files read one at a time into the pipelines and what cannot run. */
class Loading {
  private readonly unsupported: Unsupported[] = [];
  private readonly custom: CompiledPipeline[] = [];
  private readonly integration: CompiledPipeline[] = [];

  add(file: string, custom: boolean): void {
    for (const definition of definitionsOf(parseFile(file))) {
      const { pipeline, unsupported: bad } = readPipeline(definition, file);
      this.unsupported.push(...bad);
      const compiled = compilePipeline(pipeline, file, this.unsupported);
      if (!compiled) continue;
      warmUp(compiled);
      (custom ? this.custom : this.integration).push(compiled);
    }
  }

  result(): LoadedPipelines {
    return { set: new PipelineSet([...this.custom, ...this.integration]), unsupported: this.unsupported, counts: { integration: this.integration.length, custom: this.custom.length } };
  }
}

/** Pipelines from `paths` (folders or files), compiled; a path that cannot be read throws. */
export function loadPipelines(paths: readonly string[]): LoadedPipelines {
  const loading = new Loading();
  for (const { file, custom } of filesToLoad(paths)) loading.add(file, custom);
  return loading.result();
}

/**
 * The same load, giving the event loop a turn after each file: a reload on SIGHUP reads and
 * compiles the whole set (seconds for the bundled 223 files) while requests keep being served.
 */
export async function loadPipelinesYielding(paths: readonly string[]): Promise<LoadedPipelines> {
  const loading = new Loading();
  for (const { file, custom } of filesToLoad(paths)) {
    loading.add(file, custom);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return loading.result();
}
