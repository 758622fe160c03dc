/**
 * `--table`: a compact, aligned view with the few columns a person scans for; the JSON output
 * stays the complete record.
 */
import type { ResourceName } from './client';
import type { Alert, Dashboard, SavedSearch, Source } from './types';

type Column<T> = [header: string, cell: (item: T) => unknown];

const condition = (a: Alert): string => (a.thresholdType === 'between' || a.thresholdType === 'not_between' ? `${a.thresholdType} ${a.threshold}..${a.thresholdMax}` : `${a.thresholdType ?? ''} ${a.threshold ?? ''}`);

const alertTarget = (a: Alert): string => (a.source === 'saved_search' ? `search ${a.savedSearchId ?? ''}` : `tile ${a.dashboardId ?? ''}/${a.tileId ?? ''}`);

const COLUMNS: { dashboards: Column<Dashboard>[]; alerts: Column<Alert>[]; 'saved-searches': Column<SavedSearch>[]; sources: Column<Source>[] } = {
  dashboards: [
    ['ID', (d) => d.id],
    ['NAME', (d) => d.name],
    ['TILES', (d) => d.tiles?.length],
    ['TAGS', (d) => d.tags?.join(',')],
  ],
  alerts: [
    ['ID', (a) => a.id],
    ['NAME', (a) => a.name],
    ['STATE', (a) => a.state],
    ['INTERVAL', (a) => a.interval],
    ['CONDITION', condition],
    ['TARGET', alertTarget],
  ],
  'saved-searches': [
    ['ID', (s) => s.id],
    ['NAME', (s) => s.name],
    ['WHERE', (s) => s.where],
    ['TAGS', (s) => s.tags?.join(',')],
  ],
  sources: [
    ['ID', (s) => s.id],
    ['NAME', (s) => s.name],
    ['KIND', (s) => s.kind],
    ['TABLE', (s) => [s.from?.databaseName, s.from?.tableName].filter(Boolean).join('.')],
  ],
};

/** One line per cell, whatever the service put in a name. */
const cellText = (value: unknown): string => {
  const text = value === undefined || value === null || value === '' ? '-' : String(value);
  return text.replace(/\s+/g, ' ').trim() || '-';
};

function alignRows(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0))) ?? [];
  return rows
    .map(
      (r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd() + '\n',
    )
    .join('');
}

export function formatTable(resource: ResourceName, items: readonly unknown[]): string {
  const columns = COLUMNS[resource] as Column<unknown>[];
  return alignRows([columns.map(([header]) => header), ...items.map((item) => columns.map(([, cell]) => cellText(cell(item))))]);
}
