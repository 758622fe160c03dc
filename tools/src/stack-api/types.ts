/**
 * The shapes the CLI reads, written by hand from the schemas of hyperdx-openapi.json (names as
 * there). Typed as deep as this code looks; everything deeper (tile chart configs, source
 * expressions) is left open here because the schema validator checks it against the document.
 * Nearly every reply field is optional in the document, so it is optional here too.
 */

export type AlertInterval = '1m' | '5m' | '15m' | '30m' | '1h' | '6h' | '12h' | '1d';
export type AlertThresholdType = 'above' | 'below' | 'above_exclusive' | 'below_or_equal' | 'equal' | 'not_equal' | 'between' | 'not_between';
export type AlertSource = 'saved_search' | 'tile';
export type AlertState = 'ALERT' | 'OK' | 'INSUFFICIENT_DATA' | 'DISABLED' | 'PENDING';

export interface AlertChannelWebhook {
  type: 'webhook';
  webhookId: string;
}

/** Alert: the fields a create or update request and a reply share. */
export interface AlertFields {
  dashboardId?: string | null;
  tileId?: string | null;
  savedSearchId?: string | null;
  groupBy?: string | null;
  threshold?: number;
  thresholdMax?: number | null;
  interval?: AlertInterval;
  scheduleOffsetMinutes?: number | null;
  scheduleStartAt?: string | null;
  source?: AlertSource;
  thresholdType?: AlertThresholdType;
  channel?: AlertChannelWebhook;
  channels?: AlertChannelWebhook[];
  name?: string | null;
  message?: string | null;
  note?: string | null;
  numConsecutiveWindows?: number | null;
}

/** CreateAlertRequest / UpdateAlertRequest (updates replace the whole alert). */
export type AlertRequest = AlertFields & Required<Pick<AlertFields, 'threshold' | 'interval' | 'thresholdType'>>;

/** AlertResponse. */
export interface Alert extends AlertFields {
  id?: string;
  state?: AlertState;
  teamId?: string;
  silenced?: { by?: string | null; at?: string; until?: string } | null;
  executionErrors?: { timestamp: string; type: string; message: string }[] | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}

/** TileOutput, down to the discriminant of its chart config. */
export interface Tile {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  config?: { displayType: string; [field: string]: unknown };
  containerId?: string;
  tabId?: string;
}

/** Filter (a dashboard's drop-down). */
export interface DashboardFilter {
  id: string;
  type: 'QUERY_EXPRESSION';
  name: string;
  expression: string;
  sourceId: string;
  [field: string]: unknown;
}

/** DashboardResponse. CreateDashboardRequest / UpdateDashboardRequest are the same without ids. */
export interface Dashboard {
  id?: string;
  name?: string;
  tiles?: Tile[];
  tags?: string[];
  filters?: DashboardFilter[];
  savedQuery?: string | null;
  savedQueryLanguage?: 'sql' | 'lucene' | null;
  savedFilterValues?: unknown[];
  containers?: unknown[];
}

/** The reply of `POST /dashboards/validate`: always 200; `errors` say why when not valid. */
export interface DashboardValidation {
  valid: boolean;
  errors: { path: string; message: string }[];
  normalized: Record<string, unknown> | null;
}

/** SavedSearch (a reply) / SavedSearchInput (a request: name and sourceId required). */
export interface SavedSearch {
  id?: string;
  name?: string;
  sourceId?: string;
  select?: string;
  where?: string;
  whereLanguage?: 'lucene' | 'sql';
  orderBy?: string;
  tags?: string[];
}

export type SavedSearchRequest = SavedSearch & { name: string; sourceId: string };

export type SourceKind = 'log' | 'trace' | 'metric' | 'session' | 'promql';

/** Source (LogSource | TraceSource | MetricSource | SessionSource | PromqlSource, by `kind`). */
export interface Source {
  id?: string;
  name: string;
  kind: SourceKind;
  connection: string;
  from: { databaseName: string; tableName?: string | null };
  section?: string;
  disabled?: boolean | null;
  [field: string]: unknown;
}

/** PaginationMeta. */
export interface PaginationMeta {
  total: number;
  limit: number;
  offset: number;
}

/** *ResponseEnvelope. */
export interface Envelope<T> {
  data?: T;
}

/** *ListResponse; only paginated lists (alerts) carry meta. */
export interface ListEnvelope<T> {
  data?: T[];
  meta?: PaginationMeta;
}
