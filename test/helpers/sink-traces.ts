/**
 * Spans as the real collector's file exporter wrote them, flattened so a test can find a span by
 * id or name and assert on its resource, attributes and events.
 */
import { attributesOf, readLines } from './sink';

type Json = any;

export interface SinkSpan {
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
  span: Json;
  attributes: Record<string, unknown>;
  events: { name: string; timeUnixNano: string; attributes: Record<string, unknown> }[];
}

export function sinkSpans(dir: string): SinkSpan[] {
  return readLines(dir, 'traces').flatMap((req: Json) =>
    (req.resourceSpans ?? []).flatMap((rs: Json) =>
      (rs.scopeSpans ?? []).flatMap((ss: Json) =>
        (ss.spans ?? []).map((span: Json) => ({
          resource: attributesOf(rs.resource?.attributes),
          scope: ss.scope ?? {},
          span,
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((e: Json) => ({ name: e.name, timeUnixNano: e.timeUnixNano, attributes: attributesOf(e.attributes) })),
        })),
      ),
    ),
  );
}
