/** GET /api/v1/walks (§4.2, §2.1, §8): limits, summaries, links, the empty campaign. */
import { stopStatusesOf } from '../../spec/contract.ts';
import { LIMIT, WEB_BASE_URL_NAME } from '../../spec/facts.ts';
import { EMPTY_CAMPAIGN } from '../key-uses.ts';
import type { WalkSummary } from '../../spec/types.ts';
import type { ListView } from '../shared-fetches.ts';
import { isObject } from '../../spec/json-value.ts';
import { remembered } from '../../spec/remembered.ts';
import { seededRandom } from '../shared-fetches.ts';
import type { Check, CheckContext } from './check.ts';
import type { Exchange, Outcome } from '../types.ts';
import { advisory, counted, describe, fail, inconclusive, noAnswer, pass, verdict } from './outcome.ts';

const PRISM_IGNORES_LIMIT = {
  skip: 'the mock answers every list request with the same example, whatever the limit',
};

/** The list to judge walk by walk: limit=200 when it answered, else the default list. */
async function judgedList(
  ctx: CheckContext,
  expected: string,
): Promise<Outcome | { walks: WalkSummary[]; view: Awaited<ReturnType<CheckContext['data']['list']>> }> {
  const big = await ctx.data.list200();
  const view = big.walks ? big : await ctx.data.listDefault();
  if (view.walks) return { walks: view.walks, view };
  return (
    noAnswer(expected, view.exchange) ??
    fail(expected, `no list to judge: ${describe(view.exchange.response)}`, view.exchange)
  );
}

/** How many seeded values the limit property draws on top of the boundaries. */
const SEEDED_LIMITS = 4;
const { maximum: MAX_LIMIT, default: DEFAULT_LIMIT } = LIMIT;

/**
 * The `limit` values the property is tried at: the boundaries around the minimum, the default, the
 * middle and the maximum the spec states (1, 2, 49, 50, 51, 99, 100, 101, 150, 199, 200), then
 * values drawn by the seed, so a run reproduces and another seed looks elsewhere.
 */
function limitValues(seed: number): number[] {
  const { minimum: min, maximum: max, default: def } = LIMIT;
  const half = Math.floor(max / 2);
  const values = new Set(
    [
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
    ].filter((n) => n >= min && n <= max),
  );
  const random = seededRandom(seed ^ 0x5eed);
  const room = max - min + 1;
  const wanted = Math.min(room, values.size + SEEDED_LIMITS);
  for (let tries = 0; values.size < wanted && tries < 1000; tries++) {
    values.add(min + Math.floor(random() * room));
  }
  return [...values];
}

/** The lists at every limit value, each with the value it was asked with. */
async function limitViews(ctx: CheckContext): Promise<{ n: number; view: ListView }[]> {
  return Promise.all(
    limitValues(ctx.config.seed).map(async (n) => ({ n, view: await ctx.data.list(`${LIMIT.name}=${n}`) })),
  );
}

/** Why a list answered at `limit=n` breaks the property with M walks, or undefined when it holds. */
function limitProblem(n: number, view: ListView, all: number): string | undefined {
  const want = Math.min(n, all);
  if (!view.walks) {
    const error = view.exchange.error;
    return `limit=${n}: ${error ? error.message : `answered ${describe(view.exchange.response)}`}`;
  }
  const got = view.walks.length;
  const count = (view.exchange.response?.json as { meta?: { count?: unknown } } | undefined)?.meta?.count;
  if (got !== want) return `limit=${n}: ${got} walks, expected ${want}`;
  if (count !== got) return `limit=${n}: meta.count is ${JSON.stringify(count)} for ${got} walks`;
  return undefined;
}

const label = (walk: unknown, index: number) =>
  `walk #${index + 1}${isObject(walk) && typeof walk.id === 'string' ? ` (${walk.id})` : ''}`;

export interface WalkLink {
  base: string;
  slug: string;
  id: string;
}

