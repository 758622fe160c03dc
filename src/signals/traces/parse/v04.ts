/**
 * /v0.3/traces and /v0.4/traces: an array of traces, each an array of span maps, as msgpack or
 * JSON. Each trace becomes a chunk without a priority, as the agent
 * does.
 */
import { chunkOf, type DdTraceChunk, type DdTracerPayload } from '../datadog';
import type { MediaType } from '../../../core/wire/media-type';
import { decodeTree, isMsgpackBody, parsing } from './body';
import { each } from './fields';
import { parseSpanMap } from './span-map';
import { fastElseGeneral } from '../../shared/fast-path';
import { isDecodeDoubt } from './msgpack-walk';
import { readV04Msgpack } from './v04-msgpack';

/**
 * msgpack bodies are read straight into spans (v04-msgpack.ts); a body that reader gives up on is
 * decoded into a tree and coerced, which is also the JSON path, and whose answer or error decides.
 */
export function parseV04Traces(body: Buffer, mediaType: MediaType | undefined, identity: DdTracerPayload, what: string): DdTracerPayload {
  return parsing(what, () => {
    const tree = (): DdTraceChunk[] => parseV04Tree(body, mediaType, what);
    return { ...identity, chunks: body.length > 0 && isMsgpackBody(body, mediaType) ? fastElseGeneral(() => readV04Msgpack(body), tree, undefined, isDecodeDoubt) : tree() };
  });
}

/** The generic path: the decoded tree, coerced field by field. */
export const parseV04Tree = (body: Buffer, mediaType: MediaType | undefined, what: string): DdTraceChunk[] => each(decodeTree(body, mediaType, what), (trace) => chunkOf(each(trace, parseSpanMap)));
