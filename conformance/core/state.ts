/**
 * The per-item state of the cross-exchange rules (`Across`) and the judge's findings, mergeable. A
 * rule keeps a few facts per item (a walk's digests and counts, the campaigns an item was answered
 * to) in tables it names (`RuleState`); a live run's tables are plain Maps (`UnboundedState`), a
 * recording's are kept within a memory budget (`run/budgeted-state.ts`).
 *
 * Each table says how two records of one key kept apart are joined (`Merge`): a recording split in
 * shards (`--shard i/n`) is judged shard by shard, and the shards' tables joined record by record
 * give the state the whole recording would have given. A merge is therefore commutative and
 * associative (a union, a sum, the earlier of two), and a rule's records are written so that
 * judging the exchanges in any order gives the same record.
 *
 * A record is plain data (objects, arrays, Maps and Sets of numbers and strings): it is stored as
 * tagged JSON (`encodeRecord`), so no rule writes a format of its own.
 */

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
