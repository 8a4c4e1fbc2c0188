import { describe, expect, it } from 'vitest';
import type { Exchange } from '../core/exchange.ts';
import type { ProbeTags } from '../core/observe.ts';
import { InOrderJudging } from '../run/in-order.ts';

function exchange(seq: number): Exchange {
  return {
    seq,
    request: {
      method: 'GET',
      url: `http://127.0.0.1/api/v1/walks?n=${seq}`,
      keys: [],
      headers: {},
      curl: '',
    },
    durationMs: 0,
    retries: 0,
  };
}

/** A run of `n` requests whose answers and tags the test gives one by one. */
function run(n: number) {
  const exchanges = Array.from({ length: n }, (_, i) => exchange(i + 1));
  const settled = new Set<Exchange>();
  const tags = new Map<Exchange, ProbeTags>();
  const seen: number[] = [];
  const judging = new InOrderJudging(
    {
      exchanges,
      settled: (e) => settled.has(e),
      tagsOf: (e) => tags.get(e),
    },
    (e) => {
      seen.push(e.seq);
    },
  );
  const answer = (i: number, plannedBy: string[] = ['A']) => {
    const e = exchanges[i] as Exchange;
    settled.add(e);
    tags.set(e, { plannedBy: new Set(plannedBy) });
  };
  return { exchanges, tags, seen, judging, answer };
}

describe('judging a live run as its answers come', () => {
  it('judges each exchange once it and every exchange requested before it are answered, in the order requested', () => {
    const { seen, judging, answer } = run(4);
    answer(1);
    answer(2);
    judging.advance();
    expect(seen).toEqual([]);
    answer(0);
    judging.advance();
    expect(seen).toEqual([1, 2, 3]);
    answer(3);
    judging.advance();
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('waits for the tags of an answered exchange before judging it', () => {
    const { exchanges, seen, judging, tags, answer } = run(2);
    answer(0);
    answer(1);
    tags.delete(exchanges[0] as Exchange);
    judging.advance();
    expect(seen).toEqual([]);
  });

  it('judges what is left at the end and says the verdict holds when no tag changed', () => {
    const { exchanges, seen, judging, tags, answer } = run(3);
    answer(0);
    judging.advance();
    answer(1);
    answer(2);
    expect(judging.finish((e) => tags.get(e) ?? {})).toBe(true);
    expect(seen).toEqual([1, 2, 3]);
    expect(exchanges).toHaveLength(3);
  });

  it('asks for the run to be judged again when an exchange gained a planner after it was judged', () => {
    const { exchanges, judging, tags, answer } = run(2);
    answer(0, ['A']);
    judging.advance();
    answer(1);
    // A later request answered by the same exchange: rule B planned it too.
    tags.set(exchanges[0] as Exchange, { plannedBy: new Set(['A', 'B']) });
    expect(judging.finish((e) => tags.get(e) ?? {})).toBe(false);
  });

  it('asks for it again when an exchange judged as shared turns out private, or its transform changes', () => {
    const first = run(1);
    first.answer(0);
    first.judging.advance();
    first.tags.set(first.exchanges[0] as Exchange, { plannedBy: new Set(['A']), private: true });
    expect(first.judging.finish((e) => first.tags.get(e) ?? {})).toBe(false);

    const second = run(1);
    second.answer(0);
    second.judging.advance();
    second.tags.set(second.exchanges[0] as Exchange, {
      plannedBy: new Set(['A']),
      transform: 'double slash',
    });
    expect(second.judging.finish((e) => second.tags.get(e) ?? {})).toBe(false);
  });
});
