import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstServerUrlOf, LIVE_SPEC_FILE, PLANNED_SPEC_FILE, pathTemplatesOf } from '../spec-files.ts';

describe('the spec files the server reads without a YAML parser', () => {
  it('are the files of spec/contract.ts', () => {
    expect([LIVE_SPEC_FILE, PLANNED_SPEC_FILE]).toEqual([LIVE_SPEC_PATH, PLANNED_SPEC_PATH]);
  });

  it('yield exactly the path templates a YAML parser finds', () => {
    for (const file of [LIVE_SPEC_FILE, PLANNED_SPEC_FILE]) {
      // Each file has paths of its own, so the comparison is never of two empty lists; how many is the spec's.
      expect(pathTemplatesOf(file).length).toBeGreaterThan(0);
      expect(pathTemplatesOf(file)).toEqual(Object.keys(loadSpec(file).paths ?? {}));
    }
  });

  it('yield the first server’s URL a YAML parser finds, and refuse a templated or missing one', () => {
    expect(firstServerUrlOf(LIVE_SPEC_FILE)).toBe(loadSpec(LIVE_SPEC_FILE).servers?.[0]?.url);
    const dir = mkdtempSync(join(tmpdir(), 'spec-files-'));
    try {
      const templated = join(dir, 'templated.yaml');
      writeFileSync(templated, 'openapi: 3.1.1\nservers:\n  - url: "{base_url}"\n');
      expect(() => firstServerUrlOf(templated)).toThrow(/concrete URL/);
      const none = join(dir, 'none.yaml');
      writeFileSync(none, 'openapi: 3.1.1\npaths: {}\n');
      expect(() => firstServerUrlOf(none)).toThrow(/concrete URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
