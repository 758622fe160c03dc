/**
 * Carries a plan out through the management API client (the `stack …` one), idempotently: every
 * object this tool creates carries its item's marker (dashboards and saved searches as a tag,
 * alerts at the start of their note), so a re-run finds it and updates it instead of creating a
 * second one. Metric monitors share one generated dashboard, "Datadog monitors (migrated)"; its
 * tiles keep their ids across updates because HyperDX keeps a tile's id when an update sends it
 * (TileInput in the OpenAPI document), so alerts stay attached.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DashboardRequest, StackApiClient } from '../stack-api/client';
import type { Alert, AlertRequest, Dashboard, SavedSearch } from '../stack-api/types';
import { type DashboardPlan, MARKER_PREFIX, type MonitorPlan, type PlanItem, type TileInput } from './plan';

export type Action = 'created' | 'updated' | 'unchanged' | 'deleted' | 'not found' | 'skipped' | 'would apply' | 'failed';

export interface ItemResult {
  item: PlanItem;
  action: Action;
  error?: string;
}

export type Api = Pick<StackApiClient, 'list' | 'create' | 'update' | 'delete' | 'validateDashboard'>;

export const MONITORS_DASHBOARD = { name: 'Datadog monitors (migrated)', marker: `${MARKER_PREFIX}monitors` } as const;

/**
 * What an item was last migrated as: a hash of the request bodies, kept as a tag (dashboards,
 * saved searches) or in the alert's note beside the marker. A re-run whose bodies hash the same
 * finds the item `unchanged` and sends nothing.
 */
export const contentTag = (bodies: unknown): string => `dd-hash:${createHash('sha256').update(JSON.stringify(bodies)).digest('hex').slice(0, 12)}`;

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
    const hash = contentTag(plan.body);
    if (found?.tags?.includes(hash)) return 'unchanged';
    await upsertDashboard(api, { ...plan.body, tags: [...(plan.body.tags ?? []), hash] }, found);
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

/** Every field `ours` sets is the same in `theirs` (which the server may have filled in further). */
function sameFields(ours: unknown, theirs: unknown): boolean {
  if (ours === null || typeof ours !== 'object') return ours === theirs;
  if (theirs === null || typeof theirs !== 'object') return false;
  if (Array.isArray(ours)) return Array.isArray(theirs) && ours.length === theirs.length && ours.every((o, i) => sameFields(o, theirs[i]));
  return Object.entries(ours).every(([k, v]) => v === undefined || sameFields(v, (theirs as Record<string, unknown>)[k]));
}

/**
 * The generated dashboard with this run's monitor tiles in it; tiles of other monitors stay. A
 * tile is named after its monitor's identity (monitors.ts), so it is found again by name. Nothing
 * is sent when every tile is already there as it would be.
 */
async function upsertMonitorsDashboard(api: Api, tiles: readonly TileInput[]): Promise<{ ids: Map<string, AlertTarget>; unchanged: Set<string> }> {
  const existing = (await api.list('dashboards')).items.find(hasTag(MONITORS_DASHBOARD.marker));
  const ours = new Set(tiles.map((t) => t.name));
  const unchanged = new Set(tiles.filter((t) => existing?.tiles?.some((e) => sameFields(t, e))).map((t) => t.name));
  const idsOf = (d: Dashboard): Map<string, AlertTarget> => new Map((d.tiles ?? []).map((t) => [t.name, { dashboardId: d.id!, tileId: t.id }]));
  if (existing?.id && unchanged.size === tiles.length) return { ids: idsOf(existing), unchanged };
  const others = (existing?.tiles ?? []).filter((t) => !ours.has(t.name));
  const body: DashboardRequest = { name: MONITORS_DASHBOARD.name, tags: [MONITORS_DASHBOARD.marker, 'datadog'], tiles: [...others, ...tiles] };
  const saved = await upsertDashboard(api, body, existing);
  if (!saved?.id) throw new Error('the dashboard reply has no id');
  return { ids: idsOf(saved), unchanged };
}

