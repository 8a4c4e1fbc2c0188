/**
 * Cursor pagination (§4.4, §8; D-PAGINATION-DECLARED), on every live collection, and every live item
 * with a paged array inside (a saved list's voters), whose spec says it pages (`core/pagination.ts`):
 * a live run walks the pages to the end within a budget, sends a cursor it never got and (to a
 * collection) another campaign's cursor, and carries the primary key's cursor with the key that
 * lacks the scope and with none. The rules read only what the exchanges carry (the cursor
 * sent, the next cursor given, the items, the credentials), so a recording is judged the same way.
 */
import { randomBytes } from 'node:crypto';
import { describe, errorEnvelopeProblem, isClientError, requestLine } from '../core/answers.ts';
import { roleOfCredential } from '../core/credentials.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import { nextCursorOf } from '../core/pagination.ts';
import type { KeyName } from '../core/roles.ts';
import { NO_SCOPE_KEY, OTHER_CAMPAIGN_KEY, PRIMARY_KEY } from '../core/roles.ts';
import type { AcrossContext, Judgement, Probe, Rule, World } from '../core/rule.ts';
import { breaks, holds, unjudged } from '../core/rule.ts';
import type { OperationModel } from '../core/spec-model.ts';
import { type RuleState, sharedBy, type StateTable } from '../core/state.ts';
import type { Exchange, RequestSpec } from '../core/exchange.ts';
import { holderOf, idOf, isPageRead, limitAsked, pageOf } from './pages.ts';

/** Pages a live run reads of one walk at most: past it, whether the pages end is not judged. */
const WALK_BUDGET = 20;
/** Pages a walk is cut into when the first page showed the whole collection. */
const WALK_PAGES = 4;

/** The cursor a run makes up: no deployment issued it, and any exchange tells it by its prefix. */
const UNISSUED_PREFIX = 'conformance-unissued-';
const unissuedCursor = () => `${UNISSUED_PREFIX}${randomBytes(8).toString('hex')}`;
const isUnissued = (cursor: string) => cursor.startsWith(UNISSUED_PREFIX);

const pages = (op: OperationModel) =>
  op.live && op.method === 'GET' && (op.kind === 'collection' || op.kind === 'item') && !!op.pagination;

/** A page read, as the rules see it: the cursor sent ('' on the first page), and the page's bound. */
interface PageRead {
  cursor: string;
  /** The `limit` asked, or its default; unbounded when the operation has no `limit`. */
  bound: number;
}

function pageReadOf(obs: Observation): PageRead | undefined {
  const op = obs.op;
  const pagination = op?.pagination;
  if (!op || !pagination || !isPageRead(obs)) return undefined;
  const asked = limitAsked(obs);
  const bound = asked.kind === 'valid' ? asked.n : (op.limit?.default ?? Number.POSITIVE_INFINITY);
  return { cursor: obs.query.get(pagination.cursor) ?? '', bound };
}

/**
 * The page size a walk asks for: the collection cut in about WALK_PAGES pages, within the bounds; an
 * item's array, whose length no list shows beforehand, by the default page.
 */
function walkSize(op: OperationModel, world: World): number | undefined {
  const limit = op.limit;
  if (!limit) return undefined;
  if (op.kind === 'item') return limit.default;
  const listed = world.listed(op, 'primary').length;
  if (listed >= limit.maximum) return limit.maximum;
  return Math.min(limit.maximum, Math.max(limit.minimum, Math.ceil(listed / WALK_PAGES)));
}

/** The query of a page: its size, then its cursor. */
function pageQuery(op: OperationModel, size: number | undefined, cursor?: string): string | undefined {
  const parts = [
    ...(size !== undefined && op.limit ? [`${op.limit.name}=${size}`] : []),
    ...(cursor !== undefined && op.pagination
      ? [`${op.pagination.cursor}=${encodeURIComponent(cursor)}`]
      : []),
  ];
  return parts.length > 0 ? parts.join('&') : undefined;
}

/** The cursor a 200 answer gives for its next page. */
function nextOf(op: OperationModel, answered: Exchange): string | undefined {
  const response = answered.response;
  if (!op.pagination || response?.status !== 200) return undefined;
  return nextCursorOf(response.json, op.pagination);
}

