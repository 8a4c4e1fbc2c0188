/**
 * What the list says of a walk against what its detail shows (§2.1, §2.4): the count of its stops,
 * the count per status, the centroid of its located stops. No schema can say this; only pairing a
 * summary with its detail can, and the pairs are made once every exchange is seen (`pairs.ts`), so
 * a recording is judged whatever order it holds them in.
 */
import { isObject } from '../../../spec/json-value.ts';
import type { Across, Judgement, ListedItem, Probe, Rule, RuleContext, World } from '../../core/rule.ts';
import { OTHER_CAMPAIGN_KEY, PRIMARY_KEY } from '../../core/roles.ts';
import { type OperationModel, pathOf } from '../../core/spec-model.ts';
import type { Exchange, RequestSpec } from '../../core/exchange.ts';
import { breaks, holds } from '../../core/rule.ts';
import { askedId, idOf, itemOf, pageOf } from '../pages.ts';
import { BodyMemo } from '../../core/body-memo.ts';
import type { Observation } from '../../core/observation.ts';
import type { Pair } from '../pairs.ts';
import { canonical, fingerprint, pairsOf, pairsOfItem, Versions } from '../pairs.ts';
import { sweepRequests } from '../requests.ts';
import type { Point } from './centroid.ts';
import {
  acceptableCentroids,
  CENTROID_EXTENT_SHARE,
  CENTROID_TOLERANCE,
  centroidTolerance,
  matchesCentroid,
  shownPoint,
} from './centroid.ts';
import { isWalkDetail, isWalkList, isWalkOperation } from './operations.ts';
import { stopStatuses } from './summaries.ts';

/** What a summary says of its walk's stops. */
interface SummaryFacts {
  count: unknown;
  counts: unknown;
  lat: unknown;
  lng: unknown;
}

/** What a detail's stops show: how many, how many per status, and the centroids they allow. */
interface DetailFacts {
  stops: number;
  byStatus: Record<string, number>;
  centroids: Point[];
  tolerance: number;
}

function detailFactsOf(stops: unknown[]): DetailFacts {
  const byStatus: Record<string, number> = {};
  for (const stop of stops) {
    if (isObject(stop) && typeof stop.status === 'string')
      byStatus[stop.status] = (byStatus[stop.status] ?? 0) + 1;
  }
  return {
    stops: stops.length,
    byStatus,
    centroids: acceptableCentroids(stops),
    tolerance: centroidTolerance(stops),
  };
}

type WalkPair = Pair<SummaryFacts, DetailFacts>;

/**
 * The walks' pairs as a consistency rule's verdicts read them: given walk by walk as they are read
 * from the state (`pairsOf`), never all at once.
 */
interface WalkPairs {
  /** Every pair, walk by walk. */
  all(): Iterable<WalkPair>;
  /** The pairs of one walk. */
  of(item: string): WalkPair[];
  summaries: Versions<SummaryFacts>;
}

type WalkJudge = (walks: WalkPairs) => Iterable<Judgement>;

/** The summaries and details of every walk, read once for the three consistency rules of a run. */
interface WalkVersions {
  summaries: Versions<SummaryFacts>;
  details: Versions<DetailFacts>;
  /** The last observation read: each of the three rules is shown it, one after the other. */
  last?: Observation;
  /** What each list answer's summaries and each detail's stops are, by the body that showed them. */
  pages: BodyMemo<{ id: string; digest: string; facts: SummaryFacts }[]>;
  stops: BodyMemo<{ digest: string; facts: DetailFacts } | undefined>;
}

/** Each summary of a list page with its facts and their digest. */
function summariesOf(page: readonly unknown[]): { id: string; digest: string; facts: SummaryFacts }[] {
  return page.flatMap((walk) => {
    const id = idOf(walk);
    if (id === undefined || !isObject(walk)) return [];
    const facts = { count: walk.count, counts: walk.counts, lat: walk.lat, lng: walk.lng };
    return [{ id, digest: fingerprint(canonical(facts)), facts }];
  });
}

/** A detail's stops: what the consistency rules compare, and its digest. */
function stopsOf(walk: Record<string, unknown>): { digest: string; facts: DetailFacts } | undefined {
  if (!Array.isArray(walk.stops)) return undefined;
  const stops = walk.stops.map((s) => (isObject(s) ? { lat: s.lat, lng: s.lng, status: s.status } : s));
  // The stops are rebuilt with their keys in one order, so their JSON is already canonical.
  return { digest: fingerprint(JSON.stringify(stops)), facts: detailFactsOf(stops) };
}

const walkVersionsOf = new WeakMap<RuleContext['state'], WalkVersions>();

function sharedWalkVersions(ctx: RuleContext): WalkVersions {
  let shared = walkVersionsOf.get(ctx.state);
  if (!shared) {
    shared = {
      summaries: new Versions(ctx.state, 'CONSISTENCY walk summaries'),
      details: new Versions(ctx.state, 'CONSISTENCY walk details'),
      pages: new BodyMemo(),
      stops: new BodyMemo(),
    };
    walkVersionsOf.set(ctx.state, shared);
  }
  return shared;
}

