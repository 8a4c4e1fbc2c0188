/**
 * The client's pace toward the target: when a request may start. `--rate-limit` caps every start
 * of the run exactly (`windows.ts`). A deployment limits each key (D-RATE), so what its 429s teach
 * is the key's, per second and per minute (`limit-lessons.ts`): a limit shows as refusals that
 * cluster once a window holds a certain count of accepted requests, and the key then keeps a tenth
 * below it; refusals that fall at every count are faults, which teach nothing and slow nothing but
 * the request refused. A lesson is weighed again at every refusal, so a limit that the evidence no
 * longer shows is dropped and the pace recovers; a learnt pace is never below one start a window.
 * What one key learnt is where every other key starts (one deployment, one policy), until its own
 * evidence says otherwise. Each key's starts are granted in the order asked, so no request waits
 * behind later ones, nor behind another key's pause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaceSummary, RateLimit } from '../core/types.ts';
import { capUnder, declaredLimits, EVIDENCE_KEPT, limitOf, type WindowEvidence } from './limit-lessons.ts';
import { busiestSecond, Starts, type Window } from './windows.ts';

const SECOND = 1_000;
const MINUTE = 60_000;
/** The windows a deployment's limit is learnt on. */
const LEARNT_WINDOWS = [SECOND, MINUTE] as const;
/** Starts are kept as long as the longest window looks back, and a little more for late answers. */
const KEEP_MS = MINUTE + 10 * SECOND;

/** One start of a key's request, and whether the target refused it (429). */
interface Start {
  at: number;
  refused: boolean;
}

/** What the pace knows of one key's requests (ms on the monotonic clock). */
class KeyPace {
  readonly gate = new Starts();
  readonly starts: Start[] = [];
  /** Every answer's counts in each learnt window (in `LEARNT_WINDOWS` order), newest last. */
  readonly evidence: { counts: number[]; refused: boolean }[] = [];
  /** The limit learnt on each window (the count the evidence shows), by window length. */
  readonly limits = new Map<number, number>();
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
   * Resolves when a request carrying `key` (what identifies its credentials to the target, '' for
   * none) may start, and counts its start: the time it returns; undefined when that would be at or
   * past `deadline` (the run's end), which nothing waits beyond.
   */
  turn(key: string, deadline = Number.POSITIVE_INFINITY): Promise<number | undefined> {
    const pace = this.paceOf(key);
    const granted = pace.queue.then(() => this.nextStart(pace, deadline));
    pace.queue = granted.then(() => undefined);
    return granted;
  }

  /**
   * An answer to a request carrying `key`, started at `startedAt` (a value `turn` returned). A
   * refusal that a limit explains holds the key's other requests until `retryAt` as well (they would
   * be refused too); any other refusal holds only its own request, which its caller waits out.
   */
  answered(
    key: string,
    startedAt: number,
    answer: { status: number; headers: Readonly<Record<string, string>> },
    retryAt?: number,
  ): void {
    const pace = this.paceOf(key);
    const refused = answer.status === 429;
    const start = pace.starts.find((s) => s.at === startedAt);
    if (refused) {
      this.throttled++;
      if (start) start.refused = true;
    }
    const counts = LEARNT_WINDOWS.map((ms) => pace.countBefore(startedAt, ms));
    pace.evidence.push({ counts, refused });
    if (pace.evidence.length > EVIDENCE_KEPT) pace.evidence.shift();
    // Weighed again at a refusal, or at an acceptance a lesson says should have been refused.
    const contradicts = LEARNT_WINDOWS.some(
      (ms, i) => (counts[i] as number) >= (pace.limits.get(ms) ?? Infinity),
    );
    if (refused || contradicts) relearn(pace);
    for (const declared of declaredLimits(answer.headers)) pace.limits.set(declared.ms, declared.limit);
    const atLimit = LEARNT_WINDOWS.some((ms, i) => {
      const limit = pace.limits.get(ms);
      return refused && limit !== undefined && (counts[i] as number) >= capUnder(limit);
    });
    if (atLimit && retryAt !== undefined) pace.pausedUntil = Math.max(pace.pausedUntil, retryAt);
  }

  summary(): PaceSummary {
    const summary: PaceSummary = { throttled: this.throttled };
    if (this.asked) summary.asked = rateLimitText(this.asked);
    const second = this.sharedCap(SECOND);
    const minute = this.sharedCap(MINUTE);
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
  private sharedCap(ms: number): number | undefined {
    const limits = [...this.keys.values()].flatMap((pace) => {
      const limit = pace.limits.get(ms);
      return limit === undefined ? [] : [limit];
    });
    return limits.length > 0 ? capUnder(Math.min(...limits)) : undefined;
  }

  /** A key's caps: its own lessons, else what any key learnt. */
  private keyWindows(pace: KeyPace): Window[] {
    return LEARNT_WINDOWS.flatMap((ms) => {
      const own = pace.limits.get(ms);
      const max = own !== undefined ? capUnder(own) : this.sharedCap(ms);
      return max === undefined ? [] : [{ ms, max }];
    });
  }

  private paceOf(key: string): KeyPace {
    let pace = this.keys.get(key);
    if (!pace) this.keys.set(key, (pace = new KeyPace()));
    return pace;
  }

  private async nextStart(pace: KeyPace, deadline: number): Promise<number | undefined> {
    for (;;) {
      const now = performance.now();
      const wait = Math.max(
        pace.pausedUntil - now,
        this.starts.waitFor(this.windows, now),
        pace.gate.waitFor(this.keyWindows(pace), now),
      );
      if (now + Math.max(0, wait) >= deadline) return undefined;
      if (wait <= 0) {
        this.starts.add(now, KEEP_MS);
        pace.gate.add(now, KEEP_MS);
        pace.starts.push({ at: now, refused: false });
        while ((pace.starts[0]?.at ?? now) <= now - KEEP_MS) pace.starts.shift();
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
      if (explained(answer.counts)) continue;
      (answer.refused ? evidence.refused : evidence.accepted).push(answer.counts[i] as number);
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

/** `N/s`: N a second. `N/min`: N a minute, spread as at most ⌈N/60⌉ in any second. */
function windowsOf(limit: RateLimit): Window[] {
  if (limit.perMs === SECOND) return [{ ms: SECOND, max: limit.requests }];
  return [
    { ms: SECOND, max: Math.ceil(limit.requests / 60) },
    { ms: limit.perMs, max: limit.requests },
  ];
}

export function rateLimitText(limit: RateLimit): string {
  return `${limit.requests}/${limit.perMs === SECOND ? 's' : 'min'}`;
}
