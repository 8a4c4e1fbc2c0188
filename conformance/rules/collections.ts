/**
 * Collections and their items (§4.1, §4.2, §4.3), for every live collection of the spec under test:
 * a collection answers its list envelope, lists each item once, lists only items its key can
 * fetch, shows in its summaries what the items' details show, answers an empty campaign with an
 * empty list; and whether its order is stable (the spec leaves it open).
 */
import { createHash } from 'node:crypto';
import { isObject } from '../../spec/json-value.ts';
import { describe, requestLine } from '../core/answers.ts';
import { credentialLabel, roleOfCredential } from '../core/credentials.ts';
import { BodyMemo } from '../core/body-memo.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { Observation } from '../core/observation.ts';
import { EMPTY_CAMPAIGN_KEY, PRIMARY_KEY, reads } from '../core/roles.ts';
import type { Across, Rule, RuleContext } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import type { ResponseData } from '../core/exchange.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import { sharedFieldsOf } from './item-schemas.ts';
import type { Seen } from './pages.ts';
import {
  askedId,
  askedText,
  holderOf,
  idOf,
  isPlainRead,
  itemOf,
  limitAsked,
  metaCountOf,
  minuteOf,
  notAList,
  pageOf,
  joinSeen,
  sameData,
  sentAt,
  widen,
} from './pages.ts';
import { canonical, fingerprint, pairsOf, Versions } from './pairs.ts';
import { collectionRequest, sweepRequests } from './requests.ts';

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/** A throttled read (429) says nothing of the collection: a client waits and asks again. */
const THROTTLED = 429;
const isLiveGet = (op: OperationModel) => op.live && op.method === 'GET';
const isCollection = (op: OperationModel) => isLiveGet(op) && op.kind === 'collection';
const isCollectionOrItem = (op: OperationModel) =>
  isLiveGet(op) && (op.kind === 'collection' || op.kind === 'item');
const probes = (...requests: ReturnType<typeof collectionRequest>[]) =>
  requests.flatMap((request) => (request ? [{ request }] : []));

/** Whether a plain read of a collection was answered to a key of this campaign that reads it. */
function plainReadBy(obs: Observation, campaign: 'primary' | 'empty'): boolean {
  const role = roleOfCredential(obs.credential);
  return obs.op?.kind === 'collection' && role?.campaign === campaign && reads(role) && isPlainRead(obs);
}

/** Why a 200 body is not a collection's list envelope, or undefined when it is. */
function listEnvelopeProblem(op: OperationModel, obs: Observation): string | undefined {
  const body = obs.exchange.response?.json;
  if (!isObject(body) || body.ok !== true) return `not {"ok":true,...}: ${describe(obs.exchange.response)}`;
  if (!Array.isArray(body.data))
    return `data is ${JSON.stringify(body.data)?.slice(0, 80) ?? 'missing'}, not an array`;
  if (op.counted && !Number.isInteger(metaCountOf(obs)))
    return `meta.count is ${JSON.stringify(metaCountOf(obs)) ?? 'missing'}`;
  return undefined;
}

