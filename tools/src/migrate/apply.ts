/**
 * Carries a plan out through the management API client (the `stack …` one), idempotently: every
 * object this tool creates carries its item's marker (dashboards and saved searches as a tag,
 * alerts at the start of their note), so a re-run finds it and updates it instead of creating a
 * second one. Metric monitors share one generated dashboard, "Datadog monitors (migrated)"; its
 * tiles keep their ids across updates because HyperDX keeps a tile's id when an update sends it
 * (TileInput in the OpenAPI document), so alerts stay attached.
 */
import { randomBytes } from 'node:crypto';
import type { DashboardRequest, StackApiClient } from '../stack-api/client';
import type { Alert, AlertRequest, Dashboard, SavedSearch } from '../stack-api/types';
import { type DashboardPlan, MARKER_PREFIX, type MonitorPlan, type PlanItem, type TileInput } from './plan';

export type Action = 'created' | 'updated' | 'deleted' | 'not found' | 'skipped' | 'would apply' | 'failed';

export interface ItemResult {
  item: PlanItem;
  action: Action;
  error?: string;
}

export type Api = Pick<StackApiClient, 'list' | 'create' | 'update' | 'delete' | 'validateDashboard'>;

export const MONITORS_DASHBOARD = { name: 'Datadog monitors (migrated)', marker: `${MARKER_PREFIX}monitors` } as const;

const hasTag = (marker: string) => (o: { tags?: string[] }) => o.tags?.includes(marker) ?? false;
const alertOf = (marker: string) => (a: Alert) => a.note?.startsWith(marker) ?? false;

/**
 * Tiles of `body` take the ids of `existing`'s tiles, so an update keeps them: the n-th tile of a
 * name takes the id of the n-th existing tile of that name (notes are often untitled).
 */
function keepTileIds(tiles: readonly TileInput[], existing: Dashboard | undefined): TileInput[] {
  const ids = new Map<string, string[]>();
  for (const t of existing?.tiles ?? []) ids.set(t.name, [...(ids.get(t.name) ?? []), t.id]);
  return tiles.map((t) => {
    const id = ids.get(t.name)?.shift();
    return id === undefined ? t : { ...t, id };
  });
}

/**
 * Filters of an update need ids (Filter in UpdateDashboardRequest): the existing filter's of that
 * name, else a new one (the server assigns its own to an id it does not know).
 */
function keepFilterIds(filters: DashboardRequest['filters'], existing: Dashboard): DashboardRequest['filters'] {
  return filters?.map((f) => ({ ...f, id: existing.filters?.find((e) => e.name === f.name)?.id ?? randomBytes(12).toString('hex') }));
}

const reasons = (errors: readonly { path: string; message: string }[]): string => errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');

/** The server's own checks (`POST /dashboards/validate`) before anything is saved; a refusal names its reasons. */
async function validated(api: Pick<Api, 'validateDashboard'>, body: DashboardRequest): Promise<void> {
  const result = await api.validateDashboard(body);
  if (!result.valid) throw new Error(`refused by dashboards/validate: ${reasons(result.errors)}`);
}

async function upsertDashboard(api: Api, body: DashboardRequest, existing: Dashboard | undefined): Promise<Dashboard | undefined> {
  await validated(api, body);
  if (!existing?.id) return api.create('dashboards', body);
  return api.update('dashboards', existing.id, { ...body, tiles: keepTileIds(body.tiles, existing), ...(body.filters ? { filters: keepFilterIds(body.filters, existing) } : {}) });
}

/** One item after another: a failure is that item's result, and the others still run. */
async function eachItem<P extends PlanItem>(plans: readonly P[], progress: (r: ItemResult) => void, act: (plan: P) => Promise<Action>): Promise<ItemResult[]> {
  const results: ItemResult[] = [];
  for (const plan of plans) {
    let result: ItemResult;
    try {
      result = { item: plan, action: await act(plan) };
    } catch (err) {
      result = { item: plan, action: 'failed', error: (err as Error).message };
    }
    progress(result);
    results.push(result);
  }
  return results;
}

export async function applyDashboards(api: Api, plans: readonly DashboardPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  const existing = (await api.list('dashboards')).items;
  return eachItem(plans, progress, async (plan) => {
    const found = existing.find(hasTag(plan.marker));
    await upsertDashboard(api, plan.body, found);
    return found ? 'updated' : 'created';
  });
}

/** `--dry-run` with credentials: each dashboard checked by the server, nothing saved. */
export async function checkDashboards(api: Pick<Api, 'validateDashboard'>, plans: readonly DashboardPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  return eachItem(plans, progress, async (plan) => {
    if (plan.outcome === 'skipped') return 'skipped';
    await validated(api, plan.body);
    return 'would apply';
  });
}

export async function deleteDashboards(api: Api, plans: readonly DashboardPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  const existing = (await api.list('dashboards')).items;
  return eachItem(plans, progress, async (plan) => {
    const found = existing.find(hasTag(plan.marker));
    if (found?.id) await api.delete('dashboards', found.id);
    return found ? 'deleted' : 'not found';
  });
}

