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
import { runSuite } from '../run/runner.ts';
import { configFor } from './harness.ts';
import { startReferenceServer } from '../../reference-server/start.ts';

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
      /COLLECTION-008 is listed twice \(TRAFFIC-006 is COLLECTION-008 now\)/,
    );
  });

  it('an expected-failures file naming a walk id of a collection or item rule names that rule now', () => {
    const file = join(dir, 'walk-ids.yaml');
    writeFileSync(file, '- id: WALKS-LIST-003\n  reason: a\n- id: WALK-DETAIL-001\n  reason: b\n');
    expect(loadExpectedFailures(file, RULES)).toEqual([
      { id: 'COLLECTION-003', reason: 'a' },
      { id: 'ITEM-001', reason: 'b' },
    ]);
  });

  it('the walk ids of the walk rules themselves stay what they were', () => {
    const ids = RULES.map((r) => r.id);
    expect(ids).toContain('WALKS-LIST-006');
    expect(ids).toContain('WALK-DETAIL-003');
    expect(RENAMED['WALKS-LIST-006']).toBeUndefined();
  });

  it('--only and --skip take walk ids of collection and item rules, whole or as a prefix', () => {
    expect(selectChecks(RULES, ['WALKS-LIST-012']).map((r) => r.id)).toEqual(['COLLECTION-007']);
    expect(selectChecks(RULES, ['WALK-DETAIL-002']).map((r) => r.id)).toEqual(['ITEM-002']);
    // The prefix an older CI line gave selects every rule that had an id under it, old or new.
    const lists = selectChecks(RULES, ['WALKS-LIST']).map((r) => r.id);
    for (const id of ['COLLECTION-001', 'COLLECTION-008', 'WALKS-LIST-006', 'WALKS-LIST-015']) {
      expect(lists).toContain(id);
    }
    expect(lists.some((id) => id.startsWith('ITEM') || id.startsWith('AUTH'))).toBe(false);
    const skipped = selectChecks(RULES, [], ['WALK-DETAIL']).map((r) => r.id);
    expect(skipped).not.toContain('ITEM-001');
    expect(skipped).not.toContain('WALK-DETAIL-003');
    expect(skipped).toContain('COLLECTION-001');
  });

  it('--only and --skip take old ids', () => {
    expect(selectChecks(RULES, ['ISOLATION-004']).map((r) => r.id)).toEqual(['ISOLATION-002']);
    expect(selectChecks(RULES, [], ['TRAFFIC-008']).map((r) => r.id)).not.toContain('METHODS-001');
  });

  it('a live run given an old id in its configuration runs the rule that has it now', async () => {
    const server = await startReferenceServer({ log: false });
    try {
      const report = await runSuite(
        configFor(server.baseUrl, server.credentials, { only: ['WALKS-LIST-001'] }),
      );
      expect(report.results.map((r) => [r.id, r.status])).toEqual([['COLLECTION-001', 'pass']]);
    } finally {
      await server.close();
    }
  });

  it('a previous report with old ids and the old name of "not judged" is read', () => {
    const file = join(dir, 'previous.json');
    writeFileSync(file, JSON.stringify({ results: [{ id: 'TRAFFIC-003', status: 'inconclusive' }] }));
    expect(loadPreviousReport(file).results).toEqual([{ id: 'TRAFFIC-003', status: 'not-judged' }]);
  });
});
