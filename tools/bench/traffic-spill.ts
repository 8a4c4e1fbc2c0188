/**
 * The spill half of `npm run conformance:traffic-bench`, in a process of its own: a state within
 * 1 MB takes 200,000 records shaped as a walk's (digests, counts, a set), spilling them to the
 * SQLite this Node runs (`conformance/run/sqlite.ts`), then reads them back in key order. Prints
 * one JSON line: the engine, records written and read per CPU-second, and the engine's installed
 * size (none for Node's own).
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BudgetedState } from '../../conformance/run/budgeted-state.ts';

const RECORDS = 200_000;

interface WalkRecord {
  digest: string;
  seen: { first: number; last: number };
  keys: Set<string>;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

/** Bytes of the files under a folder. */
function sizeOf(folder: string): number {
  return readdirSync(folder, { withFileTypes: true }).reduce((total, entry) => {
    const path = join(folder, entry.name);
    return total + (entry.isDirectory() ? sizeOf(path) : statSync(path).size);
  }, 0);
}

const state = new BudgetedState(1024 * 1024);
const walks = state.table<WalkRecord>('walks', (kept) => kept);
const writing = process.cpuUsage();
for (let i = 0; i < RECORDS; i++) {
  walks.set(`/api/v1/walks/w-${((i * 2654435761) >>> 0).toString(16)}`, {
    digest: `sha256-${(i * 7919).toString(36).padStart(43, '0')}`,
    seen: { first: i, last: i + 1 },
    keys: new Set(['primary']),
  });
  if (i % 1000 === 999) await state.relieve();
}
const written = cpuMs(writing);
const reading = process.cpuUsage();
let read = 0;
for (const _ of walks.entries()) read++;
const readMs = cpuMs(reading);
const engine = state.engine ?? 'none';
const installed =
  engine === 'node-sqlite3-wasm'
    ? sizeOf(dirname(createRequire(import.meta.url).resolve('node-sqlite3-wasm/package.json')))
    : 0;
state.close();
if (read !== RECORDS) throw new Error(`read back ${read} records of ${RECORDS}`);
process.stdout.write(
  `${JSON.stringify({
    engine,
    records: RECORDS,
    writePerCpuSecond: RECORDS / (written / 1000),
    readPerCpuSecond: RECORDS / (readMs / 1000),
    installedKb: Math.round(installed / 1024),
  })}\n`,
);
