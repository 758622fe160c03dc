/**
 * The migration report: per dashboard widget and per monitor, exact, approximated (how) or dropped
 * (why), with totals; as text (stderr, and `--out`'s report file) and as JSON (`--report FILE`).
 */
import type { ItemReport, PlanItem, Status } from './plan';

export interface ItemResultLike {
  item: PlanItem;
  action: string;
  error?: string;
}

export interface Totals {
  exact: number;
  approximated: number;
  dropped: number;
}

export interface ReportTotals {
  items: number;
  /** data widgets (with a query) of the dashboards, or the monitors */
  translated: Totals;
  /** widgets without a query (notes, free text) */
  text: number;
}

/** A monitor's status: skipped is dropped, anything said about it makes it approximated. */
export function monitorStatus(item: PlanItem): Status {
  return item.outcome === 'skipped' ? 'dropped' : item.outcome === 'partial' ? 'approximated' : 'exact';
}

/** The report lines of an item: its widgets, or the monitor itself. */
export function entriesOf(item: PlanItem): ItemReport[] {
  if (item.kind === 'dashboard') return item.widgets;
  return [{ name: item.name, type: item.type, status: monitorStatus(item), notes: item.notes }];
}

const zero = (): Totals => ({ exact: 0, approximated: 0, dropped: 0 });

export function totalsOf(items: readonly PlanItem[]): ReportTotals {
  const totals: ReportTotals = { items: items.length, translated: zero(), text: 0 };
  for (const entry of items.flatMap(entriesOf)) {
    if (entry.status === 'text') totals.text++;
    else totals.translated[entry.status]++;
  }
  return totals;
}

const MARK: Record<ItemReport['status'], string> = { exact: '=', approximated: '≈', dropped: '✗', text: ' ' };

const percent = (n: number, of: number): string => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`);

/** `10 data widgets: 7 exact, 2 approximated, 1 dropped` */
export function countsLine(t: Totals, what: string): string {
  const all = t.exact + t.approximated + t.dropped;
  return `${all} ${what}: ${t.exact} exact, ${t.approximated} approximated, ${t.dropped} dropped (${percent(t.exact + t.approximated, all)} exact or approximated)`;
}

/** One item as text: what was done, then each approximated or dropped widget with how or why. */
export function itemText(item: PlanItem, action: string): string {
  const head = `${action}: ${item.kind} "${item.name}" (${item.file})`;
  if (item.kind === 'monitor') return `${head}, ${monitorStatus(item)}\n${item.notes.map((n) => `    - ${n}\n`).join('')}`;
  const lines = item.widgets.filter((w) => w.status === 'approximated' || w.status === 'dropped').map((w) => `    ${MARK[w.status]} ${w.name}: ${w.notes.join('; ')}\n`);
  return `${head}, ${countsLine(totalsOf([item]).translated, 'data widgets')}\n${lines.join('')}${item.dashboardNotes.map((n) => `    - ${n}\n`).join('')}`;
}

/** The totals as text, after the summary line. */
export function totalsText(kind: 'dashboards' | 'monitors', items: readonly PlanItem[]): string {
  const t = totalsOf(items);
  return kind === 'dashboards' ? `migrate dashboards: ${countsLine(t.translated, 'data widgets')}; ${t.text} text widgets\n` : `migrate monitors: ${countsLine(t.translated, 'monitors')}\n`;
}

/** The whole report as JSON (`--report FILE`). */
export function reportJson(kind: 'dashboards' | 'monitors', results: readonly ItemResultLike[], rejected: readonly { file: string; reason: string }[]): unknown {
  return {
    kind,
    items: results.map(({ item, action, error }) => ({
      file: item.file,
      name: item.name,
      marker: item.marker,
      action,
      ...(error ? { error } : {}),
      ...(item.kind === 'dashboard' ? { widgets: item.widgets, notes: item.dashboardNotes } : { type: item.type, status: monitorStatus(item), notes: item.notes }),
    })),
    notRead: rejected,
    totals: totalsOf(results.map((r) => r.item)),
  };
}
