/**
 * What a migration intends to do, item by item, before anything is sent: the request bodies (as
 * the OpenAPI document has them), the marker that finds the item again on a re-run, and what
 * could not be expressed. `--dry-run` prints it, `--out` writes it, a run applies it.
 */
import { createHash } from 'node:crypto';
import type { DashboardRequest } from '../stack-api/client';
import type { AlertRequest, SavedSearchRequest, Tile } from '../stack-api/types';

/** How much of an item made it across. */
export type Outcome = 'full' | 'partial' | 'skipped';

export type TileInput = Omit<Tile, 'id'> & { id?: string };

/** An alert before the ids it points at exist. */
export type AlertDraft = Omit<AlertRequest, 'dashboardId' | 'tileId' | 'savedSearchId'>;

/** How one widget or monitor came across. */
export type Status = 'exact' | 'approximated' | 'dropped';

/** One line of the report: a widget (or a monitor), with how it is approximated or why it is dropped. */
export interface ItemReport {
  name: string;
  /** the Datadog widget or monitor type */
  type: string;
  /** `text`: a widget with no query (note, free text) */
  status: Status | 'text';
  /** approximated: how, each; dropped: why */
  notes: string[];
}

export interface DashboardPlan {
  kind: 'dashboard';
  file: string;
  name: string;
  marker: string;
  body: DashboardRequest;
  outcome: Outcome;
  notes: string[];
  /** widget by widget, in the dashboard's order */
  widgets: ItemReport[];
  /** what concerns the dashboard rather than one widget (template variables) */
  dashboardNotes: string[];
}

/** A monitor: a tile on the generated monitors dashboard or a saved search, and its alert. */
export interface MonitorPlan {
  kind: 'monitor';
  file: string;
  name: string;
  /** the Datadog monitor type */
  type: string;
  marker: string;
  target: { kind: 'tile'; tile: TileInput } | { kind: 'search'; search: SavedSearchRequest } | undefined;
  alert: AlertDraft | undefined;
  outcome: Outcome;
  notes: string[];
}

export type PlanItem = DashboardPlan | MonitorPlan;

/** The tag prefix (dashboards, saved searches) and note text (alerts) a migrated item carries. */
export const MARKER_PREFIX = 'dd-migrate:';

/**
 * What an item is known by across runs: the Datadog id when the export has one (hashed as earlier
 * runs hashed it), else its file's path under the DIR given, never its title or name: two
 * monitors may share a name, and a renamed dashboard is still the same dashboard.
 */
export const identityOf = (id: string | number | undefined, file: string): string => (id !== undefined ? String(id) : `file:${file}`);

/** 12 hex digits of the identity keep the tag under the document's 32-character limit. */
export function markerFor(kind: 'dashboard' | 'monitor', identity: string): string {
  return `${MARKER_PREFIX}${createHash('sha256').update(`${kind}\0${identity}`).digest('hex').slice(0, 12)}`;
}

export const outcomeOf = (notes: readonly string[], usable: boolean): Outcome => (!usable ? 'skipped' : notes.length > 0 ? 'partial' : 'full');

/** The source ids tiles and searches read (the instance's Metrics and Logs sources). */
export interface Sources {
  metric: string;
  log: string;
}