/** The summaries and details of every walk, and the verdicts a rule draws from them. */
function walkPairsAcross(ctx: RuleContext, judge: WalkJudge): Across {
  const shared = sharedWalkVersions(ctx);
  const { summaries, details } = shared;
  return {
    see(obs) {
      if (!obs.op || shared.last === obs) return;
      shared.last = obs;
      const response = obs.exchange.response;
      if (!response) return;
      if (isWalkList(obs.op)) {
        const page = pageOf(obs);
        if (!page) return;
        for (const { id, digest, facts } of shared.pages.of(response, () => summariesOf(page)))
          summaries.add(id, digest, () => facts, obs);
        return;
      }
      const walk = isWalkDetail(obs.op) ? itemOf(obs) : undefined;
      const id = askedId(obs);
      const stops = walk ? shared.stops.of(response, () => stopsOf(walk)) : undefined;
      if (!stops || id === undefined) return;
      details.add(id, stops.digest, () => stops.facts, obs);
    },
    finish: () =>
      judge({
        all: () => pairsOf(summaries, details, ctx.source),
        of: (item) => pairsOfItem(item, summaries, details, ctx.source),
        summaries,
      }),
  };
}

const verdict = (pair: WalkPair, problems: string[]): Judgement =>
  problems.length === 0
    ? holds(pair.detail.obs)
    : breaks(problems.map((p) => `walk ${pair.item}: ${p}`).join('; '), pair.detail.obs ?? pair.summary.obs);

/**
 * The verdicts of one rule's pairs, walk by walk: a walk none of whose pairs agree breaks; a walk
 * some of whose pairs agree and others differ (its summary and detail asked again close together
 * agreed, `recheckedDetails`) changed during the run: advisory, never a failure.
 */
function* byWalk(pairs: Iterable<WalkPair>, verdictOf: (pair: WalkPair) => Judgement): Generator<Judgement> {
  let item: string | undefined;
  let walk: { judgement: Judgement; last: number }[] = [];
  const settled = function* (): Generator<Judgement> {
    // Changed during the run: a summary that agreed was seen after every sighting of the one that
    // did not (asked again, the list agreed); a difference seen last repeats, and fails.
    const agreedLast = Math.max(
      -Infinity,
      ...walk.filter((w) => w.judgement.verdict === 'holds').map((w) => w.last),
    );
    for (const { judgement, last } of walk) {
      yield last < agreedLast && judgement.verdict === 'breaks'
        ? {
            verdict: 'chose',
            choice: `changed during the run: ${judgement.problem}; asked again close together, they agreed`,
            differs: false,
            ...(judgement.obs ? { obs: judgement.obs } : {}),
          }
        : judgement;
    }
    walk = [];
  };
  for (const pair of pairs) {
    if (pair.item !== item) yield* settled();
    item = pair.item;
    walk.push({ judgement: verdictOf(pair), last: pair.summary.seen.last });
  }
  yield* settled();
}

/** Whether counts holds exactly the status keys, each an integer ≥ 0 (else the counts rules judge it). */
function completeCounts(counts: unknown, statuses: readonly string[]): counts is Record<string, number> {
  return (
    isObject(counts) &&
    Object.keys(counts).length === statuses.length &&
    statuses.every((s) => Number.isInteger(counts[s]) && (counts[s] as number) >= 0)
  );
}

/**
 * CONSISTENCY-001: with a detail, count is its number of stops; without one, count is the sum of
 * counts (every stop has exactly one status), when counts is complete.
 */
function countJudge(ctx: RuleContext) {
  const statuses = stopStatuses(ctx.spec);
  return function* (walks: WalkPairs): Generator<Judgement> {
    yield* byWalk(walks.all(), (pair) =>
      verdict(
        pair,
        pair.summary.facts.count === pair.detail.facts.stops
          ? []
          : [
              `count ${JSON.stringify(pair.summary.facts.count)}, ${pair.detail.facts.stops} stops in its detail`,
            ],
      ),
    );
    for (const [id, listed] of walks.summaries.all()) {
      // The summaries of this walk paired with a detail: judged against it above.
      let paired: Set<string> | undefined;
      for (const summary of listed) {
        const { count, counts } = summary.facts;
        if (!completeCounts(counts, statuses)) continue;
        paired ??= new Set(walks.of(id).map((p) => p.summary.digest));
        if (paired.has(summary.digest)) continue;
        const sum = statuses.reduce((total, s) => total + (counts[s] ?? 0), 0);
        yield sum === count
          ? holds(summary.obs)
          : breaks(`walk ${id}: counts add up to ${sum}, count is ${JSON.stringify(count)}`, summary.obs);
      }
    }
  };
}

/** CONSISTENCY-002: counts[status] is the number of the detail's stops with that status. */
function countsJudge(ctx: RuleContext) {
  const statuses = stopStatuses(ctx.spec);
  return function* (walks: WalkPairs): Generator<Judgement> {
    yield* byWalk(walks.all(), (pair) =>
      verdict(pair, countsProblems(pair.summary.facts, pair.detail.facts, statuses)),
    );
  };
}

