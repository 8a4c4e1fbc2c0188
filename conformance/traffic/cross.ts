/**
 * Rules across recorded exchanges. Where a file holds both a walk's summary (a list answer) and
 * its detail, the summary's count, counts and centroid must agree with the detail's stops, with
 * the tolerance of the live consistency checks. And a walk id is never carried by the answers of
 * two campaigns: a walk answered to one key is never answered to a key of another campaign.
 *
 * Only what the rules need is kept, per walk: the latest summary's figures, a detail waiting for
 * its summary, and who was first answered the walk; never the answers themselves.
 */
import type { Stop } from '../../spec/types.ts';
import { centroidAccepted } from '../checks/consistency.ts';
import { checkById } from '../checks/registry.ts';
import type { CheckDeclaration } from '../runner.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Exchange } from '../types.ts';
import { lineOf } from './entry.ts';

export interface SummaryFacts {
  name: unknown;
  count: unknown;
  counts: unknown;
  lat: unknown;
  lng: unknown;
  line: string;
}

interface DetailFacts {
  name: unknown;
  stops: Stop[];
  line: string;
}

/** One cross-exchange rule's findings so far. */
export interface CrossTally {
  rule: CheckDeclaration;
  expected: string;
  unit: string;
  judged: number;
  problems: string[];
  /** The answer that completed the first failing pair (the evidence reports show). */
  first?: Exchange;
  example?: Exchange;
}

const MAX_PROBLEMS = 500;

function tally(rule: CheckDeclaration, expected: string, unit: string): CrossTally {
  return { rule, expected, unit, judged: 0, problems: [] };
}

function declared(id: string): CheckDeclaration {
  const { section, title, area, level, decision, hint } = checkById(id);
  return { id, section, title, area, level, hint, ...(decision ? { decision } : {}) };
}

export const WALK_ISOLATION: CheckDeclaration = {
  id: 'TRAFFIC-003',
  section: '§5.1, §4.3 rule 1',
  title: "No walk is answered to keys of two campaigns (a walk id never in two campaigns' answers)",
  area: 'isolation',
  level: 'required',
  hint: "Scope every query to the key's campaign: another campaign's walk is neither listed nor found.",
};

/**
 * What the rules read of a walk summary, as JSON text: a list answer's 200 summaries pass between
 * threads as 200 strings, far cheaper to copy than 200 objects. JSON keeps every value the rules
 * compare (a missing field stays missing: an object, not an array, so it does not become null).
 */
export function summaryText(walk: Record<string, unknown>): string {
  return JSON.stringify({
    name: walk.name,
    count: walk.count,
    counts: walk.counts,
    lat: walk.lat,
    lng: walk.lng,
  });
}

function factsOf(text: string, line: string): SummaryFacts {
  const { name, count, counts, lat, lng } = JSON.parse(text) as Record<string, unknown>;
  return { name, count, counts, lat, lng, line };
}

/** Summaries against details, walk by walk (CONSISTENCY-001, -002, -003). */
export class WalkPairs {
  readonly name = tally(declared('WALK-DETAIL-002'), 'detail name equal to the summary’s', 'walks');
  readonly count = tally(declared('CONSISTENCY-001'), 'count = number of stops', 'walks');
  readonly counts = tally(
    declared('CONSISTENCY-002'),
    'counts[status] = stops with that status, for every status',
    'walks',
  );
  readonly centroid = tally(
    declared('CONSISTENCY-003'),
    "lat/lng the centroid of the located stops, within the live checks' tolerance; null when none",
    'walks',
  );
  private readonly summaries = new Map<string, { text: string; line: string }>();
  private readonly waiting = new Map<string, DetailFacts>();

  private readonly statuses: readonly string[];

  constructor(statuses: readonly string[]) {
    this.statuses = statuses;
  }

  get tallies(): CrossTally[] {
    return [this.name, this.count, this.counts, this.centroid];
  }

  /**
   * A list answer: each walk's summary (`summaryText`); a detail that came first is compared with
   * it now. A summary is kept as its text and read back only when its detail comes: most are not.
   */
  addList(ids: readonly string[], summaries: readonly string[], exchange: Exchange): void {
    const line = lineOf(exchange);
    ids.forEach((id, i) => {
      const text = summaries[i] as string;
      this.summaries.set(id, { text, line });
      const detail = this.waiting.get(id);
      if (detail) {
        this.waiting.delete(id);
        this.compare(id, factsOf(text, line), detail, exchange);
      }
    });
  }

