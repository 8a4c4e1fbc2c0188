/**
 * The per-item state of the cross-exchange rules (`Across`) and the judge's findings, kept within a
 * memory budget and mergeable. A rule keeps a few facts per item (a walk's digests and counts, the
 * campaigns an item was answered to) in tables it names; a day's recording has millions of items,
 * so past the budget the largest tables spill to an embedded SQLite database on disk (`sqlite.ts`:
 * synchronous, as the judge is, its page cache bounded, no compiler at install; loaded only when a
 * table first spills), keeping in memory only the records written since.
 *
 * Each table says how two records of one key kept apart are joined (`Merge`): a recording split in
 * shards (`--shard i/n`) is judged shard by shard, and the shards' tables joined record by record
 * give the state the whole recording would have given. A merge is therefore commutative and
 * associative (a union, a sum, the earlier of two), and a rule's records are written so that
 * judging the exchanges in any order gives the same record.
 *
 * A record is plain data (objects, arrays, Maps and Sets of numbers and strings): it is stored as
 * tagged JSON (`encodeRecord`), so no rule writes a format of its own. A recording's tables read back in
 * key order, in memory or on disk alike, so verdicts drawn from them come in one order whatever
 * spilled. A live run's state never spills: its tables are plain Maps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';
import { loadSqlite, type OpenSqlite, type SqlDatabase, type SqlStatement } from './sqlite.ts';

/** Joins two records of one key, kept apart (two shards of a recording): commutative and associative. */
export type Merge<R> = (kept: R, other: R) => R;

/** Merges most tables need: counts added, flags or bits joined. */
export const sum: Merge<number> = (kept, other) => kept + other;
export const either: Merge<boolean> = (kept, other) => kept || other;
export const joinBits: Merge<number> = (kept, other) => kept | other;

/** One table of records by key; a Map's manners, within the run's budget. */
export interface StateTable<R> {
  get(key: string): R | undefined;
  set(key: string, record: R): void;
  /** Every record: a recording's in key order (a live run's as written). */
  entries(): IterableIterator<[string, R]>;
  keys(): IterableIterator<string>;
  readonly size: number;
}

/** Where the rules of one run keep their state. */
export interface RuleState {
  /**
   * The table of this name (made on first use): one per rule and purpose, e.g. `ITEM-002
   * details`, made when the rule's judge is made, so that a merge knows every table by its name.
   */
  table<R>(name: string, merge: Merge<R>): StateTable<R>;
}

const sharedByState = new WeakMap<RuleState, Map<(state: RuleState) => unknown, unknown>>();

/**
 * The one object `make` makes for a run's state, shared by every rule that asks for it (facts
 * several rules keep alike, recorded once per exchange).
 */
export function sharedBy<T>(state: RuleState, make: (state: RuleState) => T): T {
  let made = sharedByState.get(state);
  if (!made) {
    made = new Map();
    sharedByState.set(state, made);
  }
  if (!made.has(make)) made.set(make, make(state));
  return made.get(make) as T;
}

/**
 * A record as text: JSON, with what JSON cannot hold itself (Maps, Sets, `undefined`, a number that
 * is not finite) tagged, and a plain object that has the tag's own key wrapped, so no body's data
 * can pass for a tag. Text, not V8's structured clone: a clone is a buffer allocated outside V8's
 * heap, and spilling a million of them left the process hundreds of megabytes it never gave back.
 */
export function encodeRecord(record: unknown): string {
  return JSON.stringify(record, tagged);
}

/** A record from its text (`encodeRecord`). */
export function decodeRecord(text: string): unknown {
  return untagged(JSON.parse(text));
}

/** The key of a tag: no JSON a deployment sends holds it unwrapped. */
const TAG = '\u0000t';

function tagged(this: unknown, _key: string, value: unknown): unknown {
  if (value === undefined) return { [TAG]: 'u' };
  if (typeof value === 'number') return Number.isFinite(value) ? value : { [TAG]: 'n', v: String(value) };
  if (value instanceof Map) return { [TAG]: 'm', v: [...value] };
  if (value instanceof Set) return { [TAG]: 's', v: [...value] };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, TAG))
    return { [TAG]: 'o', v: Object.entries(value) };
  return value;
}

function untagged(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = untagged(value[i]);
    return value;
  }
  const object = value as Record<string, unknown>;
  if (Object.hasOwn(object, TAG)) {
    const inner = object.v;
    switch (object[TAG]) {
      case 'u':
        return undefined;
      case 'n':
        return Number(inner);
      case 'm':
        return new Map(untagged(inner) as [unknown, unknown][]);
      case 's':
        return new Set(untagged(inner) as unknown[]);
      default:
        return Object.fromEntries(untagged(inner) as [string, unknown][]);
    }
  }
  for (const key of Object.keys(object)) object[key] = untagged(object[key]);
  return object;
}

/** One record of a state as a shard's result carries it. */
export interface StateRecord {
  table: string;
  key: string;
  record: unknown;
}

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

  /** Whether the tables in memory are estimated past the budget (`relieve` spills them). */
  get overBudget(): boolean {
    return this.estimate > this.budgetBytes;
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
      if (this.estimate <= this.budgetBytes * SPILL_TO) break;
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
    // SQLite's page cache, in KiB (negative): what the spilled tables may hold in memory.
    db.exec('PRAGMA cache_size = -32768');
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
    const size = filter.bits.length * 32;
    for (const bit of bitsOf(key, size))
      filter.bits[bit >>> 5] = (filter.bits[bit >>> 5] as number) | (1 << (bit & 31));
    filter.count++;
  }

  /** False when the key is surely not on disk. */
  mayHold(key: string): boolean {
    return this.filters.some(({ bits }) =>
      bitsOf(key, bits.length * 32).every((bit) => ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0),
    );
  }
}

/** Keys the first filter is made for; bits per key (with four hashes, one wrong "maybe" in some 600). */
const FIRST_CAPACITY = 1 << 16;
const BITS_PER_KEY = 16;
const HASHES = 4;

/** The bits of a key in a filter of `size` bits: two FNV-1a hashes combined (double hashing). */
function bitsOf(key: string, size: number): number[] {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  const bits: number[] = [];
  for (let i = 0; i < HASHES; i++) bits.push(((a + Math.imul(i, b | 1)) >>> 0) % size);
  return bits;
}

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
