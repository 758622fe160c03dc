/**
 * Where a metric comes from → resource attributes; what it measures → data-point attributes. Tags
 * go through the shared promotion table: service, env, version, host, container, cloud, k8s and ECS
 * keys become resource attributes, every other tag (HTTP, DB, custom) stays on the data point, so
 * tag cardinality does not multiply resources (upstream puts HTTP/DB keys on the resource,
 * docs/translation.md, Differences from the upstream receiver (metrics)). Explicit resources (the
 * series' host, a v2 `{type, name}` resource) come after the tags and win over a tag of the same
 * name: they are the sender's own statement. `source_type_name` becomes resource `source`, as
 * upstream names it, only when sent.
 */
import type { MetricResource } from './datadog';
import type { KeyValue } from '../../core/otlp/model';
import { KNOWN_KEYS } from '../shared/known-keys';
import { LastingMemoTrie, MemoTrie } from '../shared/memo-trie';
import { promoteTag, promoteTags, resourceKey, splitTag, toKeyValues, type Promoted } from '../shared/resource-promotion';

/** A series' resource and point attributes, final; `resourceKey` groups equal resources. */
export interface MetricOrigin {
  resource: KeyValue[];
  resourceKey: string;
  attributes: KeyValue[];
}

export function promoteOrigin(tags: readonly string[], resources: readonly MetricResource[], sourceTypeName = ''): Promoted {
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  promoteTags(tags, promoted);
  for (const { type, name } of resources) {
    if (type === '' || name === '') continue;
    if (KNOWN_KEYS.get(type)?.resource) promoteTag(type, name, promoted);
    else promoted.resource.set(type, { string: name });
  }
  if (sourceTypeName !== '') promoted.resource.set('source', { string: sourceTypeName });
  return promoted;
}

export function originOf(promoted: Promoted): MetricOrigin {
  const resource = toKeyValues(promoted.resource);
  return { resource, resourceKey: resourceKey(resource), attributes: toKeyValues(promoted.attributes) };
}

/** What was built for one tag path with one list of resources and one source type. */
interface Built<T> {
  resources: readonly MetricResource[];
  sourceTypeName: string;
  value: T;
}

/** The origins built at one node of a tag path, for each list of resources and source type seen there. */
type BuiltNode<T> = MemoTrie<Built<T>[]>;

/**
 * One request's origin memos (see memoizedOrigin): whole tag lists, then each half of a new tag
 * list (see composeOrigin), and which half each tag goes to (see sideOf).
 */
export interface OriginMemo {
  readonly byTags: BuiltNode<MetricOrigin>;
  readonly resourceHalves: BuiltNode<MetricOrigin>;
  readonly attributeHalves: BuiltNode<KeyValue[]>;
  readonly sides: MemoTrie<TagSide>;
}

export const newOriginMemo = (): OriginMemo => ({ byTags: new MemoTrie(), resourceHalves: new MemoTrie(), attributeHalves: new MemoTrie(), sides: new MemoTrie() });

function sameResources(a: readonly MetricResource[], b: readonly MetricResource[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.type !== b[i]!.type || a[i]!.name !== b[i]!.name) return false;
  return true;
}

/**
 * What was built at the end of a tag path for these resources and source type: a short list
 * compared entry by entry rather than more trie levels, as a tag path nearly always comes with
 * one host, and a Map lookup per resource field was a third of the lookups per series.
 */
function findBuilt<T>(node: BuiltNode<T>, resources: readonly MetricResource[], sourceTypeName: string): T | undefined {
  const list = node.value;
  if (list) for (const b of list) if (b.sourceTypeName === sourceTypeName && sameResources(b.resources, resources)) return b.value;
  return undefined;
}

/** Past this many resource lists, a node that outlives requests starts its list again: a tag list sent from every host of a fleet must not make each lookup a long scan. */
const MAX_BUILT_PER_LASTING_NODE = 8;

function addBuilt<T>(node: BuiltNode<T>, resources: readonly MetricResource[], sourceTypeName: string, value: T, lasting = false): T {
  const list = node.value;
  if (list && !(lasting && list.length >= MAX_BUILT_PER_LASTING_NODE)) list.push({ resources, sourceTypeName, value });
  else node.value = [{ resources, sourceTypeName, value }];
  return value;
}