export const collectionRules: Rule[] = [
  {
    id: 'COLLECTION-001',
    section: '§4.1, §4.2',
    title: 'A collection answers the primary key 200 with its list envelope',
    area: 'collections',
    level: 'required',
    mock: 'run',
    expected: 'a plain GET with the primary key answers 200 {"ok":true,"data":[...],"meta":{"count":n}}',
    hint: 'Answer a GET of a collection with a key holding its scope 200 {"ok":true,"data":[...],"meta":{"count":n}}.',
    appliesTo: isCollection,
    plan: (op, world) => probes(collectionRequest(op, world, { key: PRIMARY_KEY }, 'default')),
    judge(obs) {
      const { op } = obs;
      if (!op || !plainReadBy(obs, 'primary')) return undefined;
      const response = obs.exchange.response;
      if (response?.status === THROTTLED) return undefined;
      if (response?.status !== 200) return breaks(at(obs, `answered ${describe(response)}`), obs);
      // A 200 recorded without its body says nothing of the envelope: the rule cannot judge it.
      if (obs.bodyless) return undefined;
      const problem = listEnvelopeProblem(op, obs);
      return problem ? breaks(at(obs, problem), obs) : holds(obs);
    },
  },
  {
    id: 'COLLECTION-005',
    section: '§2.1, §4.2',
    title: 'Item ids are unique within a collection answer',
    area: 'collections',
    level: 'required',
    mock: 'run',
    expected: 'no item id twice in one answer',
    hint: 'List each item once: ids are unique.',
    appliesTo: isCollection,
    plan: (op, world) => probes(collectionRequest(op, world, { key: PRIMARY_KEY }, 'full')),
    judge(obs) {
      const page = obs.op?.kind === 'collection' ? pageOf(obs) : undefined;
      if (!page) return undefined;
      const seen = new Set<string>();
      const twice = new Set<string>();
      for (const id of page.map(idOf)) {
        if (id === undefined) continue;
        if (seen.has(id)) twice.add(id);
        seen.add(id);
      }
      return twice.size === 0
        ? holds(obs)
        : breaks(
            at(
              obs,
              `${[...twice].slice(0, 3).join(', ')}${twice.size > 3 ? ` and ${twice.size - 3} more` : ''} listed twice`,
            ),
            obs,
          );
    },
  },
  {
    id: 'ITEM-001',
    sweeps: true,
    section: '§4.2, §4.3',
    title: 'Every item listed to a key can be fetched with that key: 200 with its envelope, never 404',
    area: 'items',
    level: 'required',
    mock: 'run',
    unit: 'listed items',
    expected: 'each listed item answers its key 200 {"ok":true,"data":{...}}',
    hint: 'Serve every item the collection lists to a key, to that key (and list only items that can be fetched: no archived or deleted item, none of another campaign).',
    appliesTo: isCollectionOrItem,
    plan: sweepRequests,
    across: { judge: listedFoundAcross },
  },
  {
    id: 'ITEM-002',
    sweeps: true,
    section: '§2.1, §2.2',
    title: "Every field an item's detail shares with its collection's summary is equal",
    area: 'items',
    level: 'required',
    mock: 'run',
    unit: 'items',
    expected: 'the fields both schemas have (for walks: id, name) equal in the detail and in the summary',
    hint: 'Return the same values in the detail as in the collection for every field the two share.',
    appliesTo: isCollectionOrItem,
    plan: sweepRequests,
    across: { judge: sharedFieldsAcross },
  },
  {
    id: 'COLLECTION-006',
    section: '§4.2 rule 1',
    title: 'A campaign without records gets 200 with an empty list and meta.count 0',
    area: 'collections',
    level: 'required',
    mock: 'run',
    needs: [EMPTY_CAMPAIGN_KEY],
    expected: 'the empty campaign\'s key gets 200 {"ok":true,"data":[],"meta":{"count":0}}',
    hint: 'An empty campaign is a success: 200 {"ok":true,"data":[],"meta":{"count":0}}, not an error.',
    appliesTo: isCollection,
    plan: (op, world) => probes(collectionRequest(op, world, { key: EMPTY_CAMPAIGN_KEY }, 'full')),
    judge(obs) {
      const { op } = obs;
      if (!op || !plainReadBy(obs, 'empty')) return undefined;
      const response = obs.exchange.response;
      if (response?.status === THROTTLED) return undefined;
      if (response?.status !== 200) return breaks(at(obs, `answered ${describe(response)}`), obs);
      // A 200 recorded without its body does not show the empty list: the rule cannot judge it.
      if (obs.bodyless) return undefined;
      const missing = notAList(obs);
      if (missing) return missing;
      const page = pageOf(obs);
      const count = metaCountOf(obs);
      if (!page || page.length > 0 || (op.counted && count !== 0)) {
        return breaks(at(obs, `answered ${describe(response)}`), obs);
      }
      return holds(obs);
    },
  },
  {
    id: 'COLLECTION-007',
    section: '§4.2 rule 2',
    title: 'Order of a collection: is a smaller page a prefix of a larger one? (the spec leaves it open)',
    area: 'collections',
    level: 'advisory',
    decision: 'D-ORDER',
    mock: { skip: 'the mock answers every list request with the same example, whatever the limit' },
    expected: 'project decision: newest walk first, ties by id, stable between calls',
    hint: 'A stable order makes limit predictable; the project orders newest first, ties by id.',
    appliesTo: isCollection,
    plan: (op, world) =>
      probes(
        collectionRequest(op, world, { key: PRIMARY_KEY }, 'default'),
        collectionRequest(op, world, { key: PRIMARY_KEY }, 'full'),
      ),
    across: { judge: orderAcross },
  },
];

