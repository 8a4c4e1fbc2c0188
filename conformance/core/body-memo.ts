/**
 * Facts a rule derives from an answer's body, remembered by the body: a recording holds the same
 * answers again and again (a list polled, a walk fetched while it does not change), and deriving
 * the facts (a validation, the digests of its items) costs more than knowing the body again.
 *
 * Each answer's body is known by a number (`bodyIdOf`): the same text gets the same number while
 * it is among the latest bodies seen, so the memos compare numbers, not texts; a body is found
 * among the known ones by a sketch of it, then compared whole. A memo holds the
 * facts of a few dozen bodies, the latest; what it derives must depend on the body alone.
 */
import type { ResponseData } from './exchange.ts';

/** Distinct bodies known by number at once (the latest); one seen again after is a new number. */
const KNOWN_BODIES = 128;
/** Characters of a body its sketch reads, spread over the whole text. */
const SKETCHED = 64;

interface Known {
  text: string;
  id: number;
  /** Its size in UTF-8, once asked (`sharedBytesOf`). */
  bytes?: number;
  /** Answers seen with this text. */
  answers: number;
}

/** The bodies known, by their sketch (texts with one sketch are told apart by comparing them). */
const bySketch = new Map<number, Known[]>();
/** The bodies known, oldest first, to forget the oldest. */
const known: { sketch: number; entry: Known }[] = [];
const idOfAnswer = new WeakMap<ResponseData, number>();
/** The bodies known, by number. */
const byId = new Map<number, Known>();
let nextId = 0;

/**
 * A cheap hash of a text: its length and some characters spread over it. Equal texts have equal
 * sketches; V8's own hash of a string reads every character, which a long body makes dear.
 */
function sketchOf(text: string): number {
  const step = Math.max(1, Math.floor(text.length / SKETCHED));
  let hash = text.length;
  for (let i = 0; i < text.length; i += step) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The number of an answer's body: equal numbers, equal texts. */
export function bodyIdOf(response: ResponseData): number {
  const remembered = idOfAnswer.get(response);
  if (remembered !== undefined) return remembered;
  const text = response.body;
  const sketch = sketchOf(text);
  const bucket = bySketch.get(sketch);
  const seen = bucket?.find((entry) => entry.text === text);
  let id = seen?.id;
  if (seen) seen.answers++;
  if (id === undefined) {
    id = nextId++;
    const entry: Known = { text, id, answers: 1 };
    if (bucket) bucket.push(entry);
    else bySketch.set(sketch, [entry]);
    known.push({ sketch, entry });
    byId.set(id, entry);
    if (known.length > KNOWN_BODIES) forget(known.shift() as { sketch: number; entry: Known });
  }
  idOfAnswer.set(response, id);
  return id;
}

function forget({ sketch, entry }: { sketch: number; entry: Known }): void {
  byId.delete(entry.id);
  const bucket = bySketch.get(sketch)?.filter((e) => e !== entry) ?? [];
  if (bucket.length === 0) bySketch.delete(sketch);
  else bySketch.set(sketch, bucket);
}

/** The parsed JSON of the latest bodies known, by their number. */
const parsedById = new Map<number, unknown>();

/**
 * The JSON of an answer's body, parsed once for every later answer with this very text: parsing a
 * body costs more than knowing it again. A text is kept parsed from its second answer on, so a
 * recording whose bodies are all distinct keeps none. The answers that share the one value get it
 * frozen, to the last nested member: a rule that changed it would change what the next answers
 * hold. Throws as `JSON.parse` throws.
 */
export function sharedJsonOf(response: ResponseData): unknown {
  const id = bodyIdOf(response);
  const kept = parsedById.get(id);
  if (kept !== undefined) return kept;
  const json = JSON.parse(response.body) as unknown;
  if ((byId.get(id)?.answers ?? 0) < 2) return json;
  if (parsedById.size >= KNOWN_BODIES) parsedById.delete(parsedById.keys().next().value as number);
  parsedById.set(id, deepFrozen(json));
  return json;
}

/** The size in UTF-8 of an answer's body, counted once for every answer with this very text. */
export function sharedBytesOf(response: ResponseData): number {
  const entry = byId.get(bodyIdOf(response));
  if (!entry) return Buffer.byteLength(response.body);
  entry.bytes ??= Buffer.byteLength(entry.text);
  return entry.bytes;
}

function deepFrozen(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  for (const member of Object.values(value)) deepFrozen(member);
  return Object.freeze(value);
}

export class BodyMemo<T> {
  private readonly kept = new Map<number, T>();

  private readonly size: number;

  constructor(size = 64) {
    this.size = size;
  }

  /** The facts of this answer's body: remembered, or derived now. */
  of(response: ResponseData, derive: () => T): T {
    const id = bodyIdOf(response);
    let known = this.kept.get(id);
    if (known === undefined) {
      if (this.kept.size >= this.size) this.kept.delete(this.kept.keys().next().value as number);
      known = derive();
      this.kept.set(id, known);
    }
    return known;
  }
}
