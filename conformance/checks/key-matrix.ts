/**
 * The key matrix (§5.2: every key travels in either header): each key role × both headers × both
 * live endpoints, each cell judged by the written rule for its role, so a second, weaker auth path
 * behind one header shows; and the near misses of the primary key (`../near-miss.ts`), each refused,
 * so a deployment that compares only part of a key shows.
 */
import { walkPath, WALKS_PATH, WALKS_READ_SCOPE } from '../../spec/facts.ts';
import type { Exchange } from '../types.ts';
import { EMPTY_CAMPAIGN, NO_SCOPE, OTHER, PRIMARY, REVOKED } from '../key-uses.ts';
import { NEAR_MISSES, nearMissLabel, nearMissOf } from '../near-miss.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Asking } from '../target.ts';
import type { KeyName, Outcome, Via } from '../types.ts';
import { overCap } from '../types.ts';
import { canonical, dataOf, MALFORMED, MOCK_KEYS, realWalkIds, refusedEverywhere } from './auth.ts';
import type { Check, CheckContext } from './check.ts';
import {
  answersAs,
  counted,
  describe,
  errorEnvelopeProblem,
  noAnswer,
  refusal,
  refusedWithEnvelope,
  verdict,
} from './outcome.ts';

type Endpoint = 'list' | 'detail';
const VIAS: readonly Via[] = ['bearer', 'x-api-key'];
const HEADER: Record<Via, string> = { bearer: 'Authorization: Bearer', 'x-api-key': 'x-api-key' };

/** What a cell's judge is given: the answer, which endpoint, and this campaign's listed walk ids. */
interface Cell {
  exchange: Exchange;
  endpoint: Endpoint;
  mine: ReadonlySet<unknown>;
}

/** A key role: how it is sent in a header (none: one cell per endpoint), and its written rule. */
interface Role {
  name: string;
  key?: KeyName;
  asking(via: Via): Asking;
  headerless?: true;
  /** Why the cell breaks the role's rule, or undefined when it holds. */
  problem(ctx: CheckContext, cell: Cell): string | undefined;
}

const bodyOf = (exchange: Exchange) =>
  exchange.response?.json as { ok?: unknown; data?: unknown; meta?: { count?: unknown } } | undefined;

/** 200 in the success envelope, a list or one walk. */
function served({ exchange, endpoint }: Cell): string | undefined {
  const body = bodyOf(exchange);
  const ok =
    exchange.response?.status === 200 &&
    body?.ok === true &&
    (endpoint === 'list' ? Array.isArray(body.data) : isObject(body.data));
  return ok ? undefined : `answered ${describe(exchange.response)}`;
}

function refusedAs(ctx: CheckContext, { exchange }: Cell, code: string): string | undefined {
  const response = exchange.response;
  if (response && answersAs(response, code) && !errorEnvelopeProblem(ctx, response)) return undefined;
  return `answered ${describe(response)}, not ${refusal(code)}`;
}

function refusedAny(ctx: CheckContext, { exchange }: Cell): string | undefined {
  const outcome = refusedWithEnvelope(ctx, exchange, 'refused');
  return outcome.status === 'pass' ? undefined : outcome.actual;
}

/** Another campaign's key: its own list, none of this campaign's walks; this campaign's walk is not found. */
function otherCampaign(ctx: CheckContext, cell: Cell): string | undefined {
  if (cell.endpoint === 'detail') return refusedAs(ctx, cell, 'not_found');
  const problem = served(cell);
  if (problem) return problem;
  const data = bodyOf(cell.exchange)?.data as unknown[];
  const leaked = data.filter((w) => isObject(w) && cell.mine.has(w.id)).length;
  return leaked > 0 ? `lists ${leaked} walks of this campaign` : undefined;
}

/** A campaign without walks: an empty list (§4.2 rule 1); this campaign's walk is not found. */
function emptyCampaign(ctx: CheckContext, cell: Cell): string | undefined {
  if (cell.endpoint === 'detail') return refusedAs(ctx, cell, 'not_found');
  const body = bodyOf(cell.exchange);
  const empty =
    served(cell) === undefined && (body?.data as unknown[]).length === 0 && body?.meta?.count === 0;
  return empty ? undefined : `answered ${describe(cell.exchange.response)}, not an empty list`;
}

