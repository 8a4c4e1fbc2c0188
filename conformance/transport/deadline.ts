/**
 * The run's end (`--max-duration`) as the client keeps it: when nothing more is sent or waited for,
 * on the monotonic clock, a part of the duration being kept for judging and reporting once the last
 * request has ended (a tenth, at most ten seconds).
 */
import { durationText } from '../core/duration.ts';
import type { NetworkFailure } from '../core/exchange.ts';

const REPORT_RESERVE_MS = 10_000;

export class RunEnd {
  /** When nothing more is sent or waited for, on the monotonic clock. */
  readonly at: number;
  private readonly maxDurationMs: number | undefined;

  constructor(maxDurationMs: number | undefined) {
    this.maxDurationMs = maxDurationMs;
    const total = maxDurationMs ?? Number.POSITIVE_INFINITY;
    this.at = performance.now() + total - Math.min(REPORT_RESERVE_MS, total / 10);
  }

  /** Milliseconds left (negative once past). */
  left(): number {
    return this.at - performance.now();
  }

  /** A request the run's end cut short, and what it was doing then. */
  failure(waiting: string): NetworkFailure {
    const limit = durationText(this.maxDurationMs ?? 0);
    return { kind: 'past-deadline', message: `the run reached --max-duration ${limit} ${waiting}` };
  }
}
