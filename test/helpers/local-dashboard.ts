/**
 * A dashboard as `migrate dashboards --out` writes it (the management API's create body) in the
 * shape HyperDX's local mode keeps in the browser: local mode has no API server, so a dashboard
 * lives in localStorage under `hdx-local-dashboards` (an array of dashboards), each tile's config
 * in the app's own chart shape. The field mapping is the one HyperDX's API applies when it stores
 * a dashboard created through `/api/v2/dashboards` (`sourceId` → `source`, a select's
 * `where`/`whereLanguage` → `aggCondition`/`aggConditionLanguage`, the tile's name into its
 * config). Only the tile kinds the converted dashboard holds are mapped; any other is refused by
 * name rather than drawn wrongly. The UI suite loads dashboards in this shape; the migrated-tiles
 * suite (test/hyperdx-api/migrate-tiles.test.ts) queries a tile in it as the UI would.
 */

/** The localStorage key local mode reads dashboards from. */
export const LOCAL_DASHBOARDS_KEY = 'hdx-local-dashboards';
/** The localStorage key local mode keeps its sources under (an array of `{id, name, kind, …}`). */
export const LOCAL_SOURCES_KEY = 'hdx-local-source';

interface ApiSelect {
  aggFn: string;
  level?: number;
  valueExpression?: string;
  where: string;
  whereLanguage: string;
  alias?: string;
  metricName?: string;
  metricType?: string;
}

export interface ApiTile {
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  containerId?: string;
  config: { displayType: string; sourceId?: string; select?: ApiSelect[]; groupBy?: string; formulas?: unknown[]; showOperandSeries?: boolean; markdown?: string };
}

export interface ApiDashboard {
  name: string;
  tags?: string[];
  tiles: ApiTile[];
  containers?: unknown[];
}

export interface LocalDashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: { id: string; x: number; y: number; w: number; h: number; containerId?: string; config: Record<string, unknown> }[];
  containers?: unknown[];
}

const localSelect = ({ where, whereLanguage, valueExpression, ...rest }: ApiSelect): Record<string, unknown> => ({
  ...rest,
  aggCondition: where,
  aggConditionLanguage: whereLanguage,
  valueExpression: valueExpression ?? '',
});

/** One tile's config as the app keeps it (and, with its source's tables and a time range, queries it). */
export function localTileConfig(tile: ApiTile): Record<string, unknown> {
  const { config, name } = tile;
  switch (config.displayType) {
    case 'line':
    case 'stacked_bar':
      return {
        name,
        displayType: config.displayType,
        source: config.sourceId,
        select: (config.select ?? []).map(localSelect),
        where: '',
        ...(config.groupBy ? { groupBy: config.groupBy } : {}),
        ...(config.formulas ? { formulas: config.formulas, showOperandSeries: config.showOperandSeries } : {}),
      };
    case 'markdown':
      return { name, displayType: 'markdown', markdown: config.markdown, source: '', where: '', select: [] };
    default:
      throw new Error(`tile "${name}": a ${config.displayType} tile is not converted to local mode's shape`);
  }
}

/** The dashboard under `id`, its tiles numbered `<id>-<n>` in order. */
export function toLocalDashboard(body: ApiDashboard, id: string): LocalDashboard {
  return {
    id,
    name: body.name,
    tags: body.tags ?? [],
    tiles: body.tiles.map((tile, i) => ({ id: `${id}-${i}`, x: tile.x, y: tile.y, w: tile.w, h: tile.h, ...(tile.containerId ? { containerId: tile.containerId } : {}), config: localTileConfig(tile) })),
    ...(body.containers ? { containers: body.containers } : {}),
  };
}
