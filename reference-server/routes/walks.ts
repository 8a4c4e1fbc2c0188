/**
 * What only the walks answer (written spec §4.2, §4.3): the list, newest first with its stops in
 * order, and one walk by its UUID, from the repository (or the canvassing day's instant). The
 * route, the key, the scopes, `limit` and steering are the spec-driven router's (`operations.ts`).
 */
import { LIMIT } from '../../spec/facts.ts';
import { MALFORMED_WALK_ID, NO_SUCH_ENDPOINT, WALK_NOT_FOUND } from '../errors.ts';
import { UUID_SHAPE, type WalkSource } from '../repository.ts';
import type { ServedOperation } from '../served-operations.ts';
import type { OperationAnswer, ServedRoute } from './operations.ts';

/** The route of a walks operation of the served spec: the list, or one walk. */
export function walkRoute(op: ServedOperation, repository: WalkSource): ServedRoute {
  return op.kind === 'collection'
    ? { op, answer: walkList(repository), notFound: NO_SUCH_ENDPOINT }
    : { op, answer: walkDetail(repository), notFound: WALK_NOT_FOUND };
}

function walkList(repository: WalkSource): OperationAnswer {
  return ({ campaignId, limit }) => {
    const walks = repository.campaign(campaignId);
    if (!walks) throw new Error('campaign of a valid key has no walks view');
    return walks.list(limit ?? LIMIT.default);
  };
}

/** D-ID-MALFORMED: an id that is not a UUID names no walk. */
function walkDetail(repository: WalkSource): OperationAnswer {
  return ({ campaignId, id }) => {
    if (id === undefined || !UUID_SHAPE.test(id)) return MALFORMED_WALK_ID;
    return repository.campaign(campaignId)?.walk(id) ?? WALK_NOT_FOUND;
  };
}
