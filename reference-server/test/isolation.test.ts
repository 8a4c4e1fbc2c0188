import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeWalksOf, bearer, startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('campaign isolation (written spec §4.3 rule 1)', () => {
  it("gives every walk of the primary campaign, fetched with another campaign's key, the 404 of a random UUID", async () => {
    const otherKey = bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY);
    const random = await server.get(`/api/v1/walks/${randomUUID()}`, otherKey);
    expect(random.status).toBe(404);
    const primaryWalks = server.dataset.walks.filter(
      (walk) => walk.campaignId === server.dataset.campaigns[0]?.id,
    );
    expect(primaryWalks.length).toBeGreaterThan(200);
    for (const walk of primaryWalks) {
      const answer = await server.get(`/api/v1/walks/${walk.id}`, otherKey);
      expect([walk.id, answer.status, answer.text]).toEqual([walk.id, random.status, random.text]);
    }
  });

  it("gives every walk of the second campaign, fetched with the primary or the empty campaign's key, that same 404", async () => {
    for (const key of [server.keys.CONFORMANCE_API_KEY, server.keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY]) {
      const random = await server.get(`/api/v1/walks/${randomUUID()}`, bearer(key));
      const secondWalks = server.dataset.walks.filter(
        (walk) => walk.campaignId === server.dataset.campaigns[1]?.id,
      );
      expect(secondWalks.length).toBeGreaterThan(0);
      for (const walk of secondWalks) {
        const answer = await server.get(`/api/v1/walks/${walk.id}`, bearer(key));
        expect([walk.id, answer.status, answer.text]).toEqual([walk.id, random.status, random.text]);
      }
    }
  });

  it("serves the second campaign's walks to its own key", async () => {
    const [walk] = activeWalksOf(server.dataset, 1);
    const answer = await server.get(
      `/api/v1/walks/${walk?.id}`,
      bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY),
    );
    expect(answer.status).toBe(200);
  });
});
