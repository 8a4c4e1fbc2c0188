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
import { parseWalkLink } from '../checks/walks-list.ts';
import type { CheckDeclaration } from '../runner.ts';
import { isObject } from '../shared-fetches.ts';
import type { Exchange } from '../types.ts';
import { entryLine } from './entry.ts';

export interface SummaryFacts {
  count: unknown;
  counts: unknown;
  lat: unknown;
  lng: unknown;
  line: string;
}

interface DetailFacts {
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

const lineOf = (exchange: Exchange) => entryLine(exchange.seq, exchange.request.method, exchange.request.url);

/** Summaries against details, walk by walk (CONSISTENCY-001, -002, -003). */
export class WalkPairs {
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
  private readonly summaries = new Map<string, SummaryFacts>();
  private readonly waiting = new Map<string, DetailFacts>();

  constructor(private readonly statuses: readonly string[]) {}

  get tallies(): CrossTally[] {
    return [this.count, this.counts, this.centroid];
  }

  /** A list answer: each walk's summary; a detail that came first is compared with it now. */
  addList(walks: unknown[], exchange: Exchange): void {
    const line = lineOf(exchange);
    for (const walk of walks) {
      if (!isObject(walk) || typeof walk.id !== 'string') continue;
      const facts = { count: walk.count, counts: walk.counts, lat: walk.lat, lng: walk.lng, line };
      this.summaries.set(walk.id, facts);
      const detail = this.waiting.get(walk.id);
      if (detail) {
        this.waiting.delete(walk.id);
        this.compare(walk.id, facts, detail, exchange);
      }
    }
  }

  /** A detail answer: compared with the latest summary of the walk, or kept until one comes. */
  addDetail(data: Record<string, unknown>, exchange: Exchange): void {
    if (typeof data.id !== 'string' || !Array.isArray(data.stops)) return;
    // Only what the rules read of each stop.
    const stops = data.stops.map((s) =>
      isObject(s) ? { lat: s.lat, lng: s.lng, status: s.status } : s,
    ) as Stop[];
    const detail = { stops, line: lineOf(exchange) };
    const summary = this.summaries.get(data.id);
    if (summary) this.compare(data.id, summary, detail, exchange);
    else if (!this.waiting.has(data.id)) this.waiting.set(data.id, detail);
  }

  private compare(id: string, summary: SummaryFacts, detail: DetailFacts, exchange: Exchange): void {
    const where = `walk ${id} (summary ${summary.line}, detail ${detail.line})`;
    const { stops } = detail;
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

interface Owner {
  campaign: string;
  identity: string;
  line: string;
}

/**
 * Which campaign answered each walk (TRAFFIC-003). A key's campaign is the slug its list answers'
 * links name; a key the file never shows a list to counts as a campaign of its own.
 */
export class WalkOwners {
  readonly tally = tally(WALK_ISOLATION, 'each walk id answered to keys of one campaign only', 'walks');
  private readonly owners = new Map<string, Owner>();
  private readonly slugs = new Map<string, string>();

  /** A 200 answer carrying these walks, to a request with this key (undefined: no key). */
  add(walks: unknown[], exchange: Exchange, identity: string | undefined, isList: boolean): void {
    if (identity === undefined) return;
    if (isList && !this.slugs.has(identity)) {
      const first = walks.find(isObject);
      const link = first ? parseWalkLink(first.web_url, 'dashboard') : undefined;
      if (link && typeof link !== 'string') this.slugs.set(identity, `campaign ${link.slug}`);
    }
    const campaign = this.slugs.get(identity) ?? 'a campaign the file does not name';
    const line = lineOf(exchange);
    for (const walk of walks) {
      if (!isObject(walk) || typeof walk.id !== 'string') continue;
      this.tally.judged++;
      this.tally.example ??= exchange;
      const owner = this.owners.get(walk.id);
      if (!owner) {
        this.owners.set(walk.id, { campaign, identity, line });
        continue;
      }
      const ownerCampaign = this.slugs.get(owner.identity) ?? owner.campaign;
      if (owner.identity === identity || (ownerCampaign === campaign && !campaign.startsWith('a campaign')))
        continue;
      note(this.tally, exchange, [
        `walk ${walk.id}: answered to one key (${ownerCampaign}) in ${owner.line} and to another (${campaign}) in ${line}`,
      ]);
      this.tally.judged--;
    }
  }
}
