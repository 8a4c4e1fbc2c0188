import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkDetailEnvelope } from '../../spec/types.ts';
import { activeWalksOf, bearer, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const key = () => bearer(server.keys.CONFORMANCE_API_KEY);

describe('GET /api/v1/walks/{id}', () => {
  it('returns every active walk with exactly its stops, positions 1..n in ascending order', async () => {
    for (const walk of activeWalksOf(server.dataset, 0).slice(0, 40)) {
      const body = validBody<WalkDetailEnvelope>(
        'getWalk',
        await server.get(`/api/v1/walks/${walk.id}`, key()),
      );
      expect(body.data.id).toBe(walk.id);
      expect(body.data.name).toBe(walk.name);
      expect(body.data.stops.map((stop) => stop.position)).toEqual(walk.stops.map((_, i) => i + 1));
      expect(body.data.stops).toEqual(walk.stops);
    }
  });

  it('serves the largest walk whole', async () => {
    const largest = activeWalksOf(server.dataset, 0).reduce((a, b) =>
      b.stops.length > a.stops.length ? b : a,
    );
    expect(largest.stops.length).toBeGreaterThanOrEqual(300);
    const body = validBody<WalkDetailEnvelope>(
      'getWalk',
      await server.get(`/api/v1/walks/${largest.id}`, key()),
    );
    expect(body.data.stops).toHaveLength(largest.stops.length);
  });

  it('matches the id case-insensitively (D-ID-MALFORMED)', async () => {
    const walk = activeWalksOf(server.dataset, 0)[0];
    const answer = await server.get(`/api/v1/walks/${walk?.id.toUpperCase()}`, key());
    expect(validBody<WalkDetailEnvelope>('getWalk', answer).data.id).toBe(walk?.id);
  });

  it('answers an unknown UUID with 404 not_found "Walk not found."', async () => {
    const answer = await server.get(`/api/v1/walks/${randomUUID()}`, key());
    expect(answer.status).toBe(404);
    validBody('getWalk', answer);
    expect(errorOf(answer)).toEqual({ code: 'not_found', message: 'Walk not found.' });
  });

  it('gives archived and deleted walks the same 404 as an unknown id (D-WALK-INACTIVE)', async () => {
    const unknown = await server.get(`/api/v1/walks/${randomUUID()}`, key());
    const inactive = server.dataset.walks.filter(
      (walk) => walk.campaignId === server.dataset.campaigns[0]?.id && walk.state !== 'active',
    );
    expect(new Set(inactive.map((walk) => walk.state))).toEqual(new Set(['archived', 'deleted']));
    for (const walk of inactive) {
      const answer = await server.get(`/api/v1/walks/${walk.id}`, key());
      expect([answer.status, answer.text]).toEqual([unknown.status, unknown.text]);
    }
  });

  it('gives ids that are not UUIDs the same 404 as an unknown UUID (D-ID-MALFORMED)', async () => {
    const unknown = await server.get(`/api/v1/walks/${randomUUID()}`, key());
    const ids = [
      'x',
      '12345',
      'not-a-uuid',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '%00',
      '%E0%A4%A',
      '%',
      '%F0%9F%8E%89',
      'caf%C3%A9',
      encodeURIComponent('walk\u0000id'),
      'a'.repeat(10_000),
      `${activeWalksOf(server.dataset, 0)[0]?.id}x`,
    ];
    for (const id of ids) {
      const answer = await server.get(`/api/v1/walks/${id}`, key());
      expect([id.slice(0, 20), answer.status, answer.text]).toEqual([
        id.slice(0, 20),
        unknown.status,
        unknown.text,
      ]);
    }
  });

  it('checks the key before the id: a malformed id without a key gets 401', async () => {
    for (const id of ['%E0%A4%A', 'nope', randomUUID()]) {
      const answer = await server.get(`/api/v1/walks/${id}`);
      expect(answer.status).toBe(401);
      expect(errorOf(answer).code).toBe('unauthorized');
    }
  });

  it('tolerates one trailing slash', async () => {
    const walk = activeWalksOf(server.dataset, 0)[0];
    const answer = await server.get(`/api/v1/walks/${walk?.id}/`, key());
    expect(validBody<WalkDetailEnvelope>('getWalk', answer).data.id).toBe(walk?.id);
  });
});
