/**
 * The cursor helpers of the direct msgpack readers (v04-msgpack.ts, v05-msgpack.ts). Each reads
 * a header or scalar through the same checks MsgpackReader.value makes, or throws GIVE_UP when
 * the bytes hold something a direct reader does not take on: the caller then parses the body the
 * generic way, whose answer (or error) is the only one.
 */
import { MAX_MSGPACK_DEPTH, MsgpackError, MsgpackReader } from '../../../core/wire/msgpack';
import { FieldError, i64, u64 } from './fields';

/** Thrown to give up: the generic path decides. */
export const GIVE_UP: unique symbol = Symbol('give up');

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

/** `read`'s answer for the body, or undefined when it gave up or the body did not decode: the generic path then answers. */
export function readDirect<T>(body: Uint8Array, read: (r: MsgpackReader) => T): T | undefined {
  const r = new MsgpackReader(body, MAX_MSGPACK_DEPTH);
  try {
    const out = read(r);
    return r.done ? out : undefined;
  } catch (err) {
    if (err === GIVE_UP || err instanceof MsgpackError || err instanceof FieldError) return undefined;
    throw err;
  }
}
