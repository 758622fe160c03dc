/**
 * SpanKind: the `span.kind` tag when it names a kind (it is then consumed: Kind says it), else
 * the span type — `web` and `serverless` spans serve requests, http/database/cache spans make
 * them — else Internal, which is what a span without a boundary is in OTel (upstream leaves
 * such spans Unspecified).
 */
import { SpanKind } from '../../core/otlp/model';
import type { SpanStep } from './draft';

const SPAN_KIND = 'span.kind';

export const BY_TAG: ReadonlyMap<string, SpanKind> = new Map([
  ['server', SpanKind.Server],
  ['client', SpanKind.Client],
  ['producer', SpanKind.Producer],
  ['consumer', SpanKind.Consumer],
  ['internal', SpanKind.Internal],
]);

export const BY_TYPE: ReadonlyMap<string, SpanKind> = new Map([
  ['web', SpanKind.Server],
  ['serverless', SpanKind.Server],
  ...['http', 'sql', 'db', 'cache', 'redis', 'memcached', 'mongodb', 'cassandra', 'elasticsearch', 'opensearch', 'dns'].map((t) => [t, SpanKind.Client] as const),
]);

/** Tracers write the kind lower-case and trimmed: the exact lookup spares normalising it. */
const kindOfTag = (tag: string): SpanKind | undefined => BY_TAG.get(tag) ?? BY_TAG.get(tag.trim().toLowerCase());

export const kind: SpanStep = (draft) => {
  const tag = draft.meta.get(SPAN_KIND);
  const tagged = tag === undefined ? undefined : kindOfTag(tag);
  if (tagged !== undefined) draft.meta.consume(SPAN_KIND);
  draft.kind = tagged ?? BY_TYPE.get(draft.span.type) ?? SpanKind.Internal;
  return draft;
};
