/**
 * Variants (`--variant SEED`): other legal answers on the points the written spec leaves open
 * (`spec/DECISIONS.md`, every entry whose level is advisory), drawn from a seed, so a partner's
 * client meets a deployment that decided differently before it meets the real one. Every choice
 * stays within the written spec; `DEFAULT_VARIANT` is the project's own decisions.
 */
import { SeededSource } from '../../fixtures/seeded-source.ts';
import { statusOfError } from '../../spec/facts.ts';
import {
  type ErrorAnswer,
  INVALID_KEY,
  INVALID_LIMIT,
  MALFORMED_KEY,
  MALFORMED_WALK_ID,
  METHOD_NOT_ALLOWED,
  MISSING_KEY,
  NO_SUCH_ENDPOINT,
  REVOKED_KEY,
} from '../errors.ts';
import type { CentroidMethod } from '../repository.ts';

/** Status and code of one refusal; the message stays the project's. */
export interface Refusal {
  status: number;
  code: string;
}

export interface Variant {
  /** The seed it was drawn from; undefined for the project's own decisions. */
  seed: number | undefined;
  /** D-AUTH-MISSING, D-AUTH-MALFORMED, D-AUTH-UNKNOWN, D-AUTH-REVOKED */
  missingKey: Refusal;
  malformedKey: Refusal;
  unknownKey: Refusal;
  revokedKey: Refusal;
  /** D-AUTH-BOTH: refuse two different keys, or let one header win. */
  bothHeaders: 'refuse' | 'authorization' | 'x-api-key';
  /** D-ORDER */
  order: 'newest-first' | 'oldest-first' | 'name' | 'id';
  /** D-LIMIT: refuse with this status, or clamp into 1..200 (unusable text: the default 50). */
  badLimit: Refusal | 'clamp';
  /** D-ID-MALFORMED */
  malformedId: Refusal;
  /** D-STOP-ID */
  stopIds: 'uuid' | 'prefixed' | 'numeric';
  /** D-COORDS: decimals of stop coordinates; null: as stored. */
  coordinateDecimals: number | null;
  /** D-COMPRESSION: gzip from 1 KiB, or never. */
  compression: 'gzip' | 'none';
  /** D-CACHE: validators and revalidation, or `no-store` without them. */
  caching: 'etag' | 'no-store';
  /** D-PATH-UNKNOWN */
  unknownPath: Refusal;
  /** D-METHOD */
  otherMethod: Refusal;
  /** D-CENTROID: the plain mean of the located stops, or their mean on the sphere. */
  centroid: CentroidMethod;
}

/** The status and code of one of the server's own answers: our decision is what we answer. */
const ours = ({ status, code }: ErrorAnswer): Refusal => ({ status, code });
/** A code the spec names, with the status the spec gives it. */
const asSpecified = (code: string): Refusal => ({ status: statusOfError(code), code });

export const DEFAULT_VARIANT: Variant = Object.freeze({
  seed: undefined,
  missingKey: ours(MISSING_KEY),
  malformedKey: ours(MALFORMED_KEY),
  unknownKey: ours(INVALID_KEY),
  revokedKey: ours(REVOKED_KEY),
  bothHeaders: 'refuse',
  order: 'newest-first',
  badLimit: ours(INVALID_LIMIT),
  malformedId: ours(MALFORMED_WALK_ID),
  stopIds: 'uuid',
  coordinateDecimals: null,
  compression: 'gzip',
  caching: 'etag',
  unknownPath: ours(NO_SUCH_ENDPOINT),
  otherMethod: ours(METHOD_NOT_ALLOWED),
  centroid: 'planar',
});

const FORBIDDEN = asSpecified('forbidden');

/**
 * The legal choices of every open point; the first of each is the project's decision. Where a
 * status is written out, it is the variant's own choice, deliberately not the spec's for that code.
 */
export const CHOICES: { readonly [K in Exclude<keyof Variant, 'seed'>]: readonly Variant[K][] } = {
  missingKey: [DEFAULT_VARIANT.missingKey, { status: 400, code: 'missing_api_key' }, FORBIDDEN],
  malformedKey: [DEFAULT_VARIANT.malformedKey, { status: 400, code: 'invalid_api_key' }, FORBIDDEN],
  unknownKey: [DEFAULT_VARIANT.unknownKey, FORBIDDEN],
  revokedKey: [
    DEFAULT_VARIANT.revokedKey,
    FORBIDDEN,
    { status: statusOfError('unauthorized'), code: 'key_revoked' },
  ],
  bothHeaders: ['refuse', 'authorization', 'x-api-key'],
  order: ['newest-first', 'oldest-first', 'name', 'id'],
  badLimit: [DEFAULT_VARIANT.badLimit, { status: 422, code: 'invalid_parameter' }, 'clamp'],
  malformedId: [DEFAULT_VARIANT.malformedId, asSpecified('invalid_parameter')],
  stopIds: ['uuid', 'prefixed', 'numeric'],
  coordinateDecimals: [null, 6, 5],
  compression: ['gzip', 'none'],
  caching: ['etag', 'no-store'],
  unknownPath: [DEFAULT_VARIANT.unknownPath, { status: 400, code: 'unknown_endpoint' }],
  otherMethod: [
    DEFAULT_VARIANT.otherMethod,
    asSpecified('not_found'),
    { status: 400, code: 'method_not_allowed' },
  ],
  /** Drawn last, so adding it left every earlier point's draw unchanged. */
  centroid: ['planar', 'spherical'],
};

/** Stream of the fixtures' seeded source reserved for variants (the data set uses 2..5). */
const VARIANT_STREAM = 17;

/** The variant of a seed: each open point drawn independently; the same seed, the same variant. */
export function variantOf(seed: number): Variant {
  const source = new SeededSource(seed, VARIANT_STREAM);
  const drawn: Record<string, unknown> = { seed };
  for (const [point, choices] of Object.entries(CHOICES)) drawn[point] = source.pick<unknown>(choices);
  return Object.freeze(drawn) as unknown as Variant;
}

/** One line per open point: what this variant answers, marked where it differs from ours. */
export function describeVariant(variant: Variant): string[] {
  return Object.keys(CHOICES).map((point) => {
    const key = point as keyof typeof CHOICES;
    const chosen = shown(variant[key]);
    const ours = shown(DEFAULT_VARIANT[key]);
    return `${point.padEnd(18)} ${chosen}${chosen === ours ? '' : `   (ours: ${ours})`}`;
  });
}

function shown(choice: unknown): string {
  if (choice === null) return 'as stored';
  if (typeof choice === 'object') {
    const { status, code } = choice as Refusal;
    return `${status} ${code}`;
  }
  return String(choice);
}
