/**
 * The paths the suite asks are read by `spec/facts.ts` from the spec's lines, cheaply; they must be
 * what a full parse of spec/openapi.yaml gives for the operations they name.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec, operationsOf } from '../../spec/contract.ts';
import { walkPath, WALK_PATH_TEMPLATE, WALKS_PATH } from '../../spec/facts.ts';

const pathOf = (operationId: string) =>
  operationsOf(loadSpec()).find((op) => op.operationId === operationId)?.path;

describe('the walks paths of spec/facts.ts', () => {
  it('are the paths of listWalks and getWalk by a full parse', () => {
    expect(WALKS_PATH).toBe(pathOf('listWalks'));
    expect(WALK_PATH_TEMPLATE).toBe(pathOf('getWalk'));
  });

  it('fill the detail template with the id, percent-encoded', () => {
    expect(walkPath('a b/c')).toBe(`${WALKS_PATH}/a%20b%2Fc`);
  });
});
