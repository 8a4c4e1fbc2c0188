/**
 * The client's pace toward the target: when a request may start. `--rate-limit` caps every start
 * of the run exactly (`windows.ts`). A deployment limits each key (D-RATE), so what its 429s teach
 * is the key's, per second and per minute (`limit-lessons.ts`): a limit shows as refusals that
 * cluster once a window holds a certain count of accepted requests, and the key then keeps a tenth
 * below it; refusals that fall at every count are faults, which teach nothing and slow nothing but
 * the request refused (unless most of the key's last answers are refusals: then, limit or not, the
 * key waits for the `Retry-After`). A lesson is weighed again at every refusal, so a limit that the evidence no
 * longer shows is dropped and the pace recovers; a learnt pace is never below one start a window.
 * A refusal's `Retry-After` says which window it may speak of (a second's limit has room again
 * within a second). Each key's starts are granted in the order asked, so no request waits
 * behind later ones, nor behind another key's pause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimit } from '../core/configuration.ts';
import type { PaceSummary } from '../core/report-model.ts';
import { capUnder, declaredLimits, EVIDENCE_KEPT, limitOf, type WindowEvidence } from './limit-lessons.ts';
import { busiestSecond, Starts, type Window } from './windows.ts';

const SECOND = 1_000;
const MINUTE = 60_000;
/** The windows a deployment's limit is learnt on. */
const LEARNT_WINDOWS = [SECOND, MINUTE] as const;
/** Refusals of requests started this close together, at the same counts, are one. */
const BURST_MS = 50;
/** The key's last answers weighed for being swamped, and the share of refusals that is. */
const RECENT = 20;
const SWAMPED_SHARE = 0.5;
/**
 * A learnt limit's window is kept this much longer on the client's side: the target counts
 * arrivals, which the network and the client's own work space closer together than their starts.
 */
const ARRIVAL_JITTER = 0.1;
/** Starts are kept as long as the longest window looks back, and a little more for late answers. */
const KEEP_MS = MINUTE + 10 * SECOND;

/** One start of a key's request: whether the target refused it (429), and whether it has been answered. */
interface Start {
  at: number;
  refused: boolean;
  settled: boolean;
}

/**
 * One answer as evidence: its start, and, once every request started in the minute before it is
 * answered too, its counts in each learnt window (in `LEARNT_WINDOWS` order); a refusal with the
 * windows it may speak of.
 */
interface Answer {
  at: number;
  refused: boolean;
  windows: readonly boolean[];
  counts?: number[];
}

/** What the pace knows of one key's requests (ms on the monotonic clock). */
class KeyPace {
  readonly gate = new Starts();
  readonly starts: Start[] = [];
  /** Every answer, newest last. */
  readonly evidence: Answer[] = [];
  /** The limit learnt on each window (the count the evidence shows), by window length. */
  readonly limits = new Map<number, number>();

  /** The last refusal's start and counts. */
  lastRefused: { at: number; counts: readonly number[] } = { at: Number.NEGATIVE_INFINITY, counts: [] };
  /** Whether each of the key's last answers was a refusal. */
  readonly recent: boolean[] = [];
  pausedUntil = 0;
  queue: Promise<void> = Promise.resolve();

  /** Accepted (or still unanswered) starts of this key in the `ms` before `at`. */
  countBefore(at: number, ms: number): number {
    let count = 0;
    for (let i = this.starts.length - 1; i >= 0; i--) {
      const start = this.starts[i] as Start;
      if (start.at >= at) continue;
      if (start.at < at - ms) break;
      if (!start.refused) count++;
    }
    return count;
  }

  /**
   * An answer's counts, once no request started in the minute before it is still unanswered (a
   * request still in flight may yet be refused, and a refused one is not counted by the target).
   */
  countsOf(answer: Answer): number[] | undefined {
    if (answer.counts) return answer.counts;
    const longest = LEARNT_WINDOWS[LEARNT_WINDOWS.length - 1] as number;
    const open = this.starts.some((s) => !s.settled && s.at < answer.at && s.at >= answer.at - longest);
    if (open) return undefined;
    answer.counts = LEARNT_WINDOWS.map((ms) => this.countBefore(answer.at, ms));
    return answer.counts;
  }
}

export class Pace {
  private readonly asked: RateLimit | undefined;
  private readonly windows: Window[];
  /** Every start of the run, for `--rate-limit`. */
  private readonly starts = new Starts();
  private readonly everyStart: number[] = [];
  private readonly keys = new Map<string, KeyPace>();
  throttled = 0;

