/**
 * Whatever shape a target's JSON takes, every rule judges it: a property test serves generated,
 * half-broken list and detail bodies and requires that no rule breaks on them (a rule that throws
 * ends the run, so the run must finish with a result for every rule of the registry).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, stopStatusesOf } from '../../spec/contract.ts';
import { formatReport } from '../reporters/format.ts';
import { runSuite } from '../run/runner.ts';
import { RULES } from '../rules/registry.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { configFor } from './harness.ts';

const KEYS = { CONFORMANCE_API_KEY: 'svc_sk_live_oddanswers000000000000000000001' };
const statuses = stopStatusesOf(loadSpec());
let served: { list: unknown; detail: unknown } = { list: null, detail: null };
let target: Listening;

beforeAll(async () => {
  target = await listen((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const body =
      path === '/api/v1/walks' ? served.list : path.startsWith('/api/v1/walks/') ? served.detail : undefined;
    res.writeHead(body === undefined ? 401 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { ok: false, error: { code: 'unauthorized', message: 'No.' } }));
  });
});

afterAll(async () => {
  await target.close();
});

const odd = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
/** Mostly the right kind of value, sometimes anything: deep enough to reach every check. */
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: odd, weight: 1 });
const summary = fc.record(
  {
    id: maybe(fc.uuid()),
    name: maybe(fc.string()),
    lat: maybe(fc.double({ min: -90, max: 90, noNaN: true })),
    lng: maybe(fc.double({ min: -180, max: 180, noNaN: true })),
    count: maybe(fc.nat(40)),
    counts: maybe(fc.dictionary(fc.constantFrom(...statuses, 'other'), maybe(fc.nat(9)))),
    web_url: maybe(fc.webUrl()),
    app_link: maybe(fc.webUrl()),
  },
  { requiredKeys: [] },
);
const stop = fc.record(
  {
    id: maybe(fc.string()),
    lat: maybe(fc.double()),
    lng: odd,
    status: maybe(fc.constantFrom(...statuses)),
    position: maybe(fc.integer()),
  },
  { requiredKeys: [] },
);
const listBody = fc.oneof(
  {
    arbitrary: fc.record({
      ok: fc.constant(true),
      data: fc.array(maybe(summary), { maxLength: 6 }),
      meta: fc.anything(),
    }),
    weight: 4,
  },
  { arbitrary: fc.anything(), weight: 1 },
);
const detailBody = fc.oneof(
  fc.record({
    ok: fc.constant(true),
    data: maybe(fc.record({ id: odd, name: odd, stops: maybe(fc.array(maybe(stop), { maxLength: 5 })) })),
  }),
  fc.anything(),
);

describe('odd answers', () => {
  it('are judged by every rule without breaking it', async () => {
    await fc.assert(
      fc.asyncProperty(listBody, detailBody, async (list, detail) => {
        served = { list, detail };
        const report = await runSuite(configFor(target.baseUrl, KEYS, { timeoutMs: 2_000 }));
        expect(report.results.map((r) => r.id)).toEqual(RULES.map((r) => r.id));
        expect(report.summary.verdict).not.toBe('not judged');
        expect(formatReport('junit', report, (t) => t)).toContain('</testsuites>');
      }),
      // Always among them: a list answered 200 with the body `null` (NaN serialises so), which a
      // random run once found breaking the summary of the bad-limit answers.
      { numRuns: 40, examples: [[Number.NaN, null]] },
    );
  });
});
