/**
 * The rules `--traffic` judges each recorded answer by, beside the live checks it reuses whole
 * (`TRAFFIC_CHECK_IDS`). A live check that fetches its own data (the stop order, the limit
 * property) cannot run on a recording, so its rule is restated here over one answer: the ids,
 * titles and levels are the live checks' own where the requirement is the same one, and new
 * `TRAFFIC-` ids where only a recording can ask it that way.
 */
import { LIMIT } from '../../spec/facts.ts';
import { checkById } from '../checks/registry.ts';
import type { CheckDeclaration } from '../runner.ts';
import { isObject } from '../shared-fetches.ts';
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
  judge(json: unknown, exchange: Answered, statuses: readonly string[]): string[];
}

/** A live check's declaration, to restate its rule over one recorded answer. */
function declared(id: string): CheckDeclaration {
  const { section, title, area, level, decision, hint } = checkById(id);
  return { id, section, title, area, level, hint, ...(decision ? { decision } : {}) };
}

const isDetail = (operationId: string, status: number) => operationId === 'getWalk' && status === 200;
const isList = (operationId: string, status: number) => operationId === 'listWalks' && status === 200;

/** The stops of a detail answer, when `data.stops` is an array. */
function stopsOf(json: unknown): { walk: string; stops: unknown[] } | undefined {
  const data = isObject(json) ? json.data : undefined;
  if (!isObject(data) || !Array.isArray(data.stops)) return undefined;
  return { walk: `walk ${String(data.id)}`, stops: data.stops };
}

const positionsOf = (stops: unknown[]) => stops.map((s) => (isObject(s) ? s.position : undefined));

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
export function limitBound(url: string): { bound: number; asked: string } {
  const values = new URL(url).searchParams.getAll(LIMIT.name);
  if (values.length === 0)
    return { bound: LIMIT.default, asked: `no ${LIMIT.name} (default ${LIMIT.default})` };
  const [only] = values;
  const n = values.length === 1 && /^\d+$/.test(only ?? '') ? Number(only) : NaN;
  if (n >= LIMIT.minimum && n <= LIMIT.maximum) return { bound: n, asked: `${LIMIT.name}=${n}` };
  return {
    bound: LIMIT.maximum,
    asked: `${values.map((v) => `${LIMIT.name}=${v}`).join('&')} (at most ${LIMIT.maximum})`,
  };
}

export const EXCHANGE_RULES: readonly ExchangeRule[] = [
  {
    ...declared('WALK-DETAIL-003'),
    expected: 'stops ordered by ascending position',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json) {
      const detail = stopsOf(json);
      if (!detail) return [];
      const positions = positionsOf(detail.stops);
      const at = positions.findIndex((p, i) => i > 0 && !((p as number) > (positions[i - 1] as number)));
      return at > 0
        ? [`${detail.walk}: position ${String(positions[at])} follows ${String(positions[at - 1])}`]
        : [];
    },
  },
  {
    ...declared('WALK-DETAIL-004'),
    expected: 'positions 1..n, each once',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json) {
      const detail = stopsOf(json);
      if (!detail) return [];
      const sorted = positionsOf(detail.stops).sort((a, b) => Number(a) - Number(b));
      const at = sorted.findIndex((p, i) => p !== i + 1);
      return at >= 0
        ? [`${detail.walk}: expected position ${at + 1}, found ${JSON.stringify(sorted[at])}`]
        : [];
    },
  },
  {
    ...declared('WALK-DETAIL-005'),
    expected: 'every stop status one of §2.4',
    unit: 'walk details',
    appliesTo: isDetail,
    judge(json, _exchange, statuses) {
      const detail = stopsOf(json);
      if (!detail) return [];
      return detail.stops
        .filter((s) => !isObject(s) || !statuses.includes(s.status as string))
        .slice(0, 2)
        .map((s) => `${detail.walk}: status ${JSON.stringify(isObject(s) ? s.status : s)}`);
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
