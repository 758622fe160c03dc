/**
 * Datadog dashboards and monitors as their API returns them (`GET /api/v1/dashboard/{id}`,
 * `GET /api/v1/monitor/{id}`), typed as deep as the migration reads them. Readers check the shape
 * and name the field that is wrong (`widgets[3].definition.requests: expected an array`); fields
 * the migration does not read are left unchecked, as Datadog adds new ones all the time.
 */

export interface TemplateVariable {
  name: string;
  /** the tag key the variable selects values of; none: a value is a whole `key:value` tag */
  prefix: string | null;
  /** `default` (older exports) or `defaults`; several mean any of them */
  defaults: string[];
  /** the values the drop-down offers; none: every value of the tag */
  availableValues: string[];
}

/** Old form: `q` holds the whole query. Newer form: named `queries` combined by `formulas`. */
export interface WidgetRequest {
  q?: string;
  queries?: NamedQuery[];
  formulas?: { formula: string; alias?: string; limit?: { count?: number; order?: string } }[];
  display_type?: string;
  aggregator?: string;
  response_format?: string;
  /** list_stream (`query_string`); a distribution widget's histogram request (`query`) */
  query?: { data_source?: string; query_string?: string; query?: string };
  sort?: { count?: number };
  /** the older form of a log query */
  log_query?: { search?: { query: string }; compute?: { aggregation?: string; facet?: string; metric?: string }; group_by?: { facet: string; limit?: number }[] };
}

export interface NamedQuery {
  name: string;
  data_source: string;
  /** metrics */
  query?: string;
  aggregator?: string;
  /** logs, spans */
  search?: { query: string };
  compute?: { aggregation: string; metric?: string };
  group_by?: { facet: string; limit?: number }[];
}

export interface WidgetDefinition {
  type: string;
  title?: string;
  /** note, free_text */
  content?: string;
  text?: string;
  requests?: WidgetRequest[];
  /** group */
  widgets?: Widget[];
  [field: string]: unknown;
}