const keyed =
  (use: { key: KeyName }) =>
  (via: Via): Asking => ({ auth: { key: use.key, via } });

/** Every role of the matrix, in report order. */
const ROLES: readonly Role[] = [
  { name: 'primary', key: PRIMARY.key, asking: keyed(PRIMARY), problem: (_ctx, cell) => served(cell) },
  {
    name: `no ${WALKS_READ_SCOPE}`,
    key: NO_SCOPE.key,
    asking: keyed(NO_SCOPE),
    problem: (ctx, cell) => refusedAs(ctx, cell, 'forbidden'),
  },
  { name: 'other campaign', key: OTHER.key, asking: keyed(OTHER), problem: otherCampaign },
  { name: 'revoked', key: REVOKED.key, asking: keyed(REVOKED), problem: refusedAny },
  { name: 'empty campaign', key: EMPTY_CAMPAIGN.key, asking: keyed(EMPTY_CAMPAIGN), problem: emptyCampaign },
  { name: 'unknown', asking: (via) => ({ madeUpKey: via }), problem: refusedAny },
  {
    name: 'malformed',
    asking: (via) => ({ headers: MALFORMED[via === 'bearer' ? 1 : 2] as Record<string, string> }),
    problem: refusedAny,
  },
  { name: 'no key', asking: () => ({}), headerless: true, problem: refusedAny },
];

/** Both endpoints, or the list alone when this campaign lists no walk to ask for. */
const endpointsFor = (detailId: string | undefined): Endpoint[] => (detailId ? ['list', 'detail'] : ['list']);

interface Judged {
  role: string;
  via: Via | undefined;
  endpoint: Endpoint;
  label: string;
  exchange: Exchange;
  problem?: string;
  /** Larger than --max-response-bytes: not judged. */
  cut?: true;
}

/** Every cell of the roles whose key is configured, asked concurrently (the client bounds it). */
async function matrix(
  ctx: CheckContext,
  detailId: string | undefined,
  mine: ReadonlySet<unknown>,
): Promise<Judged[]> {
  const roles = ROLES.filter((role) => !role.key || ctx.config.keys[role.key]);
  const cells = roles.flatMap((role) =>
    (role.headerless ? [undefined] : VIAS).flatMap((via) =>
      endpointsFor(detailId).map((endpoint) => ({ role, via, endpoint })),
    ),
  );
  return Promise.all(
    cells.map(async ({ role, via, endpoint }) => {
      const path = endpoint === 'list' ? WALKS_PATH : walkPath(detailId as string);
      const exchange = await ctx.client.send({ ...role.asking(via ?? 'bearer'), path });
      const label = `${role.name} × ${via ? HEADER[via] : 'no header'} × ${endpoint}`;
      const cell: Judged = { role: role.name, via, endpoint, label, exchange };
      if (overCap(exchange.error)) return { ...cell, cut: true };
      const missing = exchange.response ? undefined : `no answer: ${exchange.error?.message ?? ''}`;
      const problem = missing ?? role.problem(ctx, { exchange, endpoint, mine });
      return problem ? { ...cell, problem } : cell;
    }),
  );
}

/**
 * A role gets the same outcome whichever header carries it: where both headers got data for the
 * same role and endpoint, it is the same data (a header resolving a key to another campaign shows).
 */
function headerMismatches(cells: Judged[]): string[] {
  const served = new Map<string, Judged[]>();
  for (const cell of cells) {
    if (cell.problem || cell.exchange.response?.status !== 200 || !cell.via) continue;
    const group = `${cell.role} × ${cell.endpoint}`;
    served.set(group, [...(served.get(group) ?? []), cell]);
  }
  return [...served].flatMap(([group, pair]) => {
    const [a, b] = pair;
    if (!a || !b || canonical(dataOf(a.exchange)) === canonical(dataOf(b.exchange))) return [];
    return [`${group}: ${HEADER.bearer} and ${HEADER['x-api-key']} give different data`];
  });
}

