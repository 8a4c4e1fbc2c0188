/**
 * The rules `--traffic` judges each recorded answer by, beside the live checks it reuses whole
 * (`TRAFFIC_CHECK_IDS`). A live check that fetches its own data (the stop order, the limit
 * property) cannot run on a recording, so its rule is restated here over one answer: the ids,
 * titles and levels are the live checks' own where the requirement is the same one, and new
 * `TRAFFIC-` ids where only a recording can ask it that way.
 */
import type { Operation } from '../../spec/contract.ts';
import { LIMIT, statusOfError } from '../../spec/facts.ts';
import { expectedRefusal, refusal } from '../checks/outcome.ts';
import type { WalkSummary } from '../../spec/types.ts';
import { numberingProblem, orderProblem, statusProblems, stopIdProblems } from '../checks/walk-detail.ts';
import { linkSpread, linksOf } from '../checks/walks-list.ts';
import { checkById } from '../checks/registry.ts';
import type { CheckDeclaration } from '../runner.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Exchange, ResponseData } from '../types.ts';

/**
 * The live checks that judge every answer of a run one by one and need nothing but the answers:
 * `--traffic` runs them on each recorded exchange as it is read.
 */
export const TRAFFIC_CHECK_IDS = [
  'ENVELOPE-001',
  'ENVELOPE-002',
  'ENVELOPE-003',
  'ENVELOPE-004',
  'ENVELOPE-005',
  'ENVELOPE-011',
  'WALKS-LIST-015',
] as const;

/** The DRIFT checks, judged from the same analysis as the report's drift section. */
export const TRAFFIC_DRIFT_IDS = ['DRIFT-001', 'DRIFT-002', 'DRIFT-003'] as const;

export type Answered = Exchange & { response: ResponseData };

export interface ExchangeRule extends CheckDeclaration {
  expected: string;
  /** What one judged record is, plural (`walk details`). */
  unit: string;
  /** Whether the rule applies to answers of this operation with this status. */
  appliesTo(operationId: string, status: number): boolean;
  /** The problems of one answer's body (empty when it holds), each naming the walk. */
  judge(json: unknown, exchange: Answered, statuses: readonly string[], operation: Operation): string[];
}

/** A live check's declaration, to restate its rule over one recorded answer. */
function declared(id: string): CheckDeclaration {
  const { section, title, area, level, decision, hint } = checkById(id);
  return { id, section, title, area, level, hint, ...(decision ? { decision } : {}) };
}

/** The codes the written spec pairs with a status (§7's table): forbidden (403), not_found (404). */
const WRITTEN_CODES: readonly string[] = ['forbidden', 'not_found'];

const isDetail = (operationId: string, status: number) => operationId === 'getWalk' && status === 200;
const isList = (operationId: string, status: number) => operationId === 'listWalks' && status === 200;

/** The stops of a detail answer, when `data.stops` is an array. */
function stopsOf(json: unknown): { walk: string; stops: unknown[] } | undefined {
  const data = isObject(json) ? json.data : undefined;
  if (!isObject(data) || !Array.isArray(data.stops)) return undefined;
  return { walk: `walk ${String(data.id)}`, stops: data.stops };
}

/** The walks of a list answer, when `data` is an array. */
function walksOf(json: unknown): unknown[] | undefined {
  const data = isObject(json) ? json.data : undefined;
  return Array.isArray(data) ? data : undefined;
}

/**
 * The most walks a list may hold for the limit it was asked: the limit when it is one integer in
 * range, the default without one, and the maximum of §8 whatever else was sent (§8 leaves the
 * answer to a bad limit open, but never more than the maximum).
 */
export function limitBound(url: string): { bound: number; asked: string; valid: boolean } {
  const values = new URL(url).searchParams.getAll(LIMIT.name);
  if (values.length === 0)
    return { bound: LIMIT.default, asked: `no ${LIMIT.name} (default ${LIMIT.default})`, valid: true };
  const [only] = values;
  const n = values.length === 1 && /^\d+$/.test(only ?? '') ? Number(only) : NaN;
  if (n >= LIMIT.minimum && n <= LIMIT.maximum) return { bound: n, asked: `${LIMIT.name}=${n}`, valid: true };
  return {
    bound: LIMIT.maximum,
    asked: `${values.map((v) => `${LIMIT.name}=${v}`).join('&')} (at most ${LIMIT.maximum})`,
    valid: false,
  };
}

const linksSeen = new WeakMap<object, ReturnType<typeof linksOf>>();

/** The links of a list answer's walks, taken apart once for every rule that reads them. */
export function linksOfAnswer(json: unknown): ReturnType<typeof linksOf> {
  if (!isObject(json)) return { links: [], problems: [] };
  const known = linksSeen.get(json);
  if (known) return known;
  const links = linksOf((walksOf(json) ?? []) as WalkSummary[]);
  linksSeen.set(json, links);
  return links;
}

/** Methods that only read: every other one is a write, which a read-only API refuses (§1, §4). */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** TRAFFIC-008, judged on every answer of the API, documented path or not. */
export const WRITES_REFUSED: CheckDeclaration = {
  id: 'TRAFFIC-008',
  section: '§1, §4',
  title: 'Every write (POST, PUT, PATCH, DELETE...) is refused with a 4xx: the API is read-only',
  area: 'methods',
  level: 'required',
  hint: 'Refuse every method but GET and HEAD with a 4xx error envelope (the project answers 405 with Allow: GET, HEAD).',
};

