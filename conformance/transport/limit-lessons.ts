/**
 * What a key's answers teach of a rate limit on one window (a second, a minute): a limit refuses
 * once the window's count of accepted requests has reached it, and never below it, so its 429s
 * cluster above one count while the answers below it are accepted. Random 429s (a fault, not a
 * limit) fall at every count, among accepted answers: they teach nothing, however many there are.
 * A limit a deployment declares (`RateLimit-Policy`) is taken as it says.
 */

/** The evidence of one window: the count in the window before each answered request started. */
export interface WindowEvidence {
  /** Counts at which requests were accepted (any answer but a refusal), in the order answered. */
  accepted: number[];
  /** Counts at which requests were refused (429). */
  refused: number[];
}

/** Refusals above a count before it is a limit. */
const MIN_REFUSALS = 2;
/** Answers below a count before it is a limit: the window must have been seen filling up. */
const MIN_BELOW = 4;
/** At most this share of the refusals above a limit may be matched by acceptances there (jitter). */
const ACCEPTED_ABOVE = 0.25;
/** At most this share of the answers below a limit may be refusals (jitter, a stray fault). */
const REFUSED_BELOW = 0.05;
/** Evidence kept per window: the newest answers. */
export const EVIDENCE_KEPT = 2_000;

/**
 * The smallest count the evidence shows to be a limit: enough refusals at or above it, next to no
 * acceptance there, and next to no refusal below it; undefined when it shows none.
 */
export function limitOf(evidence: WindowEvidence): number | undefined {
  if (evidence.refused.length < MIN_REFUSALS) return undefined;
  const accepted = [...evidence.accepted].sort((a, b) => a - b);
  const refused = [...evidence.refused].sort((a, b) => a - b);
  for (const candidate of new Set(refused)) {
    if (candidate < 1) continue;
    const refusedBelow = firstAtLeast(refused, candidate);
    const acceptedBelow = firstAtLeast(accepted, candidate);
    const refusedAbove = refused.length - refusedBelow;
    const acceptedAbove = accepted.length - acceptedBelow;
    const below = refusedBelow + acceptedBelow;
    if (refusedAbove < MIN_REFUSALS || below < MIN_BELOW) continue;
    if (acceptedAbove > refusedAbove * ACCEPTED_ABOVE) continue;
    if (refusedBelow > below * REFUSED_BELOW) continue;
    return candidate;
  }
  return undefined;
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
