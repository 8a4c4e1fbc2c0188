/**
 * The collection, limit and walks rules judge exchanges, whatever source and order they come in: a
 * recording's pages are judged the same shuffled, answers far apart in a recording are not taken to
 * see the same data, and a bad `limit` is told by what was sent, with the bounds of the spec.
 */
import { describe, expect, it } from 'vitest';
import { Keyring } from '../core/credentials.ts';
import type { Observation } from '../core/observation.ts';
import { observe } from '../core/observe.ts';
import type { Judgement, Rule } from '../core/rule.ts';
import { ruleContextOf } from '../run/live.ts';
import { badLimitOf, badLimitsOf } from '../rules/limits.ts';
import { ruleById } from '../rules/registry.ts';
import { specModelFor } from '../run/runner.ts';
import { DEFAULTS } from '../cli/config.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import { recordedJson } from './harness.ts';

const spec = specModelFor();
const BASE = 'https://api.example.test';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const keyring = new Keyring({ keys: {}, ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}) });

let seq = 0;
/** A recorded exchange: a GET with a key by its role's placeholder, answered with this JSON at this time. */
function recorded(
  path: string,
  status: number,
  json: unknown,
  at: number,
  key = 'CONFORMANCE_API_KEY',
): Observation {
  return recordedJson(spec, {
    seq: ++seq,
    url: `${BASE}${path}`,
    status,
    json,
    startedAt: at,
    headers: { Authorization: `Bearer $${key}` },
  });
}

