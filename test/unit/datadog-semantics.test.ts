/**
 * The rendered comparison's own reading of Datadog (test/helpers/datadog-semantics/), on the cases
 * where it once disagreed with a migrated tile for a reason of its own (issue 37): hand-made logs.
 */
import { DATADOG, type Dataset, GROUP_SEP, type Grid, logGrid, topGroups } from '../helpers/datadog-semantics/evaluate';
import type { DatadogLog } from '../helpers/datadog-semantics/log-search';

const window = { from: 1_800_000_000_000, buckets: 5 };
const log = (attributes: DatadogLog['attributes'], k: number): DatadogLog => ({ ts: window.from + k * 1000, message: 'm', status: 'info', service: 's', source: 'src', host: 'h', tags: [], attributes });
const dataset = (logs: DatadogLog[]): Dataset => ({ series: new Map(), logs, events: [] });
const cells = (g: Grid): Record<string, number[]> => Object.fromEntries([...g].map(([k, row]) => [k.replaceAll(GROUP_SEP, ' | '), [...row.values()]]));

describe('top lists', () => {
  it("a group none of whose records holds the measure does not take a drawn group's place (workato's Longest Durations)", () => {
    // max(@duration) by a facet some records hold without a duration: nine groups without a value, two with
    const grid: Grid = new Map([...['11', '12', '13', '21', '22', '23', '31', '32', '33'].map((g): [string, Map<number, number>] => [g, new Map()]), ['recipe-a', new Map([[0, 32]])], ['recipe-b', new Map([[0, 33]])]]);
    expect(cells(topGroups(grid, 10, 'last', 'desc', 'datadog'))).toMatchObject({ 'recipe-a': [32], 'recipe-b': [33] });
  });
});

describe('log groups', () => {
  it("keeps records without a facet only for the facet the tile names as kept, not for the tile's other facets (brevo's Most Clicked URLs)", () => {
    // the tile narrows to records holding @http.url; it cannot name `@campaign name` (a space), so records without that one are kept
    const logs = [log({ 'campaign name': 'c', 'http.url': 'u' }, 1), log({ 'campaign name': 'c' }, 2), log({ 'http.url': 'u' }, 3)];
    const ctx = { data: dataset(logs), window, modes: { ...DATADOG, keepMissingFacets: ['@campaign name'] }, variables: [] };
    expect(cells(logGrid({ search: '', aggregation: 'count', groupBy: ['@campaign name', '@http.url'] }, ctx, false))).toEqual({ 'c | u': [1], ' | u': [1] });
  });

  it("reads a name's tag and attribute as one field only where the tile says the bridge does (plivo's message_type)", () => {
    const tagged = { ...log({}, 1), tags: ['message_type:whatsapp'] };
    const logs = [tagged, log({ message_type: 'sms' }, 2)];
    const count = (sharedFields: string[]) => cells(logGrid({ search: '-@message_type:whatsapp', aggregation: 'count', groupBy: [] }, { data: dataset(logs), window, modes: { ...DATADOG, sharedFields }, variables: [] }, false));
    expect(count([])).toEqual({ '': [2] });
    expect(count(['message_type'])).toEqual({ '': [1] });
  });
});