/** A page of the operation; of an item, of a real item of the primary campaign. */
function ask(op: OperationModel, world: World, key: KeyName | undefined, query: string | undefined) {
  return world.request(op, { ...(key ? { key } : {}), ...(query !== undefined ? { query } : {}) });
}

/** The primary key's walk: its first page, then each next cursor's page, WALK_BUDGET pages at most. */
function walkProbes(op: OperationModel, world: World): Probe[] {
  const size = walkSize(op, world);
  const first = ask(op, world, PRIMARY_KEY, pageQuery(op, size));
  if (!first) return [];
  let read = 1;
  const followUp = (answered: Exchange): RequestSpec | undefined => {
    const next = nextOf(op, answered);
    if (next === undefined || read >= WALK_BUDGET) return undefined;
    read++;
    return ask(op, world, PRIMARY_KEY, pageQuery(op, size, next));
  };
  return [{ request: first, followUp, repeats: true }];
}

/** One key's first page, and the page its next cursor names asked with another key (or none). */
function handedOver(
  op: OperationModel,
  world: World,
  issuedTo: KeyName,
  sentBy: KeyName | undefined,
): Probe[] {
  const size = walkSize(op, world);
  const first = ask(op, world, issuedTo, pageQuery(op, size));
  if (!first || (sentBy && !world.has(sentBy))) return [];
  const followUp = (answered: Exchange) => {
    const next = nextOf(op, answered);
    return next === undefined ? undefined : ask(op, world, sentBy, pageQuery(op, size, next));
  };
  return [{ request: first, followUp }];
}

/** A page a holder got: the campaign of its key, its items' ids, the next cursor it gave, and when. */
interface PageRecord {
  campaign: string | null;
  ids: string[];
  next: string | null;
  seq: number;
}

/** A request that carried a cursor a page gave: to whom, and what it answered. */
interface CursorUse {
  campaign: string | null;
  /** Whether a valid key holds the scopes (a recorded key is taken to); null without a valid key. */
  reads: boolean | null;
  status: number;
  /** Why a 4xx is no error envelope; null when it is one, or no 4xx. */
  problem: string | null;
  ids: string[];
  seq: number;
}

/** A cursor a page gave: the campaign of the key it was given to. */
interface Issued {
  campaign: string | null;
  seq: number;
}

const earliest = <R extends { seq: number }>(kept: R, other: R): R => (other.seq < kept.seq ? other : kept);

/** Evidence the rules keep of a recording's pages (the earliest). */
const EVIDENCE_KEPT = 64;

/** What every pagination rule reads, recorded once per exchange in tables a recording's shards join. */
interface PageBook {
  /** [path, holder, bound, cursor sent] → the page. */
  pages: StateTable<PageRecord>;
  /** [path, cursor] → who it was given to. */
  issued: StateTable<Issued>;
  /** [path, cursor, holder] → what sending it answered. */
  uses: StateTable<CursorUse>;
  evidence: EvidenceTable;
  /** The spec the error envelopes are judged by. */
  spec?: AcrossContext['spec'];
  last?: Observation;
  see(obs: Observation): void;
}

function pageBookOf(state: RuleState): PageBook {
  const book: PageBook = {
    pages: state.table<PageRecord>('pagination pages', earliest),
    issued: state.table<Issued>('pagination issued', earliest),
    uses: state.table<CursorUse>('pagination uses', earliest),
    evidence: new EvidenceTable(state, 'pagination evidence', EVIDENCE_KEPT),
    see(obs) {
      if (book.last === obs) return;
      book.last = obs;
      record(book, obs);
    },
  };
  return book;
}