const walk = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Walk ${n}`,
});
const page = (size: number, name = (n: number) => `Walk ${n}`) => {
  const data = Array.from({ length: size }, (_, i) => ({ ...walk(i + 1), name: name(i + 1) }));
  return { ok: true, data, meta: { count: data.length } };
};

/** A rule's verdicts over observations, through its `across` judge (or its `judge`, one by one). */
function verdicts(rule: Rule, observations: readonly Observation[]): Judgement[] {
  const ctx = ruleContextOf(spec, { ...DEFAULTS, strict: false, keys: {} } as SuiteConfig, 'traffic');
  if (rule.judge) return observations.flatMap((obs) => [rule.judge?.(obs, ctx) ?? []].flat());
  const across = rule.across?.judge({ ...ctx, ruleId: rule.id });
  for (const obs of observations) across?.see(obs);
  return [...(across?.finish() ?? [])];
}

const broken = (judgements: Judgement[]) => judgements.filter((j) => j.verdict === 'breaks');

describe('page sizes from the answers themselves', () => {
  const pages = [
    recorded('/api/v1/walks?limit=200', 200, page(200), 0),
    recorded('/api/v1/walks', 200, page(20), 1000),
    recorded('/api/v1/walks?limit=7', 200, page(7), 2000),
  ];

  it('fails a default page shorter than min(default, M), whichever order the recording holds the pages in', () => {
    for (const order of [pages, [...pages].reverse(), [pages[1], pages[0], pages[2]] as Observation[]]) {
      const found = broken(verdicts(ruleById('COLLECTION-002'), order));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        problem: expect.stringContaining('20 items where min(50, M) = 50 were due'),
      });
      expect(broken(verdicts(ruleById('COLLECTION-008'), order))).toEqual([]);
    }
  });

  it('does not hold pages of one key hours apart to one size (the collection may have changed)', () => {
    const later = [pages[0] as Observation, recorded('/api/v1/walks', 200, page(20), 3 * HOUR)];
    const found = verdicts(ruleById('COLLECTION-002'), later);
    expect(found.map((j) => j.verdict)).toEqual(['holds']);
  });

  it('fails a page with more items than asked, even alone', () => {
    const found = broken(
      verdicts(ruleById('COLLECTION-003'), [recorded('/api/v1/walks?limit=1', 200, page(2), 0)]),
    );
    expect(found[0]).toMatchObject({ problem: expect.stringContaining('2 items, more than the 1 asked') });
  });

  it('keeps the pages of the two key headers apart: a header read differently is the key rules’ fault', () => {
    const bearer = recorded('/api/v1/walks?limit=200', 200, page(200), 0);
    const apiKey = recorded('/api/v1/walks', 200, page(0), 1000);
    apiKey.exchange.request.headers = { 'x-api-key': '$CONFORMANCE_API_KEY' };
    const rebuilt = observe(apiKey.exchange, { spec, keyring, basePath: '', source: 'traffic' });
    expect(broken(verdicts(ruleById('COLLECTION-002'), [bearer, rebuilt]))).toEqual([]);
  });
});

describe('listed items can be fetched', () => {
  const listed = recorded('/api/v1/walks?limit=200', 200, page(3), 0);
  const gone = (at: number) =>
    recorded(
      `/api/v1/walks/${walk(2).id}`,
      404,
      { ok: false, error: { code: 'not_found', message: 'No walk.' } },
      at,
    );

  it('fails a listed walk answered 404 to the same key within the minute', () => {
    const found = broken(verdicts(ruleById('ITEM-001'), [gone(20_000), listed]));
    expect(found[0]).toMatchObject({
      problem: expect.stringMatching(
        `/walks/${walk(2).id}: answered 404 .*, though the collection listed it to \\$CONFORMANCE_API_KEY`,
      ),
    });
  });

  it('leaves a 404 hours after the listing unjudged (the walk may have been archived since)', () => {
    expect(verdicts(ruleById('ITEM-001'), [listed, gone(2 * HOUR)])).toEqual([]);
  });

  it('takes a throttled read (429) for no answer: the client waits and asks again', () => {
    const throttled = { ok: false, error: { code: 'rate_limited', message: 'Slow down.' } };
    const item = recorded(`/api/v1/walks/${walk(2).id}`, 429, throttled, 1000);
    const list = recorded('/api/v1/walks', 429, throttled, 1000);
    expect(verdicts(ruleById('ITEM-001'), [listed, item])).toEqual([]);
    expect(verdicts(ruleById('COLLECTION-001'), [list])).toEqual([]);
    expect(
      broken(verdicts(ruleById('COLLECTION-001'), [recorded('/api/v1/walks', 404, throttled, 0)])),
    ).toHaveLength(1);
  });

  it('does not judge another key’s 404 by this key’s list', () => {
    const other = recorded(
      `/api/v1/walks/${walk(2).id}`,
      404,
      { ok: false, error: { code: 'not_found', message: 'x' } },
      1000,
      'CONFORMANCE_OTHER_CAMPAIGN_KEY',
    );
    expect(verdicts(ruleById('ITEM-001'), [listed, other])).toEqual([]);
  });
});

describe('a summary against its detail', () => {
  const detail = (name: string, at: number) =>
    recorded(`/api/v1/walks/${walk(1).id}`, 200, { ok: true, data: { ...walk(1), name, stops: [] } }, at);

  it('compares a recorded detail with the summary nearest in time, so a walk renamed between answers is no fault', () => {
    const before = recorded(
      '/api/v1/walks?limit=1',
      200,
      page(1, () => 'Old name'),
      0,
    );
    const after = recorded(
      '/api/v1/walks?limit=1',
      200,
      page(1, () => 'New name'),
      HOUR,
    );
    for (const order of [
      [before, detail('New name', HOUR + 1000), after],
      [after, detail('New name', HOUR + 1000), before],
    ]) {
      expect(verdicts(ruleById('ITEM-002'), order).map((j) => j.verdict)).toEqual(['holds']);
    }
  });

  it('fails a detail whose name differs from the summary beside it', () => {
    const found = broken(
      verdicts(ruleById('ITEM-002'), [detail('Renamed', 1000), recorded('/api/v1/walks', 200, page(1), 0)]),
    );
    expect(found[0]).toMatchObject({
      problem: expect.stringContaining('detail name "Renamed" ≠ summary name "Walk 1"'),
    });
  });
});

describe('bad limit values, told by what was sent', () => {
  const limit = { name: 'limit', minimum: 1, maximum: 200, default: 50 };

  it('sends the queries the broken servers and earlier reports name, for bounds 1..200', () => {
    expect(badLimitsOf(limit).map((b) => b.query)).toEqual([
      'limit=0',
      'limit=-1',
      'limit=201',
      'limit=99999999999999999999',
      'limit=abc',
      'limit=1.5',
      'limit=',
      'limit=1&limit=2',
    ]);
  });

  it('classes every bad value it sends under its own rule, for other bounds too', () => {
    for (const bounds of [limit, { name: 'limit', minimum: 0, maximum: 10, default: 5 }]) {
      for (const bad of badLimitsOf(bounds)) {
        const values = new URLSearchParams(bad.query).getAll('limit');
        expect(badLimitOf(values, bounds)).toEqual({ id: bad.id, atMost: bad.atMost });
      }
    }
    expect(badLimitOf(['500'], limit).id).toBe('LIMITS-003');
    expect(badLimitOf(['-20'], limit).id).toBe('LIMITS-002');
  });

  it('fails a 5xx on a bad limit on that limit’s rule, and holds a 4xx refusal or a bounded success', () => {
    const crash = recorded(
      '/api/v1/walks?limit=abc',
      500,
      { ok: false, error: { code: 'internal_error', message: 'x' } },
      0,
    );
    const refused = recorded(
      '/api/v1/walks?limit=abc',
      400,
      { ok: false, error: { code: 'invalid_parameter', message: 'x' } },
      0,
    );
    const clamped = recorded('/api/v1/walks?limit=abc', 200, page(200), 0);
    const tooMany = recorded('/api/v1/walks?limit=1.5', 200, page(3), 0);
    expect(verdicts(ruleById('LIMITS-005'), [crash, refused, clamped]).map((j) => j.verdict)).toEqual([
      'breaks',
      'holds',
      'holds',
    ]);
    expect(verdicts(ruleById('LIMITS-001'), [crash])).toEqual([]);
    expect(broken(verdicts(ruleById('LIMITS-006'), [tooMany]))[0]).toMatchObject({
      problem: expect.stringContaining('200 with 3 items, more than 2'),
    });
  });
});
