/**
 * What a finding shows of the exchange it was found on: the request as sent, the status and headers
 * of the answer, and as much of its body as an excerpt shows. A live run's exchanges are held by
 * the run anyway; a recording's are copied down to that much, so that a rule keeping evidence for
 * later holds no parsed body, and a shard of a recording can write it in its result.
 *
 * Evidence of an item is the earliest exchange that showed it (the lowest entry number), so a
 * recording judged whole and judged in shards shows the same exchange.
 */
import type { Exchange } from './exchange.ts';
import { EXCERPT_CHARS } from './answers.ts';
import type { Evidence } from './observation.ts';
import type { RuleState, StateTable } from './state.ts';

/** Characters of a body evidence keeps: an excerpt's, and one more, so that whether it was cut shows. */
const KEPT_BODY = EXCERPT_CHARS + 1;

/**
 * The text as a string of its own: a slice of a long string may keep the whole of it alive (V8
 * shares the characters). UTF-16 round-trips every code unit, lone surrogates too.
 */
const ownCopy = (text: string) => Buffer.from(text, 'utf16le').toString('utf16le');

/** An exchange reduced to what a report shows of it: plain data, no parsed body. */
export function shownExchange(exchange: Exchange): Exchange {
  const { request, response } = exchange;
  const shown: Exchange = {
    seq: exchange.seq,
    request: {
      method: request.method,
      url: request.url,
      keys: request.keys,
      headers: request.headers,
      curl: request.curl,
      ...(request.nearMisses ? { nearMisses: request.nearMisses } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
    },
    durationMs: exchange.durationMs,
    retries: exchange.retries,
  };
  if (exchange.startedAt !== undefined) shown.startedAt = exchange.startedAt;
  if (exchange.error) shown.error = exchange.error;
  if (response) {
    const { json: _json, jsonError: _error, body, ...rest } = response;
    shown.response = { ...rest, body: body.length > KEPT_BODY ? ownCopy(body.slice(0, KEPT_BODY)) : body };
  }
  return shown;
}

/** The evidence of an observation: a live run's as it is, a recording's reduced (`shownExchange`). */
export function evidenceOf(obs: Evidence): Evidence {
  return obs.source === 'live' ? obs : { exchange: shownExchange(obs.exchange), source: obs.source };
}

/** An exchange's entry number as a table's key that sorts as the number does: entries earliest first. */
export const entryKey = (obs: Evidence) => String(obs.exchange.seq).padStart(16, '0');

/** The earlier of two pieces of evidence: a merge of evidence kept apart. */
export const earlier = <E extends Evidence>(kept: E, other: E): E =>
  other.exchange.seq < kept.exchange.seq ? other : kept;

/**
 * Evidence by key in a table of the run's state: per key the earliest exchange; in a recording, for
 * the `limit` keys seen earliest only (a live run keeps every one, it holds its exchanges anyway).
 */
export class EvidenceTable {
  private readonly table: StateTable<Evidence>;
  private kept = 0;
  private latest = -1;
  /** The latest entry whose evidence is shown, once a merge left more than `limit` keys. */
  private shownUpTo: number | undefined;

  private readonly limit: number;

  constructor(state: RuleState, name: string, limit: number) {
    this.limit = limit;
    this.table = state.table<Evidence>(name, earlier);
  }

  keep(key: string, obs: Evidence): void {
    const seq = obs.exchange.seq;
    // Entries come in order: once `limit` keys are kept, a later key is past them, and a key kept
    // already was kept from an earlier entry (none is later than the latest), so nothing is read.
    if (obs.source === 'traffic' && this.kept >= this.limit && seq > this.latest) return;
    const known = this.table.get(key);
    if (known && known.exchange.seq <= seq) return;
    if (!known) this.kept++;
    this.latest = Math.max(this.latest, seq);
    this.table.set(key, evidenceOf(obs));
  }

  get(key: string): Evidence | undefined {
    const evidence = this.table.get(key);
    if (!evidence || evidence.source === 'live') return evidence;
    return evidence.exchange.seq <= this.threshold() ? evidence : undefined;
  }

  /** After a merge, the `limit` earliest keys' evidence is shown, as judging the whole recording shows. */
  private threshold(): number {
    if (this.shownUpTo !== undefined) return this.shownUpTo;
    if (this.table.size <= this.limit) return (this.shownUpTo = Number.POSITIVE_INFINITY);
    const seqs = [...this.table.entries()].map(([, e]) => e.exchange.seq).sort((a, b) => a - b);
    return (this.shownUpTo = seqs[this.limit - 1] ?? Number.POSITIVE_INFINITY);
  }
}
