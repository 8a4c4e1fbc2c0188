/**
 * Authentication (§5): both headers work alike; unusable credentials are refused (the status and code
 * are the deployment's choice, reported as advisory); a key without the walks scope gets 403 forbidden.
 */
import type { Exchange, RequestSpec, Outcome } from '../types.ts';
import { KEY_PREFIX, statusOfError, walkPath, WALKS_PATH, WALKS_READ_SCOPE } from '../../spec/facts.ts';
import { isObject } from '../../spec/json-value.ts';
import { NO_SCOPE, OTHER, PRIMARY, PRIMARY_X_API_KEY, REVOKED } from '../key-uses.ts';
import type { Check, CheckContext } from './check.ts';
import {
  advisory,
  answersAs,
  counted,
  describe,
  errorEnvelopeProblem,
  expectedRefusal,
  errorOf,
  fail,
  inconclusive,
  noAnswer,
  pass,
  refusal,
  refusedWithEnvelope,
  reportChoice,
  verdict,
} from './outcome.ts';

/** The project's answer to every unusable key (D-AUTH-*), and to two different keys (D-AUTH-BOTH). */
const UNUSABLE_KEY = 'unauthorized';
const TWO_KEYS = 'conflicting_credentials';
const NO_SCOPE_CODE = 'forbidden';

export const MOCK_KEYS = { skip: 'the mock only checks that a key is present; it cannot tell keys apart' };

/**
 * Walk ids that exist, so refusals are tested on real data: the first listed walk, the first with
 * stops and the last (an unknown id when the campaign lists none).
 */
export async function realWalkIds(ctx: CheckContext): Promise<string[]> {
  const walks = await ctx.data.sample();
  const picks = [walks[0], walks.find((w) => typeof w.count === 'number' && w.count > 0), walks.at(-1)];
  const ids = [...new Set(picks.filter((w) => w !== undefined).map((w) => w.id))];
  return ids.length > 0 ? ids : [ctx.data.unknownId];
}

/** The list and the detail endpoint (on more than one walk), asked with the same credentials. */
async function bothEndpoints(ctx: CheckContext, spec: Omit<RequestSpec, 'path'>): Promise<Exchange[]> {
  const ids = await realWalkIds(ctx);
  return Promise.all([
    ctx.client.send({ ...spec, path: WALKS_PATH }),
    ...ids.map((id) => ctx.client.send({ ...spec, path: walkPath(id) })),
  ]);
}

/** The first failing outcome, else the first inconclusive, else the first. */
function worst(outcomes: Outcome[]): Outcome {
  return (
    outcomes.find((o) => o.status === 'fail') ??
    outcomes.find((o) => o.status === 'inconclusive') ??
    (outcomes[0] as Outcome)
  );
}

/** Refused, with no data, on the list and on every walk tried; the coverage counts each request. */
async function refusedOnBoth(
  ctx: CheckContext,
  spec: Omit<RequestSpec, 'path'>,
  what: string,
): Promise<Outcome> {
  return refusedEverywhere(ctx, await bothEndpoints(ctx, spec), what);
}

/** Refused, with no data, on every exchange; `what` names each request's credentials in the failure. */
export function refusedEverywhere(
  ctx: CheckContext,
  exchanges: Exchange[],
  what: string | ((exchange: Exchange) => string),
): Outcome {
  const outcomes = exchanges.map((exchange) =>
    refusedWithEnvelope(
      ctx,
      exchange,
      `${typeof what === 'string' ? what : what(exchange)} (${exchange.request.url})`,
    ),
  );
  const failing = outcomes.filter((o) => o.status === 'fail');
  const chosen = worst(outcomes);
  const judged = { requests: exchanges.length, records: exchanges.length, unit: 'requests' };
  if (failing.length <= 1) return counted(chosen, judged);
  return counted(
    {
      ...chosen,
      details: failing.map((o) => o.actual),
      actual: `${chosen.actual} (and ${failing.length - 1} more)`,
    },
    judged,
  );
}

