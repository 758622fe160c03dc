/**
 * What every trace and stats parser shares: choosing the body codec, and turning any decode
 * failure into a 400 that names the route and the field path. (A 400 makes tracers and the
 * trace-agent drop the payload, which is right for bytes that will never decode.)
 */
import { isJson, isMsgpack, type MediaType } from '../../../core/wire/media-type';
import { decodeMsgpack, MsgpackError, type MsgValue } from '../../../core/wire/msgpack';
import { ProtoDecodeError } from '../../../core/wire/proto-reader';
import { MalformedInputError } from '../../../core/errors';
import { FieldError } from './fields';
import { parseJsonTree } from './json';

/** First bytes a msgpack array can start with (fixarray, array16, array32) or a map (v0.7). */
const looksLikeMsgpack = (first: number | undefined): boolean => first !== undefined && ((first >= 0x80 && first <= 0x9f) || first === 0xdc || first === 0xdd || first === 0xde || first === 0xdf);

/**
 * msgpack or JSON by Content-Type; without one, JSON (the agent's default). Any other type is
 * decided by the first byte instead of the agent's JSON-then-msgpack-on-the-leftovers attempt,
 * which cannot work (docs/translation.md, Differences from the upstream receiver (traces)).
 */
export function decodeTree(body: Buffer, mediaType: MediaType | undefined, what: string): MsgValue {
  if (body.length === 0) throw new MalformedInputError(`${what}: empty body`);
  return isMsgpackBody(body, mediaType) ? decodeMsgpack(body) : parseJsonTree(body.toString('utf8'), what);
}

/** Whether decodeTree reads `body` as msgpack. */
export const isMsgpackBody = (body: Buffer, mediaType: MediaType | undefined): boolean => isMsgpack(mediaType) || (!isJson(mediaType) && mediaType !== undefined && looksLikeMsgpack(body[0]));

/** Runs a parser; decode and field errors become 400 `<what>: <path>: <problem>`. */
export function parsing<T>(what: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof FieldError) throw MalformedInputError.at(what, err.where, err.message);
    if (err instanceof MsgpackError || err instanceof ProtoDecodeError) throw new MalformedInputError(`${what}: ${err.message}`);
    throw err;
  }
}
