/**
 * Bad `limit` values (§8 leaves the answer open): never a 5xx; either the error envelope or a
 * success that keeps 1..200 walks and never more than asked when the value means a number in range.
 */
import { LIMIT } from '../../spec/facts.ts';
import { isObject } from '../../spec/json-value.ts';
import type { ResponseData, Outcome } from '../types.ts';
import type { Check, CheckContext } from './check.ts';
import {
  advisory,
  answersAs,
  describe,
  errorEnvelopeProblem,
  errorOf,
  fail,
  noAnswer,
  pass,
  refusal,
} from './outcome.ts';

/** D-LIMIT: the project refuses every bad limit with this code. */
const BAD_LIMIT_CODE = 'invalid_parameter';

interface BadLimit {
  id: string;
  what: string;
  query: string;
  /** The most walks a success may return when the value can be read as a number in range. */
  atMost: number;
}

export const BAD_LIMITS: BadLimit[] = [
  { id: 'LIMITS-001', what: 'limit=0', query: 'limit=0', atMost: LIMIT.maximum },
  { id: 'LIMITS-002', what: 'limit=-1', query: 'limit=-1', atMost: LIMIT.maximum },
  {
    id: 'LIMITS-003',
    what: `limit=${LIMIT.maximum + 1}`,
    query: `limit=${LIMIT.maximum + 1}`,
    atMost: LIMIT.maximum,
  },
  { id: 'LIMITS-004', what: 'a huge limit', query: 'limit=99999999999999999999', atMost: LIMIT.maximum },
  { id: 'LIMITS-005', what: 'a non-numeric limit', query: 'limit=abc', atMost: LIMIT.maximum },
  { id: 'LIMITS-006', what: 'a fractional limit', query: 'limit=1.5', atMost: 2 },
  { id: 'LIMITS-007', what: 'an empty limit', query: 'limit=', atMost: LIMIT.maximum },
  { id: 'LIMITS-008', what: 'a repeated limit', query: 'limit=1&limit=2', atMost: 2 },
];

async function judgeBadLimit(ctx: CheckContext, bad: BadLimit): Promise<Outcome> {
  const expected = `no 5xx: a 4xx error envelope, or 200 with 1..${bad.atMost} walks`;
  const view = await ctx.data.list(bad.query);
  const missing = noAnswer(expected, view.exchange);
  if (missing || !view.exchange.response) return missing as Outcome;
  const response = view.exchange.response;
  if (response.status >= 400 && response.status < 500) {
    const problem = errorEnvelopeProblem(ctx, response);
    return problem
      ? fail(expected, `${response.status}, ${problem}`, view.exchange)
      : pass(expected, `refused: ${response.status} ${String(errorOf(response).code)}`, view.exchange);
  }
  if (response.status === 200 && view.walks) {
    const known = (await ctx.data.walks())?.length;
    const least = known === 0 ? 0 : 1;
    const n = view.walks.length;
    return n >= least && n <= bad.atMost
      ? pass(expected, `served: 200 with ${n} walks`, view.exchange)
      : fail(expected, `200 with ${n} walks`, view.exchange);
  }
  return fail(expected, `answered ${describe(response)}`, view.exchange);
}

/** The walks a list answer holds, or `?` when its body (null, not JSON, another shape) holds no list. */
const walksIn = (json: unknown) => (isObject(json) && Array.isArray(json.data) ? json.data.length : '?');

const summaryOf = (query: string, response: ResponseData | undefined) =>
  `${query} → ${response ? (response.status === 200 ? `200 (${walksIn(response.json)} walks)` : `${response.status} ${String(errorOf(response).code)}`) : 'no answer'}`;

export const limitsChecks: Check[] = [
  ...BAD_LIMITS.map((bad): Check => ({
    id: bad.id,
    section: '§8',
    title: `${bad.what[0]?.toUpperCase()}${bad.what.slice(1)} never gets a 5xx: a 4xx envelope or a bounded success`,
    area: 'limits',
    level: 'required',
    mock: 'run',
    decision: 'D-LIMIT',
    hint: `Validate limit before using it: refuse with a 4xx error envelope, or clamp into ${LIMIT.minimum}..${LIMIT.maximum}; never fail with a 5xx.`,
    run: (ctx) => judgeBadLimit(ctx, bad),
  })),
  {
    id: 'LIMITS-009',
    section: '§8',
    title: 'Refusing or clamping bad limits (the spec leaves it open)',
    area: 'limits',
    level: 'advisory',
    mock: 'run',
    decision: 'D-LIMIT',
    hint: `Both are conformant; the project refuses with ${refusal(BAD_LIMIT_CODE)}.`,
    async run(ctx) {
      const views = await Promise.all(BAD_LIMITS.map((bad) => ctx.data.list(bad.query)));
      const lines = views.map((v, i) => summaryOf(BAD_LIMITS[i]?.query ?? '', v.exchange.response));
      const differs = views.some(
        (v) => v.exchange.response && !answersAs(v.exchange.response, BAD_LIMIT_CODE),
      );
      return advisory(
        `project decision: ${refusal(BAD_LIMIT_CODE)} for every bad limit`,
        lines.join('; '),
        views[0]?.exchange,
        { differs },
      );
    },
  },
];