async function upsertSavedSearch(api: Api, plan: MonitorPlan & { target: { kind: 'search' } }, searches: readonly SavedSearch[], hash: string): Promise<string> {
  const found = searches.find(hasTag(plan.marker));
  const body = { ...plan.target.search, tags: [...(plan.target.search.tags ?? []), hash] };
  const saved = found?.id ? await api.update('saved-searches', found.id, body) : await api.create('saved-searches', body);
  if (!saved?.id) throw new Error('the saved search reply has no id');
  return saved.id;
}

type AlertTarget = Pick<AlertRequest, 'dashboardId' | 'tileId' | 'savedSearchId'>;

interface Existing {
  tileIds: ReadonlyMap<string, AlertTarget>;
  unchangedTiles: ReadonlySet<string>;
  searches: readonly SavedSearch[];
  alerts: readonly Alert[];
}

/** The monitor as it was last migrated: its alert note and saved search carry the same hash, its tile is unchanged. */
function monitorUnchanged(plan: MonitorPlan, hash: string, existing: Existing): boolean {
  const alert = existing.alerts.find(alertOf(plan.marker));
  if ((plan.alert !== undefined) !== (alert !== undefined) || (alert && !alert.note?.includes(hash))) return false;
  if (plan.target?.kind === 'search') return existing.searches.find(hasTag(plan.marker))?.tags?.includes(hash) ?? false;
  return plan.target !== undefined && existing.unchangedTiles.has(plan.target.tile.name);
}

async function applyMonitor(api: Api, plan: MonitorPlan, existing: Existing): Promise<Action> {
  const hash = contentTag({ target: plan.target, alert: plan.alert });
  if (monitorUnchanged(plan, hash, existing)) return 'unchanged';
  const existingAlert = existing.alerts.find(alertOf(plan.marker));
  const existed = existingAlert !== undefined || existing.searches.some(hasTag(plan.marker));
  let target: AlertTarget;
  if (plan.target?.kind === 'search') target = { savedSearchId: await upsertSavedSearch(api, { ...plan, target: plan.target }, existing.searches, hash) };
  else {
    const ids = plan.target ? existing.tileIds.get(plan.target.tile.name) : undefined;
    if (!ids) throw new Error('its tile is missing from the saved monitors dashboard');
    target = ids;
  }
  if (plan.alert) {
    const body: AlertRequest = { ...plan.alert, ...(plan.alert.note ? { note: plan.alert.note.replace(plan.marker, `${plan.marker} ${hash}`) } : {}), ...target };
    if (existingAlert?.id) await api.update('alerts', existingAlert.id, body);
    else await api.create('alerts', body);
  }
  return existed ? 'updated' : 'created';
}

export async function applyMonitors(api: Api, plans: readonly MonitorPlan[], progress: (r: ItemResult) => void): Promise<ItemResult[]> {
  const usable = plans.filter((p) => p.target !== undefined);
  const tiles = usable.flatMap((p) => (p.target?.kind === 'tile' ? [p.target.tile] : []));
  const dashboardTiles = new Set((await api.list('dashboards')).items.find(hasTag(MONITORS_DASHBOARD.marker))?.tiles?.map((t) => t.name) ?? []);
  const { ids, unchanged } = tiles.length > 0 ? await upsertMonitorsDashboard(api, tiles) : { ids: new Map<string, AlertTarget>(), unchanged: new Set<string>() };
  const existing: Existing = { tileIds: ids, unchangedTiles: unchanged, searches: (await api.list('saved-searches')).items, alerts: (await api.list('alerts')).items };
  return eachItem(plans, progress, async (plan) => {
    if (plan.target === undefined) return 'skipped';
    const action = await applyMonitor(api, plan, existing);
    return action === 'created' && plan.target.kind === 'tile' && dashboardTiles.has(plan.target.tile.name) ? 'updated' : action;
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
