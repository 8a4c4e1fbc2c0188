/**
 * Variants (`--variant SEED`): drawn from the seed alone, reaching every legal choice, and served
 * as described: each open point answers the way `--print-variant` says.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { centroidOf, sphericalCentroidOf } from '../repository.ts';
import { CHOICES, DEFAULT_VARIANT, describeVariant, type Variant, variantOf } from '../variants/variant.ts';
import { activeWalksOf, bearer, errorOf, startTestServer, type TestServer } from './harness.ts';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((server) => server.close())));

describe('drawing variants', () => {
  it('draws the same variant from the same seed, and reaches every choice over 64 seeds', () => {
    expect(variantOf(3)).toEqual(variantOf(3));
    const variants = Array.from({ length: 64 }, (_, i) => variantOf(i + 1));
    for (const [point, choices] of Object.entries(CHOICES)) {
      const drawn = new Set(variants.map((variant) => JSON.stringify(variant[point as keyof Variant])));
      expect([point, drawn.size]).toEqual([point, choices.length]);
    }
  });

  it('differs from our decisions somewhere for each of seeds 1 to 8, and says where', () => {
    for (const seed of SEEDS) {
      const marked = describeVariant(variantOf(seed)).filter((line) => line.includes('(ours:'));
      expect([seed, marked.length > 0]).toEqual([seed, true]);
    }
    expect(describeVariant(DEFAULT_VARIANT).some((line) => line.includes('(ours:'))).toBe(false);
  });
});

describe('serving a variant', () => {
  it.each(SEEDS)('seed %i answers every open point as it describes', async (seed) => {
    const variant = variantOf(seed);
    const server = await startTestServer({ variant });
    started.push(server);
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    const refusal = async (path: string, headers = {}, method = 'GET') => {
      const answer = await server.send(method, path, headers);
      return { status: answer.status, code: errorOf(answer).code };
    };
    expect(await refusal('/api/v1/walks')).toEqual(variant.missingKey);
    expect(await refusal('/api/v1/walks', { authorization: 'Basic eDp5' })).toEqual(variant.malformedKey);
    expect(await refusal('/api/v1/walks', bearer(`${server.keys.CONFORMANCE_API_KEY}x`))).toEqual(
      variant.unknownKey,
    );
    expect(await refusal('/api/v1/walks', bearer(server.keys.CONFORMANCE_REVOKED_KEY))).toEqual(
      variant.revokedKey,
    );
    expect(await refusal('/api/v1/walks/not-a-uuid', key)).toEqual(variant.malformedId);
    expect(await refusal('/api/v1/nothing-here', key)).toEqual(variant.unknownPath);
    expect(await refusal('/api/v1/walks', key, 'DELETE')).toEqual(variant.otherMethod);
    await expectLimitAnswer(server, variant);
    await expectListAndDetail(server, variant);
    await expectBothHeaders(server, variant);
    await expectCentroid(server, variant);
  });
});

async function expectLimitAnswer(server: TestServer, variant: Variant): Promise<void> {
  const answer = await server.get('/api/v1/walks?limit=500', bearer(server.keys.CONFORMANCE_API_KEY));
  if (variant.badLimit === 'clamp') {
    expect([answer.status, (answer.body as { data: unknown[] }).data.length]).toEqual([200, 200]);
  } else {
    expect({ status: answer.status, code: errorOf(answer).code }).toEqual(variant.badLimit);
  }
}

type Summary = { id: string; name: string };
type Detail = { stops: { id: string; lat: number | null }[] };

async function expectListAndDetail(server: TestServer, variant: Variant): Promise<void> {
  const key = { ...bearer(server.keys.CONFORMANCE_API_KEY), 'accept-encoding': 'gzip' };
  const list = await server.get('/api/v1/walks?limit=200', key);
  expect(list.headers['content-encoding']).toBe(variant.compression === 'gzip' ? 'gzip' : undefined);
  expect(list.headers['cache-control']).toBe(variant.caching === 'etag' ? 'private, no-cache' : 'no-store');
  expect(list.headers.etag === undefined).toBe(variant.caching === 'no-store');
  const plain = await server.get('/api/v1/walks?limit=200', bearer(server.keys.CONFORMANCE_API_KEY));
  const walks = (plain.body as { data: Summary[] }).data;
  const active = activeWalksOf(server.dataset, 0);
  const newest = [...active].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0];
  const expectedFirst = {
    'newest-first': newest?.createdAt,
    'oldest-first': [...active].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))[0]?.createdAt,
    name: [...active].map((walk) => walk.name).sort()[0],
    id: [...active].map((walk) => walk.id).sort()[0],
  }[variant.order];
  const first = active.find((walk) => walk.id === walks[0]?.id);
  const shown = { 'newest-first': first?.createdAt, 'oldest-first': first?.createdAt, name: first?.name }[
    variant.order as 'name'
  ];
  expect(variant.order === 'id' ? walks[0]?.id : shown).toBe(expectedFirst);
  const detail = await server.get(`/api/v1/walks/${walks[0]?.id}`, bearer(server.keys.CONFORMANCE_API_KEY));
  const stops = (detail.body as { data: Detail }).data.stops;
  const idShape = { uuid: /^[0-9a-f-]{36}$/, prefixed: /^stop_[0-9a-f]{20}$/, numeric: /^[0-9]+$/ }[
    variant.stopIds
  ];
  expect(stops.every((stop) => idShape.test(stop.id))).toBe(true);
  const decimals = variant.coordinateDecimals;
  const located = stops.filter((stop) => stop.lat !== null).map((stop) => stop.lat as number);
  const rounded = located.every((lat) => decimals === null || Number(lat.toFixed(decimals)) === lat);
  expect(rounded).toBe(true);
}

async function expectBothHeaders(server: TestServer, variant: Variant): Promise<void> {
  const { CONFORMANCE_API_KEY: primary, CONFORMANCE_OTHER_CAMPAIGN_KEY: other } = server.keys;
  const answer = await server.get('/api/v1/walks?limit=1', { ...bearer(primary), 'x-api-key': other });
  if (variant.bothHeaders === 'refuse') {
    expect([answer.status, errorOf(answer).code]).toEqual([400, 'conflicting_credentials']);
    return;
  }
  const winner = variant.bothHeaders === 'authorization' ? 0 : 1;
  const [walk] = (answer.body as { data: Summary[] }).data;
  expect(activeWalksOf(server.dataset, winner).some((candidate) => candidate.id === walk?.id)).toBe(true);
}

type Located = { lat: number; lng: number };
const gap = (a: Located, b: Located) => Math.max(Math.abs(a.lat - b.lat), Math.abs(a.lng - b.lng));

/** D-CENTROID: on the listed walk where the two means differ most, the summary holds the drawn one. */
async function expectCentroid(server: TestServer, variant: Variant): Promise<void> {
  const key = bearer(server.keys.CONFORMANCE_API_KEY);
  const list = await server.get('/api/v1/walks?limit=200', key);
  const listed = new Map((list.body as { data: (Summary & Partial<Located>)[] }).data.map((s) => [s.id, s]));
  const spread = activeWalksOf(server.dataset, 0)
    .filter((walk) => listed.has(walk.id))
    .map((walk) => ({ walk, located: walk.stops.filter((stop) => stop.lat !== null && stop.lng !== null) }))
    .filter(({ located }) => located.length > 1)
    .map(({ walk, located }) => ({
      id: walk.id,
      gap: gap(centroidOf(located) as Located, sphericalCentroidOf(located) as Located),
    }))
    .sort((a, b) => b.gap - a.gap)[0];
  const detail = await server.get(`/api/v1/walks/${spread?.id}`, key);
  const stops = (detail.body as { data: { stops: Partial<Located>[] } }).data.stops;
  const located = stops.filter(
    (stop): stop is Located => typeof stop.lat === 'number' && typeof stop.lng === 'number',
  );
  const planar = centroidOf(located) as Located;
  const spherical = sphericalCentroidOf(located) as Located;
  expect(gap(planar, spherical)).toBeGreaterThan(1e-9);
  const served = listed.get(spread?.id ?? '') as Located;
  const expected = variant.centroid === 'spherical' ? spherical : planar;
  expect([variant.seed, gap(served, expected) < 1e-12]).toEqual([variant.seed, true]);
}
