/**
 * Reading pipeline definitions into specs (types.ts). Datadog writes them two ways: the API and
 * its JSON export in snake_case (`is_enabled`, `support_rules`, `preserve_source`),
 * integrations-core's YAML in camelCase (`enabled`, `supportRules`, `preserveSource`); both read
 * the same. A processor of a kind the engine does not run is kept out and reported with its path
 * (`Nginx > Parse IP > …`), and so is a malformed one, naming the field.
 */
import type { JsonValue } from '../../../core/wire/json';
import type { ArrayOperation, PipelineSpec, ProcessorSpec, Unsupported } from './types';

export class PipelineSpecError extends Error {}

type Json = Record<string, JsonValue>;

const isObject = (v: JsonValue | undefined): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The first of the spellings `keys` that `obj` has. */
function field(obj: Json, ...keys: string[]): JsonValue | undefined {
  for (const key of keys) if (obj[key] !== undefined) return obj[key];
  return undefined;
}

function text(obj: Json, path: string, ...keys: string[]): string {
  const v = field(obj, ...keys);
  if (typeof v !== 'string') throw new PipelineSpecError(`${path}: ${keys[0]} must be text`);
  return v;
}

const optionalText = (obj: Json, ...keys: string[]): string | undefined => {
  const v = field(obj, ...keys);
  return typeof v === 'string' ? v : undefined;
};

function flag(obj: Json, fallback: boolean, ...keys: string[]): boolean {
  const v = field(obj, ...keys);
  return typeof v === 'boolean' ? v : fallback;
}

function textList(obj: Json, path: string, fallback: string[] | undefined, ...keys: string[]): string[] {
  const v = field(obj, ...keys);
  if (v === undefined && fallback) return fallback;
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new PipelineSpecError(`${path}: ${keys[0]} must be a list of text`);
  return v as string[];
}

const filterQuery = (obj: Json): string => {
  const filter = field(obj, 'filter');
  if (isObject(filter)) return typeof filter.query === 'string' ? filter.query : '';
  return typeof filter === 'string' ? filter : '';
};

const enabled = (obj: Json): boolean => flag(obj, true, 'enabled', 'is_enabled', 'isEnabled');

export interface ReadResult {
  pipeline: PipelineSpec;
  unsupported: Unsupported[];
}

/** A pipeline definition (an object with `type: pipeline`, or integrations-core's `{pipeline: …}` file). */
export function readPipeline(value: JsonValue, where: string): ReadResult {
  const obj = isObject(value) && isObject(value.pipeline) ? value.pipeline : value;
  if (!isObject(obj)) throw new PipelineSpecError(`${where}: a pipeline must be an object`);
  const unsupported: Unsupported[] = [];
  return { pipeline: readPipelineObject(obj, where, unsupported), unsupported };
}

function readPipelineObject(obj: Json, where: string, unsupported: Unsupported[]): PipelineSpec {
  const name = optionalText(obj, 'name') ?? '(unnamed)';
  const path = where === '' ? name : `${where} > ${name}`;
  const processors: ProcessorSpec[] = [];
  const list = field(obj, 'processors') ?? [];
  if (!Array.isArray(list)) throw new PipelineSpecError(`${path}: processors must be a list`);
  list.forEach((p, i) => {
    const at = `${path} > ${isObject(p) && typeof p.name === 'string' && p.name !== '' ? p.name : `processor ${i + 1}`}`;
    if (!isObject(p)) {
      unsupported.push({ path: at, reason: 'not an object' });
      return;
    }
    try {
      const spec = readProcessor(p, at, path, unsupported);
      if (spec) processors.push(spec);
    } catch (e) {
      if (!(e instanceof PipelineSpecError)) throw e;
      unsupported.push({ path: at, reason: e.message.slice(at.length + 2) });
    }
  });
  return { type: 'pipeline', name, enabled: enabled(obj), filter: filterQuery(obj), processors };
}

function readArrayOperation(obj: Json, path: string): ArrayOperation {
  const op = field(obj, 'operation');
  if (!isObject(op)) throw new PipelineSpecError(`${path}: operation must be an object`);
  const type = text(op, path, 'type');
  const source = text(op, path, 'source');
  switch (type) {
    case 'append':
      return { type, source, target: text(op, path, 'target'), preserveSource: flag(op, false, 'preserveSource', 'preserve_source') };
    case 'length':
      return { type, source, target: text(op, path, 'target') };
    case 'select':
      return { type, source, target: text(op, path, 'target'), filter: text(op, path, 'filter'), valueToExtract: text(op, path, 'valueToExtract', 'value_to_extract') };
    default:
      throw new PipelineSpecError(`${path}: the array operation ${type} is not supported`);
  }
}

