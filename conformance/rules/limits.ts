/**
 * `limit` (§4.2, §8), on every live operation whose spec gives it one, with the bounds that spec
 * gives: a page holds exactly min(N, M) items, M the collection's size as the answers themselves
 * show it (the largest page a holder got), so the rule judges a recording as it judges a live run;
 * and a bad value never meets a 5xx (§8 leaves the answer open: a 4xx error envelope or a bounded
 * success).
 */
import {
  answered,
  describe,
  errorEnvelopeProblem,
  errorOf,
  isClientError,
  requestLine,
} from '../core/answers.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import { PRIMARY_KEY } from '../core/roles.ts';
import type { Across, AcrossContext, Judgement, Probe, Rule, RuleContext, World } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import type { LimitParameter, OperationModel } from '../core/spec-model.ts';
import { seededRandom } from '../core/seeded.ts';
import type { LimitAsked } from './pages.ts';
import {
  askedText,
  byReadingKey,
  holderOf,
  isPlainRead,
  limitAsked,
  metaCountOf,
  minuteOf,
  pageOf,
} from './pages.ts';
import { collectionRequest } from './requests.ts';

/** What the bad values of a `limit` are made from: its name and bounds. */
type LimitBounds = Pick<LimitParameter, 'name' | 'minimum' | 'maximum'>;

const hasLimit = (op: OperationModel) => op.live && op.method === 'GET' && op.limit !== undefined;
const PRISM_IGNORES_LIMIT = {
  skip: 'the mock answers every list request with the same example, whatever the limit',
};

/** A bad `limit` value: the rule that judges it, the query that sends it, the most items a success may hold. */
export interface BadLimit {
  id: string;
  /** In words: `a limit just below its minimum`. */
  what: string;
  query: string;
  atMost: number;
}

/** The kinds of bad value, one rule each, in words that hold whatever the bounds. */
const BAD_KINDS = [
  { id: 'LIMITS-001', what: 'a limit just below its minimum' },
  { id: 'LIMITS-002', what: 'a negative limit' },
  { id: 'LIMITS-003', what: 'a limit above its maximum' },
  { id: 'LIMITS-004', what: 'a huge limit' },
  { id: 'LIMITS-005', what: 'a non-numeric limit' },
  { id: 'LIMITS-006', what: 'a fractional limit' },
  { id: 'LIMITS-007', what: 'an empty limit' },
  { id: 'LIMITS-008', what: 'a repeated limit' },
] as const;

/**
 * The bad values of one `limit` parameter, with the queries that send them (`limit=0`,
 * `limit=-1`, `limit=201`, ... for bounds 1..200). A success may hold at most the maximum, or at
 * most what a value read as a number in range asks for.
 */
export function badLimitsOf(limit: LimitBounds): BadLimit[] {
  const { name, minimum: min, maximum: max } = limit;
  const queries: Record<(typeof BAD_KINDS)[number]['id'], [string, number]> = {
    'LIMITS-001': [`${min - 1}`, max],
    'LIMITS-002': [`${Math.min(-1, min - 2)}`, max],
    'LIMITS-003': [`${max + 1}`, max],
    'LIMITS-004': ['99999999999999999999', max],
    'LIMITS-005': ['abc', max],
    'LIMITS-006': [`${min}.5`, Math.min(max, min + 1)],
    'LIMITS-007': ['', max],
    'LIMITS-008': [`${min}&${name}=${min + 1}`, Math.min(max, min + 1)],
  };
  return BAD_KINDS.map(({ id, what }) => {
    const [value, atMost] = queries[id];
    return { id, what, query: `${name}=${value}`, atMost };
  });
}

/** Digits beyond which an integer is "huge": past what a double holds exactly. */
const HUGE_DIGITS = 16;

/** Which bad-value rule judges a request's `limit` values, and the most items its success may hold. */
export function badLimitOf(values: readonly string[], limit: LimitBounds): { id: string; atMost: number } {
  const { minimum: min, maximum: max } = limit;
  const inRange = (n: number) => n >= min && n <= max;
  if (values.length > 1) {
    const asked = values
      .filter((v) => /^\d+$/.test(v))
      .map(Number)
      .filter(inRange);
    return { id: 'LIMITS-008', atMost: asked.length > 0 ? Math.max(...asked) : max };
  }
  const value = (values[0] ?? '').trim();
  if (value === '') return { id: 'LIMITS-007', atMost: max };
  if (/^[+-]?\d+$/.test(value)) {
    if (value.replace(/^[+-]?0*/, '').length >= HUGE_DIGITS) return { id: 'LIMITS-004', atMost: max };
    const n = Number(value);
    if (n < min) return { id: n === min - 1 ? 'LIMITS-001' : 'LIMITS-002', atMost: max };
    return { id: 'LIMITS-003', atMost: max };
  }
  const number = Number(value);
  if (Number.isFinite(number))
    return { id: 'LIMITS-006', atMost: inRange(Math.ceil(number)) ? Math.ceil(number) : max };
  return { id: 'LIMITS-005', atMost: max };
}

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/** The bad value a request on an operation with `limit` sent, when it sent one. */
function badLimitAsked(obs: Observation): { id: string; atMost: number } | undefined {
  const limit = obs.op?.limit;
  const asked = limitAsked(obs);
  return limit && asked.kind === 'bad' ? badLimitOf(asked.values, limit) : undefined;
}

