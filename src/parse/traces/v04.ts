/**
 * /v0.3/traces and /v0.4/traces: an array of traces, each an array of span maps, as msgpack or
 * JSON (intake-protocol.md §7.1). Each trace becomes a chunk without a priority, as the agent
 * does.
 */
import { chunkOf, type DdTracerPayload } from '../../datadog/traces';
import type { MediaType } from '../media-type';
import { decodeTree, parsing } from './body';
import { each } from './fields';
import { parseSpanMap } from './span-map';

export function parseV04Traces(body: Buffer, mediaType: MediaType | undefined, identity: DdTracerPayload, what: string): DdTracerPayload {
  return parsing(what, () => ({ ...identity, chunks: each(decodeTree(body, mediaType, what), (trace) => chunkOf(each(trace, parseSpanMap))) }));
}
