/**
 * User-agent details (the user-agent parser processor and grok's `useragent` filter): browser,
 * OS and device as ua-parser's shared regex file (the `uap-core` package, Apache-2.0) names them,
 * read the way its reference ports read it, plus Datadog's `device.category` (Desktop, Mobile,
 * Tablet, Bot or Other), worked out from the device and OS found. The file is read and its
 * expressions compiled when a pipeline that needs them is loaded (or on first use); results are
 * remembered per user-agent text, as the same few agents make most of a site's traffic.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../../../../core/wire/json';

interface UapRule {
  regex: string;
  regex_flag?: string;
  family_replacement?: string;
  v1_replacement?: string;
  v2_replacement?: string;
  v3_replacement?: string;
  v4_replacement?: string;
  os_replacement?: string;
  os_v1_replacement?: string;
  os_v2_replacement?: string;
  os_v3_replacement?: string;
  os_v4_replacement?: string;
  device_replacement?: string;
  brand_replacement?: string;
  model_replacement?: string;
}

interface UapFile {
  user_agent_parsers: UapRule[];
  os_parsers: UapRule[];
  device_parsers: UapRule[];
}

interface Compiled {
  rule: UapRule;
  regex: RegExp | null | undefined;
}

/** Longer texts are cut to this before matching: ua-parser's expressions are not all linear. */
const MAX_USER_AGENT = 512;
const CACHE_SIZE = 2048;

let rules: { browser: Compiled[]; os: Compiled[]; device: Compiled[] } | undefined;
const cache = new Map<string, Record<string, JsonValue>>();

function load(): NonNullable<typeof rules> {
  if (rules) return rules;
  const file = parseYaml(readFileSync(require.resolve('uap-core/regexes.yaml'), 'utf8')) as UapFile;
  const wrap = (list: UapRule[]): Compiled[] => list.map((rule) => ({ rule, regex: undefined }));
  rules = { browser: wrap(file.user_agent_parsers), os: wrap(file.os_parsers), device: wrap(file.device_parsers) };
  return rules;
}

/** The entry's expression, compiled on first use; null when JavaScript cannot compile it. */
function regexOf(entry: Compiled): RegExp | null {
  if (entry.regex === undefined) {
    try {
      entry.regex = new RegExp(entry.rule.regex, entry.rule.regex_flag === 'i' ? 'i' : '');
    } catch {
      entry.regex = null;
    }
  }
  return entry.regex;
}

/** The first rule of `list` that matches, with its groups. */
function firstMatch(list: Compiled[], text: string): [UapRule, RegExpExecArray] | undefined {
  for (const entry of list) {
    const m = regexOf(entry)?.exec(text);
    if (m) return [entry.rule, m];
  }
  return undefined;
}

/**
 * Reads the file and compiles every expression now, when pipelines that parse user agents are
 * loaded: left to the first log, that work (hundreds of milliseconds) would spend its record's
 * whole time budget and send it on unparsed.
 */
export function prepareUserAgentParser(): void {
  const { browser, os, device } = load();
  for (const list of [browser, os, device])
    for (const entry of list) {
      if (entry.regex !== undefined) continue;
      const regex = regexOf(entry);
      // V8 compiles an expression on its first run and to machine code on its second: both here
      regex?.exec('');
      regex?.exec('');
    }
}

/** `$1`…`$9` in a replacement, then trimmed; undefined when nothing is left. */
function replace(template: string | undefined, m: RegExpExecArray, group: number): string | undefined {
  const value = template === undefined ? m[group] : template.replace(/\$(\d)/g, (_, d: string) => m[Number(d)] ?? '');
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function versioned(family: string | undefined, versions: (string | undefined)[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { family: family ?? 'Other' };
  const names = ['major', 'minor', 'patch', 'patch_minor'];
  versions.forEach((v, i) => {
    if (v !== undefined) out[names[i] as string] = v;
  });
  return out;
}

const DESKTOP_OS = /^(Windows|Mac OS X|Linux|Ubuntu|Debian|Fedora|Red Hat|CentOS|SUSE|openSUSE|Gentoo|Mint|Chrome OS|ChromeOS|FreeBSD|OpenBSD|NetBSD|Solaris|Mac OS|Mandriva|Slackware|Arch Linux|Kubuntu|Xubuntu)/;
const MOBILE_OS = /^(iOS|Android|Windows Phone|BlackBerry|Symbian|webOS|Firefox OS|Tizen|KaiOS|Sailfish|Bada|Windows Mobile|Windows CE|HarmonyOS)/;
const TABLET = /iPad|Tablet|Kindle|Nexus (7|9|10)|SM-T|GT-P|Galaxy Tab|Xoom|PlayBook|Touchpad/i;

function categoryOf(device: Record<string, JsonValue>, os: Record<string, JsonValue>, text: string): string {
  const family = String(device.family);
  if (family === 'Spider') return 'Bot';
  if (TABLET.test(family) || (family === 'Other' && /iPad|Tablet/.test(text))) return 'Tablet';
  const osFamily = String(os.family);
  if (MOBILE_OS.test(osFamily) && family !== 'Other') return 'Mobile';
  if (MOBILE_OS.test(osFamily)) return /Mobile/.test(text) ? 'Mobile' : 'Tablet';
  if (family === 'Other' && DESKTOP_OS.test(osFamily)) return 'Desktop';
  if (family === 'Mac') return 'Desktop';
  return 'Other';
}

function parse(text: string): Record<string, JsonValue> {
  const { browser, os, device } = load();
  const b = firstMatch(browser, text);
  const browserOut = b ? versioned(replace(b[0].family_replacement, b[1], 1), [replace(b[0].v1_replacement, b[1], 2), replace(b[0].v2_replacement, b[1], 3), replace(b[0].v3_replacement, b[1], 4), replace(b[0].v4_replacement, b[1], 5)]) : { family: 'Other' };
  const o = firstMatch(os, text);
  const osOut = o
    ? versioned(replace(o[0].os_replacement, o[1], 1), [replace(o[0].os_v1_replacement, o[1], 2), replace(o[0].os_v2_replacement, o[1], 3), replace(o[0].os_v3_replacement, o[1], 4), replace(o[0].os_v4_replacement, o[1], 5)])
    : { family: 'Other' };
  const d = firstMatch(device, text);
  const deviceOut: Record<string, JsonValue> = { family: (d && replace(d[0].device_replacement, d[1], 1)) ?? 'Other' };
  if (d) {
    const brand = d[0].brand_replacement === undefined ? undefined : replace(d[0].brand_replacement, d[1], 0);
    const model = replace(d[0].model_replacement, d[1], 1);
    if (brand !== undefined) deviceOut.brand = brand;
    if (model !== undefined) deviceOut.model = model;
  }
  deviceOut.category = categoryOf(deviceOut, osOut, text);
  return { browser: browserOut, device: deviceOut, os: osOut };
}

function deepFreeze<T extends JsonValue>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key in value) deepFreeze((value as Record<string, JsonValue>)[key] as JsonValue);
    Object.freeze(value);
  }
  return value;
}

/**
 * The details of a user-agent text: one frozen object per text, shared by every log that carries
 * it (writing it into a log copies its leaves; a copy per log was a fifth of an nginx record's
 * pipeline time, structuredClone and its garbage).
 */
export function userAgentDetails(userAgent: string): Readonly<Record<string, JsonValue>> {
  const text = userAgent.length > MAX_USER_AGENT ? userAgent.slice(0, MAX_USER_AGENT) : userAgent;
  let details = cache.get(text);
  if (details === undefined) {
    details = deepFreeze(parse(text));
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(text, details);
  }
  return details;
}
