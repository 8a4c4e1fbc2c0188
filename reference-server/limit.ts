/**
 * The `limit` query parameter (written spec §4.2, D-LIMIT): decimal digits only, 1..200, default
 * 50; empty, repeated, signed, exponent, hex or fractional forms are refused.
 */
import { LIMIT } from '../spec/facts.ts';
import { MAX_LIMIT } from './repository.ts';

export const DEFAULT_LIMIT = LIMIT.default;
const DIGITS = /^[0-9]+$/;

/** `values` are all the `limit` values of the query string; undefined means "refuse". */
export function parseLimit(values: readonly string[]): number | undefined {
  if (values.length === 0) return DEFAULT_LIMIT;
  const [value] = values;
  if (values.length > 1 || value === undefined || !DIGITS.test(value)) return undefined;
  const limit = Number(value); // leading zeros are fine (`007` is 7); huge digit runs exceed 200
  return limit >= LIMIT.minimum && limit <= MAX_LIMIT ? limit : undefined;
}

/** D-LIMIT: what a bad `limit` gets: refused (ours), or clamped into 1..200 (a variant). */
export type BadLimit = 'refuse' | 'clamp';

/**
 * A variant's reading of a bad `limit`: the first value's leading integer (sign included) clamped
 * into 1..200; text with no integer at all gets the default.
 */
export function clampLimit(values: readonly string[]): number {
  const match = /^\s*([+-]?[0-9]+)/.exec(values[0] ?? '');
  if (!match) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(LIMIT.minimum, Number(match[1])));
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
