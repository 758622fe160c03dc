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

export interface DashboardPlan {
  kind: 'dashboard';
  file: string;
  name: string;
  marker: string;
  body: DashboardRequest;
  outcome: Outcome;
  notes: string[];
}

/** A monitor: a tile on the generated monitors dashboard or a saved search, and its alert. */
export interface MonitorPlan {
  kind: 'monitor';
  file: string;
  name: string;
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
 * Stable across runs and file moves: the Datadog id when the export has one, else its title.
 * 12 hex digits keep the tag under the document's 32-character limit.
 */
export function markerFor(kind: 'dashboard' | 'monitor', identity: string): string {
  return `${MARKER_PREFIX}${createHash('sha256').update(`${kind}\0${identity}`).digest('hex').slice(0, 12)}`;
}

export const outcomeOf = (notes: readonly string[], usable: boolean): Outcome => (!usable ? 'skipped' : notes.length > 0 ? 'partial' : 'full');

/** The source ids tiles and searches read (the instance's Metrics and Logs sources). */
export interface Sources {
  metric: string;
  log: string;
}
