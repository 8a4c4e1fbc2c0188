import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkDetailEnvelope, WalkListEnvelope } from '../../spec/types.ts';
import { activeWalksOf, bearer, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
let custom: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  custom = await startTestServer({ webBaseUrl: 'https://staging.example.org/app/' });
});
afterAll(async () => {
  await server.close();
  await custom.close();
});

async function list(target: TestServer, query = '', key = target.keys.CONFORMANCE_API_KEY) {
  return validBody<WalkListEnvelope>('listWalks', await target.get(`/api/v1/walks${query}`, bearer(key)));
}

describe('GET /api/v1/walks', () => {
  it('returns 50 walks by default with meta.count equal to the items returned', async () => {
    const body = await list(server);
    expect(body.data).toHaveLength(50);
    expect(body.meta.count).toBe(50);
  });

  it('returns exactly limit walks for limits 1, 7 and 200', async () => {
    for (const limit of [1, 7, 200]) {
      const body = await list(server, `?limit=${limit}`);
      expect(body.data).toHaveLength(limit);
      expect(body.meta.count).toBe(limit);
    }
  });

  it('lists only active walks, newest first with ties broken by id (D-ORDER)', async () => {
    const body = await list(server, '?limit=200');
    const expected = activeWalksOf(server.dataset, 0)
      .slice()
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
      .slice(0, 200)
      .map((walk) => walk.id);
    expect(body.data.map((walk) => walk.id)).toEqual(expected);
    const inactive = new Set(
      server.dataset.walks.filter((walk) => walk.state !== 'active').map((walk) => walk.id),
    );
    expect(inactive.size).toBeGreaterThan(0);
    expect(body.data.some((walk) => inactive.has(walk.id))).toBe(false);
  });

  it('is stable between calls and a shorter limit is a prefix of a longer one', async () => {
    const long = await list(server, '?limit=200');
    const again = await list(server, '?limit=200');
    const short = await list(server, '?limit=13');
    expect(again).toEqual(long);
    expect(short.data).toEqual(long.data.slice(0, 13));
  });

  it('includes a walk with no stops and a walk whose stops all lack coordinates among the first 200', async () => {
    const body = await list(server, '?limit=200');
    const empty = body.data.find((walk) => walk.count === 0);
    const unlocated = body.data.find((walk) => walk.count > 0 && walk.lat === null);
    expect(empty).toMatchObject({ lat: null, lng: null });
    expect(unlocated).toBeDefined();
    expect(unlocated?.lng).toBeNull();
  });

  it('summaries agree with the detail: count, per-status counts and centroid (D-CENTROID)', async () => {
    const body = await list(server, '?limit=60');
    for (const summary of body.data) {
      const detail = validBody<WalkDetailEnvelope>(
        'getWalk',
        await server.get(`/api/v1/walks/${summary.id}`, bearer(server.keys.CONFORMANCE_API_KEY)),
      ).data;
      expect(detail.name).toBe(summary.name);
      expect(summary.count).toBe(detail.stops.length);
      for (const [status, count] of Object.entries(summary.counts)) {
        expect(detail.stops.filter((stop) => stop.status === status).length).toBe(count);
      }
      const located = detail.stops.filter((stop) => stop.lat !== null && stop.lng !== null);
      if (located.length === 0) {
        expect([summary.lat, summary.lng]).toEqual([null, null]);
      } else {
        const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
        expect(Math.abs((summary.lat as number) - mean(located.map((s) => s.lat as number)))).toBeLessThan(
          1e-6,
        );
        expect(Math.abs((summary.lng as number) - mean(located.map((s) => s.lng as number)))).toBeLessThan(
          1e-6,
        );
      }
    }
  });

  it('builds web_url and app_link from the default web base URL and the campaign slug', async () => {
    const body = await list(server, '?limit=5');
    const slug = server.dataset.campaigns[0]?.slug;
    for (const walk of body.data) {
      expect(walk.web_url).toBe(`https://dashboard.canvassing.example/dashboard/${slug}/walks/${walk.id}`);
      expect(walk.app_link).toBe(`https://dashboard.canvassing.example/open/${slug}/walks/${walk.id}`);
    }
  });

  it('builds the links from a configured web base URL, dropping its trailing slash', async () => {
    const body = await list(custom, '?limit=3');
    const slug = custom.dataset.campaigns[0]?.slug;
    for (const walk of body.data) {
      expect(walk.web_url).toBe(`https://staging.example.org/app/dashboard/${slug}/walks/${walk.id}`);
      expect(walk.app_link).toBe(`https://staging.example.org/app/open/${slug}/walks/${walk.id}`);
    }
  });

  it("lists the second campaign's own walks to its key", async () => {
    const body = await list(server, '?limit=200', server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY);
    const own = new Set(activeWalksOf(server.dataset, 1).map((walk) => walk.id));
    expect(body.data.length).toBe(own.size);
    expect(body.data.every((walk) => own.has(walk.id))).toBe(true);
  });

  it('answers a campaign without walks with 200, an empty array and meta.count 0', async () => {
    const body = await list(server, '', server.keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY);
    expect(body).toEqual({ ok: true, data: [], meta: { count: 0 } });
  });

  it('accepts the key in x-api-key as well as in Authorization', async () => {
    const viaHeader = await server.get('/api/v1/walks?limit=3', {
      'x-api-key': server.keys.CONFORMANCE_API_KEY,
    });
    const viaBearer = await server.get('/api/v1/walks?limit=3', bearer(server.keys.CONFORMANCE_API_KEY));
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.text).toBe(viaBearer.text);
  });
});
