/**
 * The per-item state of the cross-exchange rules (`Across`), kept within a memory budget. A rule
 * keeps a few facts per item (a walk's digests and counts, the campaigns an item was answered to)
 * in tables it names; a day's recording has millions of items, so past the budget the largest
 * table spills to an embedded SQLite database on disk (better-sqlite3: synchronous, as the judge
 * is, and its page cache bounded), and keeps only its most recently written records in memory.
 *
 * A record is plain data (objects, arrays, Maps and Sets of numbers and strings): it is stored as
 * V8's structured clone, so no rule writes a format of its own. A live run's state never spills:
 * its budget is unbounded, and its tables are plain Maps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type BetterSqlite3 from 'better-sqlite3';

/** One table of records by key; a Map's manners, within the run's budget. */
export interface StateTable<R> {
  get(key: string): R | undefined;
  set(key: string, record: R): void;
  /** Every record, in no promised order (a spilled table's are read back from disk as they come). */
  entries(): IterableIterator<[string, R]>;
  keys(): IterableIterator<string>;
  readonly size: number;
}

/** Where the rules of one run keep their state. */
export interface RuleState {
  /** The table of this name (made on first use): one per rule and purpose, e.g. `WALK-DETAIL-002 details`. */
  table<R>(name: string): StateTable<R>;
}

/** Records written to a spilled table kept in memory before they are written to disk together. */
const WRITE_BACK = 20_000;
/**
 * A record's cost in memory, from its serialized size: V8's objects, Maps and their slots take about
 * three times the bytes of their structured clone, and a table's slot some 200 more (measured: a
 * walk's versions, 190 bytes serialized, take 800 bytes of heap).
 */
const HEAP_PER_SERIALIZED_BYTE = 3;
const RECORD_OVERHEAD = 200;
/** How often a new record's size is measured (every Nth); the mean stands for the rest. */
const SAMPLE_EVERY = 32;

/** The state of a run with no budget: plain Maps (a live run's, and a test's). */
export class UnboundedState implements RuleState {
  private readonly tables = new Map<string, Map<string, unknown>>();

  table<R>(name: string): StateTable<R> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table as Map<string, R>;
  }
}

/**
 * The state of a recording's run: tables in memory until their estimated size passes `budgetBytes`,
 * then the largest spills to disk, and so on. `close()` removes the database.
 */
export class BudgetedState implements RuleState {
  private readonly tables = new Map<string, BudgetedTable<unknown>>();
  private database: Database | undefined;
  /** How many tables spilled, for reports and tests. */
  spilled = 0;

  private readonly budgetBytes: number;

  constructor(budgetBytes: number) {
    this.budgetBytes = budgetBytes;
  }

  table<R>(name: string): StateTable<R> {
    let table = this.tables.get(name);
    if (!table) {
      table = new BudgetedTable(name, () => this.overBudget());
      this.tables.set(name, table);
    }
    return table as StateTable<R>;
  }

  /** Called as tables grow: spills the largest in-memory tables until the estimate is within budget. */
  private overBudget(): void {
    let total = 0;
    for (const table of this.tables.values()) total += table.estimatedBytes;
    if (total <= this.budgetBytes) return;
    const largest = [...this.tables.values()]
      .filter((t) => !t.isSpilled && t.size > 0)
      .sort((a, b) => b.estimatedBytes - a.estimatedBytes);
    for (const table of largest) {
      if (total <= this.budgetBytes * 0.7) break;
      total -= table.estimatedBytes;
      this.database ??= openDatabase();
      table.spillTo(this.database, this.spilled++);
    }
  }

  /** Removes the database, when one was made. */
  close(): void {
    this.database?.close();
    this.database = undefined;
  }
}

interface Database {
  db: BetterSqlite3.Database;
  close(): void;
}

/** A database in a temporary folder of its own, written without a journal: it lives as long as the run. */
function openDatabase(): Database {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const folder = mkdtempSync(join(tmpdir(), 'conformance-state-'));
  const db = new Sqlite(join(folder, 'state.db'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // SQLite's page cache, in KiB (negative): what the spilled tables may hold in memory.
  db.pragma('cache_size = -32768');
  return {
    db,
    close() {
      db.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

class BudgetedTable<R> implements StateTable<R> {
  private memory = new Map<string, R>();
  private sampled = 0;
  private sampledBytes = 0;
  private added = 0;
  private disk: DiskTable | undefined;

  readonly name: string;
  private readonly grown: () => void;

  constructor(name: string, grown: () => void) {
    this.name = name;
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
    if (this.disk) return;
    if (isNew && this.added++ % SAMPLE_EVERY === 0) {
      this.sampled++;
      this.sampledBytes += key.length * 2 + HEAP_PER_SERIALIZED_BYTE * serialize(record).length;
      this.grown();
    }
  }

  /** Moves every record to disk; from then on, memory holds only the records written since the last flush. */
  spillTo(database: Database, n: number): void {
    this.disk = new DiskTable(database.db, `t${n}`);
    this.flush();
  }

  private flush(): void {
    if (!this.disk || this.memory.size === 0) return;
    this.disk.write(this.memory);
    this.memory = new Map();
  }

  *entries(): IterableIterator<[string, R]> {
    if (!this.disk) {
      yield* this.memory.entries();
      return;
    }
    this.flush();
    yield* this.disk.entries() as IterableIterator<[string, R]>;
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }
}

/** Records read back from disk at a time: no statement stays open while a rule reads other tables. */
const PAGE = 2_000;

/** One spilled table: key and structured clone, by key. */
class DiskTable {
  private readonly select: BetterSqlite3.Statement;
  private readonly upsert: BetterSqlite3.Statement;
  private readonly page: BetterSqlite3.Statement;
  private readonly count: BetterSqlite3.Statement;
  private readonly writeAll: (records: Map<string, unknown>) => void;

  constructor(db: BetterSqlite3.Database, name: string) {
    db.exec(`CREATE TABLE ${name} (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID`);
    this.select = db.prepare(`SELECT v FROM ${name} WHERE k = ?`).pluck();
    this.upsert = db.prepare(
      `INSERT INTO ${name} (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`,
    );
    this.page = db.prepare(`SELECT k, v FROM ${name} WHERE k > ? ORDER BY k LIMIT ${PAGE}`).raw();
    this.count = db.prepare(`SELECT count(*) FROM ${name}`).pluck();
    this.writeAll = db.transaction((records: Map<string, unknown>) => {
      for (const [key, record] of records) this.upsert.run(key, serialize(record));
    });
  }

  get(key: string): unknown {
    const bytes = this.select.get(key) as Buffer | undefined;
    return bytes === undefined ? undefined : deserialize(bytes);
  }

  size(): number {
    return this.count.get() as number;
  }

  write(records: Map<string, unknown>): void {
    this.writeAll(records);
  }

  *entries(): IterableIterator<[string, unknown]> {
    let after = '';
    for (;;) {
      const rows = this.page.all(after) as [string, Buffer][];
      for (const [key, bytes] of rows) yield [key, deserialize(bytes)];
      const last = rows.at(-1);
      if (!last || rows.length < PAGE) return;
      after = last[0];
    }
  }
}
