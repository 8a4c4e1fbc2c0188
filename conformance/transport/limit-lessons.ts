/**
 * What a key's answers teach of a rate limit on one window (a second, a minute): a limit refuses
 * once the window's count of accepted requests has reached it, and never below it, so its 429s lie
 * above the counts it accepted. Random 429s (a fault, not a limit) fall at every count, among the
 * accepted answers: they teach nothing, however many there are.
 * A limit a deployment declares (`RateLimit-Policy`) is taken as it says.
 */

/** The evidence of one window: the count in the window before each answered request started. */
export interface WindowEvidence {
  /** Counts at which requests were accepted (any answer but a refusal), in the order answered. */
  accepted: number[];
  /** Counts at which requests were refused (429). */
  refused: number[];
}

/** Refusals before a limit is learnt (requests refused together count once: `pace.ts`). */
const MIN_REFUSALS = 2;
/** Acceptances before a limit is learnt: the window must have been seen filling up. */
const MIN_ACCEPTED = 4;
/**
 * How much higher than the acceptances' counts the refusals' must lie: the chance that a refusal's
 * count exceeds an acceptance's (ties half). A limit refuses only above what it accepts (1, less the
 * jitter between when the client starts a request and when the target counts it); random refusals
 * fall among the acceptances (0.5).
 */
const MIN_SEPARATION = 0.8;
/** The limit is read as the median of the refusals' counts (a stray refusal below it is jitter). */
const LIMIT_QUANTILE = 0.5;
/** Evidence kept per key: the newest answers. */
export const EVIDENCE_KEPT = 2_000;

/**
 * The count the evidence shows to be a limit, when the refusals lie above the acceptances (the
 * median of the refusals' counts, at least 1); undefined when they lie among them (faults).
 */
export function limitOf(evidence: WindowEvidence): number | undefined {
  const { refused } = evidence;
  if (!weighable(evidence)) return undefined;
  const accepted = [...evidence.accepted].sort((a, b) => a - b);
  let above = 0;
  for (const count of refused) {
    const below = firstAtLeast(accepted, count);
    above += below + (firstAtLeast(accepted, count + 1) - below) / 2;
  }
  if (above / (refused.length * accepted.length) < MIN_SEPARATION) return undefined;
  const sorted = [...refused].sort((a, b) => a - b);
  return Math.max(1, sorted[Math.floor(LIMIT_QUANTILE * (sorted.length - 1))] as number);
}

/** Whether the evidence is enough to tell a limit from faults. */
function weighable(evidence: WindowEvidence): boolean {
  return evidence.refused.length >= MIN_REFUSALS && evidence.accepted.length >= MIN_ACCEPTED;
}

/** The pace kept under a limit: a tenth below it (at least one less), never below one. */
export function capUnder(limit: number): number {
  return Math.max(1, limit - Math.max(1, Math.round(limit / 10)));
}

/** The index of the first value at least `value` in sorted `values`. */
function firstAtLeast(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((values[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** A limit a deployment declares: `limit` requests in a window `ms` long. */
export interface DeclaredLimit {
  limit: number;
  ms: number;
}

/**
 * The limits a `RateLimit-Policy` header declares, either draft's form: `10;w=1, 1000;w=3600` or
 * `"burst";q=10;w=1`. A policy without a window, or one longer than an hour, teaches nothing.
 */
export function declaredLimits(headers: Readonly<Record<string, string>>): DeclaredLimit[] {
  const raw = headers['ratelimit-policy'] ?? headers['x-ratelimit-policy'];
  if (raw === undefined) return [];
  return raw.split(',').flatMap((item) => {
    const parts = item.split(';').map((part) => part.trim());
    const quota = parts.find((part) => /^q=\d+$/.test(part))?.slice(2) ?? parts[0];
    const window = parts.find((part) => /^w=\d+$/.test(part))?.slice(2);
    const limit = Number(quota);
    const seconds = Number(window);
    if (!/^\d+$/.test(quota ?? '') || !(limit >= 1) || !(seconds >= 1 && seconds <= 3_600)) return [];
    return [{ limit, ms: seconds * 1_000 }];
  });
}
