/**
 * Old requirement ids keep working where users wrote them: an expected-failures list, `--only` and
 * `--skip`, and a previous report read with `--compare` name the rule that states the requirement now.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENAMED } from '../core/renamed.ts';
import { loadExpectedFailures } from '../run/expectations.ts';
import { loadPreviousReport } from '../run/compare.ts';
import { RULES } from '../rules/registry.ts';
import { selectChecks } from '../run/selection.ts';

const dir = mkdtempSync(join(tmpdir(), 'renamed-'));

describe('renamed requirement ids', () => {
  it('point at rules that exist, never at another old id', () => {
    const ids = new Set(RULES.map((r) => r.id));
    for (const [old, now] of Object.entries(RENAMED)) {
      expect(ids.has(now), `${old} -> ${now}`).toBe(true);
      expect(ids.has(old), `${old} is still a rule of its own`).toBe(false);
    }
  });

  it('an expected-failures file naming an old id names its rule now', () => {
    const file = join(dir, 'expected.yaml');
    writeFileSync(file, '- id: TRAFFIC-003\n  reason: isolation fix ships next sprint\n');
    expect(loadExpectedFailures(file, RULES)).toEqual([
      { id: 'ISOLATION-002', reason: 'isolation fix ships next sprint' },
    ]);
  });

  it('two old ids of one rule are one entry listed twice, and the message says why', () => {
    const file = join(dir, 'twice.yaml');
    writeFileSync(file, '- id: TRAFFIC-001\n  reason: a\n- id: TRAFFIC-006\n  reason: b\n');
    expect(() => loadExpectedFailures(file, RULES)).toThrow(
      /WALKS-LIST-014 is listed twice \(TRAFFIC-006 is WALKS-LIST-014 now\)/,
    );
  });

  it('--only and --skip take old ids', () => {
    expect(selectChecks(RULES, ['ISOLATION-004']).map((r) => r.id)).toEqual(['ISOLATION-002']);
    expect(selectChecks(RULES, [], ['TRAFFIC-008']).map((r) => r.id)).not.toContain('METHODS-001');
  });

  it('a previous report with old ids and the old name of "not judged" is read', () => {
    const file = join(dir, 'previous.json');
    writeFileSync(file, JSON.stringify({ results: [{ id: 'TRAFFIC-003', status: 'inconclusive' }] }));
    expect(loadPreviousReport(file).results).toEqual([{ id: 'TRAFFIC-003', status: 'not-judged' }]);
  });
});
