/**
 * The walks of a data set, arranged the way the API reads them: per campaign, active walks only,
 * newest first (D-ORDER), each summary (count, counts, centroid, links) computed once at load and
 * kept as JSON. Response bodies and their ETags are built on first use and then reused.
 */
import { STOP_STATUSES } from '../fixtures/index.ts';
import type { Campaign, Dataset, Stop, Walk } from '../fixtures/index.ts';
import type { StatusCounts, WalkSummary } from '../spec/types.ts';
import { type PreparedBody, prepareBody } from './envelope.ts';

export const MAX_LIMIT = 200;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One campaign's view: the only data a key of that campaign can reach. */
export class CampaignWalks {
  private readonly summaries: string[];
  private readonly walksById = new Map<string, Walk>();
  private readonly listBodies = new Map<number, PreparedBody>();
  private readonly detailBodies = new Map<string, PreparedBody>();

  constructor(campaign: Campaign, walks: Walk[], webBaseUrl: string) {
    const active = walks.filter((walk) => walk.state === 'active').sort(newestFirst);
    this.summaries = active.map((walk) => JSON.stringify(walkSummary(walk, campaign, webBaseUrl)));
    for (const walk of active) this.walksById.set(walk.id.toLowerCase(), walk);
  }

  /** The list answer for `limit` (1..200), memoised per limit. */
  list(limit: number): PreparedBody {
    let body = this.listBodies.get(limit);
    if (!body) {
      const items = this.summaries.slice(0, limit);
      body = prepareBody(`{"ok":true,"data":[${items.join(',')}],"meta":{"count":${items.length}}}`);
      this.listBodies.set(limit, body);
    }
    return body;
  }

  /** The detail answer of an active walk of this campaign; undefined for any other id. */
  walk(id: string): PreparedBody | undefined {
    if (!UUID_SHAPE.test(id)) return undefined;
    const key = id.toLowerCase();
    let body = this.detailBodies.get(key);
    if (!body) {
      const walk = this.walksById.get(key);
      if (!walk) return undefined;
      body = prepareBody(JSON.stringify({ ok: true, data: walkDetail(walk) }));
      this.detailBodies.set(key, body);
    }
    return body;
  }

  /** Builds the bodies clients ask for most, so the first request is as fast as the next. */
  warm(defaultLimit: number): void {
    this.list(defaultLimit);
    this.list(MAX_LIMIT);
  }
}

export class WalkRepository {
  private readonly campaigns = new Map<string, CampaignWalks>();

  constructor(dataset: Dataset, webBaseUrl: string) {
    const walksByCampaign = new Map<string, Walk[]>();
    for (const walk of dataset.walks) {
      const list = walksByCampaign.get(walk.campaignId);
      if (list) list.push(walk);
      else walksByCampaign.set(walk.campaignId, [walk]);
    }
    for (const campaign of dataset.campaigns) {
      const view = new CampaignWalks(campaign, walksByCampaign.get(campaign.id) ?? [], webBaseUrl);
      this.campaigns.set(campaign.id, view);
    }
  }

  campaign(campaignId: string): CampaignWalks | undefined {
    return this.campaigns.get(campaignId);
  }

  warm(defaultLimit: number): void {
    for (const view of this.campaigns.values()) view.warm(defaultLimit);
  }
}

/** D-ORDER: creation time descending, ties broken by id ascending. */
function newestFirst(a: Walk, b: Walk): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function walkSummary(walk: Walk, campaign: Campaign, webBaseUrl: string): WalkSummary {
  const { lat, lng } = centroidOf(walk.stops);
  return {
    id: walk.id,
    name: walk.name,
    lat,
    lng,
    count: walk.stops.length,
    counts: countsOf(walk.stops),
    web_url: `${webBaseUrl}/dashboard/${campaign.slug}/walks/${walk.id}`,
    app_link: `${webBaseUrl}/open/${campaign.slug}/walks/${walk.id}`,
  };
}

/** D-CENTROID: the plain mean of the stops that have both coordinates; null and null when none has. */
export function centroidOf(stops: readonly Stop[]): { lat: number | null; lng: number | null } {
  let lat = 0;
  let lng = 0;
  let located = 0;
  for (const stop of stops) {
    if (stop.lat === null || stop.lng === null) continue;
    lat += stop.lat;
    lng += stop.lng;
    located += 1;
  }
  return located === 0 ? { lat: null, lng: null } : { lat: lat / located, lng: lng / located };
}

/** Every status key, in the spec's order, 0 when there are none. */
export function countsOf(stops: readonly Stop[]): StatusCounts {
  const counts = Object.fromEntries(STOP_STATUSES.map((status) => [status, 0])) as StatusCounts;
  for (const stop of stops) counts[stop.status] += 1;
  return counts;
}

/** Exactly the spec's fields, stops in ascending position. */
function walkDetail(walk: Walk): { id: string; name: string; stops: Stop[] } {
  const stops = walk.stops
    .map(({ id, lat, lng, status, position }): Stop => ({ id, lat, lng, status, position }))
    .sort((a, b) => a.position - b.position);
  return { id: walk.id, name: walk.name, stops };
}
