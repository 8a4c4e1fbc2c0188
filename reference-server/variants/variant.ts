/**
 * Variants (`--variant SEED`): other legal answers on the points the written spec leaves open
 * (`spec/DECISIONS.md`, every entry whose level is advisory), drawn from a seed, so a partner's
 * client meets a deployment that decided differently before it meets the real one. Every choice
 * stays within the written spec; `DEFAULT_VARIANT` is the project's own decisions.
 */
import { SeededSource } from '../../fixtures/seeded-source.ts';
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

export const DEFAULT_VARIANT: Variant = Object.freeze({
  seed: undefined,
  missingKey: { status: 401, code: 'unauthorized' },
  malformedKey: { status: 401, code: 'unauthorized' },
  unknownKey: { status: 401, code: 'unauthorized' },
  revokedKey: { status: 401, code: 'unauthorized' },
  bothHeaders: 'refuse',
  order: 'newest-first',
  badLimit: { status: 400, code: 'invalid_parameter' },
  malformedId: { status: 404, code: 'not_found' },
  stopIds: 'uuid',
  coordinateDecimals: null,
  compression: 'gzip',
  caching: 'etag',
  unknownPath: { status: 404, code: 'not_found' },
  otherMethod: { status: 405, code: 'method_not_allowed' },
  centroid: 'planar',
});

const UNAUTHORIZED: Refusal = { status: 401, code: 'unauthorized' };
const FORBIDDEN: Refusal = { status: 403, code: 'forbidden' };

/** The legal choices of every open point; the first of each is the project's decision. */
export const CHOICES: { readonly [K in Exclude<keyof Variant, 'seed'>]: readonly Variant[K][] } = {
  missingKey: [UNAUTHORIZED, { status: 400, code: 'missing_api_key' }, FORBIDDEN],
  malformedKey: [UNAUTHORIZED, { status: 400, code: 'invalid_api_key' }, FORBIDDEN],
  unknownKey: [UNAUTHORIZED, FORBIDDEN],
  revokedKey: [UNAUTHORIZED, FORBIDDEN, { status: 401, code: 'key_revoked' }],
  bothHeaders: ['refuse', 'authorization', 'x-api-key'],
  order: ['newest-first', 'oldest-first', 'name', 'id'],
  badLimit: [{ status: 400, code: 'invalid_parameter' }, { status: 422, code: 'invalid_parameter' }, 'clamp'],
  malformedId: [
    { status: 404, code: 'not_found' },
    { status: 400, code: 'invalid_parameter' },
  ],
  stopIds: ['uuid', 'prefixed', 'numeric'],
  coordinateDecimals: [null, 6, 5],
  compression: ['gzip', 'none'],
  caching: ['etag', 'no-store'],
  unknownPath: [
    { status: 404, code: 'not_found' },
    { status: 400, code: 'unknown_endpoint' },
  ],
  otherMethod: [
    { status: 405, code: 'method_not_allowed' },
    { status: 404, code: 'not_found' },
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