/**
 * originOf(promoteOrigin(…)) once per distinct tags and resources of a payload (`memo` lives as
 * long as the request): an agent payload repeats them in every metric of a container, and
 * promoting, ordering and keying them again for each series was a fifth of the series path.
 * The memo is walked tag by tag, so no key string is built per series (the tag strings
 * themselves are interned by the decoder); a frozen tag list skips the walk (internedNode).
 * Items of equal origin share its arrays, which nothing changes once built.
 */
export function memoizedOrigin(memo: OriginMemo, interned: OriginsByInternedTags, tags: readonly string[], resources: readonly MetricResource[], sourceTypeName = ''): MetricOrigin {
  const lasting = Object.isFrozen(tags);
  const node = lasting ? interned.next(tags) : treeNode(memo.byTags, tags);
  const found = findBuilt<MetricOrigin>(node, resources, sourceTypeName);
  if (found !== undefined) return found;
  const origin = composeOrigin(memo, tags, resources, sourceTypeName);
  // a lasting trie that starts afresh has let go of `node`: add to the new one
  if (lasting && !interned.admit()) return addBuilt(interned.next(tags), resources, sourceTypeName, origin, true);
  return addBuilt(node, resources, sourceTypeName, origin, lasting);
}

function treeNode<T>(root: BuiltNode<T>, tags: readonly string[]): BuiltNode<T> {
  let node = root;
  for (const tag of tags) node = node.next(tag);
  return node;
}

/**
 * Built origins of a frozen tag list, across requests: the direct series reader interns tag runs
 * process-wide (metrics-v2-proto-direct.ts), so one list object stands for the same tags in
 * payload after payload, and one lookup by that object replaces the walk along its tags and the
 * composing of each new tag set in each request. A frozen list never changes, so what was built
 * for it stays right. Bounded like every lasting memo: one per process (caches.ts).
 */
export type OriginsByInternedTags = LastingMemoTrie<Built<MetricOrigin>[]>;

/** Origins remembered across requests for this many (frozen tag list, resources) pairs, then afresh. */
const MAX_INTERNED_ORIGINS = 16384;

export const newInternedOrigins = (): OriginsByInternedTags => new LastingMemoTrie(MAX_INTERNED_ORIGINS);

/**
 * A new tag set's origin from its two halves, each memoized on its own inputs: a tag's key alone
 * decides which half it lands in, and tag sets that differ only in point attributes (endpoint,
 * status code) share their resource. So a payload builds and keys each resource once, and its
 * key is one string object, which grouping then finds by reference.
 */
function composeOrigin(memo: OriginMemo, tags: readonly string[], resources: readonly MetricResource[], sourceTypeName: string): MetricOrigin {
  const resourceTags: string[] = [];
  const attributeTags: string[] = [];
  let resourceNode = memo.resourceHalves;
  let attributeNode = memo.attributeHalves;
  for (const tag of tags) {
    const side = sideOf(memo.sides, tag);
    if (side === 'resource') {
      resourceTags.push(tag);
      resourceNode = resourceNode.next(tag);
    } else if (side === 'point') {
      attributeTags.push(tag);
      attributeNode = attributeNode.next(tag);
    }
  }
  const half = findBuilt(resourceNode, resources, sourceTypeName) ?? addBuilt(resourceNode, resources, sourceTypeName, originOf(promoteOrigin(resourceTags, resources, sourceTypeName)));
  const attributes = findBuilt(attributeNode, NO_RESOURCES, '') ?? addBuilt(attributeNode, NO_RESOURCES, '', originOf(promoteOrigin(attributeTags, NO_RESOURCES)).attributes);
  return { resource: half.resource, resourceKey: half.resourceKey, attributes };
}

const NO_RESOURCES: readonly MetricResource[] = [];

type TagSide = 'resource' | 'point' | 'none';

/**
 * Which half a tag goes to, by its key ('none' for an empty tag), looked up once per distinct tag
 * of the request: splitting and looking up a fresh key string for every tag of every new tag set
 * was most of composing it.
 */
function sideOf(sides: MemoTrie<TagSide>, tag: string): TagSide {
  const node = sides.next(tag);
  if (node.value === undefined) {
    const key = splitTag(tag)?.[0];
    node.value = key === undefined ? 'none' : KNOWN_KEYS.get(key)?.resource ? 'resource' : 'point';
  }
  return node.value;
}
