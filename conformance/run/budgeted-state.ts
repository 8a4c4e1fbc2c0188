/**
 * The state of a recording's run (`RuleState`, core/state.ts), kept within a memory budget: a day's
 * recording has millions of items, so past the budget the largest tables spill to an embedded
 * SQLite database on disk (`sqlite.ts`: synchronous, as the judge is, its page cache bounded, no
 * compiler at install; loaded only when a table first spills), keeping in memory only the records
 * written since. A recording's tables read back in key order, in memory or on disk alike, so
 * verdicts drawn from them come in one order whatever spilled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { ConfigError } from '../core/config-error.ts';
import {
  decodeRecord,
  encodeRecord,
  type Merge,
  type RuleState,
  type StateRecord,
  type StateTable,
} from '../core/state.ts';
import { loadSqlite, type OpenSqlite, type SqlDatabase, type SqlStatement } from './sqlite.ts';

/** A shard's record names a table no rule of this run keeps: the shards ran other rules. */
export class UnknownTableError extends Error {}

/** Records written to a spilled table kept in memory before they are written to disk together. */
const WRITE_BACK = 20_000;
/**
 * A record's cost in memory, from the length of its text: V8's objects, Maps and their slots take
 * about twice the characters of their JSON, and a table's slot some 200 bytes more.
 */
const HEAP_PER_SERIALIZED_BYTE = 2;
const RECORD_OVERHEAD = 200;
/** How often a new record's size is measured (every Nth); the mean stands for the rest. */
const SAMPLE_EVERY = 32;
/** Spilling stops once the estimate is down to this share of the budget, so it does not spill again at once. */
const SPILL_TO = 0.7;
/**
 * The share of the budget the records themselves may take in memory. V8 lets its old space grow
 * past what survived its last collection before it collects again (by half while a recording is
 * judged, `paceCollector`; up to four times by its own choice), and each exchange's parsed answer
 * and what the rules derive from it come on top, so the rest of the budget is that room: the budget
 * is what the state costs the process, not what it holds live.
 */
export const LIVE_SHARE = 0.3;

/**
 * How far V8's heap may grow past what survived a collection, in per cent, while a recording's
 * state is held. V8's own choice, when collecting is cheap, is up to 300 %: measured on 100,000
 * distinct walks at a 32 MB budget, 36 MB survived each collection and the heap grew to 173 MB
 * between them (308 MB of RSS); at 50 % the run peaked at 218 MB for the same CPU time.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growth for the judging of a recording (`HEAP_GROWING_PERCENT`), said in `--help`
 * and the README, unless the user set one (`--heap-growing-percent` in Node's options).
 */
