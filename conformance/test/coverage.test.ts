import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../checks/registry.ts';
import { COVERAGE_PATH, coverageMarkdown, failable, uncovered } from './coverage-table.ts';
import { MUTATIONS } from '../../tools/test-support/mutations.ts';

describe('coverage of the mutation self-test', () => {
  it('breaks every required and drift check with at least one variant', () => {
    expect(uncovered()).toEqual([]);
  });

  it('aims every variant at a check that can fail', () => {
    const aimless = MUTATIONS.filter((m) => {
      const check = CHECKS.find((c) => c.id === m.breaks);
      return !check || !failable(check) || (m.strictOnly === true) !== (check.drift === true);
    });
    expect(aimless.map((m) => m.name)).toEqual([]);
  });

  it('keeps check ids and variant names unique', () => {
    expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
    expect(new Set(MUTATIONS.map((m) => m.name)).size).toBe(MUTATIONS.length);
  });

  it('has an up-to-date COVERAGE.md (npm run conformance:coverage)', async () => {
    expect(readFileSync(COVERAGE_PATH, 'utf8')).toBe(await coverageMarkdown());
  });
});