  constructor(rateLimit: RateLimit | undefined) {
    this.asked = rateLimit;
    this.windows = rateLimit ? windowsOf(rateLimit) : [];
  }

  /**
   * Resolves when a request carrying `keys` (what identifies each credential it sends to the target;
   * none for a request without) may start, and counts its start against every one of them (the
   * target counts the one it reads, which the client cannot know): the time it returns; undefined
   * when that would be at or past `deadline` (the run's end), which nothing waits beyond.
   */
  turn(keys: readonly string[], deadline = Number.POSITIVE_INFINITY): Promise<number | undefined> {
    const paces = (keys.length > 0 ? keys : ['']).map((key) => this.paceOf(key));
    const granted = Promise.all(paces.map((pace) => pace.queue)).then(() => this.nextStart(paces, deadline));
    for (const pace of paces) pace.queue = granted.then(() => undefined);
    return granted;
  }

  /**
   * An answer to a request carrying `keys`, started at `startedAt` (a value `turn` returned). A
   * refusal that a limit explains holds the key's other requests until `retryAt` as well (they would
   * be refused too); any other refusal holds only its own request, which its caller waits out.
   */
  answered(
    keys: readonly string[],
    startedAt: number,
    answer: { status: number; headers: Readonly<Record<string, string>> },
    retryAt?: number,
  ): void {
    if (answer.status === 429) this.throttled++;
    for (const key of keys.length > 0 ? keys : [''])
      this.answeredFor(this.paceOf(key), startedAt, answer, retryAt);
  }

  private answeredFor(
    pace: KeyPace,
    startedAt: number,
    answer: { status: number; headers: Readonly<Record<string, string>> },
    retryAt: number | undefined,
  ): void {
    const refused = answer.status === 429;
    const start = pace.starts.find((s) => s.at === startedAt);
    if (start) {
      start.refused = refused;
      start.settled = true;
    }
    const counts = LEARNT_WINDOWS.map((ms) => pace.countBefore(startedAt, ms));
    // Requests refused together (a burst, or retries woken by one Retry-After) are one refusal.
    const burst =
      refused && startedAt - pace.lastRefused.at < BURST_MS && `${counts}` === `${pace.lastRefused.counts}`;
    if (refused) pace.lastRefused = { at: startedAt, counts };
    if (!burst) pace.evidence.push({ at: startedAt, refused, windows: windowsOfRefusal(answer.headers) });
    if (pace.evidence.length > EVIDENCE_KEPT) pace.evidence.shift();
    // Weighed again at a refusal, or at an acceptance a lesson says should have been refused.
    const contradicts = LEARNT_WINDOWS.some(
      (ms, i) => (counts[i] as number) >= (pace.limits.get(ms) ?? Infinity),
    );
    if (refused || contradicts) relearn(pace);
    for (const declared of declaredLimits(answer.headers)) pace.limits.set(declared.ms, declared.limit);
    pace.recent.push(refused);
    if (pace.recent.length > RECENT) pace.recent.shift();
    // Most of the key's last answers refused: it is over some limit, whatever the counts show.
    const swamped =
      pace.recent.length === RECENT && pace.recent.filter(Boolean).length >= RECENT * SWAMPED_SHARE;
    const atLimit =
      refused &&
      (swamped ||
        LEARNT_WINDOWS.some((ms, i) => {
          const limit = pace.limits.get(ms);
          return limit !== undefined && (counts[i] as number) >= capUnder(limit);
        }));
    if (atLimit && retryAt !== undefined) pace.pausedUntil = Math.max(pace.pausedUntil, retryAt);
  }

  summary(): PaceSummary {
    const summary: PaceSummary = { throttled: this.throttled };
    if (this.asked) summary.asked = rateLimitText(this.asked);
    const second = this.leastCap(SECOND);
    const minute = this.leastCap(MINUTE);
    if (second !== undefined) summary.learntPerSecond = second;
    if (minute !== undefined) summary.learntPerMinute = minute;
    return summary;
  }

  /**
   * The `--rate-limit` to set so that the target stops refusing: what was learnt, or else half the
   * busiest second of starts the run had (at least 1/s).
   */
  suggested(): string {
    const { learntPerSecond, learntPerMinute } = this.summary();
    if (learntPerSecond !== undefined) return `${learntPerSecond}/s`;
    if (learntPerMinute !== undefined) return `${learntPerMinute}/min`;
    return `${Math.max(1, Math.floor(busiestSecond(this.everyStart) / 2))}/s`;
  }