/** LIMITS-001..008: no 5xx; a 4xx error envelope, or a success with no more items than the value allows. */
function judgeBadLimit(id: string, obs: Observation, ctx: RuleContext): Judgement | undefined {
  const method = obs.exchange.request.method;
  const bad = method === 'GET' || method === 'HEAD' ? badLimitAsked(obs) : undefined;
  const response = obs.exchange.response;
  if (bad?.id !== id || !response || obs.answer === 'undecodable') return undefined;
  if (obs.answer === 'server-error' || obs.answer === 'html')
    return breaks(at(obs, `answered ${describe(response)}`), obs);
  // A refusal or a success recorded without its body shows neither its envelope nor its items.
  if (isClientError(response.status)) {
    if (obs.bodyless) return undefined;
    const problem = method === 'HEAD' ? undefined : errorEnvelopeProblem(ctx.spec, response);
    return problem ? breaks(at(obs, `${response.status}, ${problem}`), obs) : holds(obs);
  }
  if (response.status !== 200) return breaks(at(obs, `answered ${describe(response)}`), obs);
  if (obs.bodyless) return undefined;
  if (method === 'HEAD') return holds(obs);
  const page = pageOf(obs);
  if (!page) return breaks(at(obs, `200 without a list: ${describe(response)}`), obs);
  return page.length <= bad.atMost
    ? holds(obs)
    : breaks(at(obs, `200 with ${page.length} items, more than ${bad.atMost}`), obs);
}

/** The requests of one bad value on an operation: the primary key asks with it. */
function badLimitProbe(id: string) {
  return (op: OperationModel, world: World): Probe[] => {
    const bad = op.limit ? badLimitsOf(op.limit).find((b) => b.id === id) : undefined;
    const request = bad ? world.request(op, { key: PRIMARY_KEY, query: bad.query }) : undefined;
    return request ? [{ request }] : [];
  };
}

const capitalized = (text: string) => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;

const badValueRules: Rule[] = BAD_KINDS.map(({ id, what }): Rule => ({
  id,
  section: '§8',
  title: `${capitalized(what)} never gets a 5xx: a 4xx error envelope or a bounded success`,
  area: 'limits',
  level: 'required',
  mock: 'run',
  decision: 'D-LIMIT',
  owasp: ['API4:2023'],
  about: 'answers to its requests',
  expected:
    'no 5xx: a 4xx error envelope, or 200 with no more items than the value allows (the maximum at most)',
  hint: 'Validate limit before using it: refuse with a 4xx error envelope, or clamp it into its bounds; never fail with a 5xx.',
  appliesTo: hasLimit,
  plan: badLimitProbe(id),
  judge: (obs, ctx) => judgeBadLimit(id, obs, ctx),
}));

/** How many seeded values the size rule draws on top of the boundaries. */
const SEEDED_LIMITS = 4;

/**
 * The `limit` values a live run asks for: the boundaries around the minimum, the default, the middle
 * and the maximum (1, 2, 49, 50, 51, 99, 100, 101, 150, 199, 200 for 1..200, default 50), then
 * values drawn by the seed, so a run reproduces and another seed looks elsewhere.
 */
function limitValues(limit: LimitParameter, seed: number): number[] {
  const { minimum: min, maximum: max, default: def } = limit;
  const half = Math.floor(max / 2);
  const boundaries = [
    min,
    min + 1,
    def - 1,
    def,
    def + 1,
    half - 1,
    half,
    half + 1,
    Math.floor((3 * max) / 4),
    max - 1,
    max,
  ];
  const values = new Set(boundaries.filter((n) => n >= min && n <= max));
  const random = seededRandom(seed ^ 0x5eed);
  const room = max - min + 1;
  const wanted = Math.min(room, values.size + SEEDED_LIMITS);
  for (let tries = 0; values.size < wanted && tries < 1000; tries++)
    values.add(min + Math.floor(random() * room));
  return [...values];
}

