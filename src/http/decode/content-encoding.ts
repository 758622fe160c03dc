import { UnsupportedEncodingError } from '../../core/errors';

/** A coding we know how to undo; `identity` never appears because it needs no work. */
export type Codec = 'gzip' | 'deflate' | 'zstd';

// A Map rather than an object literal so that names like "constructor" are not found on the prototype.
const CODINGS = new Map<string, Codec | 'identity'>([
  ['identity', 'identity'],
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
  ['x-deflate', 'deflate'],
  ['zstd', 'zstd'],
  ['zstd1', 'zstd'], // what @datadog/datadog-api-client sends
]);

export const SUPPORTED_CONTENT_ENCODINGS: readonly string[] = [...CODINGS.keys()];

/** Longest encoding name echoed back, so a hostile header cannot make the reply arbitrarily big. */
const MAX_ECHOED_NAME = 64;

/**
 * Most codings undone for one body. Real senders apply one; each coding is a full pass over the
 * body, so a header repeating `zstd` 3000 times on a 9 MB body held the event loop for 5 s
 * (issue 21). `identity` and empty list items cost nothing and are not counted.
 */
export const MAX_CONTENT_CODINGS = 4;

/**
 * Codecs in the order they were applied (header order); the caller undoes them right to left.
 * Throws an UnsupportedEncodingError naming the first coding it does not know, or saying there are more
 * than MAX_CONTENT_CODINGS, before any decoding starts.
 */
export function parseContentEncoding(header: string | undefined): Codec[] {
  const codecs: Codec[] = [];
  for (const token of (header ?? '').split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '') continue;
    const codec = CODINGS.get(name);
    if (codec === undefined) {
      throw new UnsupportedEncodingError(`unsupported Content-Encoding ${JSON.stringify(name.slice(0, MAX_ECHOED_NAME))}; ` + `supported: ${SUPPORTED_CONTENT_ENCODINGS.join(', ')}`);
    }
    if (codec === 'identity') continue;
    if (codecs.length === MAX_CONTENT_CODINGS) {
      throw new UnsupportedEncodingError(`Content-Encoding lists more than ${MAX_CONTENT_CODINGS} codings; senders apply one`);
    }
    codecs.push(codec);
  }
  return codecs;
}
