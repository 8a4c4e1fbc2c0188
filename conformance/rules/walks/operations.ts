/**
 * The operations the walks module attaches to, by the operationIds the spec gives the walks
 * endpoints: its rules (stop order, counts, centroid, links) hold for walks, not for every
 * collection.
 */
import type { OperationModel } from '../../core/spec-model.ts';

const isLiveGet = (op: OperationModel) => op.live && op.method === 'GET';

/** `GET /api/v1/walks`: the walk summaries. */
export const isWalkList = (op: OperationModel) => isLiveGet(op) && op.operationId === 'listWalks';

/** `GET /api/v1/walks/{id}`: one walk with its stops. */
export const isWalkDetail = (op: OperationModel) => isLiveGet(op) && op.operationId === 'getWalk';

export const isWalkOperation = (op: OperationModel) => isWalkList(op) || isWalkDetail(op);