/** Why a recorded write was not refused, or undefined. */
export function writeProblem(exchange: Answered): string | undefined {
  if (READ_METHODS.has(exchange.request.method)) return undefined;
  const { status } = exchange.response;
  return status >= 400 && status <= 499 ? undefined : `${exchange.request.method} answered ${status}`;
}

/** Every rule over one answer, in report order. */
export const EXCHANGE_RULES: readonly ExchangeRule[] = [
  {
    id: 'TRAFFIC-005',
    section: '§5.6, §4.3 rule 1, §7',
    title: `${WRITTEN_CODES.map(refusal).join(' and ')}: each of these statuses with its code, each code with its status`,
    area: 'not-found',
    level: 'required',
    hint: `Answer ${WRITTEN_CODES.map(refusal).join(' and ')} exactly as §7 pairs them: a missing scope is ${refusal('forbidden')}, an unknown walk ${refusal('not_found')}.`,
    expected: WRITTEN_CODES.map(expectedRefusal).join('; '),
    unit: 'error answers',
    appliesTo: (_operationId, status) => status >= 400,
    judge(json, exchange) {
      const { status } = exchange.response;
      const code = isObject(json) && isObject(json.error) ? json.error.code : undefined;
      const pairedCode = WRITTEN_CODES.find((c) => statusOfError(c) === status);
      if (pairedCode !== undefined && code !== pairedCode)
        return [`${status} with error.code ${JSON.stringify(code)}, not "${pairedCode}"`];
      if (typeof code === 'string' && WRITTEN_CODES.includes(code) && statusOfError(code) !== status)
        return [`error.code "${code}" with status ${status}, not ${statusOfError(code)}`];
      return [];
    },
  },
  {
    ...declared('WALKS-LIST-005'),
    expected: 'no walk id twice in one answer',
    unit: 'list answers',
    appliesTo: isList,
    judge(json) {
      const seen = new Set<unknown>();
      return (walksOf(json) ?? []).flatMap((walk) => {
        const id = isObject(walk) ? walk.id : undefined;
        const twice = seen.has(id);
        seen.add(id);
        return twice ? [`walk ${String(id)} appears twice`] : [];
      });
    },
  },
  {
    ...declared('WALKS-LIST-008'),
    expected:
      'web_url …/dashboard/<slug>/walks/<id> and app_link …/open/<slug>/walks/<id>, same base and slug',
    unit: 'list answers',
    appliesTo: isList,
    judge: (json) => linksOfAnswer(json).problems,
  },
  {
    ...declared('WALKS-LIST-009'),
    expected: 'one {web_base_url} and one <campaign_slug> across the walks of one answer',
    unit: 'list answers',
    appliesTo: isList,
    judge: (json) => linkSpread(linksOfAnswer(json).links).problems,
  },
  {
    ...declared('WALK-DETAIL-003'),
    expected: 'stops ordered by ascending position',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json) {
      const detail = stopsOf(json);
      const problem = detail && orderProblem(detail.stops);
      return problem ? [`${detail.walk}: ${problem}`] : [];
    },
  },
  {
    ...declared('WALK-DETAIL-004'),
    expected: 'positions 1..n, each once',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json) {
      const detail = stopsOf(json);
      const problem = detail && numberingProblem(detail.stops);
      return problem ? [`${detail.walk}: ${problem}`] : [];
    },
  },
  {
    ...declared('WALK-DETAIL-005'),
    expected: 'every stop status one of §2.4',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json, _exchange, statuses) {
      const detail = stopsOf(json);
      return detail ? statusProblems(detail.stops, new Set(statuses)).map((p) => `${detail.walk}: ${p}`) : [];
    },
  },
  {
    ...declared('WALK-DETAIL-006'),
    expected: 'unique non-empty string stop ids',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json) {
      const detail = stopsOf(json);
      return detail ? stopIdProblems(detail.stops).map((p) => `${detail.walk}: ${p}`) : [];
    },
  },
  {
    id: 'TRAFFIC-001',
    section: '§4.2, §8',
    title: `A list holds no more walks than its limit asked for (${LIMIT.default} without one, never more than ${LIMIT.maximum})`,
    area: 'walks-list',
    level: 'required',
    hint: `Return at most limit walks (${LIMIT.default} when the request names no limit), and never more than ${LIMIT.maximum}.`,
    expected: `at most the limit asked for: ${LIMIT.default} without one, ${LIMIT.maximum} at most`,
    unit: 'list answers',
    appliesTo: isList,
    judge(json, exchange) {
      const walks = walksOf(json);
      if (!walks) return [];
      const { bound, asked } = limitBound(exchange.request.url);
      return walks.length > bound ? [`${asked}: ${walks.length} walks`] : [];
    },
  },
  {
    id: 'TRAFFIC-002',
    section: '§2.1, §2.4',
    title: "A walk summary's counts add up to its count",
    area: 'walks-list',
    level: 'required',
    hint: 'Every stop has exactly one status: count the stops per status, and count all of them.',
    expected: 'the counts of every summary sum to its count',
    unit: 'list answers',
    appliesTo: isList,
    judge(json) {
      return (walksOf(json) ?? []).flatMap((walk) => {
        if (!isObject(walk) || !isObject(walk.counts) || typeof walk.count !== 'number') return [];
        const values = Object.values(walk.counts);
        if (!values.every((v) => typeof v === 'number')) return [];
        const sum = (values as number[]).reduce((a, b) => a + b, 0);
        return sum === walk.count
          ? []
          : [`walk ${String(walk.id)}: counts sum to ${sum}, count is ${walk.count}`];
      });
    },
  },
];
