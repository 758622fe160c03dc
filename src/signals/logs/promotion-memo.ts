/**
 * The logs resource step's promotions (resource.ts), shared by every record made from the same
 * texts. What the step produces depends only on a handful of texts (ddtags, ddsource, and the
 * host / service / env / version fields), and an agent repeats the same ones for every line of a
 * container, in this request and the next. Equal texts therefore share one promotion, worked out
 * the first time the process sees them (a MemoTrie, memo-trie.ts): the tags are split and promoted
 * once per container rather than once per line or per request, and records from one container
 * share one resource map, which the grouper recognises by identity (group.ts).
 */
import { HOST_KEYS, SERVICE_KEYS, SOURCE_KEYS, TAGS_KEYS } from './datadog';
import type { KeyValue } from '../../core/otlp/model';
import { LastingMemoTrie, MemoTrie } from '../shared/memo-trie';
import { promoteTag, promoteTags, tagList, toKeyValues, type Promoted } from '../shared/resource-promotion';
import { podFromLogPath } from './pod-log-path';

/**
 * [field aliases, first usable wins, tag key they are promoted as]. `dd.service`, `dd.env` and
 * `dd.version` come first: trace injection writes them and they name the emitting service.
 */
export const FIELD_TAGS: readonly [readonly string[], string][] = [
  [HOST_KEYS, 'host'],
  [['dd.service', ...SERVICE_KEYS], 'service'],
  [['dd.env', 'env'], 'env'],
  [['dd.version', 'version'], 'version'],
];

/** Every alias of FIELD_TAGS in order: the step reads one text per alias. */
export const FIELD_ALIASES: readonly string[] = FIELD_TAGS.flatMap(([aliases]) => aliases);

/** Always consumed, whether present or not. */
const ALWAYS_CONSUMED: readonly string[] = [...TAGS_KEYS, ...SOURCE_KEYS];

/** A promotion shared by every record made from the same texts; nothing writes to it. */
export interface SharedPromotion extends Promoted {
  /** The field keys the step consumes. */
  readonly consumed: readonly string[];
  /** `attributes` as KeyValues, in order: what every record made from these texts starts with. */
  readonly attributeList: readonly KeyValue[];
}

export const isSharedPromotion = (promoted: Promoted): promoted is SharedPromotion => 'attributeList' in promoted;

/** The texts the step reads from one record: ddtags, ddsource, then one per FIELD_ALIASES entry. */
export type Texts = (string | undefined)[];

/** Distinct text combinations remembered per ddtags value; past it, records are promoted one by one. */
const MAX_PER_TAGS = 64;

/** What one ddtags value (with `?ddtags=`) promotes, and the promotions of the other texts seen with it. */
interface TagsEntry {
  readonly tagged: Promoted;
  /** by the other texts in order (undefined, an absent or non-scalar field, counts as a value) */
  readonly combinations: MemoTrie<SharedPromotion>;
  remembered: number;
}

/**
 * Promotions by ddtags (the long, telling text: one value per container), then by the other texts:
 * the tags are split once per ddtags value, and no key string is built per record.
 */
export class PromotionMemo {
  private readonly byTags: LastingMemoTrie<TagsEntry>;

  constructor(
    private readonly queryTags: string | undefined,
    maxPromotions = Number.POSITIVE_INFINITY,
  ) {
    this.byTags = new LastingMemoTrie(maxPromotions);
  }

  private tagsEntry(tags: string | undefined): TagsEntry {
    const node = this.byTags.next(tags);
    if (node.value === undefined) {
      const tagged: Promoted = { resource: new Map(), attributes: new Map() };
      promoteTagTexts(tags, this.queryTags, tagged);
      node.value = { tagged, combinations: new MemoTrie(), remembered: 0 };
    }
    return node.value;
  }

