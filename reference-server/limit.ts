/**
 * The `limit` query parameter (written spec §4.2, D-LIMIT): decimal digits only, within the
 * operation's bounds (the walks': 1..200, default 50); empty, repeated, signed, exponent, hex or
 * fractional forms are refused.
 */
import { LIMIT, type LimitFacts } from '../spec/facts.ts';

const DIGITS = /^[0-9]+$/;

/** An operation's bounds of `limit`: the walks' unless the spec gives the operation others. */
export type LimitBounds = Pick<LimitFacts, 'minimum' | 'maximum' | 'default'>;

/** `values` are all the `limit` values of the query string; undefined means "refuse". */
export function parseLimit(values: readonly string[], bounds: LimitBounds = LIMIT): number | undefined {
  if (values.length === 0) return bounds.default;
  const [value] = values;
  if (values.length > 1 || value === undefined || !DIGITS.test(value)) return undefined;
  const limit = Number(value); // leading zeros are fine (`007` is 7); huge digit runs exceed the maximum
  return limit >= bounds.minimum && limit <= bounds.maximum ? limit : undefined;
}

/** D-LIMIT: what a bad `limit` gets: refused (ours), or clamped into the bounds (a variant). */
export type BadLimit = 'refuse' | 'clamp';

/**
 * A variant's reading of a bad `limit`: the first value's leading integer (sign included) clamped
 * into 1..200; text with no integer at all gets the default.
 */
export function clampLimit(values: readonly string[], bounds: LimitBounds = LIMIT): number {
  const match = /^\s*([+-]?[0-9]+)/.exec(values[0] ?? '');
  if (!match) return bounds.default;
  return Math.min(bounds.maximum, Math.max(bounds.minimum, Number(match[1])));
}

/** The raw `limit` values of a request URL, read from the query string itself (no parser settings). */
export function limitValuesOf(url: string): string[] {
  const start = url.indexOf('?');
  if (start === -1) return [];
  const query = url.slice(start + 1);
  // The query clients send nearly always: what URLSearchParams would find, without building one.
  const plain = PLAIN_LIMIT_QUERY.exec(query);
  if (plain) return [plain[1] as string];
  return new URLSearchParams(query).getAll('limit');
}

const PLAIN_LIMIT_QUERY = /^limit=([0-9]+)$/;
