/**
 * What the live walks endpoints answer (written spec §4.2, §4.3), decided without Express: the
 * Express routes (`routes/walks.ts`) and the hot path in front of the app (`hot-path.ts`) both ask
 * `listAnswer` and `detailAnswer`, so the two cannot answer differently.
 */
import { WALK_PATH_TEMPLATE } from '../spec/facts.ts';
import type { PreparedBody } from './envelope.ts';
import { type ErrorAnswer, INVALID_LIMIT, MALFORMED_WALK_ID, WALK_NOT_FOUND } from './errors.ts';
import { type BadLimit, clampLimit, limitValuesOf, parseLimit } from './limit.ts';
import { type CampaignWalks, UUID_SHAPE } from './repository.ts';

/** What comes before the id in the detail path: `/api/v1/walks/`. */
const WALK_PREFIX = WALK_PATH_TEMPLATE.slice(0, WALK_PATH_TEMPLATE.indexOf('{'));
/**
 * The detail path without a capture group: Express would percent-decode a captured id before any
 * middleware runs and answer badly encoded ids itself, ahead of authentication. The answer decodes
 * the id on its own, after the key has been checked (D-AUTH-ORDER, D-ID-MALFORMED).
 */
export const WALK_PATH = new RegExp(`^${WALK_PREFIX.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:[^/]+)\\/?$`);

/** The list for the `limit` of a request URL, or why not. */
export function listAnswer(
  url: string,
  walks: CampaignWalks | undefined,
  badLimit: BadLimit = 'refuse',
): PreparedBody | ErrorAnswer {
  const values = limitValuesOf(url);
  const limit = parseLimit(values) ?? (badLimit === 'clamp' ? clampLimit(values) : undefined);
  if (limit === undefined) return INVALID_LIMIT;
  if (!walks) throw new Error('campaign of a valid key has no walks view');
  return walks.list(limit);
}

/** The detail of the walk a request path names, or `not_found`. */
export function detailAnswer(path: string, walks: CampaignWalks | undefined): PreparedBody | ErrorAnswer {
  const id = decodedId(path);
  if (id === undefined || !UUID_SHAPE.test(id)) return MALFORMED_WALK_ID;
  return walks?.walk(id) ?? WALK_NOT_FOUND;
}

function decodedId(path: string): string | undefined {
  const raw = path.slice(WALK_PREFIX.length).replace(/\/$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // invalid percent-encoding names no walk
  }
}