  /** The least pace any key learnt on a window. */
  private leastCap(ms: number): number | undefined {
    const limit = this.least(ms);
    return limit === undefined ? undefined : capUnder(limit);
  }

  /**
   * A key's caps: its own lessons; on a window where it has none yet, the least limit another key
   * learnt there, until its own answers teach otherwise. A deployment's keys are most often held to
   * one limit, so a key new to the run starts at the pace the others taught rather than with a
   * burst of refusals; a key of a higher tier only starts slower than it might.
   */
  private keyWindows(pace: KeyPace): Window[] {
    return LEARNT_WINDOWS.flatMap((ms) => {
      const limit =
        pace.limits.get(ms) ?? (pace.evidence.some((a) => a.refused) ? undefined : this.least(ms));
      return limit === undefined ? [] : [{ ms: ms + ms * ARRIVAL_JITTER, max: capUnder(limit) }];
    });
  }

  /** The least limit any key learnt on a window. */
  private least(ms: number): number | undefined {
    let least: number | undefined;
    for (const other of this.keys.values()) {
      const limit = other.limits.get(ms);
      if (limit !== undefined && (least === undefined || limit < least)) least = limit;
    }
    return least;
  }

  private paceOf(key: string): KeyPace {
    let pace = this.keys.get(key);
    if (!pace) this.keys.set(key, (pace = new KeyPace()));
    return pace;
  }

  private async nextStart(paces: readonly KeyPace[], deadline: number): Promise<number | undefined> {
    for (;;) {
      const now = performance.now();
      const wait = Math.max(
        this.starts.waitFor(this.windows, now),
        ...paces.map((pace) =>
          Math.max(pace.pausedUntil - now, pace.gate.waitFor(this.keyWindows(pace), now)),
        ),
      );
      if (now + Math.max(0, wait) >= deadline) return undefined;
      if (wait <= 0) {
        this.starts.add(now, KEEP_MS);
        for (const pace of paces) {
          pace.gate.add(now, KEEP_MS);
          pace.starts.push({ at: now, refused: false, settled: false });
          while ((pace.starts[0]?.at ?? now) <= now - KEEP_MS) pace.starts.shift();
        }
        this.everyStart.push(now);
        if (this.everyStart.length > EVIDENCE_KEPT) this.everyStart.shift();
        return now;
      }
      await sleep(Math.ceil(wait));
    }
  }
}

/**
 * A key's lessons from its evidence, the shortest window first: a longer window learns only from
 * the answers a shorter window's limit does not explain (in the run's first second, a per-second
 * limit's refusals would otherwise teach the same count per minute).
 */
function relearn(pace: KeyPace): void {
  let explained = (_counts: number[]): boolean => false;
  LEARNT_WINDOWS.forEach((ms, i) => {
    const evidence: WindowEvidence = { accepted: [], refused: [] };
    for (const answer of pace.evidence) {
      const counts = pace.countsOf(answer);
      if (counts === undefined || explained(counts)) continue;
      if (!answer.refused) evidence.accepted.push(counts[i] as number);
      else if (answer.windows[i]) evidence.refused.push(counts[i] as number);
    }
    const limit = limitOf(evidence);
    if (limit === undefined) {
      pace.limits.delete(ms);
      return;
    }
    pace.limits.set(ms, limit);
    const before = explained;
    explained = (counts) => before(counts) || (counts[i] as number) >= limit;
  });
}

/**
 * Which learnt windows a refusal may speak of, by its `Retry-After`: a second's limit has room again
 * within a second, a minute's asks for longer (but at the very end of its window); none said, either.
 */
function windowsOfRefusal(headers: Readonly<Record<string, string>>): readonly boolean[] {
  const seconds = /^\d+$/.test(headers['retry-after']?.trim() ?? '')
    ? Number(headers['retry-after'])
    : undefined;
  return LEARNT_WINDOWS.map((ms) => seconds === undefined || (ms === SECOND ? seconds <= 1 : seconds > 1));
}

/** `N/s`: N a second. `N/min`: N a minute, spread as at most ⌈N/60⌉ in any second. */
function windowsOf(limit: RateLimit): Window[] {
  if (limit.perMs === SECOND) return [{ ms: SECOND, max: limit.requests }];
  return [
    { ms: SECOND, max: Math.ceil(limit.requests / 60) },
    { ms: limit.perMs, max: limit.requests },
  ];
}

function rateLimitText(limit: RateLimit): string {
  return `${limit.requests}/${limit.perMs === SECOND ? 's' : 'min'}`;
}