  /** The promotion for `texts`; undefined when `queryTags` is not this memo's or too many combinations share a ddtags. */
  promotionFor(texts: Texts, queryTags: string | undefined): SharedPromotion | undefined {
    if (queryTags !== this.queryTags) return undefined;
    const entry = this.tagsEntry(texts[0]);
    const known = findPath(entry.combinations, texts);
    if (known !== undefined) return known;
    if (entry.remembered >= MAX_PER_TAGS) return undefined;
    if (!this.byTags.admit()) return this.promotionFor(texts, queryTags);
    const promoted: Promoted = { resource: new Map(entry.tagged.resource), attributes: new Map(entry.tagged.attributes) };
    const consumed = promoteFields(texts, promoted);
    const shared: SharedPromotion = { resource: promoted.resource, attributes: promoted.attributes, consumed, attributeList: toKeyValues(promoted.attributes) };
    let node = entry.combinations;
    for (let i = 1; i < texts.length; i++) node = node.next(texts[i]);
    node.value = shared;
    entry.remembered++;
    return shared;
  }
}

/** The promotion remembered for the texts after ddtags, without adding nodes for a miss. */
function findPath(root: MemoTrie<SharedPromotion>, texts: Texts): SharedPromotion | undefined {
  let node: MemoTrie<SharedPromotion> | undefined = root;
  for (let i = 1; i < texts.length && node !== undefined; i++) node = node.find(texts[i]);
  return node?.value;
}

/**
 * Promotions the process keeps between requests: an agent sends the same containers' texts in
 * every request, so at 10 lines per request working them out per request was about a third of
 * the route's work in process. Past these bounds a memo, or the set of memos, starts afresh; a
 * `?ddtags=` value is rare (old agents, API clients) and gets a memo of its own. One instance per
 * process, made with the other caches (caches.ts).
 */
const MAX_SHARED_PROMOTIONS = 1024;
const MAX_QUERY_TAG_MEMOS = 64;

export class PromotionMemos {
  private readonly byQueryTags = new Map<string | undefined, PromotionMemo>();

  forQueryTags(queryTags: string | undefined): PromotionMemo {
    let memo = this.byQueryTags.get(queryTags);
    if (memo === undefined) {
      if (this.byQueryTags.size >= MAX_QUERY_TAG_MEMOS) this.byQueryTags.clear();
      memo = new PromotionMemo(queryTags, MAX_SHARED_PROMOTIONS);
      this.byQueryTags.set(queryTags, memo);
    }
    return memo;
  }
}

/** First part of the promotion: the record's ddtags, then `?ddtags=`, then the pod a pod log's directory names. */
export function promoteTagTexts(tags: string | undefined, queryTags: string | undefined, promoted: Promoted): void {
  promoteTags([...tagList(tags), ...tagList(queryTags)], promoted);
  podFromLogPath(promoted);
}

/**
 * The rest, after the tags: ddsource and the FIELD_TAGS groups. Returns the field keys consumed:
 * in each group the first alias with text wins, and goes with every alias holding the same text
 * or none; an alias that disagrees stays a record attribute rather than being lost.
 */
export function promoteFields(texts: Texts, promoted: Promoted): string[] {
  // consumed keys are dropped once at the end: the alias groups are disjoint, so no lookup sees another's removal
  const consumed: string[] = [...ALWAYS_CONSUMED];
  const source = texts[1];
  if (source) promoted.attributes.set('datadog.ddsource', { string: source });

  let at = 2;
  for (let g = 0; g < FIELD_TAGS.length; g++) {
    const [aliases, tag] = FIELD_TAGS[g] as [readonly string[], string];
    let winner: string | undefined;
    for (let i = 0; i < aliases.length && winner === undefined; i++) if (texts[at + i]) winner = texts[at + i];
    for (let i = 0; i < aliases.length; i++) {
      const text = texts[at + i];
      if (text === '' || (text !== undefined && text === winner)) consumed.push(aliases[i] as string);
    }
    if (winner !== undefined) promoteTag(tag, winner, promoted);
    at += aliases.length;
  }
  return consumed;
}