function record(book: PageBook, obs: Observation): void {
  const read = pageReadOf(obs);
  const response = obs.exchange.response;
  if (!read || !response || obs.answer !== 'usable' || obs.bodyless || !obs.op?.pagination) return;
  const role = roleOfCredential(obs.credential);
  const campaign = role?.campaign ?? null;
  const holder = holderOf(obs.credential) ?? 'no key';
  const page = pageOf(obs);
  const ids = (page ?? []).flatMap((item) => idOf(item) ?? []);
  const seq = obs.exchange.seq;
  const place = (...parts: (string | number)[]) => JSON.stringify([obs.path, ...parts]);
  if (page) {
    const next = nextCursorOf(response.json, obs.op.pagination) ?? null;
    const key = place(holder, read.bound, read.cursor);
    const seen = { campaign, ids, next, seq };
    book.pages.set(key, earliest(book.pages.get(key) ?? seen, seen));
    book.evidence.keep(key, obs);
    if (next !== null) {
      const given = place(next);
      const issued = { campaign, seq };
      book.issued.set(given, earliest(book.issued.get(given) ?? issued, issued));
    }
  }
  if (read.cursor === '') return;
  const problem =
    isClientError(response.status) && book.spec ? (errorEnvelopeProblem(book.spec, response) ?? null) : null;
  const use: CursorUse = {
    campaign,
    reads: role ? (role.valid ? role.scoped : null) : obs.credential.kind === 'recorded' ? true : null,
    status: response.status,
    problem,
    ids,
    seq,
  };
  const key = place(read.cursor, holder);
  book.uses.set(key, earliest(book.uses.get(key) ?? use, use));
  book.evidence.keep(`use ${key}`, obs);
}

function bookOf(ctx: AcrossContext): PageBook {
  const book = sharedBy(ctx.state, pageBookOf);
  book.spec ??= ctx.spec;
  return book;
}

/** The ids of the items pages showed to each campaign's keys. */
function itemsByCampaign(book: PageBook): Map<string, Set<string>> {
  const byCampaign = new Map<string, Set<string>>();
  for (const [, page] of book.pages.entries()) {
    if (page.campaign === null) continue;
    const ids = byCampaign.get(page.campaign) ?? new Set<string>();
    for (const id of page.ids) ids.add(id);
    byCampaign.set(page.campaign, ids);
  }
  return byCampaign;
}

/** One walk: the pages from the first one, following each next cursor, as far as they were read. */
interface Walk {
  key: (cursor: string) => string;
  pages: { cursor: string; page: PageRecord }[];
  /** How it stopped: the last page gave no cursor, gave one already seen, or its next page was not read. */
  end: { kind: 'ended' } | { kind: 'repeated'; cursor: string } | { kind: 'cut'; cursor: string };
}

/** Every walk that went past its first page, per path, holder and bound. */
function* walksOf(book: PageBook): Generator<Walk> {
  const groups = new Set<string>();
  for (const key of book.pages.keys()) {
    const [path, holder, bound, cursor] = JSON.parse(key) as [string, string, number, string];
    if (cursor !== '') groups.add(JSON.stringify([path, holder, bound]));
  }
  for (const group of groups) {
    const [path, holder, bound] = JSON.parse(group) as [string, string, number];
    const key = (cursor: string) => JSON.stringify([path, holder, bound, cursor]);
    const first = book.pages.get(key(''));
    if (!first) continue;
    const walk: Walk = { key, pages: [{ cursor: '', page: first }], end: { kind: 'ended' } };
    const seen = new Set<string>(['']);
    for (let page: PageRecord | undefined = first; page?.next;) {
      const cursor: string = page.next;
      if (seen.has(cursor)) {
        walk.end = { kind: 'repeated', cursor };
        break;
      }
      seen.add(cursor);
      page = book.pages.get(key(cursor));
      if (!page) {
        walk.end = { kind: 'cut', cursor };
        break;
      }
      walk.pages.push({ cursor, page });
    }
    yield walk;
  }
}

const shown = (cursor: string) => (cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor);

function walkEndJudgement(book: PageBook, walk: Walk): Judgement {
  const last = walk.pages.at(-1) as { cursor: string };
  const obs = book.evidence.get(walk.key(last.cursor));
  const at = obs ? `${requestLine(obs)}: ` : '';
  const n = walk.pages.length;
  if (walk.end.kind === 'repeated')
    return breaks(
      `${at}page ${n} gave the next cursor ${shown(walk.end.cursor)} again: the cursor does not advance`,
      obs,
    );
  if (walk.end.kind === 'cut')
    return unjudged(`the walk read ${n} pages (budget ${WALK_BUDGET}) and did not reach the last`, obs);
  return holds(obs);
}

