/**
 * "A fast reader, else the general one", for every format that has both (v0.4 and v0.5 traces in
 * msgpack, v2 series in protobuf). A fast reader reads the bytes in straight loops and answers
 * only for bodies it reads without a doubt; anything else — a form it does not take on, a
 * malformed field — makes it give up, and the general reader (a decoded tree, or a field-reader
 * table) reads the body from where it gave up. The general reader's answer, or its error with the
 * field path, is then the only one.
 */

/** Thrown by a fast reader to give up. */
export const GIVE_UP: unique symbol = Symbol('give up');

/** Where a fast reader has got to: a reader that can hand over mid-body keeps `at` up to date. */
export interface Progress<R> {
  at: R;
}

/**
 * `fast`'s answer, or, when it throws GIVE_UP (or an error `doubt` says is one it may meet on a
 * body the general reader must judge), `general`'s from where it got.
 */
export function fastElseGeneral<T, R>(fast: (progress: Progress<R>) => T, general: (from: R) => T, start: R, doubt: (err: unknown) => boolean = () => false): T {
  const progress: Progress<R> = { at: start };
  try {
    return fast(progress);
  } catch (err) {
    if (err !== GIVE_UP && !doubt(err)) throw err;
    return general(progress.at);
  }
}
