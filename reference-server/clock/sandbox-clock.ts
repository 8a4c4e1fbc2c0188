/**
 * The sandbox's simulated time (`--clock`): seconds into the canvassing day of `fixtures/`, moved
 * by `POST /sandbox/clock` and, with `--clock-rate N`, by itself at N times real time. Only whole
 * seconds count, so the same advances name the same instant in any process.
 */
import { DAY_STARTS_AT } from '../../fixtures/canvassing-day.ts';
import { durationText } from './duration.ts';

export interface ClockConfig {
  /** Simulated seconds per real second; 0 (the default) moves only when advanced. */
  rate?: number;
  /** Real milliseconds since the epoch; tests pass their own. Default `Date.now`. */
  now?: () => number;
}

/** What `GET /sandbox/clock` tells (and `POST` after moving). */
export interface ClockState {
  now: string;
  day_started_at: string;
  elapsed: string;
  elapsed_seconds: number;
  rate: number;
}

export class SandboxClock {
  private readonly rate: number;
  private readonly realNow: () => number;
  private readonly startedAt: number;
  private advanced = 0;

  constructor({ rate = 0, now = Date.now }: ClockConfig = {}) {
    if (!(Number.isFinite(rate) && rate >= 0)) throw new RangeError('clock rate must be a number from 0');
    this.rate = rate;
    this.realNow = now;
    this.startedAt = now();
  }

  /** Whole simulated seconds since the day began. */
  elapsed(): number {
    const running = this.rate === 0 ? 0 : ((this.realNow() - this.startedAt) / 1000) * this.rate;
    return Math.floor(this.advanced + running);
  }

  advance(seconds: number): void {
    this.advanced += seconds;
  }

  state(): ClockState {
    const elapsed = this.elapsed();
    return {
      now: isoSeconds(Date.parse(DAY_STARTS_AT) + elapsed * 1000),
      day_started_at: DAY_STARTS_AT,
      elapsed: durationText(elapsed),
      elapsed_seconds: elapsed,
      rate: this.rate,
    };
  }
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
