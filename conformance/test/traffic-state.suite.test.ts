/**
 * The cross-exchange rules' state within a memory budget: past it, tables spill to SQLite on disk
 * and read back exactly what was written (Maps and Sets included), so a recording judged with a
 * budget of 1 MB gets the verdict it gets in memory.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BudgetedState, UnboundedState } from '../core/state.ts';

interface Walk {
  seen: { first: number; last: number };
  versions: Map<string, { count: number }>;
  campaigns: Set<string>;
}

const walk = (i: number): Walk => ({
  seen: { first: i, last: i + 1 },
  versions: new Map([[`digest-${i}`, { count: i % 7 }]]),
  campaigns: new Set(i % 2 ? ['primary'] : ['primary', 'other']),
});

const stateFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('conformance-state-'));

describe('state within a budget', () => {
  it('spills past its budget, and reads back every record, changed ones included, as a Map would', () => {
    const before = stateFolders().length;
    const budgeted = new BudgetedState(1024 * 1024);
    const walks = budgeted.table<Walk>('walks');
    const plain = new UnboundedState().table<Walk>('walks');
    for (let i = 0; i < 60_000; i++) {
      walks.set(`walk-${i}`, walk(i));
      plain.set(`walk-${i}`, walk(i));
    }
    expect(budgeted.spilled).toBeGreaterThan(0);
    // A record read back from disk, changed, and written again.
    for (const key of ['walk-3', 'walk-59999', 'walk-30000']) {
      const kept = walks.get(key) as Walk;
      kept.campaigns.add('empty');
      kept.seen.last = 1e9;
      walks.set(key, kept);
      plain.set(key, kept);
    }
    expect(walks.get('walk-3')?.campaigns).toEqual(new Set(['primary', 'empty']));
    expect(walks.get('no such walk')).toBeUndefined();
    expect(walks.size).toBe(60_000);
    const read = new Map(walks.entries());
    expect(read.size).toBe(60_000);
    for (const [key, record] of plain.entries()) expect(read.get(key)).toEqual(record);
    expect(stateFolders().length).toBe(before + 1);
    budgeted.close();
    expect(stateFolders().length).toBe(before);
  });

  it('keeps small tables in memory and never makes a database', () => {
    const before = stateFolders().length;
    const budgeted = new BudgetedState(64 * 1024 * 1024);
    const table = budgeted.table<number>('small');
    for (let i = 0; i < 1000; i++) table.set(String(i), i);
    expect(budgeted.spilled).toBe(0);
    expect([...table.keys()]).toHaveLength(1000);
    expect(stateFolders().length).toBe(before);
    budgeted.close();
  });
});
