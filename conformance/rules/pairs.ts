/**
 * Summaries (an item as its collection lists it) and details (the item as its own operation answers
 * it) kept apart by item and paired once every exchange is seen, so the verdict does not depend on
 * the order a recording holds them in. Only small facts are kept per distinct version of an item
 * (a digest, the facts the rules compare, when it was seen), never the answers themselves: a
 * recording can hold millions of exchanges over the same few thousand items.
 */
import type { Observation } from '../core/observation.ts';
import type { Seen } from './pages.ts';
import { sameData, sentAt, widen } from './pages.ts';

/** Observations a recording's rule keeps as evidence; a live run holds all its exchanges anyway. */
const EVIDENCE_KEPT = 64;

export interface Version<F> {
  facts: F;
  seen: Seen;
  /** The first exchange that showed this version (always in a live run; the first few in a recording). */
  obs?: Observation;
}

/** The distinct versions of each item, by a digest of the facts the rules compare. */
export class Versions<F> {
  private readonly byItem = new Map<string, Map<string, Version<F>>>();
  private kept = 0;

  add(item: string, digest: string, facts: () => F, obs: Observation): void {
    const versions = this.byItem.get(item) ?? new Map<string, Version<F>>();
    if (versions.size === 0) this.byItem.set(item, versions);
    const known = versions.get(digest);
    if (known) {
      known.seen = widen(known.seen, sentAt(obs));
      return;
    }
    const version: Version<F> = { facts: facts(), seen: widen(undefined, sentAt(obs)) };
    if (obs.source === 'live' || this.kept++ < EVIDENCE_KEPT) version.obs = obs;
    versions.set(digest, version);
  }

  of(item: string): Version<F>[] {
    return [...(this.byItem.get(item)?.values() ?? [])];
  }

  items(): IterableIterator<string> {
    return this.byItem.keys();
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
 * not a fault).
 */
export function pairsOf<S, D>(
  summaries: Versions<S>,
  details: Versions<D>,
  source: 'live' | 'traffic',
): Pair<S, D>[] {
  const pairs: Pair<S, D>[] = [];
  for (const item of details.items()) {
    const listed = summaries.of(item);
    for (const detail of details.of(item)) {
      const near = listed.filter((summary) => sameData(source, summary.seen, detail.seen));
      if (source === 'live') {
        for (const summary of near) pairs.push({ item, summary, detail });
        continue;
      }
      const nearest = near.sort((a, b) => gap(a.seen, detail.seen) - gap(b.seen, detail.seen))[0];
      if (nearest) pairs.push({ item, summary: nearest, detail });
    }
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
