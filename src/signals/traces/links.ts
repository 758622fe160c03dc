/**
 * Span links: the native `span_links` field when present, else the `_dd.span_links` JSON tag that
 * dd-trace-js writes (docs/translation.md, Span translation). A linked trace id sent without its
 * high half is widened like the span's own (look-ahead, then cache), so the link points at the
 * trace as it is stored. Datadog marks "flags were set" with bit 31; OTLP wants the W3C flags
 * alone.
 */
import type { DdSpanLink } from './datadog';
import type { SpanLink } from '../../core/otlp/model';
import { parseSpanLinksTag } from './parse/tag-json';
import { spanIdBytes, traceIdBytes, widenTraceId } from '../shared/trace-id';
import type { SpanContext, SpanStep } from './draft';

const LINKS_TAG = '_dd.span_links';

function toLink(link: DdSpanLink, ctx: SpanContext): SpanLink {
  const traceId = link.traceIdHigh ? (link.traceIdHigh << 64n) | link.traceId : widenTraceId(link.traceId, ctx.highs.get(link.traceId), ctx.traceIds);
  const flags = link.flags & 0xff;
  return {
    traceId: traceIdBytes(traceId),
    spanId: spanIdBytes(link.spanId),
    ...(link.tracestate ? { traceState: link.tracestate } : {}),
    attributes: Array.from(link.attributes, ([key, value]) => ({ key, value: { string: value } })),
    ...(flags ? { flags } : {}),
  };
}

export const links: SpanStep = (draft, ctx) => {
  const tag = draft.meta.get(LINKS_TAG);
  const parsed = draft.span.links.length > 0 ? draft.span.links : tag !== undefined ? parseSpanLinksTag(tag) : undefined;
  if (parsed === undefined) return draft;
  draft.meta.consume(LINKS_TAG);
  draft.links = parsed.map((l) => toLink(l, ctx));
  return draft;
};