/** What the plain reads of one listed item by one holder got (plain data: it may spill to disk). */
interface Answered {
  /** When the reads that got the item were sent. */
  found?: Seen;
  /** The reads that did not get it: when, how many, and the earliest one's entry and problem. */
  missed?: { seen: Seen; reads: number; seq: number; problem: string };
}

/** Two records of one listed item's reads joined: both spans, both counts, the earlier problem. */
function joinAnswered(kept: Answered, other: Answered): Answered {
  const found = kept.found && other.found ? joinSeen(kept.found, other.found) : (kept.found ?? other.found);
  const a = kept.missed;
  const b = other.missed;
  const missed =
    a && b
      ? { ...(b.seq < a.seq ? b : a), seen: joinSeen(a.seen, b.seen), reads: a.reads + b.reads }
      : (a ?? b);
  return { ...(found ? { found } : {}), ...(missed ? { missed } : {}) };
}

/** Exchanges of missed items a recording's rule keeps as evidence; a live run holds all of them anyway. */
const EVIDENCE_KEPT = 64;

/** Notes a read that did not get a listed item: the earliest one's problem, and how many and when. */
function missedBy(item: Answered, obs: Observation): void {
  if (item.missed) {
    item.missed.seen = widen(item.missed.seen, sentAt(obs));
    item.missed.reads++;
    return;
  }
  const to = credentialLabel(obs.credential);
  const problem = at(
    obs,
    `answered ${describe(obs.exchange.response)}, though the collection listed it to ${to}`,
  );
  item.missed = { seen: widen(undefined, sentAt(obs)), reads: 1, seq: obs.exchange.seq, problem };
}

/**
 * ITEM-001: what each holder was listed (per collection, the span of time each item was
 * listed in), and what its plain reads of those items got, by `collection holder id` in two tables
 * of the run's state. An item answered 404 to the key it was listed to contradicts the list; in a
 * recording, only when the list was within a minute of it.
 */
function listedFoundAcross(ctx: RuleContext): Across {
  const listed = ctx.state.table<Seen>('ITEM-001 listed', joinSeen);
  const answered = ctx.state.table<Answered>('ITEM-001 answered', joinAnswered);
  const evidence = new EvidenceTable(ctx.state, 'ITEM-001 evidence', EVIDENCE_KEPT * 2);
  // The keys of a page's items, by its body and holder: a recording lists the same pages again and again.
  const listedKeys = new Map<string, BodyMemo<Map<string, string[]>>>();
  return {
    see(obs) {
      const holder = holderOf(obs.credential);
      const op = obs.op;
      if (!holder || !op) return;
      if (op.kind === 'collection') {
        const page = pageOf(obs);
        if (!page) return;
        const byHolder = memoOf(listedKeys, op).of(
          obs.exchange.response as ResponseData,
          () => new Map<string, string[]>(),
        );
        let keys = byHolder.get(holder);
        if (!keys) {
          keys = page.flatMap((item) => {
            const id = idOf(item);
            return id === undefined ? [] : [`${op.operationId} ${holder} ${id}`];
          });
          byHolder.set(holder, keys);
        }
        const at = sentAt(obs);
        for (const key of keys) listed.set(key, widen(listed.get(key), at));
        return;
      }
      const id = askedId(obs);
      if (op.kind !== 'item' || !op.collection || id === undefined || !isPlainRead(obs)) return;
      if (obs.exchange.response?.status === THROTTLED) return;
      const key = `${op.collection.operationId} ${holder} ${id}`;
      const item = answered.get(key) ?? {};
      if (obs.exchange.response?.status === 200 && (obs.bodyless || itemOf(obs))) {
        item.found = widen(item.found, sentAt(obs));
        if (obs.source === 'live') evidence.keep(`found ${key}`, obs);
      } else {
        if (!item.missed) evidence.keep(`missed ${key}`, obs);
        missedBy(item, obs);
      }
      answered.set(key, item);
    },
    *finish() {
      for (const [key, item] of answered.entries()) {
        const when = listed.get(key);
        if (!when) continue;
        if (item.found && sameData(ctx.source, when, item.found)) yield holds(evidence.get(`found ${key}`));
        const { missed } = item;
        if (!missed || !sameData(ctx.source, when, missed.seen)) continue;
        const more = missed.reads > 1 ? ` (${missed.reads} reads of it missed)` : '';
        yield breaks(`${missed.problem}${more}`, evidence.get(`missed ${key}`));
      }
    },
  };
}

