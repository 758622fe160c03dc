/**
 * The cursor helpers of the direct msgpack readers (v04-msgpack.ts, v05-msgpack.ts). Each reads
 * a header or scalar through the same checks MsgpackReader.value makes, or throws GIVE_UP when
 * the bytes hold something a direct reader does not take on (shared/fast-path.ts): the body is
 * then parsed the generic way, whose answer (or error) is the only one.
 */
import { MAX_MSGPACK_DEPTH, MsgpackError, MsgpackReader } from '../../../core/wire/msgpack';
import { GIVE_UP } from '../../shared/fast-path';
import { FieldError, i64, u64 } from './fields';

/** Length of the array starting here (after the checks `value` makes), or give up. */
export function arrayHeader(r: MsgpackReader, depth: number): number {
  const b = r.peek();
  let length: number;
  if (b >= 0x90 && b <= 0x9f) {
    r.pos++;
    length = b & 0x0f;
  } else if (b === 0xdc) {
    r.pos++;
    length = r.u16();
  } else if (b === 0xdd) {
    r.pos++;
    length = r.u32();
  } else throw GIVE_UP;
  r.arrayOf(length, depth);
  return length;
}

/** Entries of the map starting here (after the checks `value` makes); -1 for nil; else give up. */
export function mapHeader(r: MsgpackReader, depth: number): number {
  const b = r.peek();
  let length: number;
  if (b >= 0x80 && b <= 0x8f) {
    r.pos++;
    length = b & 0x0f;
  } else if (b === 0xde) {
    r.pos++;
    length = r.u16();
  } else if (b === 0xdf) {
    r.pos++;
    length = r.u32();
  } else if (b === 0xc0) {
    r.pos++;
    return -1;
  } else throw GIVE_UP;
  r.mapOf(length, depth);
  return length;
}

/** A str (a map key, a v0.5 table entry), or give up: the generic path turns nil and bin into strings, and refuses the rest. */
export function key(r: MsgpackReader): string {
  const b = r.peek();
  if (b >= 0xa0 && b <= 0xbf) {
    r.pos++;
    return r.str(b & 0x1f);
  }
  if (b === 0xd9) {
    r.pos++;
    return r.str(r.u8());
  }
  if (b === 0xda) {
    r.pos++;
    return r.str(r.u16());
  }
  if (b === 0xdb) {
    r.pos++;
    return r.str(r.u32());
  }
  throw GIVE_UP;
}

/** u64(value) without the detour through a number and back for the usual uint64 */
export function u64At(r: MsgpackReader, depth: number): bigint {
  if (r.peek() === 0xcf) {
    r.pos++;
    return r.bigUint64();
  }
  return u64(r.value(depth));
}

export function i64At(r: MsgpackReader, depth: number): bigint {
  const b = r.peek();
  if (b === 0xd3) {
    r.pos++;
    return r.bigInt64();
  }
  if (b === 0xcf) {
    r.pos++;
    return BigInt.asIntN(64, r.bigUint64());
  }
  return i64(r.value(depth));
}

/** `read`'s answer for the whole body; gives up (GIVE_UP) when bytes are left over. */
export function readDirect<T>(body: Uint8Array, read: (r: MsgpackReader) => T): T {
  const r = new MsgpackReader(body, MAX_MSGPACK_DEPTH);
  const out = read(r);
  if (!r.done) throw GIVE_UP;
  return out;
}

/** A body that did not decode, met by a direct reader: the generic path says what is wrong and where. */
export const isDecodeDoubt = (err: unknown): boolean => err instanceof MsgpackError || err instanceof FieldError;