/** Which size rule judges a page: the default page, the minimum, the maximum, or any other value. */
type PageKind = 'default' | 'minimum' | 'maximum' | 'other';

function pageKindOf(limit: LimitParameter, asked: LimitAsked): PageKind {
  if (asked.kind !== 'valid') return 'default';
  if (asked.n === limit.minimum) return 'minimum';
  if (asked.n === limit.maximum) return 'maximum';
  return 'other';
}

/** One distinct page a holder got: the bound it asked, its size and its meta.count; the earliest entry of it. */
interface SizedPage {
  bound: number;
  asked: string;
  size: number;
  count: unknown;
  seq: number;
}

/** The pages of one holder in one minute, and the most items one of them showed there are (M ≥ most). */
interface SizeGroup {
  most: number;
  pages: Map<string, SizedPage>;
}

function joinSizeGroups(kept: SizeGroup, other: SizeGroup): SizeGroup {
  for (const [key, page] of other.pages) {
    const known = kept.pages.get(key);
    kept.pages.set(key, known && known.seq <= page.seq ? known : page);
  }
  return { most: Math.max(kept.most, other.most), pages: kept.pages };
}

/** Pages a recording's rule keeps as evidence (the earliest); a live run holds all its exchanges anyway. */
const EVIDENCE_KEPT = 64;

/**
 * The size rules' judge: per collection and holder (and, in a recording, per minute), M is at least
 * the most items any page showed within the bound it asked (min(size, bound)); each page of this
 * rule's kind must hold exactly min(N, M) items, N its bound. A correct deployment always passes: a
 * page asked with N ≥ M shows M itself, and pages asked with N < M each show N.
 */
function pageSizesAcross(ctx: AcrossContext, kind: PageKind): Across {
  const groups = ctx.state.table<SizeGroup>(`${ctx.ruleId} pages`, joinSizeGroups);
  const evidence = new EvidenceTable(ctx.state, `${ctx.ruleId} evidence`, EVIDENCE_KEPT);
  const groupKey = (path: string, holder: string, minute: number) => JSON.stringify([path, holder, minute]);
  return {
    see(obs) {
      const op = obs.op;
      const holder = holderOf(obs.credential);
      const page = op?.limit && holder && isPlainRead(obs) ? pageOf(obs) : undefined;
      const asked = limitAsked(obs);
      if (!op?.limit || !holder || !page || asked.kind === 'bad') return;
      const bound = asked.kind === 'valid' ? asked.n : op.limit.default;
      // Per path: an item operation's `limit` bounds each item's own array.
      const key = groupKey(obs.path, holder, minuteOf(obs));
      const group = groups.get(key) ?? { most: 0, pages: new Map<string, SizedPage>() };
      const most = Math.max(group.most, Math.min(page.length, bound));
      const mine = pageKindOf(op.limit, asked) === kind;
      const count = op.counted ? metaCountOf(obs) : page.length;
      const pageKey = `${bound} ${page.length} ${JSON.stringify(count)}`;
      if (most === group.most && (!mine || group.pages.has(pageKey))) return;
      group.most = most;
      if (mine && !group.pages.has(pageKey)) {
        group.pages.set(pageKey, {
          bound,
          asked: askedText(op, asked),
          size: page.length,
          count,
          seq: obs.exchange.seq,
        });
        evidence.keep(`${key} ${pageKey}`, obs);
      }
      groups.set(key, group);
    },
    *finish() {
      for (const [key, group] of groups.entries()) {
        const [path, holder, minute] = JSON.parse(key) as [string, string, number];
        // A page near a minute's edge is judged with the pages of the minutes beside it too.
        const most = Math.max(
          group.most,
          groups.get(groupKey(path, holder, minute - 1))?.most ?? 0,
          groups.get(groupKey(path, holder, minute + 1))?.most ?? 0,
        );
        const pages = [...group.pages].sort(([, a], [, b]) => a.seq - b.seq);
        for (const [pageKey, page] of pages)
          yield sizeJudgement(page, most, evidence.get(`${key} ${pageKey}`));
      }
    },
  };
}

function sizeJudgement(page: SizedPage, most: number, obs: Evidence | undefined): Judgement {
  const where = obs ? `${requestLine(obs)}: ` : `${page.asked}: `;
  const { size, bound, count } = page;
  if (size > bound) return breaks(`${where}${size} items, more than the ${bound} asked`, obs);
  const due = Math.min(bound, most);
  if (size !== due) {
    return breaks(
      `${where}${size} items where min(${bound}, M) = ${due} were due: a page to the same key shows M ≥ ${most}`,
      obs,
    );
  }
  if (count !== size) return breaks(`${where}meta.count is ${JSON.stringify(count)} for ${size} items`, obs);
  return holds(obs);
}

