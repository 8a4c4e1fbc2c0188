/**
 * The sweep proof's deployments: faults a sample would miss, each expected to turn the run red
 * with a named requirement, and correct deployments that make other legal choices and must stay
 * green. Each is a proxy variant in front of the reference server (`sweep-proxy.ts`).
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Walk } from '../../fixtures/index.ts';
import { generateDataset } from '../../fixtures/index.ts';
import { sphericalMean } from '../rules/walks/centroid.ts';
import { seededRandom } from '../core/seeded.ts';
import type { Json, ProxyAnswer, Variant } from './sweep-proxy.ts';
import { asked, editJson, jsonAnswer, stopsIn, walksIn } from './sweep-proxy.ts';

export interface SweepCase {
  name: string;
  /** What is wrong (or which legal choice is made), in words. */
  description: string;
  variant: Variant;
  /** Options of the reference server behind the proxy. */
  options?: { walks?: number };
  /** Faults: the requirement that must fail (the run exits 1). Correct deployments: absent (exit 0). */
  breaks?: string;
}

/** The primary campaign's active walks in list order (newest first), as the default data set has them. */
function primaryWalks(): Walk[] {
  const dataset = generateDataset();
  const primary = dataset.campaigns[0]?.id;
  return dataset.walks.filter((w) => w.campaignId === primary && w.state === 'active');
}

const walks = primaryWalks();
const idAt = (index: number) => walks[index]?.id ?? '';
const detailId = (path: string) => decodeURIComponent(path.split('/').pop() ?? '');

export const FAULTS: SweepCase[] = [
  {
    name: 'one-record',
    description: "one walk's detail (the 137th listed) carries another name than its summary",
    breaks: 'ITEM-002',
    variant: {
      answer: (a, q) =>
        asked.isDetail(q) && detailId(q.path) === idAt(136) && a.status === 200
          ? editJson(a, (b) => void ((b.data as Json).name = 'Renamed on the detail only'))
          : undefined,
    },
  },
  {
    name: 'past-the-hundredth',
    description: 'every walk after the hundredth in a list counts one stop too many',
    breaks: 'CONSISTENCY-001',
    variant: {
      answer: (a, q) =>
        asked.isList(q) && a.status === 200
          ? editJson(a, (b) =>
              walksIn(b).forEach((w, i) => void (i >= 100 && (w.count = Number(w.count) + 1))),
            )
          : undefined,
    },
  },
  {
    name: 'isolation-some-walks',
    description: "the other campaign's key fetches one in seventeen of this campaign's walks",
    breaks: 'ISOLATION-002',
    variant: {
      forward: (q) =>
        asked.isDetail(q) &&
        q.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY' &&
        walks.findIndex((w) => w.id === detailId(q.path)) % 17 === 5
          ? { key: 'CONFORMANCE_API_KEY' }
          : undefined,
    },
  },
  {
    name: 'isolation-list-only',
    description: "the other campaign's full list is served from this campaign's (the detail route is right)",
    breaks: 'ISOLATION-001',
    variant: {
      forward: (q) =>
        asked.isList(q) && q.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY'
          ? { key: 'CONFORMANCE_API_KEY' }
          : undefined,
    },
  },
  {
    name: 'auth-list-only',
    description: 'the detail route serves requests without a key (the list route refuses them)',
    breaks: 'AUTH-003',
    variant: {
      forward: (q) => (asked.isDetail(q) && q.key === undefined ? { key: 'CONFORMANCE_API_KEY' } : undefined),
    },
  },
  {
    name: 'limit-some-values',
    description: 'limit from 101 to 150 returns one walk less than asked',
    breaks: 'COLLECTION-008',
    variant: {
      forward: (q) => {
        const n = Number(q.query.get('limit'));
        return asked.isList(q) && n >= 101 && n <= 150 ? { rawQuery: `limit=${n - 1}` } : undefined;
      },
    },
  },
  {
    name: 'undecodable-body',
    description: 'one walk detail in fifty comes as a cut gzip stream under Content-Encoding: gzip',
    breaks: 'ENVELOPE-012',
    variant: {
      answer: (a, q) => {
        if (
          !asked.isDetail(q) ||
          a.status !== 200 ||
          walks.findIndex((w) => w.id === detailId(q.path)) % 50 !== 3
        )
          return undefined;
        const coded = gzipSync(a.body);
        return {
          ...a,
          headers: { ...a.headers, 'content-encoding': 'gzip' },
          body: coded.subarray(0, coded.length - 12),
        };
      },
    },
  },
  {
    name: 'url-keyed-cache',
    description: "a cache keyed by URL alone serves one key's answer to another",
    breaks: 'ISOLATION-002',
    variant: urlKeyedCache(),
  },
  {
    name: 'flaky-upstream',
    description: 'an upstream that fails one request in twenty (seeded): a 502 HTML page or a reset',
    breaks: 'ENVELOPE-011',
    variant: flakyUpstream(20261124),
  },
  {
    name: 'swapped-coordinates',
    description: 'one walk (the 78th) lists its centroid as lng, lat',
    breaks: 'CONSISTENCY-003',
    variant: {
      answer: (a, q) =>
        asked.isList(q) && a.status === 200
          ? editJson(a, (b) =>
              walksIn(b)
                .filter((w) => w.id === idAt(77))
                .forEach((w) => void ([w.lat, w.lng] = [w.lng, w.lat])),
            )
          : undefined,
    },
  },
];

