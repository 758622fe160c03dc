/**
 * The URL, user-agent and GeoIP parsers: the first source present, parsed into details under the
 * target. The sidecar has no GeoIP database, so the GeoIP parser writes what Datadog writes for an
 * address its database does not know (`{}`); docs/translation.md says so.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { GeoIpParserSpec, UrlParserSpec, UserAgentParserSpec } from '../types';
import { urlDetails } from './url';
import { prepareUserAgentParser, userAgentDetails } from './user-agent';
import { firstPresent, type ProcessorStep } from './step';
import { type Flat, flatAt } from '../log';

const textOf = (found: [string, JsonValue] | undefined): string | undefined => (found && typeof found[1] === 'string' ? found[1] : undefined);

export function urlParser(spec: UrlParserSpec): ProcessorStep {
  return (log) => {
    const url = textOf(firstPresent(log, spec.sources));
    if (url === undefined) return;
    const details = urlDetails(url);
    if (!details) return;
    if (spec.normalizeEndingSlashes && typeof details.path === 'string' && details.path.length > 1) details.path = details.path.replace(/\/+$/, '');
    log.set(spec.target, details);
  };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

export function userAgentParser(spec: UserAgentParserSpec): ProcessorStep {
  prepareUserAgentParser();
  // the details are shared and frozen (user-agent.ts), so each is flattened under the target once
  const flats = new WeakMap<object, Flat>();
  return (log) => {
    const ua = textOf(firstPresent(log, spec.sources));
    // an empty user agent has no details (docusign_tests.yaml)
    if (ua === undefined || ua.trim() === '') return;
    const details = userAgentDetails(spec.encoded ? decoded(ua) : ua);
    let flat = flats.get(details);
    if (flat === undefined) {
      flat = flatAt(spec.target, details);
      flats.set(details, flat);
    }
    log.setFlat(spec.target, flat);
  };
}

const IP = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$|^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*$/;

export function geoIpParser(spec: GeoIpParserSpec): ProcessorStep {
  return (log) => {
    const ip = textOf(firstPresent(log, spec.sources));
    if (ip === undefined || ip === '') return;
    if (!IP.test(ip.trim())) {
      // what Datadog writes for a value that is no address (plivo's `100.100.200.00`, iboss's `-`)
      log.set(spec.target, { invalidAddress: ip });
      return;
    }
    // `set` drops an empty object, Datadog's results keep this one
    log.setExactly(spec.target, {});
  };
}
