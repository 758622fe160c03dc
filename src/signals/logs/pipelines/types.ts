/**
 * Datadog's log pipeline model, as the engine runs it. A pipeline is a filter query and an
 * ordered list of processors; a processor is one of the kinds below. The specs are what a
 * pipeline file says, with Datadog's two spellings (integrations-core's camelCase YAML, the API's
 * snake_case JSON) already read into one (spec.ts); compiled processors (compile.ts) hold what
 * running needs (regular expressions, parsed queries), built once per load.
 */
import type { JsonValue } from '../../../core/wire/json';

export interface PipelineSpec {
  type: 'pipeline';
  name: string;
  enabled: boolean;
  /** A log search query; empty or absent: every log. */
  filter: string;
  processors: ProcessorSpec[];
}

export interface GrokSpec {
  type: 'grok-parser';
  name: string;
  enabled: boolean;
  source: string;
  supportRules: string;
  matchRules: string;
  samples: string[];
}

interface RemapperBase {
  name: string;
  enabled: boolean;
  sources: string[];
}

export interface AttributeRemapperSpec extends RemapperBase {
  type: 'attribute-remapper';
  sourceType: 'attribute' | 'tag';
  target: string;
  targetType: 'attribute' | 'tag';
  targetFormat: 'auto' | 'string' | 'integer' | 'double';
  preserveSource: boolean;
  overrideOnConflict: boolean;
}

/** The remappers that make one source the log's date, status, service, message, trace or span id. */
export interface ReservedRemapperSpec extends RemapperBase {
  type: 'date-remapper' | 'status-remapper' | 'service-remapper' | 'message-remapper' | 'trace-id-remapper' | 'span-id-remapper';
}

export interface CategorySpec {
  type: 'category-processor';
  name: string;
  enabled: boolean;
  target: string;
  categories: { query: string; name: string }[];
}

export interface UrlParserSpec extends RemapperBase {
  type: 'url-parser';
  target: string;
  normalizeEndingSlashes: boolean;
}

export interface UserAgentParserSpec extends RemapperBase {
  type: 'user-agent-parser';
  target: string;
  encoded: boolean;
  combineVersionDetails: boolean;
}

export interface GeoIpParserSpec extends RemapperBase {
  type: 'geo-ip-parser';
  target: string;
}

export interface ArithmeticSpec {
  type: 'arithmetic-processor';
  name: string;
  enabled: boolean;
  expression: string;
  target: string;
  replaceMissing: boolean;
}

export interface StringBuilderSpec {
  type: 'string-builder-processor';
  name: string;
  enabled: boolean;
  template: string;
  target: string;
  replaceMissing: boolean;
}

export interface LookupSpec {
  type: 'lookup-processor';
  name: string;
  enabled: boolean;
  source: string;
  target: string;
  /** `key,value` lines, as Datadog stores them. */
  lookupTable: string[];
  defaultLookup: string | undefined;
}

export type ArrayOperation = { type: 'append'; source: string; target: string; preserveSource: boolean } | { type: 'length'; source: string; target: string } | { type: 'select'; source: string; target: string; filter: string; valueToExtract: string };

export interface ArraySpec {
  type: 'array-processor';
  name: string;
  enabled: boolean;
  operation: ArrayOperation;
}

export type ProcessorSpec = PipelineSpec | GrokSpec | AttributeRemapperSpec | ReservedRemapperSpec | CategorySpec | UrlParserSpec | UserAgentParserSpec | GeoIpParserSpec | ArithmeticSpec | StringBuilderSpec | LookupSpec | ArraySpec;

/** Something a pipeline asks for that the engine does not run, with where it is. */
export interface Unsupported {
  /** `Nginx > Parsing Nginx logs > rule access.common`, … */
  path: string;
  reason: string;
}

/** A log as the processors see it: Datadog's reserved attributes apart, the rest flat under dotted keys. */
export interface LogView {
  message: string;
  /** Datadog's status names: emergency, alert, critical, error, warn, notice, info, debug, ok. */
  status: string | undefined;
  service: string | undefined;
  host: string | undefined;
  source: string | undefined;
  /** `key:value` (or bare) tags. */
  tags: string[];
  attributes: ReadonlyMap<string, JsonValue>;
}
