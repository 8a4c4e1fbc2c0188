/**
 * The sandbox clock's routes (`--clock`): `GET /sandbox/clock` tells the simulated time, `POST`
 * moves it; the API answers what the canvassing day holds at that instant, its ETags with it; bad
 * moves get 400 in the envelope; without `--clock` the path is unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_SECONDS, DAY_STARTS_AT } from '../../fixtures/canvassing-day.ts';
import type { WalkSummary } from '../../spec/types.ts';
import { type Answer, bearer, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
let plain: TestServer;
beforeAll(async () => {
  [server, plain] = await Promise.all([startTestServer({ clock: { rate: 0 } }), startTestServer()]);
});
afterAll(() => Promise.all([server.close(), plain.close()]));

const JSON_HEADERS = { 'content-type': 'application/json' };
const move = (target: TestServer, body: string | undefined, headers = JSON_HEADERS) =>
  target.send('POST', '/sandbox/clock', body === undefined ? {} : headers, body);
const list = (target: TestServer) =>
  target.get('/api/v1/walks?limit=200', bearer(target.keys.CONFORMANCE_API_KEY));
const walksOf = (answer: Answer) => validBody<{ data: WalkSummary[] }>('listWalks', answer).data;
const notVisited = (walks: WalkSummary[]) => walks.reduce((n, walk) => n + walk.counts.not_visited, 0);

describe('the sandbox clock', () => {
  it('tells the simulated time, from the start of the day', async () => {
    const answer = await server.get('/sandbox/clock');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toMatchObject({
      ok: true,
      data: { day_started_at: DAY_STARTS_AT, rate: 0 },
    });
  });

  it('moves the day on by an advance, and the API answers what it holds then, with new ETags', async () => {
    const before = await list(server);
    const clock = (await server.get('/sandbox/clock')).body as { data: { elapsed_seconds: number } };
    const start = clock.data.elapsed_seconds;
    const moved = await move(server, JSON.stringify({ advance: '6h' }));
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ ok: true, data: { elapsed_seconds: start + 6 * 3600 } });
    const after = await list(server);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(notVisited(walksOf(after))).toBeLessThan(notVisited(walksOf(before)));
    // The old tag no longer matches; the new one does.
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    const stale = await server.get('/api/v1/walks?limit=200', {
      ...key,
      'if-none-match': String(before.headers.etag),
    });
    expect(stale.status).toBe(200);
    const fresh = await server.get('/api/v1/walks?limit=200', {
      ...key,
      'if-none-match': String(after.headers.etag),
    });
    expect(fresh.status).toBe(304);
  });

  it('answers 404 on the detail of a walk archived during the day, and lists it no more', async () => {
    const listed = walksOf(await list(server)).map((walk) => walk.id);
    await move(server, JSON.stringify({ advance: `${DAY_SECONDS / 3600}h` }));
    const now = new Set(walksOf(await list(server)).map((walk) => walk.id));
    const gone = listed.filter((id) => !now.has(id));
    expect(gone.length).toBeGreaterThan(0);
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    for (const id of gone) {
      const answer = await server.get(`/api/v1/walks/${id}`, key);
      expect(answer.status).toBe(404);
      expect(errorOf(answer).code).toBe('not_found');
    }
  });

  it.each([
    ['a negative advance', JSON.stringify({ advance: '-1h' }), 'invalid_parameter'],
    ['an advance that is no duration', JSON.stringify({ advance: 'abc' }), 'invalid_parameter'],
    ['an advance of nothing', JSON.stringify({ advance: '0h' }), 'invalid_parameter'],
    ['an advance as a number', JSON.stringify({ advance: 2 }), 'invalid_parameter'],
    ['an advance over 30 days', JSON.stringify({ advance: '31d' }), 'invalid_parameter'],
    ['a JSON string', '"abc"', 'bad_request'],
    ['a JSON array', '["2h"]', 'bad_request'],
    ['a body that is not JSON', 'advance=2h', 'bad_request'],
    ['no body', undefined, 'bad_request'],
  ])('refuses %s with 400 in the envelope, the clock unmoved', async (_name, body, code) => {
    const before = (await server.get('/sandbox/clock')).text;
    const answer = await move(server, body);
    expect(answer.status).toBe(400);
    expect(errorOf(answer).code).toBe(code);
    expect((await server.get('/sandbox/clock')).text).toBe(before);
  });

  it('takes a JSON body whatever its content type (curl -d sends a form type)', async () => {
    const answer = await move(server, JSON.stringify({ advance: '1m' }), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(answer.status).toBe(200);
  });

  it('answers other methods with 405 and what it allows', async () => {
    const answer = await server.send('DELETE', '/sandbox/clock');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD, POST');
    expect(errorOf(answer).code).toBe('method_not_allowed');
  });

  it('is an unknown path without --clock, and the data never changes there', async () => {
    const before = await list(plain);
    for (const answer of [
      await plain.get('/sandbox/clock'),
      await move(plain, JSON.stringify({ advance: '2h' })),
    ]) {
      expect(answer.status).toBe(404);
      expect(errorOf(answer)).toEqual({ code: 'not_found', message: 'No such endpoint.' });
    }
    expect((await list(plain)).headers.etag).toBe(before.headers.etag);
  });
});

describe('the sandbox clock at a rate', () => {
  it('moves by itself, N times real time', async () => {
    let now = 1_000_000;
    const running = await startTestServer({ clock: { rate: 60, now: () => now } });
    try {
      now += 90_000; // a minute and a half of real time: an hour and a half of the day
      const answer = await running.get('/sandbox/clock');
      expect(answer.body).toMatchObject({ data: { elapsed_seconds: 5_400, elapsed: '1h30m', rate: 60 } });
    } finally {
      await running.close();
    }
  });
});

describe('two sandboxes on the same seed and the same advances', () => {
  it('answer byte-identical bodies', async () => {
    const [a, b] = await Promise.all([
      startTestServer({ clock: { rate: 0 } }),
      startTestServer({ clock: { rate: 0 } }),
    ]);
    try {
      for (const target of [a, b]) {
        await move(target, JSON.stringify({ advance: '3h' }));
        await move(target, JSON.stringify({ advance: '1h30m' }));
      }
      const [listA, listB] = [await list(a), await list(b)];
      expect(listA.bytes.equals(listB.bytes)).toBe(true);
      expect(listA.headers.etag).toBe(listB.headers.etag);
      const id = walksOf(listA)[0]?.id as string;
      const detail = (target: TestServer) =>
        target.get(`/api/v1/walks/${id}`, bearer(target.keys.CONFORMANCE_API_KEY));
      expect((await detail(a)).bytes.equals((await detail(b)).bytes)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
