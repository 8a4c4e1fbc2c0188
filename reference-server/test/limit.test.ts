import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkListEnvelope } from '../../spec/types.ts';
import { limitValuesOf, parseLimit } from '../limit.ts';
import { bearer, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const key = () => bearer(server.keys.CONFORMANCE_API_KEY);
const INVALID_LIMIT = { code: 'invalid_parameter', message: 'limit must be an integer from 1 to 200.' };

describe('the limit parameter (written spec §4.2, §8, D-LIMIT)', () => {
  it('accepts decimal digits from 1 to 200, leading zeros included', async () => {
    for (const [query, expected] of [
      ['limit=1', 1],
      ['limit=200', 200],
      ['limit=007', 7],
      ['limit=%32%30', 20],
      ['LIMIT=3', 50],
      ['limits=3&x=1', 50],
      ['', 50],
    ] as const) {
      const body = validBody<WalkListEnvelope>(
        'listWalks',
        await server.get(`/api/v1/walks?${query}`, key()),
      );
      expect([query, body.data.length]).toEqual([query, expected]);
    }
  });

  it('refuses anything else with 400 invalid_parameter', async () => {
    const refused = [
      'limit=0',
      'limit=201',
      'limit=-1',
      'limit=+5',
      'limit=%205',
      'limit=5%20',
      'limit=5.0',
      'limit=1e3',
      'limit=0x10',
      'limit=Infinity',
      'limit=NaN',
      'limit=',
      'limit',
      'limit=1&limit=2',
      'limit=5&limit=5',
      'limit=99999999999999999999999999999999',
      'limit=%E0%A4%A',
      `limit=${encodeURIComponent('٣')}`,
      '__proto__[limit]=5&limit=abc',
    ];
    for (const query of refused) {
      const answer = await server.get(`/api/v1/walks?${query}`, key());
      expect([query, answer.status]).toEqual([query, 400]);
      validBody('listWalks', answer);
      expect(errorOf(answer)).toEqual(INVALID_LIMIT);
    }
  });

  it('ignores unknown and prototype-polluting query keys (D-QUERY-UNKNOWN)', async () => {
    for (const query of [
      'limit[]=5',
      'limit[a]=5',
      '__proto__[x]=1',
      'constructor[prototype][x]=1',
      'cursor=abc',
    ]) {
      const answer = await server.get(`/api/v1/walks?${query}`, key());
      expect([query, answer.status]).toEqual([query, 200]);
      expect(validBody<WalkListEnvelope>('listWalks', answer).data).toHaveLength(50);
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('limit parsing, property-based', () => {
  it('parseLimit never throws and accepts exactly the decimal numbers 1..200', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.stringMatching(/^[0-9]{1,5}$/), fc.integer().map(String))),
        (values) => {
          const limit = parseLimit(values);
          if (values.length === 0) return limit === 50;
          const [only] = values;
          const acceptable =
            values.length === 1 &&
            only !== undefined &&
            /^[0-9]+$/.test(only) &&
            Number(only) >= 1 &&
            Number(only) <= 200;
          return acceptable ? limit === Number(only) : limit === undefined;
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('limitValuesOf never throws on any URL text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (url) =>
        Array.isArray(limitValuesOf(`/api/v1/walks?${url}`)),
      ),
      { numRuns: 2_000 },
    );
  });

  it('the server answers any limit value with 1..200 valid walks or the 400 envelope', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.integer({ min: -5, max: 400 }).map(String)),
        async (raw) => {
          const answer = await server.get(`/api/v1/walks?limit=${encodeURIComponent(raw)}`, key());
          if (answer.status === 200) {
            const body = validBody<WalkListEnvelope>('listWalks', answer);
            expect(body.data.length).toBe(Number(raw));
          } else {
            expect(answer.status).toBe(400);
            expect(errorOf(answer)).toEqual(INVALID_LIMIT);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
