/**
 * The walks of a data set, arranged the way the API reads them: per campaign, active walks only,
 * newest first (D-ORDER). Every answer body is built at load with its ETag, so a request only
 * looks one up: the list for each `limit` (1..200), and each walk's detail. A data set too large
 * for that (over `EAGER_DETAIL_STOPS` stops, far beyond the demo) builds each detail on its first
 * request instead, once.
 */
import { createHash } from 'node:crypto';
import { STOP_STATUSES } from '../fixtures/index.ts';
import type { Campaign, Dataset, Walk } from '../fixtures/index.ts';
import type { Stop, StatusCounts, WalkSummary } from '../spec/types.ts';
import { LIMIT } from '../spec/facts.ts';
import { entityTag, type PreparedBody, prepareBody } from './envelope.ts';

export const MAX_LIMIT = LIMIT.maximum;
/** Active stops up to which every detail is built at load: about 11,000 walks (the demo has 12,000 stops). */
const EAGER_DETAIL_STOPS = 500_000;
export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One campaign's view: the only data a key of that campaign can reach. */
export class CampaignWalks {
  /** `listBodies[n]` lists the first `n` walks; a larger limit gets the longest one. */
  private readonly listBodies: PreparedBody[];
  private readonly walksById = new Map<string, Walk>();
  private readonly detailBodies = new Map<string, PreparedBody>();

  constructor(
    campaign: Campaign,
    walks: Walk[],
    webBaseUrl: string,
    { order = 'newest-first', centroid = 'planar' }: Partial<Arrangement> = {},
  ) {
    const active = walks.filter((walk) => walk.state === 'active').sort(ORDERS[order]);
    const summaries = active
      .slice(0, MAX_LIMIT)
      .map((walk) => JSON.stringify(walkSummary(walk, campaign, webBaseUrl, centroid)));
    this.listBodies = listBodies(summaries);
    for (const walk of active) this.walksById.set(walk.id.toLowerCase(), walk);
  }

  /** The list answer for `limit` (1..200). */
  list(limit: number): PreparedBody {
    const bodies = this.listBodies;
    return bodies[Math.min(limit, bodies.length - 1)] as PreparedBody;
  }

  /** The detail answer of an active walk of this campaign; undefined for any other id. */
  walk(id: string): PreparedBody | undefined {
    const key = id.toLowerCase();
    return this.detailBodies.get(key) ?? this.prepareDetail(key);
  }

  /** Active stops of this campaign, to decide whether every detail is built at load. */
  stopCount(): number {
    let stops = 0;
    for (const walk of this.walksById.values()) stops += walk.stops.length;
    return stops;
  }

  /** Builds every detail body now, so no request ever serializes or hashes one. */
  prepareAllDetails(): void {
    for (const key of this.walksById.keys()) this.prepareDetail(key);
  }

  private prepareDetail(key: string): PreparedBody | undefined {
    const walk = this.walksById.get(key);
    if (!walk) return undefined;
    const body = prepareBody(JSON.stringify({ ok: true, data: walkDetail(walk) }));
    this.detailBodies.set(key, body);
    return body;
  }
}

/**
 * The list bodies for 0..n summaries. Each one is the previous one's prefix plus one summary, so
 * the bytes are copied from one buffer and the SHA-256 state is carried from body to body
 * (`Hash#copy`): load time grows with the bytes of the longest list, not with their sum.
 */
function listBodies(summaries: readonly string[]): PreparedBody[] {
  const head = '{"ok":true,"data":[';
  const all = Buffer.from(head + summaries.join(','), 'utf8');
  const hash = createHash('sha256');
  const bodies: PreparedBody[] = [];
  let end = Buffer.byteLength(head);
  hash.update(all.subarray(0, end));
  for (let count = 0; count <= summaries.length; count++) {
    if (count > 0) {
      const start = end;
      end += (count > 1 ? 1 : 0) + Buffer.byteLength(summaries[count - 1] as string);
      hash.update(all.subarray(start, end));
    }
    const tail = Buffer.from(`],"meta":{"count":${count}}}`, 'utf8');
    bodies.push({
      bytes: Buffer.concat([all.subarray(0, end), tail]),
      etag: entityTag(hash.copy().update(tail)),
    });
  }
  return bodies;
}