/** Canonical JSON: object keys sorted, list items ordered by id, so equal data compares equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return `[${value.every((v) => isObject(v) && typeof v.id === 'string') ? items.sort().join(',') : items.join(',')}]`;
  }
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export const dataOf = (exchange: Exchange) =>
  (exchange.response?.json as { data?: unknown } | undefined)?.data;

export const authChecks: Check[] = [
  {
    id: 'AUTH-001',
    section: '§5.2',
    title: 'The key is accepted in Authorization: Bearer',
    area: 'auth',
    level: 'required',
    mock: 'run',
    hint: 'Accept Authorization: Bearer <API_KEY> (the scheme name case-insensitively).',
    async run(ctx) {
      const expected = `Authorization: Bearer $${PRIMARY.key} gets 200 on both endpoints`;
      const exchanges = await bothEndpoints(ctx, { auth: PRIMARY });
      return worst(
        exchanges.map(
          (exchange) =>
            noAnswer(expected, exchange) ??
            verdict(
              expected,
              exchange.response?.status === 200
                ? []
                : [`${exchange.request.url} answered ${describe(exchange.response)}`],
              '200',
              exchange,
            ),
        ),
      );
    },
  },
  {
    id: 'AUTH-002',
    section: '§5.2',
    title: 'The key is accepted in x-api-key and gives the same data as Bearer',
    area: 'auth',
    level: 'required',
    mock: 'run',
    hint: 'Accept x-api-key: <API_KEY> exactly like the Bearer header.',
    async run(ctx) {
      const expected = 'x-api-key gets 200 and the same data as Bearer, on both endpoints';
      const [viaBearer, viaHeader] = await Promise.all([
        bothEndpoints(ctx, { auth: PRIMARY }),
        bothEndpoints(ctx, { auth: PRIMARY_X_API_KEY }),
      ]);
      const outcomes = viaHeader.map((exchange, i) => {
        const bearer = viaBearer[i] as Exchange;
        const missing = noAnswer(expected, exchange);
        if (missing) return missing;
        if (exchange.response?.status !== 200) {
          return fail(expected, `${exchange.request.url} answered ${describe(exchange.response)}`, exchange);
        }
        if (bearer.response?.status !== 200)
          return inconclusive(expected, 'the Bearer request did not succeed', bearer);
        return canonical(dataOf(exchange)) === canonical(dataOf(bearer))
          ? pass(expected, 'same data', exchange)
          : fail(expected, `${exchange.request.url}: x-api-key and Bearer give different data`, exchange);
      });
      return worst(outcomes);
    },
  },
  {
    id: 'AUTH-003',
    section: '§5.2, §5.8',
    title: 'A request without a key is refused (4xx error envelope)',
    area: 'auth',
    level: 'required',
    mock: 'run',
    hint: `Refuse requests without a key with a 4xx error envelope (the project answers ${refusal(UNUSABLE_KEY)}).`,
    run: (ctx) => refusedOnBoth(ctx, {}, 'no key'),
  },
  {
    id: 'AUTH-004',
    section: '§5.8',
    title: 'Status and code for a missing key',
    area: 'auth',
    level: 'advisory',
    mock: 'run',
    decision: 'D-AUTH-MISSING',
    hint: 'Any 4xx error envelope is conformant.',
    run: async (ctx) => reportChoice((await bothEndpoints(ctx, {}))[0] as Exchange, UNUSABLE_KEY),
  },
  {
    id: 'AUTH-005',
    section: '§5.8',
    title: 'An unknown well-formed key is refused (4xx error envelope)',
    area: 'auth',
    level: 'required',
    mock: MOCK_KEYS,
    hint: 'Refuse keys the service does not know, with a 4xx error envelope.',
    run: (ctx) => refusedOnBoth(ctx, { madeUpKey: 'bearer' }, `an unknown ${KEY_PREFIX} key`),
  },
  {
    id: 'AUTH-006',
    section: '§5.8',
    title: 'Status and code for an unknown key',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-UNKNOWN',
    mock: MOCK_KEYS,
    hint: 'Any 4xx error envelope is conformant.',
    run: async (ctx) =>
      reportChoice((await bothEndpoints(ctx, { madeUpKey: 'bearer' }))[0] as Exchange, UNUSABLE_KEY),
  },
  {
    id: 'AUTH-007',
    section: '§5.2, §5.3, §5.8',
    title: 'Malformed credentials are refused (Basic auth, a token not shaped like a key)',
    area: 'auth',
    level: 'required',
    mock: MOCK_KEYS,
    hint: `Refuse any Authorization that is not Bearer <key> and any value not shaped ${KEY_PREFIX}<body>, with a 4xx error envelope.`,
    async run(ctx) {
      const exchanges = (
        await Promise.all(MALFORMED.map((headers) => bothEndpoints(ctx, { headers })))
      ).flat();
      return refusedEverywhere(ctx, exchanges, 'malformed credentials');
    },
  },
  {
    id: 'AUTH-008',
    section: '§5.8',
    title: 'Status and code for malformed credentials',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-MALFORMED',
    mock: MOCK_KEYS,
    hint: 'Any 4xx error envelope is conformant.',
    async run(ctx) {
      const exchanges = await Promise.all(
        MALFORMED.map((headers) => ctx.client.send({ path: WALKS_PATH, headers })),
      );
      const chosen = exchanges.map((e) => {
        const header = Object.entries(e.request.headers).map(([k, v]) => `${k}: ${v}`)[0] ?? '';
        return `${header} → ${e.response ? `${e.response.status} ${String(errorOf(e.response).code)}` : 'no answer'}`;
      });
      const differs = exchanges.some((e) => e.response && !answersAs(e.response, UNUSABLE_KEY));
      return advisory(`project decision: ${refusal(UNUSABLE_KEY)}`, chosen.join('; '), exchanges[0], {
        differs,
      });
    },
  },
  {
    id: 'AUTH-009',
    section: '§5.5',
    title: 'A revoked key is refused (4xx error envelope)',
    area: 'auth',
    level: 'required',
    needs: [REVOKED.key],
    mock: MOCK_KEYS,
    hint: 'A revoked key must stop working immediately: refuse it with a 4xx error envelope.',
    run: (ctx) => refusedOnBoth(ctx, { auth: REVOKED }, 'the revoked key'),
  },
  {
    id: 'AUTH-010',
    section: '§5.5, §5.8',
    title: 'Status and code for a revoked key, compared with an unknown key',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-REVOKED',
    needs: [REVOKED.key],
    mock: MOCK_KEYS,
    hint: 'Any 4xx error envelope is conformant; the project answers exactly as for an unknown key.',
    async run(ctx) {
      const [revoked] = await bothEndpoints(ctx, { auth: REVOKED });
      const [unknown] = await bothEndpoints(ctx, { madeUpKey: 'bearer' });
      const report = reportChoice(revoked as Exchange, UNUSABLE_KEY, ', the same answer as an unknown key');
      if (report.status !== 'advisory' || !revoked?.response || !unknown?.response) return report;
      const same =
        revoked.response.status === unknown.response.status &&
        canonical(revoked.response.json) === canonical(unknown.response.json);
      return {
        ...report,
        actual: `${report.actual}; ${same ? 'the same' : 'a different'} answer as for an unknown key`,
      };
    },
  },
  {
    id: 'AUTH-011',
    section: '§5.6, §7',
    title: `A key without ${WALKS_READ_SCOPE} gets ${refusal(NO_SCOPE_CODE)} on both endpoints`,
    area: 'auth',
    level: 'required',
    mock: 'run',
    needs: [NO_SCOPE.key],
    hint: `Check the key’s scopes: a key without ${WALKS_READ_SCOPE} gets ${statusOfError(NO_SCOPE_CODE)} {"ok":false,"error":{"code":"${NO_SCOPE_CODE}",...}}.`,
    async run(ctx) {
      const expected = expectedRefusal(NO_SCOPE_CODE);
      const exchanges = await bothEndpoints(ctx, ctx.data.profile.noScope);
      const judged = {
        requests: exchanges.length,
        records: exchanges.length,
        unit: 'requests',
      };
      return counted(
        worst(
          exchanges.map((exchange) => {
            const missing = noAnswer(expected, exchange);
            if (missing || !exchange.response) return missing as Outcome;
            const problem = errorEnvelopeProblem(ctx, exchange.response);
            const ok = answersAs(exchange.response, NO_SCOPE_CODE) && !problem;
            return ok
              ? pass(expected, refusal(NO_SCOPE_CODE), exchange)
              : fail(expected, `${exchange.request.url} answered ${describe(exchange.response)}`, exchange);
          }),
        ),
        judged,
      );
    },
  },
  {
    id: 'AUTH-012',
    section: '§5.9',
    title: 'Both headers with different keys (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-BOTH',
    mock: MOCK_KEYS,
    hint: `Refusing or preferring one header are both conformant; the project refuses with ${refusal(TWO_KEYS)}.`,
    async run(ctx) {
      const spec: RequestSpec = ctx.config.keys[OTHER.key]
        ? { path: WALKS_PATH, auth: [PRIMARY, { ...OTHER, via: 'x-api-key' }] }
        : { path: WALKS_PATH, auth: PRIMARY, madeUpKey: 'x-api-key' };
      const exchange = await ctx.client.send(spec);
      const expected = `project decision: ${refusal(TWO_KEYS)}`;
      if (!exchange.response) return inconclusive(expected, exchange.error?.message ?? 'no answer', exchange);
      if (exchange.response.status !== 200) return reportChoice(exchange, TWO_KEYS);
      const viaBearer = await ctx.data.listDefault();
      const same = canonical(dataOf(exchange)) === canonical(dataOf(viaBearer.exchange));
      return advisory(
        expected,
        `200: this deployment prefers ${same ? 'Authorization' : 'x-api-key'}`,
        exchange,
        { differs: true },
      );
    },
  },
];

/** Credentials no deployment can accept. Literal values: none of them is a key. */
export const MALFORMED: Record<string, string>[] = [
  { Authorization: 'Basic dXNlcjpwYXNzd29yZA==' },
  { Authorization: 'Bearer not-a-key' },
  { 'x-api-key': 'not-a-key' },
];