export const CORRECT: SweepCase[] = [
  {
    name: 'gateway-prefix',
    description: 'behind a gateway path prefix',
    variant: { prefix: '/gateway/canvass' },
  },
  {
    name: 'small-campaign',
    description: 'a campaign of 30 walks, fewer than the default limit',
    variant: {},
    options: { walks: 30 },
  },
  {
    name: 'throttled',
    description: '429 with Retry-After: 1 for the 4 requests after every 150th',
    variant: throttled(150),
  },
  {
    name: 'chunked-close',
    description: 'every answer chunked, without Content-Length, with Connection: close',
    variant: { write: writeChunkedAndClose },
  },
  {
    name: 'gzip-always',
    description: 'gzip on every answer, whatever Accept-Encoding says',
    variant: { answer: gzipAlways },
  },
  {
    name: 'spherical-rural',
    description:
      'walks spread over kilometres, with spherical centroids (they differ from planar means by more than 1e-6°)',
    variant: sphericalRural(40),
  },
];

function urlKeyedCache(): Variant {
  const cache = new Map<string, ProxyAnswer>();
  return {
    answer: (a, q) => {
      const key = `${q.method} ${q.path}?${q.rawQuery}`;
      const known = cache.get(key);
      if (known) return known;
      cache.set(key, a);
      return undefined;
    },
  };
}

function flakyUpstream(seed: number): Variant {
  const random = seededRandom(seed);
  let faults = 0;
  return {
    answer: (_a, q) => {
      // The first requests pass, so the run starts (a target failing its very first request is exit 2).
      if (q.seq <= 5 || random() >= 1 / 20) return undefined;
      faults++;
      if (faults % 2 === 0) return 'reset';
      return {
        status: 502,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from('<html><body><h1>502 Bad Gateway</h1></body></html>'),
      };
    },
  };
}

/**
 * After every `every`-th request, the next `refused` requests get 429 with Retry-After: 1: counted
 * in requests, not in time, so what the suite meets does not depend on the machine's speed.
 */
function throttled(every: number, refused = 4): Variant {
  let refuseNext = 0;
  return {
    answer: (a, q) => {
      if (refuseNext > 0) {
        refuseNext--;
        return jsonAnswer(
          429,
          { ok: false, error: { code: 'rate_limited', message: 'Too many requests; retry later.' } },
          { 'retry-after': '1' },
        );
      }
      if (q.seq % every === 0) refuseNext = refused;
      return a;
    },
  };
}

function writeChunkedAndClose(res: ServerResponse, answer: ProxyAnswer): void {
  res.setHeader('connection', 'close');
  res.writeHead(answer.status, answer.headers);
  const third = Math.ceil(answer.body.length / 3);
  for (let at = 0; at < answer.body.length; at += third) res.write(answer.body.subarray(at, at + third));
  res.end();
}

function gzipAlways(a: ProxyAnswer): ProxyAnswer | undefined {
  if (a.body.length === 0) return undefined;
  return {
    ...a,
    headers: { ...a.headers, 'content-encoding': 'gzip', vary: 'Authorization, x-api-key, Accept-Encoding' },
    body: gzipSync(a.body),
  };
}

/**
 * Every walk's stops spread `factor` times further from their mean (a street walk becomes a rural
 * one of kilometres), and every summary's centroid the spherical mean of the spread stops.
 */
function sphericalRural(factor: number): Variant {
  const dataset = generateDataset();
  const spread = new Map<string, Map<string, { lat: number; lng: number }>>();
  const centroids = new Map<string, { lat: number; lng: number } | null>();
  for (const walk of dataset.walks) {
    const located = walk.stops.filter((s) => s.lat !== null && s.lng !== null);
    if (located.length === 0) continue;
    const mean = (pick: (s: (typeof located)[number]) => number) =>
      located.reduce((sum, s) => sum + pick(s), 0) / located.length;
    const c = { lat: mean((s) => s.lat as number), lng: mean((s) => s.lng as number) };
    const moved = new Map(
      located.map((s) => [
        s.id,
        {
          lat: c.lat + factor * ((s.lat as number) - c.lat),
          lng: c.lng + factor * ((s.lng as number) - c.lng),
        },
      ]),
    );
    spread.set(walk.id, moved);
    centroids.set(walk.id, sphericalMean([...moved.values()]));
  }
  return {
    answer: (a, q) => {
      if (a.status !== 200) return undefined;
      if (asked.isList(q)) {
        return editJson(a, (b) =>
          walksIn(b).forEach((w) => {
            const c = centroids.get(String(w.id));
            if (c) Object.assign(w, { lat: c.lat, lng: c.lng });
          }),
        );
      }
      if (!asked.isDetail(q)) return undefined;
      const moved = spread.get(detailId(q.path));
      return editJson(a, (b) =>
        stopsIn(b).forEach((s) => {
          const to = moved?.get(String(s.id));
          if (to) Object.assign(s, to);
        }),
      );
    },
  };
}

/** The largest gap between the spherical and the planar centroid over the spread walks, in degrees. */
export function sphericalPlanarGap(factor: number): number {
  let gap = 0;
  for (const walk of walks) {
    const located = walk.stops.filter((s) => s.lat !== null && s.lng !== null) as {
      lat: number;
      lng: number;
    }[];
    if (located.length < 2) continue;
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const c = { lat: mean(located.map((s) => s.lat)), lng: mean(located.map((s) => s.lng)) };
    const moved = located.map((s) => ({
      lat: c.lat + factor * (s.lat - c.lat),
      lng: c.lng + factor * (s.lng - c.lng),
    }));
    const planar = { lat: mean(moved.map((s) => s.lat)), lng: mean(moved.map((s) => s.lng)) };
    const sphere = sphericalMean(moved);
    if (sphere) gap = Math.max(gap, Math.abs(sphere.lat - planar.lat), Math.abs(sphere.lng - planar.lng));
  }
  return gap;
}