/** The values of an item's shared fields, in the order the fields are named. */
const pick = (value: Record<string, unknown>, fields: string[]) =>
  Object.fromEntries(fields.map((field) => [field, value[field]]));

/** Built with the fields in one order, their JSON is canonical but for objects inside a field. */
const digestOfShared = (shared: Record<string, unknown>) => fingerprint(JSON.stringify(shared));

/** A summary's shared fields, by the item it stands for (`getWalk <id>`), and their digest. */
interface SharedFields {
  item: string;
  digest: string;
  shared: Record<string, unknown>;
}

/** Each summary of a page, for each item operation of its collection: the shared fields and their digest. */
function summariesOf(spec: SpecModel, op: OperationModel, page: readonly unknown[]): SharedFields[] {
  return op.items.flatMap((itemOp) => {
    const fields = sharedFieldsOf(spec, itemOp);
    return page.flatMap((summary) => {
      const id = idOf(summary);
      if (id === undefined || !isObject(summary)) return [];
      const shared = pick(summary, fields);
      return [{ item: `${itemOp.operationId} ${id}`, digest: digestOfShared(shared), shared }];
    });
  });
}

/** One memo per operation: the same body means the same facts for one operation. */
function memoOf<T>(memos: Map<string, BodyMemo<T>>, op: OperationModel): BodyMemo<T> {
  let memo = memos.get(op.operationId);
  if (!memo) {
    memo = new BodyMemo<T>();
    memos.set(op.operationId, memo);
  }
  return memo;
}

/** ITEM-002: the shared fields of each item's summaries and details, compared once all are seen. */
function sharedFieldsAcross(ctx: RuleContext): Across {
  const summaries = new Versions<Record<string, unknown>>(ctx.state, 'ITEM-002 summaries');
  const details = new Versions<Record<string, unknown>>(ctx.state, 'ITEM-002 details');
  const pages = new Map<string, BodyMemo<SharedFields[]>>();
  const items = new Map<string, BodyMemo<Omit<SharedFields, 'item'>>>();
  return {
    see(obs) {
      const op = obs.op;
      const response = obs.exchange.response;
      if (!response) return;
      if (op?.kind === 'collection') {
        const page = pageOf(obs);
        if (!page) return;
        for (const { item, digest, shared } of memoOf(pages, op).of(response, () =>
          summariesOf(ctx.spec, op, page),
        ))
          summaries.add(item, digest, () => shared, obs);
        return;
      }
      const id = askedId(obs);
      const detail = op?.kind === 'item' ? itemOf(obs) : undefined;
      if (!op || id === undefined || !detail) return;
      const { digest, shared } = memoOf(items, op).of(response, () => {
        const picked = pick(detail, sharedFieldsOf(ctx.spec, op));
        return { digest: digestOfShared(picked), shared: picked };
      });
      details.add(`${op.operationId} ${id}`, digest, () => shared, obs);
    },
    *finish() {
      for (const { item, summary, detail } of pairsOf(summaries, details, ctx.source)) {
        const differing = Object.keys(summary.facts).filter(
          (field) => canonical(summary.facts[field]) !== canonical(detail.facts[field]),
        );
        if (differing.length === 0) {
          yield holds(detail.obs);
          continue;
        }
        const name = item.split(' ').slice(1).join(' ');
        const lines = differing.map(
          (field) =>
            `detail ${field} ${JSON.stringify(detail.facts[field]) ?? 'missing'} ≠ summary ${field} ${JSON.stringify(summary.facts[field]) ?? 'missing'}`,
        );
        const where = detail.obs ? requestLine(detail.obs) : `item ${name}`;
        yield breaks(`${where}: ${lines.join('; ')}`, detail.obs);
      }
    },
  };
}

