/**
 * Time zones as grok's date matcher reads them, both as its second argument
 * (`date("…", "Europe/Paris")`) and inside the text (`Z`, `z`, `VV` pattern letters): `Z`, `UTC`,
 * `GMT`, `UT`, offsets (`+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss`), `UTC+5` / `GMT-03:00`, the
 * usual abbreviations, and tz database names, whose offset at a given local time comes from the
 * runtime's ICU data (Intl).
 */

/** A zone: a fixed offset in minutes east of UTC, or a tz database name. */
export type Zone = { offsetMinutes: number } | { id: string };

export const UTC: Zone = { offsetMinutes: 0 };

/** Abbreviations Java's `z` letter reads, with their offsets (daylight names carry the daylight offset). */
const ABBREVIATIONS: ReadonlyMap<string, number> = new Map([
  ['UTC', 0],
  ['GMT', 0],
  ['UT', 0],
  ['Z', 0],
  ['WET', 0],
  ['WEST', 60],
  ['BST', 60],
  ['CET', 60],
  ['CEST', 120],
  ['MET', 60],
  ['MEST', 120],
  ['EET', 120],
  ['EEST', 180],
  ['MSK', 180],
  ['IST', 330],
  ['PKT', 300],
  ['ICT', 420],
  ['WIB', 420],
  ['CST', -360],
  ['CDT', -300],
  ['EST', -300],
  ['EDT', -240],
  ['MST', -420],
  ['MDT', -360],
  ['PST', -480],
  ['PDT', -420],
  ['AKST', -540],
  ['AKDT', -480],
  ['HST', -600],
  ['AST', -240],
  ['ADT', -180],
  ['NST', -210],
  ['NDT', -150],
  ['JST', 540],
  ['KST', 540],
  ['HKT', 480],
  ['SGT', 480],
  ['AWST', 480],
  ['ACST', 570],
  ['ACDT', 630],
  ['AEST', 600],
  ['AEDT', 660],
  ['NZST', 720],
  ['NZDT', 780],
  ['BRT', -180],
  ['ART', -180],
]);

const OFFSET = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

function offsetOf(text: string): number | undefined {
  const m = OFFSET.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0) + Number(m[4] ?? 0) / 60;
  if (minutes > 18 * 60) return undefined;
  return m[1] === '-' ? -minutes : minutes;
}

const knownIds = new Map<string, boolean>();

function isZoneId(id: string): boolean {
  let known = knownIds.get(id);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: id });
      known = true;
    } catch {
      known = false;
    }
    knownIds.set(id, known);
  }
  return known;
}

/** The zone `text` names, or undefined when it names none. */
export function parseZone(text: string): Zone | undefined {
  const t = text.trim();
  const upper = t.toUpperCase();
  const abbreviation = ABBREVIATIONS.get(upper);
  if (abbreviation !== undefined) return { offsetMinutes: abbreviation };
  const offset = offsetOf(t);
  if (offset !== undefined) return { offsetMinutes: offset };
  const prefixed = /^(UTC|GMT|UT)([+-].*)$/i.exec(t);
  if (prefixed) {
    const rest = offsetOf(prefixed[2] as string);
    return rest === undefined ? undefined : { offsetMinutes: rest };
  }
  return isZoneId(t) ? { id: t } : undefined;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(id: string): Intl.DateTimeFormat {
  let f = formatters.get(id);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: id, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(id, f);
  }
  return f;
}

/** Minutes east of UTC that zone `id` is at instant `utcMs`. */
function zoneOffsetAt(id: string, utcMs: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(id).formatToParts(new Date(utcMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const local = Date.UTC(parts.year as number, (parts.month as number) - 1, parts.day as number, parts.hour as number, parts.minute as number, parts.second as number);
  return Math.round((local - Math.floor(utcMs / 1000) * 1000) / 60000);
}

/** The UTC instant of a wall-clock time (given as if it were UTC) in `zone`. */
export function wallClockToUtc(wallMs: number, zone: Zone): number {
  if ('offsetMinutes' in zone) return wallMs - zone.offsetMinutes * 60000;
  // the offset at the guess, then at the corrected instant (right across a DST change)
  const first = wallMs - zoneOffsetAt(zone.id, wallMs) * 60000;
  return wallMs - zoneOffsetAt(zone.id, first) * 60000;
}
