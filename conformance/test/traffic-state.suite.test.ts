/**
 * The cross-exchange rules' state within a memory budget: past it, tables spill to SQLite on disk
 * and read back exactly what was written (Maps and Sets included), in key order as in memory; and
 * the tables of two halves of a run, joined record by record, are the tables of the whole run.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.ts';
import { decodeRecord, encodeRecord, UnboundedState } from '../core/state.ts';
import { BudgetedState, LIVE_SHARE, UnknownTableError } from '../run/budgeted-state.ts';

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

/** Two records of one walk joined: both spans, every version and campaign of either. */
const joinWalks = (kept: Walk, other: Walk): Walk => ({
  seen: {
    first: Math.min(kept.seen.first, other.seen.first),
    last: Math.max(kept.seen.last, other.seen.last),
  },
  versions: new Map([...kept.versions, ...other.versions]),
  campaigns: new Set([...kept.campaigns, ...other.campaigns]),
});

const stateFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('conformance-state-'));

// The databases of this file's tables go to a folder of its own: other test files spill at the same time.
const sharedTmp = process.env.TMPDIR;
let ownTmp: string;
beforeAll(() => {
  ownTmp = mkdtempSync(join(tmpdir(), 'traffic-state-test-'));
  process.env.TMPDIR = ownTmp;
});
afterAll(() => {
  if (sharedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = sharedTmp;
  rmSync(ownTmp, { recursive: true, force: true });
});

describe('state within a budget', () => {
  it('spills past its budget, and reads back every record, changed ones included, as a Map would', async () => {
    const before = stateFolders().length;
    const budgeted = new BudgetedState(1024 * 1024);
    const walks = budgeted.table<Walk>('walks', joinWalks);
    const plain = new UnboundedState().table<Walk>('walks');
    for (let i = 0; i < 60_000; i++) {
      walks.set(`walk-${i}`, walk(i));
      plain.set(`walk-${i}`, walk(i));
      if (i % 1000 === 999) await budgeted.relieve();
    }
    expect(budgeted.spilled).toBeGreaterThan(0);
    // Node's own SQLite where it is stable (24 on), SQLite in WebAssembly before: no compiler either way.
    const major = Number(process.versions.node.split('.')[0]);
    expect(budgeted.engine).toBe(major >= 24 ? 'node:sqlite' : 'node-sqlite3-wasm');
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
    const read = [...walks.entries()];
    expect(read.map(([key]) => key)).toEqual([...plain.keys()].sort());
    const byKey = new Map(read);
    for (const [key, record] of plain.entries()) expect(byKey.get(key)).toEqual(record);
    expect(stateFolders().length).toBe(before + 1);
    budgeted.close();
    expect(stateFolders().length).toBe(before);
  });

  it('holds live records within their share of the budget, leaving the rest to the garbage collector', async () => {
    const budget = 1024 * 1024;
    const budgeted = new BudgetedState(budget);
    expect(budgeted.liveBytes).toBe(budget * LIVE_SHARE);
    expect(LIVE_SHARE).toBeLessThan(1);
    const walks = budgeted.table<Walk>('walks', joinWalks);
    let held = 0;
    for (let i = 0; i < 20_000; i++) {
      walks.set(`walk-${i}`, walk(i));
      if (i % 500 === 499) {
        // Past the records' share, not the whole budget, they spill.
        if (budgeted.heldBytes > budgeted.liveBytes) expect(budgeted.overBudget).toBe(true);
        await budgeted.relieve();
        held = Math.max(held, budgeted.heldBytes);
      }
    }
    expect(budgeted.spilled).toBe(1);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(budgeted.liveBytes);
    expect(walks.size).toBe(20_000);
    budgeted.close();
  });

  it('refuses in one line, saying how to fix it, when SQLite cannot load, and leaves no folder behind', async () => {
    const before = stateFolders().length;
    const unbuilt = new BudgetedState(1024, async () => {
      throw new Error("Cannot find module 'node-sqlite3-wasm'\nRequire stack: …");
    });
    const walks = unbuilt.table<Walk>('walks', joinWalks);
    for (let i = 0; i < 100; i++) walks.set(`walk-${i}`, walk(i));
    const refused = await unbuilt.relieve().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    const message = (refused as ConfigError).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(
      /^--traffic-memory: .*Cannot find module 'node-sqlite3-wasm'.*reinstall the suite.*raise --traffic-memory$/,
    );
    expect(stateFolders().length).toBe(before);
    unbuilt.close();
  });

  it('keeps small tables in memory, reads them in key order, and never makes a database', async () => {
    const before = stateFolders().length;
    const budgeted = new BudgetedState(64 * 1024 * 1024);
    const table = budgeted.table<number>('small', (a, b) => a + b);
    for (const key of ['b', 'a', '', 'é', 'c']) table.set(key, 1);
    await budgeted.relieve();
    expect(budgeted.spilled).toBe(0);
    expect([...table.keys()]).toEqual(['', 'a', 'b', 'c', 'é']);
    expect(stateFolders().length).toBe(before);
    budgeted.close();
  });

  it('reads a spilled table in the order a table in memory reads, keys beyond the BMP included', async () => {
    const keys = ['', 'z', '\uffff', '\u{1f600}', 'a\u{10000}', 'a\ue000', 'A'];
    const budgeted = new BudgetedState(1024 * 1024);
    const table = budgeted.table<string>('odd keys', (kept) => kept);
    for (const key of keys) table.set(key, key);
    const inMemory = [...table.keys()];
    const filler = budgeted.table<Walk>('filler', joinWalks);
    for (let i = 0; i < 30_000; i++) filler.set(`walk-${i}`, walk(i));
    await budgeted.relieve();
    expect(budgeted.spilled).toBeGreaterThan(0);
    // Whichever tables spilled, each reads back in the order of JavaScript's own sort.
    expect(inMemory).toEqual([...keys].sort());
    expect([...table.keys()]).toEqual([...keys].sort());
    expect([...filler.keys()]).toEqual([...filler.keys()].sort());
    budgeted.close();
  });

  it('joins the tables of two halves into the tables of the whole, spilled or not', async () => {
    const whole = new BudgetedState(64 * 1024 * 1024);
    const halves = [new BudgetedState(1024 * 1024), new BudgetedState(64 * 1024 * 1024)];
    const record = (state: BudgetedState, i: number) => {
      const table = state.table<Walk>('walks', joinWalks);
      const key = `walk-${i % 5000}`;
      const known = table.get(key);
      table.set(key, known ? joinWalks(known, walk(i)) : walk(i));
    };
    for (let i = 0; i < 20_000; i++) {
      record(whole, i);
      record(halves[i % 3 === 0 ? 0 : 1] as BudgetedState, i);
      if (i % 1000 === 999) for (const half of halves) await half.relieve();
    }
    expect(halves[0]?.spilled).toBeGreaterThan(0);
    const merged = new BudgetedState(64 * 1024 * 1024);
    merged.table<Walk>('walks', joinWalks);
    for (const half of halves) for (const r of half.records()) merged.absorb(r);
    expect([...merged.records()]).toEqual([...whole.records()]);
    expect(() => merged.absorb({ table: 'no such table', key: 'k', record: 1 })).toThrow(UnknownTableError);
    for (const state of [whole, merged, ...halves]) state.close();
  });
});

describe('a record as text', () => {
  it('reads back Maps, Sets, undefined and numbers JSON cannot hold, and a body whose keys look like a tag', () => {
    const tagKey = String.fromCharCode(0) + 't';
    const record = {
      versions: new Map([['digest', { count: 2, campaigns: new Set(['primary', 'other']) }]]),
      gone: [undefined, Number.NaN, Number.POSITIVE_INFINITY, -0.5],
      body: { [tagKey]: 'm', v: [['a', 1]] },
    };
    const back = decodeRecord(encodeRecord(record)) as typeof record;
    expect(back.versions).toBeInstanceOf(Map);
    expect(back.versions.get('digest')?.campaigns).toEqual(new Set(['primary', 'other']));
    expect(back.gone).toEqual([undefined, Number.NaN, Number.POSITIVE_INFINITY, -0.5]);
    expect(back.body).not.toBeInstanceOf(Map);
    expect(back.body).toEqual({ [tagKey]: 'm', v: [['a', 1]] });
  });
});