function readProcessor(p: Json, path: string, parentPath: string, unsupported: Unsupported[]): ProcessorSpec | undefined {
  const type = text(p, path, 'type');
  const base = { name: optionalText(p, 'name') ?? '', enabled: enabled(p) };
  switch (type) {
    case 'pipeline':
      return readPipelineObject(p, parentPath, unsupported);
    case 'grok-parser': {
      const grok = field(p, 'grok');
      if (!isObject(grok)) throw new PipelineSpecError(`${path}: grok must be an object`);
      const samples = field(p, 'samples');
      return {
        type,
        ...base,
        source: optionalText(p, 'source') ?? 'message',
        supportRules: optionalText(grok, 'supportRules', 'support_rules') ?? '',
        matchRules: text(grok, path, 'matchRules', 'match_rules'),
        samples: Array.isArray(samples) ? samples.filter((s): s is string => typeof s === 'string') : [],
      };
    }
    case 'attribute-remapper': {
      const format = optionalText(p, 'targetFormat', 'target_format') ?? 'auto';
      if (!['auto', 'string', 'integer', 'double'].includes(format)) throw new PipelineSpecError(`${path}: target_format ${format} is not one of auto, string, integer, double`);
      return {
        type,
        ...base,
        sources: textList(p, path, undefined, 'sources'),
        sourceType: optionalText(p, 'sourceType', 'source_type') === 'tag' ? 'tag' : 'attribute',
        target: text(p, path, 'target'),
        targetType: optionalText(p, 'targetType', 'target_type') === 'tag' ? 'tag' : 'attribute',
        targetFormat: format as 'auto' | 'string' | 'integer' | 'double',
        preserveSource: flag(p, false, 'preserveSource', 'preserve_source'),
        overrideOnConflict: flag(p, false, 'overrideOnConflict', 'override_on_conflict'),
      };
    }
    case 'date-remapper':
    case 'status-remapper':
    case 'service-remapper':
    case 'message-remapper':
    case 'trace-id-remapper':
    case 'span-id-remapper': {
      const fallback = type === 'trace-id-remapper' ? ['dd.trace_id'] : type === 'span-id-remapper' ? ['dd.span_id'] : type === 'message-remapper' ? ['msg'] : undefined;
      return { type, ...base, sources: textList(p, path, fallback, 'sources') };
    }
    case 'category-processor': {
      const categories = field(p, 'categories');
      if (!Array.isArray(categories)) throw new PipelineSpecError(`${path}: categories must be a list`);
      return {
        type,
        ...base,
        target: text(p, path, 'target'),
        categories: categories.map((c, i) => {
          if (!isObject(c)) throw new PipelineSpecError(`${path}: categories[${i}] must be an object`);
          return { query: filterQuery(c), name: text(c, `${path}: categories[${i}]`, 'name') };
        }),
      };
    }
    case 'url-parser':
      return { type, ...base, sources: textList(p, path, ['http.url'], 'sources'), target: optionalText(p, 'target') ?? 'http.url_details', normalizeEndingSlashes: flag(p, false, 'normalizeEndingSlashes', 'normalize_ending_slashes') };
    case 'user-agent-parser':
      return {
        type,
        ...base,
        sources: textList(p, path, ['http.useragent'], 'sources'),
        target: optionalText(p, 'target') ?? 'http.useragent_details',
        encoded: flag(p, false, 'encoded', 'is_encoded'),
        combineVersionDetails: flag(p, false, 'combineVersionDetails', 'combine_version_details'),
      };
    case 'geo-ip-parser':
      return { type, ...base, sources: textList(p, path, ['network.client.ip'], 'sources'), target: optionalText(p, 'target') ?? 'network.client.geoip' };
    case 'arithmetic-processor':
      return { type, ...base, expression: text(p, path, 'expression'), target: text(p, path, 'target'), replaceMissing: flag(p, false, 'replaceMissing', 'is_replace_missing', 'isReplaceMissing') };
    case 'string-builder-processor':
      // a YAML template of digits is a number (azure's `template: 99`): its text is the template
      return { type, ...base, template: typeof p.template === 'number' ? String(p.template) : text(p, path, 'template'), target: text(p, path, 'target'), replaceMissing: flag(p, false, 'replaceMissing', 'is_replace_missing', 'isReplaceMissing') };
    case 'lookup-processor': {
      if (field(p, 'lookupEnrichmentTable', 'lookup_enrichment_table') !== undefined) throw new PipelineSpecError(`${path}: reference tables (lookup_enrichment_table) are Datadog-side data the sidecar cannot reach`);
      return {
        type,
        ...base,
        source: text(p, path, 'source'),
        target: text(p, path, 'target'),
        // integrations-core writes the table as one text of lines
        lookupTable: textList(p, path, [], 'lookupTable', 'lookup_table')
          .flatMap((t) => t.split(/\r?\n/))
          .filter((t) => t.trim() !== ''),
        defaultLookup: optionalText(p, 'defaultLookup', 'default_lookup'),
      };
    }
    case 'array-processor':
      return { type, ...base, operation: readArrayOperation(p, path) };
    default:
      throw new PipelineSpecError(`${path}: the processor type ${type} is not supported`);
  }
}
