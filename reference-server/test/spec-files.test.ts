import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { LIVE_SPEC_FILE, PLANNED_SPEC_FILE, pathTemplatesOf } from '../spec-files.ts';

describe('the spec files the server reads without a YAML parser', () => {
  it('are the files of spec/contract.ts', () => {
    expect([LIVE_SPEC_FILE, PLANNED_SPEC_FILE]).toEqual([LIVE_SPEC_PATH, PLANNED_SPEC_PATH]);
  });

  it('yield exactly the path templates a YAML parser finds', () => {
    for (const file of [LIVE_SPEC_FILE, PLANNED_SPEC_FILE]) {
      expect(pathTemplatesOf(file)).toEqual(Object.keys(loadSpec(file).paths ?? {}));
    }
    expect(pathTemplatesOf(PLANNED_SPEC_FILE).length).toBeGreaterThanOrEqual(6);
  });
});