  /** A detail answer: compared with the latest summary of the walk, or kept until one comes. */
  addDetail(data: Record<string, unknown>, exchange: Exchange): void {
    if (typeof data.id !== 'string' || !Array.isArray(data.stops)) return;
    // Only what the rules read of each stop.
    const stops = data.stops.map((s) =>
      isObject(s) ? { lat: s.lat, lng: s.lng, status: s.status } : s,
    ) as Stop[];
    const detail = { name: data.name, stops, line: lineOf(exchange) };
    const summary = this.summaries.get(data.id);
    if (summary) this.compare(data.id, factsOf(summary.text, summary.line), detail, exchange);
    else if (!this.waiting.has(data.id)) this.waiting.set(data.id, detail);
  }

  private compare(id: string, summary: SummaryFacts, detail: DetailFacts, exchange: Exchange): void {
    const where = `walk ${id} (summary ${summary.line}, detail ${detail.line})`;
    const { stops } = detail;
    note(
      this.name,
      exchange,
      summary.name === detail.name
        ? []
        : [
            `${where}: detail name ${JSON.stringify(detail.name)} ≠ list name ${JSON.stringify(summary.name)}`,
          ],
    );
    note(
      this.count,
      exchange,
      summary.count === stops.length
        ? []
        : [`${where}: count ${JSON.stringify(summary.count)}, ${stops.length} stops`],
    );
    const counts: Record<string, unknown> = isObject(summary.counts) ? summary.counts : {};
    note(
      this.counts,
      exchange,
      this.statuses
        .map((status) => ({ status, real: stops.filter((s) => isObject(s) && s.status === status).length }))
        .filter(({ status, real }) => counts[status] !== real)
        .slice(0, 2)
        .map(
          ({ status, real }) =>
            `${where}: counts.${status} is ${JSON.stringify(counts[status])}, ${real} stops have it`,
        ),
    );
    note(
      this.centroid,
      exchange,
      centroidAccepted(summary.lat, summary.lng, stops)
        ? []
        : [
            `${where}: lat/lng ${String(summary.lat)}, ${String(summary.lng)} is not the centroid of its stops`,
          ],
    );
  }
}

function note(into: CrossTally, exchange: Exchange, problems: string[]): void {
  into.judged++;
  into.example ??= exchange;
  if (problems.length === 0) return;
  into.first ??= exchange;
  for (const problem of problems) if (into.problems.length < MAX_PROBLEMS) into.problems.push(problem);
}

/**
 * Which keys were answered each walk (TRAFFIC-003), judged once the whole file is read. A key's
 * campaign is the slug most of its list answers' links name (a leaked walk or two do not change
 * it); a key the file never shows a list to counts as a campaign of its own.
 */
export class WalkOwners {
  readonly tally = tally(WALK_ISOLATION, 'each walk id answered to keys of one campaign only', 'walks');
  /** Per walk id: each key it was answered to, with the first entry that showed it. */
  private readonly answeredTo = new Map<string, Map<string, string>>();
  /** Per key: how many walks of its list answers link under each campaign slug. */
  private readonly slugCounts = new Map<string, Map<string, number>>();
  private firstShared: Exchange | undefined;

  /**
   * A 200 answer carrying walks with these ids, to a request with this key (undefined: no key); `slugs`,
   * for a list answer, the campaign slug each walk's links name.
   */
  add(ids: readonly string[], exchange: Exchange, identity: string | undefined, slugs: string[] = []): void {
    if (identity === undefined) return;
    const line = lineOf(exchange);
    if (slugs.length > 0) {
      const counts = this.slugCounts.get(identity) ?? new Map<string, number>();
      for (const slug of slugs) counts.set(slug, (counts.get(slug) ?? 0) + 1);
      this.slugCounts.set(identity, counts);
    }
    for (const id of ids) {
      this.tally.example ??= exchange;
      const keys = this.answeredTo.get(id) ?? new Map<string, string>();
      if (keys.size === 0) this.answeredTo.set(id, keys);
      if (!keys.has(identity)) {
        keys.set(identity, line);
        if (keys.size === 2) this.firstShared ??= exchange;
      }
    }
  }

  private campaignOf(identity: string): string {
    const counts = [...(this.slugCounts.get(identity) ?? [])].sort((a, b) => b[1] - a[1]);
    return counts[0] ? `campaign ${counts[0][0]}` : `a key whose campaign the file does not show`;
  }

  /** The verdict's tally, once every entry is read. */
  finish(): CrossTally {
    const { tally: into } = this;
    for (const [walk, keys] of this.answeredTo) {
      into.judged++;
      if (keys.size < 2) continue;
      const owners = [...keys].map(([identity, line]) => ({
        campaign: this.campaignOf(identity),
        identity,
        line,
      }));
      const campaigns = new Set(
        owners.map((o) => (o.campaign.startsWith('campaign') ? o.campaign : o.identity)),
      );
      if (campaigns.size < 2) continue;
      into.first ??= this.firstShared;
      if (into.problems.length < MAX_PROBLEMS)
        into.problems.push(
          `walk ${walk}: answered to keys of ${campaigns.size} campaigns: ${owners.map((o) => `${o.campaign} in ${o.line}`).join('; ')}`,
        );
    }
    this.answeredTo.clear();
    return into;
  }
}