/** A size rule's requests: its own pages, and the largest page that shows M. */
function sizeProbes(kind: PageKind) {
  return (op: OperationModel, world: World): Probe[] => {
    const limit = op.limit;
    if (!limit) return [];
    const ask = { key: PRIMARY_KEY } as const;
    const own =
      kind === 'other'
        ? limitValues(limit, world.seed)
            .filter((n) => n !== limit.minimum && n !== limit.maximum)
            .map((n) => world.request(op, { ...ask, query: `${limit.name}=${n}` }))
        : [
            collectionRequest(
              op,
              world,
              ask,
              kind === 'minimum' ? 'small' : kind === 'maximum' ? 'full' : 'default',
            ),
          ];
    return [...own, collectionRequest(op, world, ask, 'full')].flatMap((request) =>
      request ? [{ request }] : [],
    );
  };
}

function sizeRule(
  id: string,
  kind: PageKind,
  declaration: Pick<Rule, 'title' | 'expected' | 'hint' | 'mock'>,
): Rule {
  return {
    id,
    section: '§4.2, §8',
    area: 'collections',
    level: 'required',
    unit: 'pages',
    ...declaration,
    appliesTo: hasLimit,
    plan: sizeProbes(kind),
    across: { judge: (ctx) => pageSizesAcross(ctx, kind) },
  };
}

/** The page sizes a `limit` gives (the default, its bounds, the values between). */
export const pageSizeRules: Rule[] = [
  sizeRule('COLLECTION-002', 'default', {
    title: 'Without limit, a collection returns its default number of items (all of them when it has fewer)',
    expected: 'min(default, M) items, M the most items a page to the same key shows',
    hint: "Apply the limit's default when the query names no limit.",
    mock: PRISM_IGNORES_LIMIT,
  }),
  sizeRule('COLLECTION-003', 'minimum', {
    title: 'A limit at its minimum returns exactly that many items',
    expected: 'min(minimum, M) items',
    hint: 'Return at most limit items: a limit at its minimum gives that many items when the collection has them.',
    mock: PRISM_IGNORES_LIMIT,
  }),
  sizeRule('COLLECTION-004', 'maximum', {
    title:
      'A limit at its maximum returns min(maximum, M) items: never more, never fewer than a page shows there are',
    expected: 'min(maximum, M) items',
    hint: 'Honour limit up to its maximum: never more items than asked, never fewer than the collection has.',
    mock: 'run',
  }),
  sizeRule('COLLECTION-008', 'other', {
    title:
      'A limit N returns exactly min(N, M) items with meta.count agreeing, for the boundaries and seeded values between the bounds',
    expected: 'min(N, M) items and meta.count agreeing, for every N asked',
    hint: 'Return min(limit, items in the collection) items for every limit within the bounds: there is no pagination, so a shorter page hides items from the client for good.',
    mock: PRISM_IGNORES_LIMIT,
  }),
];

/** Bad `limit` values: never a 5xx; and whether the deployment refuses or clamps them. */
export const badLimitRules: Rule[] = [
  ...badValueRules,
  {
    id: 'LIMITS-009',
    section: '§8',
    title: 'Refusing or clamping bad limits (the spec leaves it open)',
    area: 'limits',
    level: 'advisory',
    mock: 'run',
    decision: 'D-LIMIT',
    expected:
      'project decision: every bad limit refused with a 4xx and an error code the spec documents for that answer',
    hint: 'Both are conformant; the project refuses every bad limit with 400 and the code its spec documents (D-LIMIT).',
    appliesTo: hasLimit,
    plan: (op, world) => BAD_KINDS.flatMap(({ id }) => badLimitProbe(id)(op, world)),
    judge(obs, ctx) {
      const response = obs.exchange.response;
      const op = obs.op;
      if (
        !op ||
        !response ||
        obs.exchange.request.method !== 'GET' ||
        !badLimitAsked(obs) ||
        !byReadingKey(obs)
      )
        return undefined;
      const code = errorOf(response).code;
      const refused =
        isClientError(response.status) &&
        typeof code === 'string' &&
        ctx.spec.codesOf(op, response.status).includes(code);
      const shown =
        response.status === 200 ? `200 (${pageOf(obs)?.length ?? '?'} items)` : answered(response);
      return chose(`${askedText(op, limitAsked(obs))} → ${shown}`, !refused, obs);
    },
  },
];
