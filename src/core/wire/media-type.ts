/**
 * Content-Type parsing per RFC 9110: `application/json; charset=utf-8` is JSON. The upstream
 * receiver compares the whole header string and answers 415 to that (docs/translation.md,
 * Differences from the upstream receiver (logs)).
 */
export interface MediaType {
  /** type/subtype, lower-cased */
  essence: string;
  params: Record<string, string>;
}

export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (!header) return undefined;
  const [head, ...rest] = header.split(';');
  const essence = (head ?? '').trim().toLowerCase();
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(essence)) return undefined;
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    params[part.slice(0, eq).trim().toLowerCase()] = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return { essence, params };
}

export const isJson = (m: MediaType | undefined): boolean => m !== undefined && (m.essence === 'application/json' || m.essence === 'text/json' || m.essence.endsWith('+json'));
export const isMsgpack = (m: MediaType | undefined): boolean => m !== undefined && (m.essence === 'application/msgpack' || m.essence === 'application/x-msgpack' || m.essence === 'application/vnd.msgpack');
export const isProtobuf = (m: MediaType | undefined): boolean => m !== undefined && (m.essence === 'application/x-protobuf' || m.essence === 'application/protobuf');