/** One page of a collection for the order advisory: its size and a digest of its ids in order. */
interface PageDigest {
  size: number;
  digest: string;
  /** The page size asked (`limit=20`) by the earliest page of this content, as the advisory names a page. */
  asked: string;
  seq: number;
}

/** A page's ids in order, and their digest. */
interface PageIds {
  ids: string[];
  digest: string;
}

/** The pages of one holder in one minute: the largest one's ids, and every distinct page by size and digest. */
interface PageGroup {
  largest: PageIds;
  pages: Map<string, PageDigest>;
}

const digestOf = (ids: readonly string[]) => createHash('sha1').update(ids.join('\n')).digest('hex');

/** The larger page of two, and of two as large the one whose ids digest lower: whichever came first. */
const largerPage = (a: PageIds, b: PageIds) =>
  b.ids.length > a.ids.length || (b.ids.length === a.ids.length && b.digest < a.digest) ? b : a;

const earlierPage = (a: PageDigest, b: PageDigest) => (b.seq < a.seq ? b : a);

function joinPageGroups(kept: PageGroup, other: PageGroup): PageGroup {
  for (const [key, page] of other.pages) {
    const known = kept.pages.get(key);
    kept.pages.set(key, known ? earlierPage(known, page) : page);
  }
  return { largest: largerPage(kept.largest, other.largest), pages: kept.pages };
}

const NO_PAGE: PageIds = { ids: [], digest: digestOf([]) };

/**
 * COLLECTION-007: per collection, holder and query (and, in a recording, per minute), the largest
 * page's ids and the digests of the smaller pages; a smaller page is a prefix when its digest is
 * the digest of that many first ids of the largest.
 */
function orderAcross(ctx: RuleContext): Across {
  const groups = ctx.state.table<PageGroup>('COLLECTION-007 pages', joinPageGroups);
  const idsOf = new BodyMemo<PageIds>();
  return {
    see(obs) {
      const holder = holderOf(obs.credential);
      const op = obs.op;
      const page = op?.kind === 'collection' && holder && isPlainRead(obs) ? pageOf(obs) : undefined;
      if (!op || !page) return;
      const read = idsOf.of(obs.exchange.response as ResponseData, () => {
        const ids = page.map((item) => idOf(item) ?? '');
        return { ids, digest: digestOf(ids) };
      });
      const key = `${op.operationId} ${holder} ${minuteOf(obs)}`;
      const group = groups.get(key) ?? { largest: NO_PAGE, pages: new Map<string, PageDigest>() };
      const pageKey = `${read.ids.length} ${read.digest}`;
      const known = group.pages.get(pageKey);
      const largest = largerPage(group.largest, read);
      if (known && known.seq <= obs.exchange.seq && largest === group.largest) return;
      const seen: PageDigest = {
        size: read.ids.length,
        digest: read.digest,
        asked: askedText(op, limitAsked(obs)),
        seq: obs.exchange.seq,
      };
      group.pages.set(pageKey, known ? earlierPage(known, seen) : seen);
      group.largest = largest;
      groups.set(key, group);
    },
    *finish() {
      let pages = 0;
      const notPrefix: string[] = [];
      for (const [, { largest, pages: seen }] of groups.entries()) {
        for (const page of [...seen.values()].sort((a, b) => a.seq - b.seq)) {
          if (page.size === largest.ids.length && page.digest === largest.digest) continue;
          pages++;
          if (digestOf(largest.ids.slice(0, page.size)) !== page.digest)
            notPrefix.push(`${page.asked} (${page.size} items)`);
        }
      }
      if (pages === 0) return;
      yield notPrefix.length === 0
        ? chose(`stable: all ${pages} smaller pages are prefixes of the largest page`, false)
        : chose(
            `not prefix-stable: ${notPrefix.length} of ${pages} smaller pages are not the first items of the largest page (e.g. ${notPrefix[0]})`,
            true,
          );
    },
  };
}