/** What each cell answered, for the details of a passing run (status and code only). */
function answerOf(exchange: Exchange): string {
  const response = exchange.response;
  if (!response) return 'no answer';
  const code = (bodyOf(exchange) as { error?: { code?: unknown } } | undefined)?.error?.code;
  return `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
}

const unset = (ctx: CheckContext) => ROLES.filter((r) => r.key && !ctx.config.keys[r.key]).map((r) => r.key);

export const keyMatrixChecks: Check[] = [
  {
    id: 'AUTH-013',
    section: '§5.2, §5.5, §5.6, §5.8, §4.2 rule 1, §4.3 rule 1',
    title: 'Every key role gets its answer in either header, on both endpoints (the key matrix)',
    area: 'auth',
    level: 'required',
    mock: MOCK_KEYS,
    hint: 'Read both headers through one code path: each key gets the same answer in Authorization: Bearer and in x-api-key (no scope: 403 forbidden; another campaign’s walk: 404 not_found; revoked, unknown, malformed or missing: a 4xx envelope).',
    async run(ctx) {
      const expected = 'each role’s written rule, in both headers, on the list and on a walk';
      const detailId = (await ctx.data.sample())[0]?.id;
      const list = await ctx.data.list200();
      const mine = new Set((list.walks ?? []).map((w) => (isObject(w) ? w.id : undefined)));
      const asked = await matrix(ctx, detailId, mine);
      const cells = asked.filter((c) => !c.cut);
      if (cells.length === 0) return noAnswer(expected, (asked[0] as Judged).exchange) as Outcome;
      const failing = cells.filter((c) => c.problem);
      const skipped = unset(ctx);
      const notes = [
        ...(skipped.length ? [`not configured: ${skipped.join(', ')}`] : []),
        ...(detailId ? [] : ['no walk listed, so the list only']),
        ...(cells.length < asked.length
          ? [`${asked.length - cells.length} larger than --max-response-bytes, not judged`]
          : []),
      ];
      const passed = `${cells.length} cells hold${notes.length ? ` (${notes.join('; ')})` : ''}`;
      const problems = [...failing.map((c) => `${c.label}: ${c.problem}`), ...headerMismatches(cells)];
      const outcome = verdict(expected, problems, passed, (failing[0] ?? cells[0])?.exchange);
      const details = problems.length
        ? outcome.details
        : cells.map((c) => `${c.label}: ${answerOf(c.exchange)}`);
      return counted(
        { ...outcome, ...(details ? { details } : {}) },
        { requests: cells.length, records: cells.length, unit: 'requests' },
      );
    },
  },
  {
    id: 'AUTH-014',
    section: '§5.3, §5.8',
    title:
      'Near misses of the key (one character changed, dropped or added, case flipped, the bare prefix) are refused',
    area: 'auth',
    level: 'required',
    mock: MOCK_KEYS,
    hint: 'Compare the whole key, exactly (hash all of it, case-sensitively): a key one edit away from a real one is an unknown key.',
    async run(ctx): Promise<Outcome> {
      const [detailId] = await realWalkIds(ctx);
      const primary = ctx.config.keys[PRIMARY.key] ?? '';
      const misses = NEAR_MISSES.filter((miss) => nearMissOf(primary, miss) !== undefined);
      // Each near miss on both endpoints, in a different header on each: every header sees every edit.
      const exchanges = await Promise.all(
        misses.flatMap((nearMiss, i) =>
          (['list', 'detail'] as const).map((endpoint, j) =>
            ctx.client.send({
              path: endpoint === 'list' ? WALKS_PATH : walkPath(detailId as string),
              auth: { ...PRIMARY, via: VIAS[(i + j) % 2] as Via, nearMiss },
            }),
          ),
        ),
      );
      const outcome = refusedEverywhere(ctx, exchanges, (exchange) => {
        const sent = exchange.request.nearMisses?.[0];
        const header = 'Authorization' in exchange.request.headers ? 'Authorization' : 'x-api-key';
        return `${sent ? nearMissLabel(sent.key, sent.nearMiss) : 'a near miss'} in ${header}`;
      });
      return outcome.status === 'pass'
        ? { ...outcome, actual: `${misses.length} near misses, each in both headers, refused` }
        : outcome;
    },
  },
];
