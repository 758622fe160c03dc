/**
 * Notes of the migration that name what they concern (a metric, a facet, a field): each switches
 * its difference to the HyperDX side for those names only. Shared by the rendered comparisons of
 * tiles (test/hyperdx-api/migrate-rendered.test.ts) and of monitors (…/migrate-monitors-rendered.test.ts).
 */
import type { Modes } from './evaluate';

/** A metric the migration reads as a gauge for want of its type: points sent as counts (another tile counts it) are not found. */
const READ_AS_GAUGE = /^([^\s:]+): its type is not known .* read as a gauge/;

/** A facet the migration cannot name in HyperDX's search: its records without it are kept (that facet's only: the tile narrows to the others). */
const KEEP_MISSING = /^records without (.+?) are drawn in an empty group or counted as 0/;

/** A name whose tag and attribute the bridge keeps as one field. */
const SHARED_FIELD = /^the tag (\S+) and the attribute @\S+ are one field in the bridge/;

const NAMED: [RegExp, 'readAsGauge' | 'keepMissingFacets' | 'sharedFields'][] = [
  [READ_AS_GAUGE, 'readAsGauge'],
  [KEEP_MISSING, 'keepMissingFacets'],
  [SHARED_FIELD, 'sharedFields'],
];

/** Switches `modes` for a note that names what it concerns; false when `note` is not one. */
export function applyNamedNote(note: string, modes: Modes): boolean {
  for (const [re, key] of NAMED) {
    const named = re.exec(note);
    if (!named) continue;
    modes[key] = [...modes[key], named[1]!];
    return true;
  }
  return false;
}
