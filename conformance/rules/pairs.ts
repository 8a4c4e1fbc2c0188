/**
 * Summaries (an item as its collection lists it) and details (the item as its own operation answers
 * it) kept apart by item and paired once every exchange is seen, so the verdict does not depend on
 * the order a recording holds them in. Only small facts are kept per distinct version of an item
 * (a digest, the facts the rules compare, when it was seen), never the answers themselves: a
 * recording can hold millions of exchanges over the same few thousand items.
 */
import { hash } from 'node:crypto';
import { EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import type { Seen } from './pages.ts';
import { joinSeen, sameData, sentAt, widen } from './pages.ts';

/** Versions whose first exchange a recording's rule keeps as evidence; a live run keeps every one. */
const EVIDENCE_KEPT = 64;

export interface Version<F> {
  /** The digest of its facts: one version of an item per digest. */
  digest: string;
  facts: F;
  seen: Seen;
  /** The first exchange that showed this version (always in a live run; the first few in a recording). */
  obs?: Evidence;
}

/** What the state keeps of a version: its facts and when it was seen (no exchange: it may spill to disk). */
interface Kept<F> {
  facts: F;
  seen: Seen;
}

/** Two records of an item's versions joined: every version of either, each seen over both spans. */
function joinVersions<F>(kept: Map<string, Kept<F>>, other: Map<string, Kept<F>>): Map<string, Kept<F>> {
  for (const [digest, version] of other) {
    const known = kept.get(digest);
    kept.set(digest, known ? { facts: known.facts, seen: joinSeen(known.seen, version.seen) } : version);
  }
  return kept;
}

/**
 * A fixed-size digest (16 bytes, base64) of a text that stands for facts: what a version is known by,
 * however large the facts it stands for (a walk's stops).
 */
export const fingerprint = (text: string) => hash('sha1', text, 'base64').slice(0, 22);

/**
 * The distinct versions of each item, by a digest of the facts the rules compare, kept in a table
 * of the run's state (`core/state.ts`): one record per item, a few facts per version.
 */
export class Versions<F> {
  private readonly byItem: StateTable<Map<string, Kept<F>>>;
  private readonly evidence: EvidenceTable;

  constructor(state: RuleState, name: string) {
    this.byItem = state.table(name, joinVersions<F>);
    this.evidence = new EvidenceTable(state, `${name} evidence`, EVIDENCE_KEPT);
  }

  add(item: string, digest: string, facts: () => F, obs: Observation): void {
    let versions = this.byItem.get(item);
    const known = versions?.get(digest);
    if (known) {
      const seen = widen(known.seen, sentAt(obs));
      if (seen.first === known.seen.first && seen.last === known.seen.last) return;
      known.seen = seen;
    } else {
      versions ??= new Map<string, Kept<F>>();
      versions.set(digest, { facts: facts(), seen: widen(undefined, sentAt(obs)) });
      this.evidence.keep(`${item} ${digest}`, obs);
    }
    this.byItem.set(item, versions as Map<string, Kept<F>>);
  }

  /** The versions of an item, earliest first (then by digest): the same order however they were gathered. */
  of(item: string): Version<F>[] {
    return this.versionsOf(item, this.byItem.get(item));
  }

  /**
   * Every item with its versions (as `of` gives them), in key order: each record read once, where
   * reading the keys and then each item's versions would read a spilled table twice.
   */
  *all(): Generator<[string, Version<F>[]]> {
    for (const [item, kept] of this.byItem.entries()) yield [item, this.versionsOf(item, kept)];
  }

  private versionsOf(item: string, kept: Map<string, Kept<F>> | undefined): Version<F>[] {
    return [...(kept?.entries() ?? [])]
      .sort(([a, x], [b, y]) => x.seen.first - y.seen.first || (a < b ? -1 : a > b ? 1 : 0))
      .map(([digest, kept]) => {
        const obs = this.evidence.get(`${item} ${digest}`);
        return obs ? { digest, ...kept, obs } : { digest, ...kept };
      });
  }

  get size(): number {
    return this.byItem.size;
  }
}

export interface Pair<S, D> {
  item: string;
  summary: Version<S>;
  detail: Version<D>;
}

/** How far apart two spans are (0 when they overlap). */
const gap = (a: Seen, b: Seen) => Math.max(0, a.first - b.last, b.first - a.last);

/**
 * Each detail version with the summary versions it is judged against: in a live run, every summary
 * of the item (one pass over the data: two differing summaries are one fault each); in a recording,
 * the nearest in time among those that saw the same data (an item renamed between two answers is
 * not a fault). Given item by item as they are read: a recording's items are millions, and their
 * pairs held at once would take more memory than the state they are read from.
 */
export function* pairsOf<S, D>(
  summaries: Versions<S>,
  details: Versions<D>,
  source: 'live' | 'traffic',
): Generator<Pair<S, D>> {
  for (const [item, versions] of details.all()) yield* pairsWith(item, summaries.of(item), versions, source);
}

/** The pairs of one item (`pairsOf`). */
export function pairsOfItem<S, D>(
  item: string,
  summaries: Versions<S>,
  details: Versions<D>,
  source: 'live' | 'traffic',
): Pair<S, D>[] {
  return pairsWith(item, summaries.of(item), details.of(item), source);
}

/** The pairs of one item's summary and detail versions. */
function pairsWith<S, D>(
  item: string,
  listed: Version<S>[],
  detailed: Version<D>[],
  source: 'live' | 'traffic',
): Pair<S, D>[] {
  const pairs: Pair<S, D>[] = [];
  for (const detail of detailed) {
    const near = listed.filter((summary) => sameData(source, summary.seen, detail.seen));
    if (source === 'live') {
      for (const summary of near) pairs.push({ item, summary, detail });
      continue;
    }
    const nearest = near.sort((a, b) => gap(a.seen, detail.seen) - gap(b.seen, detail.seen))[0];
    if (nearest) pairs.push({ item, summary: nearest, detail });
  }
  return pairs;
}

/** JSON with object keys sorted, so equal values have equal digests whatever order they were sent in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
