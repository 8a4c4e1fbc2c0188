/**
 * Isolation between campaigns (§5.1, §4.3 rule 1), on every record both ways: another campaign's
 * key sees none of this campaign's walks, this key sees none of theirs, and neither can tell such a
 * walk from an id that does not exist.
 */
import type { Exchange, Judged, Outcome } from '../types.ts';
import type { SampledWalk } from '../shared-fetches.ts';
import { isObject } from '../../spec/json-value.ts';
import { OTHER, PRIMARY } from '../key-uses.ts';
import type { Check, CheckContext } from './check.ts';
import {
  answersAs,
  counted,
  describe,
  errorEnvelopeProblem,
  expectedRefusal,
  errorOf,
  fail,
  inconclusive,
  noAnswer,
  refusal,
  verdict,
} from './outcome.ts';

const MOCK_CAMPAIGNS = { skip: 'the mock has no campaigns: every key sees the same examples' };
const NEEDS: Check['needs'] = [OTHER.key];

/** What a walk of another campaign gets: exactly what an unknown walk gets (§4.3 rule 1). */
const NOT_FOUND = 'not_found';
const EXPECTED_EACH = `${expectedRefusal(NOT_FOUND)} for each walk`;

/** Why an answer is not the `not_found` refusal in the error envelope, or undefined when it is. */
function notFoundProblem(ctx: CheckContext, exchange: Exchange): string | undefined {
  const response = exchange.response;
  if (!response) return `no usable answer: ${exchange.error?.message ?? 'no answer'}`;
  const ok = answersAs(response, NOT_FOUND) && !errorEnvelopeProblem(ctx, response);
  return ok ? undefined : `answered ${describe(response)}`;
}

/** Every cross-campaign fetch must be the `not_found` refusal; the failure names each walk. */
function allNotFound(ctx: CheckContext, expected: string, fetched: SampledWalk[], of: number): Outcome {
  const failing = fetched.flatMap(({ summary, view }) => {
    const problem = notFoundProblem(ctx, view.exchange);
    return problem ? [{ problem: `walk ${summary.id}: ${problem}`, exchange: view.exchange }] : [];
  });
  if (failing.length > 0 && failing.every((f) => f.exchange.error?.kind === 'budget')) {
    return inconclusive(expected, 'the request budget ran out before these fetches', failing[0]?.exchange);
  }
  const judged: Judged = { requests: fetched.length, records: fetched.length, unit: 'walks' };
  if (fetched.length < of) judged.of = of;
  return counted(
    verdict(
      expected,
      failing.map((f) => f.problem),
      `${fetched.length} walks: ${refusal(NOT_FOUND)}`,
      failing[0]?.exchange ?? fetched[0]?.view.exchange,
    ),
    judged,
  );
}

/** Headers whose presence or value would tell a walk of another campaign from an unknown id. */
const TELLING_HEADERS = ['content-type', 'cache-control', 'vary', 'www-authenticate', 'content-encoding'];

/** The paths of a JSON value's keys (`error.code`, ...): its shape, without the values. */
function shapeOf(value: unknown, at = ''): string[] {
  if (!isObject(value)) return [`${at}:${Array.isArray(value) ? 'array' : typeof value}`];
  return Object.keys(value)
    .sort()
    .flatMap((key) => shapeOf(value[key], at ? `${at}.${key}` : key));
}

/**
 * What a refusal shows a prober: status, code, message, body shape and the headers that matter. A
 * message may echo the id it was asked about, which tells nothing, so that id is masked.
 */
function shownAnswer(exchange: Exchange): string {
  const response = exchange.response;
  if (!response) return `no answer: ${exchange.error?.message ?? ''}`;
  const { code, message } = errorOf(response);
  const id = decodeURIComponent(exchange.request.url.split('/').pop() ?? '');
  const masked = typeof message === 'string' && id ? message.replaceAll(id, '<id>') : message;
  const headers = TELLING_HEADERS.map((h) => `${h}=${response.headers[h] ?? '-'}`).join(' ');
  return `${response.status} ${JSON.stringify(code)} ${JSON.stringify(masked)} {${shapeOf(response.json).join(',')}} ${headers}`;
}

/** The fetches whose answer a prober could tell from the unknown id's answer with the same key. */
function distinguishable(fetched: SampledWalk[], baseline: Exchange): string[] {
  const expected = shownAnswer(baseline);
  return fetched
    .filter(({ view }) => shownAnswer(view.exchange) !== expected)
    .map(
      ({ summary, view }) =>
        `walk ${summary.id} (${view.exchange.request.keys.join(', ')}): ${shownAnswer(view.exchange)}; unknown id: ${expected}`,
    );
}

