/**
 * `datadog_logs_custom_pipeline` resources (Terraform, the Datadog provider) as the pipelines of
 * Datadog's API, the spelling the sidecar's engine reads (src/signals/logs/pipelines/spec.ts). A
 * `processor { <kind> { … } }` block is a processor of type `<kind>` with `_` read as `-`
 * (`grok_parser` → `grok-parser`); `category` blocks are `categories`, `operation { append { … } }`
 * is `{type: "append", …}`, nested blocks are objects. As the provider documents, a pipeline or
 * processor without `is_enabled = true` is disabled. A `datadog_logs_pipeline_order` resource,
 * when the files hold one, orders the pipelines it names. Other resources are left alone;
 * `datadog_logs_integration_pipeline` ones are noted (the sidecar runs integration pipelines from
 * its own bundled set).
 */
import type { JsonValue } from '../../../../src/core/wire/json';
import { type HclBlock, type HclBody, HclError, type HclValue, isReference } from './hcl';

export const CUSTOM_PIPELINE = 'datadog_logs_custom_pipeline';
const PIPELINE_ORDER = 'datadog_logs_pipeline_order';
const INTEGRATION_PIPELINE = 'datadog_logs_integration_pipeline';

/** Block names whose repetitions are the API's list of the plural name. */
const LISTS: Readonly<Record<string, string>> = { processor: 'processors', category: 'categories', processors: 'processors', categories: 'categories' };
/** The provider's block names that are not the API type with `-` for `_`. */
const TYPES: Readonly<Record<string, string>> = { reference_table_lookup_processor: 'lookup-processor' };

export interface TerraformPipeline {
  /** `datadog_logs_custom_pipeline.<name>` */
  address: string;
  pipeline: Record<string, JsonValue>;
}

export interface TerraformRead {
  pipelines: TerraformPipeline[];
  /** What the files hold besides, worth a line in the report. */
  notes: string[];
}

function value(v: HclValue, path: string): JsonValue {
  if (isReference(v)) throw new HclError(`${path}: the reference ${v.ref} is not evaluated: write its value`);
  if (Array.isArray(v)) return v.map((item, i) => value(item, `${path}[${i}]`));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const key in v) out[key] = value(v[key] as HclValue, `${path}.${key}`);
    return out;
  }
  return v;
}

/** The list under `key`, made when absent. */
function listAt(out: Record<string, JsonValue>, key: string): JsonValue[] {
  const known = out[key];
  if (Array.isArray(known)) return known;
  const list: JsonValue[] = [];
  out[key] = list;
  return list;
}

/** A block's body as an API object: attributes, nested blocks as objects or (LISTS) lists. */
function objectOf(body: HclBody, path: string): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  body.attributes.forEach((a, name) => {
    out[name] = value(a.value, `${path} > ${name}`);
  });
  body.blocks.forEach((block, i) => {
    const at = `${path} > ${block.type}`;
    if (block.type === 'processor' || block.type === 'processors') {
      const list = listAt(out, LISTS[block.type] as string);
      list.push(processorOf(block, `${at}[${list.length}]`));
      return;
    }
    if (block.type === 'operation') {
      out.operation = operationOf(block, at);
      return;
    }
    const plural = LISTS[block.type];
    if (plural !== undefined) {
      listAt(out, plural).push(objectOf(block.body, `${at}[${i}]`));
      return;
    }
    // a block given twice (a schema processor's mappers) is a list
    const object = objectOf(block.body, at);
    const known = out[block.type];
    out[block.type] = known === undefined ? object : Array.isArray(known) ? [...known, object] : [known, object];
  });
  return out;
}

/** `processor { grok_parser { … } }`: exactly one block naming the processor's kind. */
function processorOf(block: HclBlock, path: string): JsonValue {
  const [kind, ...others] = block.body.blocks;
  if (kind === undefined || others.length > 0 || block.body.attributes.size > 0) throw new HclError(`${path}: a processor block holds exactly one block naming its kind (grok_parser, attribute_remapper, …)`);
  const at = `${path} > ${kind.type}`;
  const processor = objectOf(kind.body, at);
  return { type: TYPES[kind.type] ?? kind.type.replace(/_/g, '-'), is_enabled: false, ...processor };
}

/** `operation { append { … } }` → `{type: "append", …}`. */
function operationOf(block: HclBlock, path: string): JsonValue {
  const [kind, ...others] = block.body.blocks;
  if (kind === undefined || others.length > 0) throw new HclError(`${path}: an operation block holds exactly one block naming it (append, length, select)`);
  return { type: kind.type, ...objectOf(kind.body, `${path} > ${kind.type}`) };
}

const labelled = (block: HclBlock): string => `${block.labels[0]}.${block.labels[1] ?? ''}`;

function pipelineOf(block: HclBlock, file: string): TerraformPipeline {
  const address = labelled(block);
  const path = `${file}: resource ${address}`;
  const body = objectOf(block.body, path);
  if (typeof body.name !== 'string') throw new HclError(`${path}: name must be set (a string)`);
  return { address, pipeline: { type: 'pipeline', is_enabled: false, ...body } };
}

/** The addresses a `datadog_logs_pipeline_order` lists, in its order (`datadog_logs_custom_pipeline.x.id` → `datadog_logs_custom_pipeline.x`). */
function orderOf(block: HclBlock): string[] {
  const pipelines = block.body.attributes.get('pipelines')?.value;
  if (!Array.isArray(pipelines)) return [];
  return pipelines.flatMap((p) => (isReference(p) ? [p.ref.replace(/\.id$/, '')] : []));
}

/** The custom pipelines of some HCL files' bodies (each with its file name for messages), ordered as their order resource says. */
export function pipelinesOfTerraform(files: readonly { file: string; body: HclBody }[]): TerraformRead {
  const pipelines: TerraformPipeline[] = [];
  const notes: string[] = [];
  let order: string[] = [];
  for (const { file, body } of files)
    for (const block of body.blocks) {
      if (block.type !== 'resource') continue;
      const type = block.labels[0];
      if (type === CUSTOM_PIPELINE) pipelines.push(pipelineOf(block, file));
      else if (type === PIPELINE_ORDER) order = orderOf(block);
      else if (type === INTEGRATION_PIPELINE) notes.push(`${file}: ${labelled(block)}: an integration pipeline; the sidecar runs integration pipelines from its bundled set (--log-pipelines pipelines/integrations-core)`);
    }
  const rank = (p: TerraformPipeline): number => {
    const i = order.indexOf(p.address);
    return i < 0 ? order.length : i;
  };
  return {
    pipelines: pipelines
      .map((p, i) => [p, i] as const)
      .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
      .map(([p]) => p),
    notes,
  };
}