/** How a summary's counts differ from its detail's stops (the first two statuses that differ). */
function countsProblems(summary: SummaryFacts, detail: DetailFacts, statuses: readonly string[]): string[] {
  const counts: Record<string, unknown> = isObject(summary.counts) ? summary.counts : {};
  return statuses
    .map((status) => ({ status, real: detail.byStatus[status] ?? 0 }))
    .filter(({ status, real }) => counts[status] !== real)
    .slice(0, 2)
    .map(
      ({ status, real }) => `counts.${status} is ${JSON.stringify(counts[status])}, ${real} stops have it`,
    );
}

/** CONSISTENCY-003: lat/lng is a centroid the located stops allow. */
function* centroidJudge(walks: WalkPairs): Generator<Judgement> {
  yield* byWalk(walks.all(), (pair) => {
    const { lat, lng } = pair.summary.facts;
    const { centroids, tolerance } = pair.detail.facts;
    return matchesCentroid(lat, lng, centroids, tolerance)
      ? verdict(pair, [])
      : verdict(pair, [
          `lat/lng ${String(lat)}, ${String(lng)}; the stops give ${centroids.map(shownPoint).join(' or ')}`,
        ]);
  });
}

/**
 * The sweep, with each detail of a listed walk asked again together with its list when the two
 * disagree on its stops (count, counts or centroid): a walk whose stops moved on between the list
 * and the detail agrees when both are asked again close together; a real inconsistency repeats.
 */
function recheckedDetails(op: OperationModel, world: World): Probe[] {
  const probes = sweepRequests(op, world);
  const collection = op.collection;
  if (op.kind !== 'item' || !collection) return probes;
  const statuses = stopStatuses(world.spec);
  const listed = new Map<string, { item: ListedItem; campaign: 'primary' | 'other' }>();
  for (const campaign of ['primary', 'other'] as const)
    for (const item of world.listed(collection, campaign))
      listed.set(pathOf(op, item.id), { item, campaign });
  return probes.map((probe) => {
    const known = listed.get(probe.request.path);
    if (!known) return probe;
    return {
      ...probe,
      followUp: (answered: Exchange) => {
        const data = isObject(answered.response?.json) ? answered.response.json.data : undefined;
        const stops = isObject(data) ? stopsOf(data) : undefined;
        const [summary] = summariesOf([known.item.summary]);
        if (!stops || !summary) return undefined;
        const { facts } = summary;
        const agrees =
          facts.count === stops.facts.stops &&
          countsProblems(facts, stops.facts, statuses).length === 0 &&
          matchesCentroid(facts.lat, facts.lng, stops.facts.centroids, stops.facts.tolerance);
        if (agrees) return undefined;
        const again = (request: RequestSpec) => ({ ...request, again: (request.again ?? 0) + 1 });
        const list = world.request(collection, {
          key: known.campaign === 'primary' ? PRIMARY_KEY : OTHER_CAMPAIGN_KEY,
          ...(collection.limit ? { query: `${collection.limit.name}=${collection.limit.maximum}` } : {}),
        });
        return list ? [again(list), again(probe.request)] : undefined;
      },
    };
  });
}

function consistencyRule(
  declaration: Pick<Rule, 'id' | 'section' | 'title' | 'expected' | 'hint'> & Partial<Pick<Rule, 'decision'>>,
  judge: (ctx: RuleContext) => WalkJudge,
): Rule {
  return {
    ...declaration,
    area: 'consistency',
    level: 'required',
    mock: 'run',
    unit: 'walks',
    sweeps: true,
    appliesTo: isWalkOperation,
    plan: recheckedDetails,
    across: { judge: (ctx) => walkPairsAcross(ctx, judge(ctx)) },
  };
}

export const consistencyRules: Rule[] = [
  consistencyRule(
    {
      id: 'CONSISTENCY-001',
      section: '§2.1, §2.4',
      title:
        "The summary's count is the number of the walk's stops: those of its detail, and the sum of its counts",
      expected: 'count = number of stops in the detail; count = the sum of counts',
      hint: 'Compute count from the walk’s stops (the same stops the detail returns): every stop has exactly one status, so the counts add up to it.',
    },
    countJudge,
  ),
  consistencyRule(
    {
      id: 'CONSISTENCY-002',
      section: '§2.1, §2.4',
      title: 'Each counts[status] equals the number of stops with that status',
      expected: 'counts[status] = stops with that status, for every status',
      hint: 'Compute counts per status from the walk’s stops.',
    },
    countsJudge,
  ),
  consistencyRule(
    {
      id: 'CONSISTENCY-003',
      section: '§2.1',
      title: "The summary's lat/lng is the centroid of the located stops (null when none)",
      decision: 'D-CENTROID',
      expected: `lat/lng within ${CENTROID_TOLERANCE}° + ${CENTROID_EXTENT_SHARE} × the walk's extent of the planar or spherical mean of the located stops; null when none`,
      hint: `Send the mean latitude and longitude of the stops that have coordinates (planar or spherical, within ${CENTROID_TOLERANCE}° plus ${CENTROID_EXTENT_SHARE} of the walk's extent), and null/null when no stop has any.`,
    },
    () => centroidJudge,
  ),
];