export const LIST_SIZES: CheckDeclaration = {
  id: 'TRAFFIC-006',
  section: '§4.2, §8',
  title: 'The lists one key got within a minute agree on one campaign size M: each holds min(limit, M) walks',
  area: 'walks-list',
  level: 'required',
  hint: 'Return min(limit, walks in the campaign) walks: a shorter page (a default below 50, a limit cut short) hides walks for good.',
};

/** Answers closer in time than this are taken to see the same campaign (walks come and go). */
const SAME_CAMPAIGN_MS = 60_000;

interface SizeWindow {
  /** Sizes below the bound asked: each says M exactly. */
  exact: Map<number, string>;
  /** The largest list: M is at least this. */
  least?: { walks: number; line: string };
}

/**
 * TRAFFIC-006: a list of k walks asked with bound b says M = k when k < b, and M ≥ k otherwise;
 * the lists of one key within a minute must agree on one M.
 */
export class ListSizes {
  readonly tally = tally(LIST_SIZES, 'min(limit, M) walks in every list of one key, one M', 'list answers');
  private readonly windows = new Map<string, SizeWindow>();

  add(walks: number, bound: number, exchange: Exchange, identity: string | undefined): void {
    if (identity === undefined) return;
    this.tally.example ??= exchange;
    const key = `${identity} ${Math.floor((exchange.startedAt ?? 0) / SAME_CAMPAIGN_MS)}`;
    const window = this.windows.get(key) ?? { exact: new Map<number, string>() };
    this.windows.set(key, window);
    const line = `${lineOf(exchange)} (${walks} walks)`;
    this.tally.judged++;
    const before = this.problemOf(window);
    if (walks < bound && !window.exact.has(walks)) window.exact.set(walks, line);
    if (!window.least || walks > window.least.walks) window.least = { walks, line };
    const after = this.problemOf(window);
    if (after && !before) {
      this.tally.first ??= exchange;
      if (this.tally.problems.length < MAX_PROBLEMS) this.tally.problems.push(after);
    }
  }

  private problemOf(window: SizeWindow): string | undefined {
    const exact = [...window.exact];
    if (exact.length > 1)
      return `one key's lists say the campaign has ${exact.map(([m, line]) => `${m} walks (${line})`).join(' and ')}`;
    const [only] = exact;
    if (only && window.least && window.least.walks > only[0])
      return `${only[1]} holds fewer walks than asked, so the campaign has ${only[0]}, yet ${window.least.line}`;
    return undefined;
  }
}

export const LISTED_FOUND: CheckDeclaration = {
  id: 'TRAFFIC-007',
  section: '§4.3, §4.2',
  title: 'A walk listed to a key is found for that key: its detail is not a 404 within the minute',
  area: 'walk-detail',
  level: 'required',
  hint: 'List only walks that can be fetched (no archived or deleted walk), and only the key’s own campaign’s.',
};

/**
 * TRAFFIC-007: the walks each key was listed, with when; a detail answered 404 to the same key
 * within a minute of the list contradicts it (a walk may be archived later, rarely that soon).
 */
export class ListedWalks {
  readonly tally = tally(LISTED_FOUND, 'every walk listed to a key found for it', 'walk details');
  /** Per key, per walk id: when and where it was last listed (a map per key: no key built per walk). */
  private readonly listed = new Map<string, Map<string, { at: number; line: string }>>();

  addList(ids: readonly string[], exchange: Exchange, identity: string | undefined): void {
    if (identity === undefined) return;
    const line = lineOf(exchange);
    const walks = this.listed.get(identity) ?? new Map<string, { at: number; line: string }>();
    this.listed.set(identity, walks);
    const seen = { at: exchange.startedAt ?? 0, line };
    for (const id of ids) walks.set(id, seen);
  }

  /** A detail answer to `identity` for the walk in its path. */
  addDetail(walkId: string, status: number, exchange: Exchange, identity: string | undefined): void {
    if (identity === undefined) return;
    const listed = this.listed.get(identity)?.get(walkId);
    if (!listed || Math.abs((exchange.startedAt ?? 0) - listed.at) > SAME_CAMPAIGN_MS) return;
    note(
      this.tally,
      exchange,
      status === 404 ? [`walk ${walkId}: listed in ${listed.line}, not found in ${lineOf(exchange)}`] : [],
    );
  }
}