export function paceCollector(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  if (/heap[-_]growing[-_]percent/.test(given)) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * The state of a recording's run: tables in memory until their estimated size passes `budgetBytes`;
 * then, when the run next gives it the chance (`relieve`, between batches of entries), the largest
 * spill to disk. `close()` removes the database.
 */
export class BudgetedState implements RuleState {
  private readonly tables = new Map<string, BudgetedTable<unknown>>();
  private database: Database | undefined;
  private estimate = 0;
  /** How many tables spilled, for reports and tests. */
  spilled = 0;

  private readonly budgetBytes: number;
  private readonly loadSqlite: LoadSqlite;

  /** `load`: how SQLite is loaded on the first spill (`sqlite.ts`'s choice for this Node, by default). */
  constructor(budgetBytes: number, load: LoadSqlite = loadSqlite) {
    this.budgetBytes = budgetBytes;
    this.loadSqlite = load;
  }

  /** The SQLite the tables spilled to (`node:sqlite` or `node-sqlite3-wasm`), once one did. */
  get engine(): string | undefined {
    return this.database?.db.engine;
  }

  table<R>(name: string, merge: Merge<R>): StateTable<R> {
    let table = this.tables.get(name);
    if (!table) {
      table = new BudgetedTable(name, merge as Merge<unknown>, () => this.measure());
      this.tables.set(name, table);
    }
    return table as StateTable<R>;
  }

  /** What the records held in memory are estimated to take, in bytes. */
  get heldBytes(): number {
    return this.estimate;
  }

  /** What the records may take in memory before they spill: the budget's share for live records. */
  get liveBytes(): number {
    return this.budgetBytes * LIVE_SHARE;
  }

  /** Whether the tables in memory are estimated past their share of the budget (`relieve` spills them). */
  get overBudget(): boolean {
    return this.estimate > this.liveBytes;
  }

  /**
   * Spills the largest tables in memory until the estimate is well within the budget: a table that
   * spilled already writes back the records it holds in memory, another spills.
   */
  async relieve(): Promise<void> {
    this.measure();
    if (!this.overBudget) return;
    const largest = [...this.tables.values()]
      .filter((t) => t.estimatedBytes > 0)
      .sort((a, b) => b.estimatedBytes - a.estimatedBytes);
    for (const table of largest) {
      if (this.estimate <= this.liveBytes * SPILL_TO) break;
      if (table.isSpilled) table.writeBack();
      else {
        this.database ??= await openDatabase(this.loadSqlite, this.budgetBytes);
        table.spillTo(this.database, this.spilled++);
      }
      this.measure();
    }
  }

  /** Every record of every table, for a shard's result. */
  *records(): Generator<StateRecord> {
    for (const [name, table] of this.tables) {
      for (const [key, record] of table.entries()) yield { table: name, key, record };
    }
  }

  /** Joins a record of another shard's state into its table (`Merge`). */
  absorb({ table: name, key, record }: StateRecord): void {
    const table = this.tables.get(name);
    if (!table) throw new UnknownTableError(`state of a rule this run does not judge ("${name}")`);
    table.absorb(key, record);
  }

  /** Removes the database, when one was made. */
  close(): void {
    this.database?.close();
    this.database = undefined;
  }

  private measure(): void {
    let total = 0;
    for (const table of this.tables.values()) total += table.estimatedBytes;
    this.estimate = total;
  }
}

interface Database {
  db: SqlDatabase;
  close(): void;
}

/** SQLite's page cache for a budget, in KiB: an eighth of it, at least 1 MB, at most 32 MB. */
const cacheKibOf = (budgetBytes: number) =>
  Math.round(Math.min(32 * 1024, Math.max(1024, budgetBytes / 8 / 1024)));

/** Loads SQLite (`sqlite.ts`). */
export type LoadSqlite = () => Promise<OpenSqlite>;

/**
 * A database in a temporary folder of its own, written without a journal: it lives as long as the
 * run, locked for this process alone (SQLite then keeps its page cache between statements). SQLite
 * is loaded here, on the first spill, so runs that never spill never load it. One that cannot load
 * (an install that left a package out) is a setting to fix, said in one line: the run cannot keep
 * its state within the budget without it.
 */
async function openDatabase(load: LoadSqlite, budgetBytes: number): Promise<Database> {
  let folder: string | undefined;
  try {
    const open = await load();
    folder = mkdtempSync(join(tmpdir(), 'conformance-state-'));
    const db = open(join(folder, 'state.db'));
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = OFF');
    db.exec('PRAGMA synchronous = OFF');
    // SQLite's page cache, in KiB (negative): what the spilled tables may hold in memory, an
    // eighth of the budget up to 32 MB (past that, more cache speeds look-ups no further).
    db.exec(`PRAGMA cache_size = -${cacheKibOf(budgetBytes)}`);
    const made = folder;
    return {
      db,
      close() {
        db.close();
        rmSync(made, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (folder) rmSync(folder, { recursive: true, force: true });
    const why = String(error instanceof Error ? error.message : error).split('\n')[0];
    throw new ConfigError(
      `--traffic-memory: the cross-exchange state passed its budget (${Math.round(budgetBytes / 1024 / 1024)} MB) and spills to SQLite on disk, but SQLite cannot open (${why}): reinstall the suite with its dependencies (node-sqlite3-wasm), or raise --traffic-memory`,
    );
  }
}

class BudgetedTable<R> implements StateTable<R> {
  private memory = new Map<string, R>();
  private sampled = 0;
  private sampledBytes = 0;
  private added = 0;
  private disk: DiskTable | undefined;

  readonly name: string;
  private readonly merge: Merge<R>;
  private readonly grown: () => void;

  constructor(name: string, merge: Merge<R>, grown: () => void) {
    this.name = name;
    this.merge = merge;
    this.grown = grown;
  }

  get isSpilled(): boolean {
    return this.disk !== undefined;
  }

  get size(): number {
    if (!this.disk) return this.memory.size;
    this.flush();
    return this.disk.size();
  }

  get estimatedBytes(): number {
    const mean = this.sampled === 0 ? 0 : this.sampledBytes / this.sampled;
    return this.memory.size * (mean + RECORD_OVERHEAD);
  }

  get(key: string): R | undefined {
    const kept = this.memory.get(key);
    if (kept !== undefined || !this.disk) return kept;
    return this.disk.get(key) as R | undefined;
  }

  set(key: string, record: R): void {
    // Written back before the new record goes in: the record just set stays in memory until the
    // next write, so a rule that changes it right after setting it loses nothing.
    if (this.disk && this.memory.size >= WRITE_BACK && !this.memory.has(key)) this.flush();
    const isNew = !this.memory.has(key);
    this.memory.set(key, record);
    if (this.disk || !isNew || this.added++ % SAMPLE_EVERY !== 0) return;
    this.sampled++;
    this.sampledBytes += key.length * 2 + HEAP_PER_SERIALIZED_BYTE * encodeRecord(record).length;
    this.grown();
  }

  absorb(key: string, record: R): void {
    const kept = this.get(key);
    this.set(key, kept === undefined ? record : this.merge(kept, record));
  }

  /** Moves every record to disk; from then on, memory holds only the records written since the last flush. */
  spillTo(database: Database, n: number): void {
    this.disk = new DiskTable(database.db, `t${n}`);
    this.flush();
  }

  /** Writes the records held in memory to disk (a spilled table's). */
  writeBack(): void {
    this.flush();
  }

  private flush(): void {
    if (!this.disk || this.memory.size === 0) return;
    this.disk.write(this.memory);
    this.memory = new Map();
  }

  *entries(): IterableIterator<[string, R]> {
    if (this.disk) {
      this.flush();
      yield* this.disk.entries() as IterableIterator<[string, R]>;
      return;
    }
    // A snapshot of the keys, each read when its turn comes: the table may spill meanwhile.
    for (const key of [...this.memory.keys()].sort()) {
      const record = this.get(key);
      if (record !== undefined) yield [key, record];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }
}

/** Records read back from disk at a time: no statement stays open while a rule reads other tables. */
const PAGE = 2_000;

/**
 * A key as stored: UTF-16 big-endian bytes, which SQLite compares in the order JavaScript compares
 * strings (code unit by code unit), so a spilled table reads back in the order a table in memory does.
 */
const keyBytes = (key: string) => Buffer.from(key, 'utf16le').swap16();
const keyOf = (bytes: Uint8Array) => Buffer.from(bytes).swap16().toString('utf16le');

/**
 * The keys a spilled table holds on disk, as Bloom filters: a key none of them may hold is not on
 * disk, and no query is made for it. Most keys a recording asks for are new (an item seen for the
 * first time), and a query costs more than judging an exchange. When a filter holds as many keys as
 * it was made for, another twice as large takes the next ones, so a wrong "maybe" stays rare.
 */
class KeysOnDisk {
  private readonly filters: { bits: Uint32Array; capacity: number; count: number }[] = [];

  add(key: string): void {
    let filter = this.filters.at(-1);
    if (!filter || filter.count >= filter.capacity) {
      const capacity = filter ? filter.capacity * 2 : FIRST_CAPACITY;
      filter = { bits: new Uint32Array((capacity * BITS_PER_KEY) / 32), capacity, count: 0 };
      this.filters.push(filter);
    }
    const [a, b] = hashesOf(key);
    const size = filter.bits.length * 32;
    for (let i = 0; i < HASHES; i++) {
      const bit = bitOf(a, b, i, size);
      filter.bits[bit >>> 5] = (filter.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
    filter.count++;
  }

  /** False when the key is surely not on disk. */
  mayHold(key: string): boolean {
    if (this.filters.length === 0) return false;
    // The key is hashed once; each filter takes its bits from the same two hashes.
    const [a, b] = hashesOf(key);
    return this.filters.some(({ bits }) => {
      const size = bits.length * 32;
      for (let i = 0; i < HASHES; i++) {
        const bit = bitOf(a, b, i, size);
        if (((bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
      }
      return true;
    });
  }
}

/** Keys the first filter is made for; bits per key (with four hashes, one wrong "maybe" in some 600). */
const FIRST_CAPACITY = 1 << 16;
const BITS_PER_KEY = 16;
const HASHES = 4;

/** Two FNV-1a hashes of a key, whose combinations are its bits in a filter (double hashing). */
function hashesOf(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return [a, b];
}

/** The `i`-th bit of a key in a filter of `size` bits. */
const bitOf = (a: number, b: number, i: number, size: number) => ((a + Math.imul(i, b | 1)) >>> 0) % size;

/** One spilled table: key and record as text, by key. */
class DiskTable {
  private readonly keys = new KeysOnDisk();
  private readonly db: SqlDatabase;
  private readonly select: SqlStatement;
  private readonly upsert: SqlStatement;
  private readonly first: SqlStatement;
  private readonly page: SqlStatement;
  private readonly count: SqlStatement;

  constructor(db: SqlDatabase, name: string) {
    this.db = db;
    db.exec(`CREATE TABLE ${name} (k BLOB PRIMARY KEY, v TEXT) WITHOUT ROWID`);
    this.select = db.prepare(`SELECT v FROM ${name} WHERE k = ?`);
    this.upsert = db.prepare(
      `INSERT INTO ${name} (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`,
    );
    this.first = db.prepare(`SELECT k, v FROM ${name} ORDER BY k LIMIT ${PAGE}`);
    this.page = db.prepare(`SELECT k, v FROM ${name} WHERE k > ? ORDER BY k LIMIT ${PAGE}`);
    this.count = db.prepare(`SELECT count(*) AS n FROM ${name}`);
  }

  get(key: string): unknown {
    if (!this.keys.mayHold(key)) return undefined;
    const row = this.select.get(keyBytes(key));
    return row === undefined ? undefined : decodeRecord(row.v as string);
  }

  size(): number {
    return Number(this.count.get()?.n ?? 0);
  }

  /** Writes records in one transaction: one write of the file, not one per record. */
  write(records: Map<string, unknown>): void {
    this.db.exec('BEGIN');
    try {
      for (const [key, record] of records) {
        this.upsert.run(keyBytes(key), encodeRecord(record));
        this.keys.add(key);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  *entries(): IterableIterator<[string, unknown]> {
    let after: Uint8Array | undefined;
    for (;;) {
      const rows = after === undefined ? this.first.all() : this.page.all(after);
      for (const row of rows) yield [keyOf(row.k as Uint8Array), decodeRecord(row.v as string)];
      const last = rows.at(-1);
      if (!last || rows.length < PAGE) return;
      after = Buffer.from(last.k as Uint8Array);
    }
  }
}