function repeatJudgement(book: PageBook, walk: Walk): Judgement {
  const where = new Map<string, number>();
  for (const [index, { cursor, page }] of walk.pages.entries()) {
    for (const id of page.ids) {
      const before = where.get(id);
      if (before !== undefined && before !== index) {
        const obs = book.evidence.get(walk.key(cursor));
        return breaks(
          `${obs ? `${requestLine(obs)}: ` : ''}item ${id} of page ${before + 1} appears again on page ${index + 1}`,
          obs,
        );
      }
      where.set(id, index);
    }
  }
  return holds(book.evidence.get(walk.key('')));
}

/** The uses of cursors some page gave: the use, the cursor's issue, the evidence. */
function* handedOverUses(book: PageBook): Generator<{ use: CursorUse; issued: Issued; obs?: Evidence }> {
  for (const [key, use] of book.uses.entries()) {
    const [path, cursor] = JSON.parse(key) as [string, string, string];
    const issued = book.issued.get(JSON.stringify([path, cursor]));
    if (issued) yield { use, issued, ...withEvidence(book.evidence.get(`use ${key}`)) };
  }
}

const withEvidence = (obs: Evidence | undefined) => (obs ? { obs } : {});
const line = (obs: Evidence | undefined, text: string) => (obs ? `${requestLine(obs)}: ${text}` : text);

function refusalJudgement(use: CursorUse, obs: Evidence | undefined, want: string): Judgement {
  if (use.status === 200)
    return breaks(line(obs, `200 with ${use.ids.length} items where ${want} was due`), obs);
  if (!isClientError(use.status))
    return breaks(line(obs, `answered ${use.status} where ${want} was due`), obs);
  if (use.problem) return breaks(line(obs, `${use.status}, ${use.problem}`), obs);
  return holds(obs);
}

function acrossWith(ctx: AcrossContext, judgements: (book: PageBook) => Iterable<Judgement>) {
  const book = bookOf(ctx);
  return {
    see: (obs: Observation) => book.see(obs),
    finish: () => judgements(book),
  };
}

const common = {
  area: 'pagination',
  level: 'required',
  mock: { skip: 'the mock answers every page with the same example, whatever the cursor' },
  appliesTo: pages,
} as const;

