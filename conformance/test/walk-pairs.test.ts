/**
 * A recording's summaries and details are paired walk by walk as the state reads them back
 * (`rules/pairs.ts`): with hundreds of thousands of walks, their pairs built all at once took more
 * memory than the state they came from.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../core/observation.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import { pairsOf, Versions } from '../rules/pairs.ts';

/** A Map that counts the records read from it. */
class CountingMap<R> extends Map<string, R> {
  private readonly counter: { reads: number };

  constructor(counter: { reads: number }) {
    super();
    this.counter = counter;
  }

  override get(key: string): R | undefined {
    this.counter.reads++;
    return super.get(key);
  }
}

/** Plain Maps that count the records read from them. */
class CountingState implements RuleState {
  reads = 0;
  private readonly tables = new Map<string, CountingMap<unknown>>();

  table<R>(name: string): StateTable<R> {
    let table = this.tables.get(name);
    if (!table) {
      table = new CountingMap(this);
      this.tables.set(name, table);
    }
    return table as CountingMap<R>;
  }
}

const recorded = (seq: number): Observation =>
  ({
    source: 'traffic',
    exchange: {
      seq,
      startedAt: 1_760_000_000_000 + seq,
      request: { method: 'GET', url: `https://api.example/api/v1/walks/${seq}`, headers: {}, curl: '' },
      durationMs: 1,
      retries: 0,
    },
  }) as unknown as Observation;

describe('walk pairs', () => {
  it('are given walk by walk: the first before the other walks are read', () => {
    const state = new CountingState();
    const summaries = new Versions<{ count: number }>(state, 'summaries');
    const details = new Versions<{ stops: number }>(state, 'details');
    const walks = 1000;
    for (let i = 0; i < walks; i++) {
      summaries.add(`walk-${i}`, `s${i}`, () => ({ count: i }), recorded(2 * i));
      details.add(`walk-${i}`, `d${i}`, () => ({ stops: i }), recorded(2 * i + 1));
    }
    state.reads = 0;
    const pairs = pairsOf(summaries, details, 'traffic')[Symbol.iterator]();
    const first = pairs.next();
    expect(first.done).toBe(false);
    expect(first.value?.item).toBe('walk-0');
    expect(state.reads).toBeLessThan(10);
    let n = 1;
    for (let next = pairs.next(); !next.done; next = pairs.next()) {
      expect(next.value.summary.facts.count).toBe(next.value.detail.facts.stops);
      n++;
    }
    expect(n).toBe(walks);
  });
});