const idsOf = (walks: unknown[] | undefined) =>
  new Set((walks ?? []).map((w) => (isObject(w) ? w.id : undefined)));

export const isolationChecks: Check[] = [
  {
    id: 'ISOLATION-001',
    section: '§5.1, §4.2',
    title: "The other campaign's key lists none of this campaign's walks",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Scope every query to the key’s campaign.',
    async run(ctx) {
      const expected = "200 with the other campaign's walks only";
      const mine = idsOf((await ctx.data.list200()).walks);
      const other = await ctx.data.otherList200();
      const missing = noAnswer(expected, other.exchange);
      if (missing) return missing;
      if (!other.walks)
        return fail(
          expected,
          `the other key's list answered ${describe(other.exchange.response)}`,
          other.exchange,
        );
      if (mine.size === 0)
        return inconclusive(expected, 'this campaign listed no walks to look for', other.exchange);
      const leaked = [...idsOf(other.walks)].filter((id) => mine.has(id));
      return counted(
        verdict(
          expected,
          leaked.map((id) => `walk ${String(id)} of this campaign is listed`),
          `${other.walks.length} walks, none of this campaign`,
          other.exchange,
        ),
        { requests: 2, records: mine.size, unit: 'walks' },
      );
    },
  },
  {
    id: 'ISOLATION-002',
    section: '§4.3 rule 1',
    title: `Every walk of this campaign fetched with the other campaign's key gets ${refusal(NOT_FOUND)}`,
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Look walks up within the key’s campaign only; another campaign’s walk is not found.',
    async run(ctx) {
      const expected = EXPECTED_EACH;
      const fetched = await ctx.data.crossDetails();
      if (fetched.length === 0) return inconclusive(expected, 'this campaign listed no walk to try');
      return allNotFound(ctx, expected, fetched, (await ctx.data.primarySweep()).of);
    },
  },
  {
    id: 'ISOLATION-003',
    section: '§4.3 rule 1',
    title:
      "Those 404s, both ways, are indistinguishable from an unknown id's (status, code, message, body shape, headers)",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Answer another campaign’s walk exactly as a walk that does not exist: same status, code, message, body and headers.',
    async run(ctx) {
      const expected = 'the same answer as for a random unknown id asked with the same key';
      const [mine, theirs, unknownToOther, unknownToUs] = await Promise.all([
        ctx.data.crossDetails(),
        ctx.data.reverseCrossDetails(),
        ctx.data.detail(ctx.data.unknownId, OTHER),
        ctx.data.detail(ctx.data.unknownId, PRIMARY),
      ]);
      if (mine.length + theirs.length === 0)
        return inconclusive(expected, 'neither campaign listed a walk to try');
      for (const baseline of [unknownToOther, unknownToUs]) {
        if (!baseline.exchange.response) return noAnswer(expected, baseline.exchange) as Outcome;
      }
      const problems = [
        ...distinguishable(mine, unknownToOther.exchange),
        ...distinguishable(theirs, unknownToUs.exchange),
      ];
      const evidence = [...mine, ...theirs].find(({ summary }) =>
        problems.some((p) => p.startsWith(`walk ${summary.id} `)),
      );
      return counted(
        verdict(
          expected,
          problems,
          `${mine.length + theirs.length} walks answered like an unknown id`,
          (evidence ?? mine[0] ?? theirs[0])?.view.exchange,
        ),
        { requests: mine.length + theirs.length + 2, records: mine.length + theirs.length, unit: 'walks' },
      );
    },
  },
  {
    id: 'ISOLATION-004',
    section: '§4.3 rule 1',
    title: `Every walk the other campaign lists, fetched with this key, gets ${refusal(NOT_FOUND)}`,
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Look walks up within the key’s campaign only.',
    async run(ctx) {
      const expected = EXPECTED_EACH;
      const sweep = await ctx.data.otherSweep();
      const fetched = await ctx.data.reverseCrossDetails();
      if (fetched.length === 0) {
        const other = await ctx.data.otherList200();
        return inconclusive(expected, "the other campaign's key listed no walk to try", other.exchange);
      }
      return allNotFound(ctx, expected, fetched, sweep.of);
    },
  },
];