/** Where the routes find a campaign's walks: a repository, or the one of the clock's instant. */
export interface WalkSource {
  campaign(campaignId: string): CampaignWalks | undefined;
}

export class WalkRepository implements WalkSource {
  private readonly campaigns = new Map<string, CampaignWalks>();
  /** Whether every detail body was built at load (false only for data sets over `EAGER_DETAIL_STOPS`). */
  readonly detailsAtLoad: boolean;

  constructor(
    dataset: Dataset,
    webBaseUrl: string,
    {
      eagerDetailStops = EAGER_DETAIL_STOPS,
      ...arrangement
    }: Partial<Arrangement> & { eagerDetailStops?: number } = {},
  ) {
    const walksByCampaign = new Map<string, Walk[]>();
    for (const walk of dataset.walks) {
      const list = walksByCampaign.get(walk.campaignId);
      if (list) list.push(walk);
      else walksByCampaign.set(walk.campaignId, [walk]);
    }
    for (const campaign of dataset.campaigns) {
      const view = new CampaignWalks(
        campaign,
        walksByCampaign.get(campaign.id) ?? [],
        webBaseUrl,
        arrangement,
      );
      this.campaigns.set(campaign.id, view);
    }
    const views = [...this.campaigns.values()];
    this.detailsAtLoad = views.reduce((stops, view) => stops + view.stopCount(), 0) <= eagerDetailStops;
    if (this.detailsAtLoad) for (const view of views) view.prepareAllDetails();
  }

  campaign(campaignId: string): CampaignWalks | undefined {
    return this.campaigns.get(campaignId);
  }
}

/** D-ORDER: ours is newest first; a variant may list in another stable order. */
type WalkOrder = 'newest-first' | 'oldest-first' | 'name' | 'id';
/** D-CENTROID: ours is the plain mean; a variant may take the mean on the sphere. */
export type CentroidMethod = 'planar' | 'spherical';
/** How a variant arranges what the repository serves; ours: newest first, plain mean. */
export interface Arrangement {
  order: WalkOrder;
  centroid: CentroidMethod;
}

const byId = (a: Walk, b: Walk) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ORDERS: Record<WalkOrder, (a: Walk, b: Walk) => number> = {
  /** Creation time descending, ties broken by id ascending. */
  'newest-first': (a, b) => (a.createdAt === b.createdAt ? byId(a, b) : a.createdAt < b.createdAt ? 1 : -1),
  'oldest-first': (a, b) => (a.createdAt === b.createdAt ? byId(a, b) : a.createdAt < b.createdAt ? -1 : 1),
  name: (a, b) => (a.name === b.name ? byId(a, b) : a.name < b.name ? -1 : 1),
  id: byId,
};

export function walkSummary(
  walk: Walk,
  campaign: Campaign,
  webBaseUrl: string,
  centroid: CentroidMethod = 'planar',
): WalkSummary {
  const { lat, lng } = centroid === 'planar' ? centroidOf(walk.stops) : sphericalCentroidOf(walk.stops);
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
export function centroidOf(stops: readonly Pick<Stop, 'lat' | 'lng'>[]): {
  lat: number | null;
  lng: number | null;
} {
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

const RADIAN = Math.PI / 180;

/** D-CENTROID, a variant's choice: the mean of the located stops' unit vectors, back to degrees. */
export function sphericalCentroidOf(stops: readonly Pick<Stop, 'lat' | 'lng'>[]): {
  lat: number | null;
  lng: number | null;
} {
  let x = 0;
  let y = 0;
  let z = 0;
  for (const stop of stops) {
    if (stop.lat === null || stop.lng === null) continue;
    const lat = stop.lat * RADIAN;
    const lng = stop.lng * RADIAN;
    x += Math.cos(lat) * Math.cos(lng);
    y += Math.cos(lat) * Math.sin(lng);
    z += Math.sin(lat);
  }
  const horizontal = Math.hypot(x, y);
  // No located stop, or stops that cancel out (antipodes): the plain mean is the only answer left.
  if (horizontal === 0 && z === 0) return centroidOf(stops);
  return { lat: Math.atan2(z, horizontal) / RADIAN, lng: Math.atan2(y, x) / RADIAN };
}

/** Every status key, in the spec's order, 0 when there are none. */
function countsOf(stops: readonly Stop[]): StatusCounts {
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
