/**
 * The bridge URL the agent is pointed at, checked strictly: the agent builds its own paths on top
 * of `dd_url`/`apm_dd_url` and the logs agent wants `host:port`, so a path, query or credentials
 * would silently break one of the three senders.
 */
import { ConfigError } from '../../../src/config';

export interface BridgeTarget {
  /** `scheme://host:port`, no trailing slash: the form written to `dd_url` and `apm_dd_url`. */
  url: string;
  /** `host:port`: the form `logs_config.logs_dd_url` takes. */
  hostPort: string;
  /** http:// needs `logs_config.logs_no_ssl`, or the logs agent speaks TLS to a plain port. */
  plainHttp: boolean;
}

const URL_FORM = /^(https?):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})\/?$/;

export function parseBridgeUrl(raw: string): BridgeTarget {
  const m = URL_FORM.exec(raw.trim());
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new ConfigError(`--url: expected http(s)://host:port with an explicit port and no path (e.g. http://bridge.internal:8126), got "${raw}"`);
  }
  const hostPort = `${m[2]}:${port}`;
  return { url: `${m[1]}://${hostPort}`, hostPort, plainHttp: m[1] === 'http' };
}
