import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES } from '../rules/registry.ts';
import { COVERAGE_PATH, coverageMarkdown, failable, uncovered } from './coverage-table.ts';
import { MUTATIONS } from '../../tools/test-support/mutations.ts';
import { CAUGHT, rulesCatching } from './traffic-variants.ts';

describe('coverage of the mutation self-test', () => {
  it('breaks every required and drift rule with at least one variant', () => {
    expect(uncovered()).toEqual([]);
  });

  it('aims every variant at a rule that can fail', () => {
    const aimless = MUTATIONS.filter((m) => {
      const rule = RULES.find((r) => r.id === m.breaks);
      return !rule || !failable(rule) || (m.strictOnly === true) !== (rule.drift === true);
    });
    expect(aimless.map((m) => m.name)).toEqual([]);
  });

  it('names only failable rules of the registry as caught from a recording', () => {
    const unknown = Object.keys(CAUGHT).flatMap((name) =>
      rulesCatching(name).filter((id) => !RULES.some((rule) => rule.id === id && failable(rule))),
    );
    expect(unknown).toEqual([]);
  });

  it('keeps rule ids and variant names unique', () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    expect(new Set(MUTATIONS.map((m) => m.name)).size).toBe(MUTATIONS.length);
  });

  it('has an up-to-date COVERAGE.md (npm run conformance:coverage)', async () => {
    expect(readFileSync(COVERAGE_PATH, 'utf8')).toBe(await coverageMarkdown());
  });
});