/** The shape of each kind of link, compiled once: `--traffic` parses every link of every answer. */
const LINK_SHAPES = {
  dashboard: /^(https?:\/\/.+?)\/dashboard\/([^/?#]+)\/walks\/([^/?#]+)$/,
  open: /^(https?:\/\/.+?)\/open\/([^/?#]+)\/walks\/([^/?#]+)$/,
} as const;

/** Whether a link's base parses as a URL, remembered: a deployment has one or two bases. */
const basesSeen = new Map<string, boolean>();
function isAbsoluteBase(base: string): boolean {
  let known = basesSeen.get(base);
  if (known === undefined) {
    known = URL.canParse(base);
    if (basesSeen.size < 64) basesSeen.set(base, known);
  }
  return known;
}

/** Links taken apart, remembered per kind: `--traffic` meets the same walks' links answer after answer. */
const MAX_LINKS_SEEN = 4096;
const linksSeen = {
  dashboard: remembered((value) => linkOf(value, 'dashboard'), MAX_LINKS_SEEN),
  open: remembered((value) => linkOf(value, 'open'), MAX_LINKS_SEEN),
};

/** `{web_base_url}/<kind>/<campaign_slug>/walks/<walk_id>` taken apart, or why it cannot be. */
export function parseWalkLink(value: unknown, kind: keyof typeof LINK_SHAPES): WalkLink | string {
  if (typeof value !== 'string') return `is ${JSON.stringify(value)}, not a string`;
  return linksSeen[kind](value);
}

function linkOf(value: string, kind: keyof typeof LINK_SHAPES): WalkLink | string {
  const match = LINK_SHAPES[kind].exec(value);
  if (!match?.[1] || !match[2] || !match[3]) {
    return `${JSON.stringify(value)} is not shaped {web_base_url}/${kind}/<campaign_slug>/walks/<walk_id>`;
  }
  try {
    if (!isAbsoluteBase(match[1])) throw new Error('no base');
    return { base: match[1], slug: decodeURIComponent(match[2]), id: decodeURIComponent(match[3]) };
  } catch {
    return `${JSON.stringify(value)} has no absolute base URL`;
  }
}

/** The links of every walk, or the problems found in them. */
export function linksOf(walks: WalkSummary[]): {
  links: { walk: WalkSummary; web: WalkLink; app: WalkLink }[];
  problems: string[];
} {
  const links: { walk: WalkSummary; web: WalkLink; app: WalkLink }[] = [];
  const problems: string[] = [];
  walks.forEach((walk, index) => {
    if (!isObject(walk)) return;
    const web = parseWalkLink(walk.web_url, 'dashboard');
    const app = parseWalkLink(walk.app_link, 'open');
    if (typeof web === 'string') problems.push(`${label(walk, index)}: web_url ${web}`);
    if (typeof app === 'string') problems.push(`${label(walk, index)}: app_link ${app}`);
    if (typeof web === 'string' || typeof app === 'string') return;
    if (web.id !== walk.id) problems.push(`${label(walk, index)}: web_url names walk ${web.id}`);
    if (app.id !== walk.id) problems.push(`${label(walk, index)}: app_link names walk ${app.id}`);
    if (web.base !== app.base)
      problems.push(`${label(walk, index)}: web_url base ${web.base} ≠ app_link base ${app.base}`);
    if (web.slug !== app.slug)
      problems.push(`${label(walk, index)}: web_url slug ${web.slug} ≠ app_link slug ${app.slug}`);
    links.push({ walk, web, app });
  });
  return { links, problems };
}

/** The slugs and bases the links use, and the problem when there is more than one of either. */
export function linkSpread(links: { web: WalkLink }[]): {
  slugs: string[];
  bases: string[];
  problems: string[];
} {
  const slugs = [...new Set(links.map((l) => l.web.slug))];
  const bases = [...new Set(links.map((l) => l.web.base))];
  const problems = [
    ...(slugs.length > 1 ? [`${slugs.length} slugs: ${slugs.slice(0, 4).join(', ')}`] : []),
    ...(bases.length > 1 ? [`${bases.length} bases: ${bases.slice(0, 4).join(', ')}`] : []),
  ];
  return { slugs, bases, problems };
}

/** Every `counts` object of an answer's walks (list items, or a detail's data), with where it is. */
function countsIn(exchange: Exchange): { where: string; counts: unknown }[] {
  const data = (exchange.response?.json as { data?: unknown } | undefined)?.data;
  const items = Array.isArray(data) ? data : isObject(data) ? [data] : [];
  return items.flatMap((item, index) =>
    isObject(item) && 'counts' in item ? [{ where: label(item, index), counts: item.counts }] : [],
  );
}

export const walksListChecks: Check[] = [
  {
    id: 'WALKS-LIST-001',
    section: '§4.2',
    title: 'The list answers 200 with the list envelope',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'GET /api/v1/walks with a walks:read key must answer 200 {"ok":true,"data":[...],"meta":{"count":n}}.',
    async run(ctx) {
      const expected = '200 with {"ok":true,"data":[...],"meta":{...}}';
      const view = await ctx.data.listDefault();
      const missing = noAnswer(expected, view.exchange);
      if (missing) return missing;
      if (!view.walks) return fail(expected, `answered ${describe(view.exchange.response)}`, view.exchange);
      return pass(expected, `200 with ${view.walks.length} walks`, view.exchange);
    },
  },
  {
    id: 'WALKS-LIST-002',
    section: '§4.2, §8',
    title: `Without limit, the list returns ${DEFAULT_LIMIT} walks (the default)`,
    area: 'walks-list',
    level: 'required',
    mock: PRISM_IGNORES_LIMIT,
    hint: `Default limit to ${DEFAULT_LIMIT} when the query has no limit parameter.`,
    async run(ctx) {
      const expected = `${DEFAULT_LIMIT} walks when the campaign has more than ${DEFAULT_LIMIT} (all of them otherwise)`;
      const def = await ctx.data.listDefault();
      const big = await ctx.data.list200();
      const missing = noAnswer(expected, def.exchange);
      if (missing) return missing;
      if (!def.walks) return fail(expected, `answered ${describe(def.exchange.response)}`, def.exchange);
      if (!big.walks)
        return inconclusive(
          expected,
          `limit=${MAX_LIMIT} gave no list, so the campaign size is unknown`,
          def.exchange,
        );
      const got = def.walks.length;
      const total = big.walks.length;
      if (total > DEFAULT_LIMIT) {
        return verdict(
          expected,
          got === DEFAULT_LIMIT ? [] : [`${got} walks`],
          `${DEFAULT_LIMIT} walks`,
          def.exchange,
        );
      }
      if (got !== total) {
        return fail(expected, `${got} walks, while limit=${MAX_LIMIT} returns ${total}`, def.exchange);
      }
      return inconclusive(
        expected,
        `the campaign has only ${total} walks; ${DEFAULT_LIMIT + 1} are needed to see the default of ${DEFAULT_LIMIT}`,
        def.exchange,
      );
    },
  },
  {
    id: 'WALKS-LIST-003',
    section: '§4.2, §8',
    title: 'limit=1 returns exactly one walk',
    area: 'walks-list',
    level: 'required',
    mock: PRISM_IGNORES_LIMIT,
    hint: 'Return at most `limit` walks: limit=1 gives one walk when the campaign has any.',
    async run(ctx) {
      const expected = 'exactly 1 walk';
      const one = await ctx.data.list1();
      const missing = noAnswer(expected, one.exchange);
      if (missing) return missing;
      if (!one.walks) return fail(expected, `answered ${describe(one.exchange.response)}`, one.exchange);
      if (one.walks.length === 0 && (await ctx.data.walks())?.length === 0) {
        return inconclusive(expected, 'the campaign has no walks', one.exchange);
      }
      return verdict(
        expected,
        one.walks.length === 1 ? [] : [`${one.walks.length} walks`],
        '1 walk',
        one.exchange,
      );
    },
  },
  {
    id: 'WALKS-LIST-004',
    section: '§4.2, §8',
    title: `limit=${MAX_LIMIT} returns at most ${MAX_LIMIT} walks, and no fewer than the default list`,
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: `Honour limit up to ${MAX_LIMIT}: never more than asked, never fewer than a smaller limit returns.`,
    async run(ctx) {
      const expected = `at most ${MAX_LIMIT} walks, at least as many as without limit`;
      const big = await ctx.data.list200();
      const missing = noAnswer(expected, big.exchange);
      if (missing) return missing;
      if (!big.walks) return fail(expected, `answered ${describe(big.exchange.response)}`, big.exchange);
      const def = (await ctx.data.listDefault()).walks;
      const problems: string[] = [];
      if (big.walks.length > MAX_LIMIT) problems.push(`${big.walks.length} walks`);
      if (def && big.walks.length < def.length) {
        problems.push(`${big.walks.length} walks, fewer than the ${def.length} of the default list`);
      }
      return verdict(expected, problems, `${big.walks.length} walks`, big.exchange);
    },
  },
  {
    id: 'WALKS-LIST-014',
    section: '§4.2, §8',
    title: `limit N returns exactly min(N, M) walks with meta.count agreeing, for the boundaries and seeded values from ${LIMIT.minimum} to ${MAX_LIMIT}`,
    area: 'walks-list',
    level: 'required',
    mock: PRISM_IGNORES_LIMIT,
    hint: `Return min(limit, walks in the campaign) walks for every limit from ${LIMIT.minimum} to ${MAX_LIMIT}: there is no pagination, so a shorter page hides walks from the client for good.`,
    async run(ctx) {
      const big = await ctx.data.list200();
      if (!big.walks)
        return inconclusive(
          'min(N, M) walks',
          `limit=${MAX_LIMIT} gave no list, so the campaign size M is unknown`,
          big.exchange,
        );
      const all = big.walks.length;
      const views = await limitViews(ctx);
      const expected = `min(N, ${all}) walks and meta.count agreeing, for N in ${views.map((v) => v.n).join(', ')} (seed ${ctx.config.seed})`;
      const failing = views.flatMap(({ n, view }) => {
        const problem = limitProblem(n, view, all);
        return problem ? [{ problem, exchange: view.exchange }] : [];
      });
      if (failing.length > 0 && failing.every((f) => f.exchange.error?.kind === 'budget'))
        return inconclusive(
          expected,
          'the request budget ran out before the limit values',
          failing[0]?.exchange,
        );
      return counted(
        verdict(
          expected,
          failing.map((f) => f.problem),
          `${views.length} limit values hold`,
          (failing[0]?.exchange ?? views[0]?.view.exchange) as Exchange,
        ),
        { requests: views.length + 1, records: views.length, unit: 'limit values' },
      );
    },
  },
  {
    id: 'WALKS-LIST-005',
    section: '§2.1',
    title: 'Walk ids are unique within a list',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'Return each walk once; ids are unique.',
    async run(ctx) {
      const expected = 'no walk id twice in one answer';
      const problems: string[] = [];
      let judged: Awaited<ReturnType<CheckContext['data']['list']>> | undefined;
      for (const view of [await ctx.data.list200(), await ctx.data.listDefault()]) {
        if (!view.walks) continue;
        judged ??= view;
        const seen = new Set<unknown>();
        for (const walk of view.walks) {
          const id = isObject(walk) ? walk.id : undefined;
          if (seen.has(id)) problems.push(`${String(id)} appears twice in ${view.exchange.request.url}`);
          seen.add(id);
        }
      }
      if (!judged) return inconclusive(expected, 'no list answered');
      return verdict(expected, problems, 'all ids unique', judged.exchange);
    },
  },
  {
    id: 'WALKS-LIST-006',
    section: '§2.1',
    title: 'Every walk summary has the fields of §2.1 with their types',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'Give each summary id (UUID), name, lat/lng (number or null), count, counts, web_url and app_link.',
    async run(ctx) {
      const expected = 'every summary valid against the WalkSummary schema';
      const list = await judgedList(ctx, expected);
      if ('status' in list) return list;
      const problems = list.walks.flatMap((walk, index) => {
        const result = ctx.contract.validateSchema('WalkSummary', walk);
        return result.valid ? [] : [`${label(walk, index)}: ${result.errors.slice(0, 3).join('; ')}`];
      });
      return counted(
        verdict(expected, problems, `${list.walks.length} summaries valid`, list.view.exchange),
        {
          requests: 1,
          records: list.walks.length,
          unit: 'walks',
        },
      );
    },
  },
  {
    id: 'WALKS-LIST-007',
    section: '§2.1, §2.4',
    title: 'counts has all eight status keys, 0 when there are none',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'Always send every status key of §2.4 in counts, with 0 for the statuses no stop has.',
    async run(ctx) {
      const statuses = stopStatusesOf(ctx.contract.doc);
      const expected = `counts with ${statuses.length} keys (${statuses.join(', ')}), each an integer ≥ 0`;
      const list = await judgedList(ctx, expected);
      if ('status' in list) return list;
      const problems = list.walks.flatMap((walk, index) => {
        const counts: unknown = isObject(walk) ? walk.counts : undefined;
        if (!isObject(counts)) return [`${label(walk, index)}: counts is ${JSON.stringify(counts)}`];
        return statuses
          .filter((s) => !(Number.isInteger(counts[s]) && (counts[s] as number) >= 0))
          .map((s) => `${label(walk, index)}: counts.${s} is ${JSON.stringify(counts[s]) ?? 'missing'}`);
      });
      return counted(
        verdict(expected, problems, `all ${list.walks.length} summaries complete`, list.view.exchange),
        { requests: 1, records: list.walks.length, unit: 'walks' },
      );
    },
  },
  {
    id: 'WALKS-LIST-015',
    section: '§2.1, §2.4',
    title: 'counts is a closed set: every status key and no other, on every walk of every answer',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Send exactly the eight status keys of §2.4 in counts: no extra key (a new status, a total), none missing.',
    async run(ctx) {
      const statuses = stopStatusesOf(ctx.contract.doc);
      const known = new Set(statuses);
      const expected = `counts with exactly the keys ${statuses.join(', ')}`;
      const answers = ctx.client.exchanges.filter(
        (e) => e.response?.status === 200 && ctx.operations.operationOf(e) && e.request.method !== 'HEAD',
      );
      let walks = 0;
      const problems: string[] = [];
      let first: Exchange | undefined;
      for (const exchange of answers) {
        for (const { where, counts } of countsIn(exchange)) {
          walks++;
          const keys = isObject(counts) ? Object.keys(counts) : [];
          const extra = keys.filter((k) => !known.has(k));
          const missing = statuses.filter((k) => !keys.includes(k));
          if (!isObject(counts) || extra.length > 0 || missing.length > 0) {
            first ??= exchange;
            problems.push(
              `${exchange.request.url} ${where}: ${!isObject(counts) ? `counts is ${JSON.stringify(counts)}` : [extra.length ? `extra key(s) ${extra.join(', ')}` : '', missing.length ? `missing ${missing.join(', ')}` : ''].filter(Boolean).join(', ')}`,
            );
          }
        }
      }
      if (walks === 0) return inconclusive(expected, 'no answer carried a walk with counts');
      return counted(
        verdict(expected, problems, `${walks} walks in ${answers.length} answers`, first ?? answers[0]),
        {
          requests: answers.length,
          records: walks,
          unit: 'walk summaries (in every answer)',
        },
      );
    },
  },
  {
    id: 'WALKS-LIST-008',
    section: '§2.1',
    title: "web_url and app_link have their shapes, share base and slug, and name the walk's own id",
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'web_url = {web_base_url}/dashboard/<slug>/walks/<id>, app_link = {web_base_url}/open/<slug>/walks/<id>, with the walk’s own id.',
    async run(ctx) {
      const expected =
        'web_url …/dashboard/<slug>/walks/<id> and app_link …/open/<slug>/walks/<id>, same base and slug';
      const list = await judgedList(ctx, expected);
      if ('status' in list) return list;
      const { problems } = linksOf(list.walks);
      return counted(
        verdict(expected, problems, `${list.walks.length} walks linked correctly`, list.view.exchange),
        { requests: 1, records: list.walks.length, unit: 'walks' },
      );
    },
  },
  {
    id: 'WALKS-LIST-009',
    section: '§2.1',
    title: 'All walks of a campaign share one web base and one campaign slug',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    hint: 'Build every link from the deployment’s one web base URL and the campaign’s one slug.',
    async run(ctx) {
      const expected = 'one {web_base_url} and one <campaign_slug> across the campaign';
      const list = await judgedList(ctx, expected);
      if ('status' in list) return list;
      const { links } = linksOf(list.walks);
      if (links.length < 2)
        return inconclusive(expected, `only ${links.length} walks with usable links`, list.view.exchange);
      const { slugs, bases, problems } = linkSpread(links);
      return verdict(expected, problems, `slug ${slugs[0]} on ${bases[0]}`, list.view.exchange);
    },
  },
  {
    id: 'WALKS-LIST-010',
    section: '§2.1',
    title: 'Links use the configured web base URL',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    needsSetting: WEB_BASE_URL_NAME,
    hint: 'Build web_url and app_link from the deployment’s configured {web_base_url}.',
    async run(ctx) {
      const base = ctx.config.webBaseUrl ?? '';
      const expected = `links start with ${base}/`;
      const list = await judgedList(ctx, expected);
      if ('status' in list) return list;
      const { links, problems: shapes } = linksOf(list.walks);
      if (links.length === 0)
        return fail(expected, shapes[0] ?? 'no walk has usable links', list.view.exchange);
      const problems = links
        .filter((l) => l.web.base.replace(/\/+$/, '') !== base)
        .map((l) => `walk ${l.walk.id}: base ${l.web.base}`);
      return verdict(expected, problems, `all links on ${base}`, list.view.exchange);
    },
  },
  {
    id: 'WALKS-LIST-011',
    section: '§4.2 rule 1',
    title: 'A campaign without walks gets 200 with an empty list and meta.count 0',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    needs: [EMPTY_CAMPAIGN.key],
    hint: 'An empty campaign is a success: 200 {"ok":true,"data":[],"meta":{"count":0}}, not an error.',
    async run(ctx) {
      const expected = '200 {"ok":true,"data":[],"meta":{"count":0}}';
      const { auth, headers } = ctx.data.profile.emptyCampaign;
      const view = await ctx.data.list(undefined, auth, headers);
      const missing = noAnswer(expected, view.exchange);
      if (missing) return missing;
      const meta = (view.exchange.response?.json as { meta?: { count?: unknown } } | undefined)?.meta;
      const ok = view.walks?.length === 0 && meta?.count === 0;
      return verdict(
        expected,
        ok ? [] : [`answered ${describe(view.exchange.response)}`],
        '200, no walks',
        view.exchange,
      );
    },
  },
  {
    id: 'WALKS-LIST-012',
    section: '§4.2 rule 2',
    title: 'Order of the walks: is a smaller page a prefix of a larger one? (the spec leaves it open)',
    area: 'walks-list',
    level: 'advisory',
    decision: 'D-ORDER',
    mock: PRISM_IGNORES_LIMIT,
    hint: 'A stable order makes limit predictable; the project orders newest first, ties by id.',
    async run(ctx) {
      const expected = 'project decision: newest walk first, ties by id, stable between calls';
      const [def, big, views] = [
        await ctx.data.listDefault(),
        await ctx.data.list200(),
        await limitViews(ctx),
      ];
      if (!def.walks || !big.walks) return inconclusive(expected, 'a list did not answer', def.exchange);
      const ids = (walks: WalkSummary[]) => walks.map((w) => (isObject(w) ? w.id : undefined));
      const bigIds = ids(big.walks);
      const pages = [def, ...views.map((v) => v.view)].filter((v) => v.walks);
      const notPrefix = pages.filter(
        (v) => !ids(v.walks as WalkSummary[]).every((id, i) => bigIds[i] === id),
      );
      return advisory(
        expected,
        notPrefix.length === 0
          ? `stable: all ${pages.length} smaller pages are prefixes of the limit=${MAX_LIMIT} list`
          : `not prefix-stable: ${notPrefix.length} of ${pages.length} smaller pages are not the first walks of limit=${MAX_LIMIT} (e.g. ${notPrefix[0]?.exchange.request.url})`,
        def.exchange,
      );
    },
  },
  {
    id: 'WALKS-LIST-013',
    section: '§2.1',
    title: 'Which web base URL and campaign slug the deployment uses',
    area: 'walks-list',
    level: 'advisory',
    mock: 'run',
    decision: 'D-WEB-BASE',
    hint: `Set ${WEB_BASE_URL_NAME} to have the base checked.`,
    async run(ctx) {
      const expected = 'a configuration value of the deployment (reported)';
      const walks = await ctx.data.walks();
      const first = walks ? linksOf(walks).links[0] : undefined;
      if (!first) return inconclusive(expected, 'no walk with usable links');
      return advisory(expected, `web base ${first.web.base}, campaign slug ${first.web.slug}`);
    },
  },
];