export interface WidgetLayout {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Widget {
  id?: number;
  definition: WidgetDefinition;
  layout?: WidgetLayout;
}

export interface DatadogDashboard {
  id?: string;
  title: string;
  description?: string | null;
  layout_type: 'ordered' | 'free';
  widgets: Widget[];
  template_variables: TemplateVariable[];
}

export interface DatadogMonitor {
  id?: number;
  name: string;
  type: string;
  query: string;
  message: string;
  tags: string[];
  /** integrations-core's envelope declares the `$env`-style variables a query uses */
  variables: TemplateVariable[];
  options: {
    thresholds?: { critical?: number; warning?: number; ok?: number; critical_recovery?: number; warning_recovery?: number };
    [field: string]: unknown;
  };
}

export class ExportError extends Error {
  override name = 'ExportError';
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function field<T>(obj: Json, name: string, path: string, check: (v: unknown) => v is T, expected: string): T {
  const value = obj[name];
  if (!check(value)) throw new ExportError(`${path}.${name}: expected ${expected}, got ${value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 60)}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const optional =
  <T>(check: (v: unknown) => v is T) =>
  (v: unknown): v is T | undefined =>
    v === undefined || v === null || check(v);

/**
 * Bounds a dashboard must stay within to be read. Datadog nests widgets one level deep (a group
 * holds widgets, not groups) and a dashboard holds at most a few hundred; a file far outside
 * either is not a dashboard export, and reading it whole would exhaust the stack or the memory.
 */
export const DASHBOARD_LIMITS = { depth: 3, widgets: 10_000 } as const;

/** Every widget of `widgets` and its groups, counted without recursion, stopping once over the limit. */
function countWidgets(widgets: readonly unknown[]): number {
  let count = 0;
  const stack: unknown[][] = [widgets as unknown[]];
  while (stack.length > 0 && count <= DASHBOARD_LIMITS.widgets * 100) {
    for (const w of stack.pop()!) {
      count++;
      const children = isObject(w) && isObject(w.definition) ? w.definition.widgets : undefined;
      if (isArray(children)) stack.push(children);
    }
  }
  return count;
}

function readWidget(raw: unknown, path: string, depth: number): Widget {
  if (!isObject(raw)) throw new ExportError(`${path}: expected an object`);
  if (depth > DASHBOARD_LIMITS.depth) throw new ExportError(`${path}: widgets nest ${depth} levels deep; a dashboard nests at most ${DASHBOARD_LIMITS.depth} (Datadog: groups of widgets, one level)`);
  const definition = field(raw, 'definition', path, isObject, 'an object');
  const defPath = `${path}.definition`;
  field(definition, 'type', defPath, isString, 'a widget type');
  field(
    definition,
    'requests',
    defPath,
    optional((v): v is unknown => isArray(v) || isObject(v)),
    'an array',
  );
  const children = field(definition, 'widgets', defPath, optional(isArray), 'an array');
  const layout = field(raw, 'layout', path, optional(isObject), 'an object');
  return {
    ...(typeof raw.id === 'number' ? { id: raw.id } : {}),
    definition: { ...(definition as WidgetDefinition), ...(children ? { widgets: children.map((w, i) => readWidget(w, `${defPath}.widgets[${i}]`, depth + 1)) } : {}) },
    ...(layout ? { layout: layout as unknown as WidgetLayout } : {}),
  };
}

function readTemplateVariable(raw: unknown, path: string): TemplateVariable {
  if (!isObject(raw)) throw new ExportError(`${path}: expected an object`);
  const defaults = field(raw, 'defaults', path, optional(isArray), 'an array') ?? [];
  const available = field(raw, 'available_values', path, optional(isArray), 'an array') ?? [];
  return {
    name: field(raw, 'name', path, isString, 'a name'),
    prefix: typeof raw.prefix === 'string' && raw.prefix !== '' ? raw.prefix : null,
    defaults: typeof raw.default === 'string' ? [raw.default] : defaults.filter(isString),
    availableValues: available.filter(isString),
  };
}

export function readDashboard(raw: unknown, path = 'dashboard'): DatadogDashboard {
  if (!isObject(raw)) throw new ExportError(`${path}: expected a JSON object`);
  const widgets = field(raw, 'widgets', path, isArray, 'an array of widgets');
  const variables = field(raw, 'template_variables', path, optional(isArray), 'an array');
  const layout = raw.layout_type === 'free' ? 'free' : 'ordered';
  const count = countWidgets(widgets);
  if (count > DASHBOARD_LIMITS.widgets) throw new ExportError(`${path}: ${count > DASHBOARD_LIMITS.widgets * 100 ? `over ${DASHBOARD_LIMITS.widgets * 100}` : count} widgets; a dashboard holds at most ${DASHBOARD_LIMITS.widgets}`);
  return {
    ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
    title: field(raw, 'title', path, isString, 'a title'),
    description: typeof raw.description === 'string' ? raw.description : null,
    layout_type: layout,
    widgets: widgets.map((w, i) => readWidget(w, `${path}.widgets[${i}]`, 1)),
    template_variables: (variables ?? []).map((v, i) => readTemplateVariable(v, `${path}.template_variables[${i}]`)),
  };
}

/** A monitor, bare or in integrations-core's `{version, definition}` envelope. */
export function readMonitor(raw: unknown, path = 'monitor'): DatadogMonitor {
  if (!isObject(raw)) throw new ExportError(`${path}: expected a JSON object`);
  const [obj, at] = isObject(raw.definition) ? [raw.definition, `${path}.definition`] : [raw, path];
  const options = field(obj, 'options', at, optional(isObject), 'an object') ?? {};
  field(options, 'thresholds', `${at}.options`, optional(isObject), 'an object');
  const tags = field(obj, 'tags', at, optional(isArray), 'an array') ?? [];
  const variables = field(raw, 'template_variables', path, optional(isArray), 'an array') ?? [];
  return {
    ...(typeof obj.id === 'number' ? { id: obj.id } : {}),
    name: field(obj, 'name', at, isString, 'a name'),
    type: field(obj, 'type', at, isString, 'a monitor type'),
    query: field(obj, 'query', at, isString, 'a query'),
    message: typeof obj.message === 'string' ? obj.message : '',
    tags: tags.filter(isString),
    variables: variables.map((v, i) => readTemplateVariable(v, `${path}.template_variables[${i}]`)),
    options: options as DatadogMonitor['options'],
  };
}

/** A file holds a monitor when it says which kind of monitor it is; a dashboard has widgets. */
export const looksLikeMonitor = (raw: unknown): boolean => isObject(raw) && (isObject(raw.definition) || (typeof raw.type === 'string' && typeof raw.query === 'string'));