/** The generated dashboard with this run's monitor tiles in it; tiles of other monitors stay. */
async function upsertMonitorsDashboard(api: Api, tiles: readonly TileInput[]): Promise<Map<string, { dashboardId: string; tileId: string }>> {
  const existing = (await api.list('dashboards')).items.find(hasTag(MONITORS_DASHBOARD.marker));
  const ours = new Set(tiles.map((t) => t.name));
  const others = (existing?.tiles ?? []).filter((t) => !ours.has(t.name));
  const body: DashboardRequest = { name: MONITORS_DASHBOARD.name, tags: [MONITORS_DASHBOARD.marker, 'datadog'], tiles: [...others, ...tiles] };
  const saved = await upsertDashboard(api, body, existing);
  if (!saved?.id) throw new Error('the dashboard reply has no id');
  return new Map((saved.tiles ?? []).map((t) => [t.name, { dashboardId: saved.id!, tileId: t.id }]));
}

async function upsertSavedSearch(api: Api, plan: MonitorPlan & { target: { kind: 'search' } }, searches: readonly SavedSearch[]): Promise<string> {
  const found = searches.find(hasTag(plan.marker));
  const saved = found?.id ? await api.update('saved-searches', found.id, plan.target.search) : await api.create('saved-searches', plan.target.search);
  if (!saved?.id) throw new Error('the saved search reply has no id');
  return saved.id;
}

type AlertTarget = Pick<AlertRequest, 'dashboardId' | 'tileId' | 'savedSearchId'>;

async function applyMonitor(api: Api, plan: MonitorPlan, tileIds: ReadonlyMap<string, AlertTarget>, searches: readonly SavedSearch[], alerts: readonly Alert[]): Promise<Action> {
  const existingAlert = alerts.find(alertOf(plan.marker));
  const existed = existingAlert !== undefined || searches.some(hasTag(plan.marker));
  let target: AlertTarget;
  if (plan.target?.kind === 'search') target = { savedSearchId: await upsertSavedSearch(api, { ...plan, target: plan.target }, searches) };
  else {
    const ids = plan.target ? tileIds.get(plan.target.tile.name) : undefined;
    if (!ids) throw new Error('its tile is missing from the saved monitors dashboard');
    target = ids;
  }
  if (plan.alert) {
    const body: AlertRequest = { ...plan.alert, ...target };
    if (existingAlert?.id) await api.update('alerts', existingAlert.id, body);
    else await api.create('alerts', body);
  }
  return existed ? 'updated' : 'created';
}

export async function applyMonitors(api: Api, plans: readonly MonitorPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  const usable = plans.filter((p) => p.target !== undefined);
  const tiles = usable.flatMap((p) => (p.target?.kind === 'tile' ? [p.target.tile] : []));
  const dashboardTiles = new Set((await api.list('dashboards')).items.find(hasTag(MONITORS_DASHBOARD.marker))?.tiles?.map((t) => t.name) ?? []);
  const tileIds = tiles.length > 0 ? await upsertMonitorsDashboard(api, tiles) : new Map<string, AlertTarget>();
  const searches = (await api.list('saved-searches')).items;
  const alerts = (await api.list('alerts')).items;
  return eachItem(plans, progress, async (plan) => {
    if (plan.target === undefined) return 'skipped';
    const action = await applyMonitor(api, plan, tileIds, searches, alerts);
    return plan.target.kind === 'tile' && dashboardTiles.has(plan.target.tile.name) ? 'updated' : action;
  });
}

export async function deleteMonitors(api: Api, plans: readonly MonitorPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  const alerts = (await api.list('alerts')).items;
  const searches = (await api.list('saved-searches')).items;
  const dashboard = (await api.list('dashboards')).items.find(hasTag(MONITORS_DASHBOARD.marker));
  const removedTiles = new Set<string>();
  const results = await eachItem(plans, progress, async (plan) => {
    const alert = alerts.find(alertOf(plan.marker));
    const search = searches.find(hasTag(plan.marker));
    const tileName = plan.target?.kind === 'tile' ? plan.target.tile.name : undefined;
    const tile = dashboard?.tiles?.find((t) => t.name === tileName);
    if (alert?.id) await api.delete('alerts', alert.id);
    if (search?.id) await api.delete('saved-searches', search.id);
    if (tile) removedTiles.add(tile.name);
    return alert || search || tile ? 'deleted' : 'not found';
  });
  if (dashboard?.id && removedTiles.size > 0) {
    const kept = (dashboard.tiles ?? []).filter((t) => !removedTiles.has(t.name));
    if (kept.length === 0) await api.delete('dashboards', dashboard.id);
    else await api.update('dashboards', dashboard.id, { name: dashboard.name ?? MONITORS_DASHBOARD.name, tags: dashboard.tags ?? [MONITORS_DASHBOARD.marker], tiles: kept });
  }
  return results;
}