export const paginationRules: Rule[] = [
  {
    ...common,
    id: 'PAGINATION-001',
    section: '§4.4, §8',
    title: 'Every page a cursor reaches holds no more items than the limit asked',
    owasp: ['API4:2023'],
    unit: 'pages',
    expected: 'at most limit items (its default when none is asked) on every page',
    hint: 'Apply limit to every page, the pages after the first included.',
    plan: walkProbes,
    judge(obs) {
      const read = pageReadOf(obs);
      const page = read && read.cursor !== '' ? pageOf(obs) : undefined;
      if (!read || !page) return undefined;
      return page.length <= read.bound
        ? holds(obs)
        : breaks(`${requestLine(obs)}: ${page.length} items, more than the ${read.bound} asked`, obs);
    },
  },
  {
    ...common,
    id: 'PAGINATION-002',
    section: '§4.4',
    title: 'The cursor advances and the pages end',
    unit: 'walks',
    expected: `each next cursor new to the walk, and a last page without one within ${WALK_BUDGET} pages`,
    hint: 'Give each page a cursor to the page after it, and none on the last page.',
    plan: walkProbes,
    across: {
      judge: (ctx) =>
        acrossWith(ctx, (book) => [...walksOf(book)].map((walk) => walkEndJudgement(book, walk))),
    },
  },
  {
    ...common,
    id: 'PAGINATION-003',
    section: '§4.4',
    title: 'No item appears on two pages of one walk',
    unit: 'walks',
    expected: 'each item once across the pages',
    hint: 'Order pages by a stable, unique key and start each page after the last item of the one before.',
    plan: walkProbes,
    across: {
      judge: (ctx) =>
        acrossWith(ctx, (book) => [...walksOf(book)].map((walk) => repeatJudgement(book, walk))),
    },
  },
  {
    ...common,
    id: 'PAGINATION-004',
    // The cursor's name and format are not shown (§4.4): how a deployment answers a cursor it never
    // issued is its own choice, reported against the project's decision, never failed.
    level: 'advisory',
    section: '§4.4, §7',
    title: 'A cursor the deployment never issued is refused with 400 in the error envelope',
    decision: 'D-PAGINATION-DECLARED',
    owasp: ['API8:2023'],
    expected: '400 in the error envelope',
    hint: 'Verify every cursor (sign it, or look it up) and refuse one you did not issue with 400.',
    plan: (op, world) => {
      const request = ask(op, world, PRIMARY_KEY, pageQuery(op, walkSize(op, world), unissuedCursor()));
      return request ? [{ request }] : [];
    },
    judge(obs, ctx) {
      const read = pageReadOf(obs);
      const response = obs.exchange.response;
      if (!read || !isUnissued(read.cursor) || !response || obs.bodyless) return undefined;
      if (response.status !== 400) return breaks(`${requestLine(obs)}: answered ${describe(response)}`, obs);
      const problem = errorEnvelopeProblem(ctx.spec, response);
      return problem ? breaks(`${requestLine(obs)}: 400, ${problem}`, obs) : holds(obs);
    },
  },
  {
    ...common,
    id: 'PAGINATION-005',
    section: '§4.4, §5',
    title: "Another campaign's cursor is never answered with that campaign's items",
    owasp: ['API1:2023'],
    needs: [OTHER_CAMPAIGN_KEY],
    expected: "a refusal, or a page of the key's own campaign",
    hint: "Bind each cursor to the campaign of the key it was issued to, and refuse it to any other campaign's key.",
    // On an item, the other campaign's cursor could only be sent for that campaign's own item: a
    // request of another campaign's item, which the isolation rules judge as such (its cursor
    // refused before the item is looked up would read as an answer unlike an unknown id's). The
    // cursors of an item's array are judged by the walk, the unissued cursor and the scope rules.
    plan: (op, world) => (op.kind === 'item' ? [] : handedOver(op, world, OTHER_CAMPAIGN_KEY, PRIMARY_KEY)),
    across: {
      judge: (ctx) =>
        acrossWith(ctx, function* (book) {
          const items = itemsByCampaign(book);
          for (const { use, issued, obs } of handedOverUses(book)) {
            if (use.campaign === null || issued.campaign === null || use.campaign === issued.campaign)
              continue;
            if (!use.reads) continue;
            const theirs = items.get(issued.campaign);
            const leaked = use.ids.filter((id) => theirs?.has(id)).length;
            // Whether the cursor is refused or read as a position in the key's own campaign is the
            // deployment's choice (its format is not shown): only the other campaign's items fail.
            if (use.status === 200 && leaked > 0)
              yield breaks(
                line(obs, `200 with ${leaked} items of the campaign the cursor was issued to`),
                obs,
              );
            else if (use.status === 200) yield holds(obs);
            else yield refusalJudgement(use, obs, 'a refusal');
          }
        }),
    },
  },
  {
    ...common,
    id: 'PAGINATION-006',
    section: '§5',
    title: "A page asked with a cursor keeps the key's scope: 403 without the scope, a refusal without a key",
    owasp: ['API5:2023'],
    needs: [NO_SCOPE_KEY],
    expected: '403 for the key without the scope, a 4xx without a key, in the error envelope, on any page',
    hint: 'Check the key and its scope on every request, whatever cursor it carries.',
    plan: (op, world) => [
      ...handedOver(op, world, PRIMARY_KEY, NO_SCOPE_KEY),
      ...handedOver(op, world, PRIMARY_KEY, undefined),
    ],
    across: {
      judge: (ctx) =>
        acrossWith(ctx, function* (book) {
          for (const { use, obs } of handedOverUses(book)) {
            if (use.reads === true) continue;
            if (use.reads === false && use.status !== 403 && isClientError(use.status))
              yield breaks(line(obs, `answered ${use.status} where 403 was due`), obs);
            else yield refusalJudgement(use, obs, use.reads === false ? '403' : 'a refusal');
          }
        }),
    },
  },
];
