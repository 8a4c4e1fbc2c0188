/** Reading `accepted-changes.yaml` and judging a diff with it, in-process. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyAcknowledgements, loadAcknowledgements, todayUtc } from '../acknowledgements.ts';
import { SpecDiffError } from '../errors.ts';
import type { ClassifiedChange, SpecDiff } from '../types.ts';

const dir = mkdtempSync(join(tmpdir(), 'accepted-changes-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ID = 'property-removed@GET /api/v1/walks > response 200 > body data[].app_link';

function fileWith(name: string, text: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, text);
  return path;
}

function change(id: string, classification: ClassifiedChange['classification']): ClassifiedChange {
  return {
    id,
    classification,
    impact: 'x',
    where: 'w',
    kind: 'removed',
    message: 'm',
    rule: id.split('@')[0] ?? '',
  };
}

function diffWith(...changes: ClassifiedChange[]): SpecDiff {
  const counts = { breaking: 0, 'non-breaking': 0, annotation: 0 };
  for (const c of changes) counts[c.classification]++;
  return {
    base: 'old.yaml',
    head: 'new.yaml',
    baseVersion: '1.0.0',
    headVersion: '1.1.0',
    verdict: 'breaking',
    counts,
    changes,
  };
}

describe('loadAcknowledgements', () => {
  it('reads each entry with its reason and end; a missing or empty file acknowledges nothing', () => {
    const path = fileWith(
      'good',
      `accepted:\n  - id: "${ID}"\n    reason: " told partners "\n    spec-version: "1.1.0"\n`,
    );
    expect(loadAcknowledgements(path)).toEqual([{ id: ID, reason: 'told partners', specVersion: '1.1.0' }]);
    expect(loadAcknowledgements(join(dir, 'absent.yaml'))).toEqual([]);
    expect(() => loadAcknowledgements(join(dir, 'absent.yaml'), { mustExist: true })).toThrow(
      `${join(dir, 'absent.yaml')}: no such file.`,
    );
    expect(loadAcknowledgements(fileWith('empty', '# nothing yet\n'))).toEqual([]);
    expect(loadAcknowledgements(fileWith('none', 'accepted:\n'))).toEqual([]);
  });

  it.each([
    ['not YAML', 'accepted: [\n', 'is not valid YAML'],
    ['a list at the top', `- id: "${ID}"\n`, 'must be a mapping with one key, `accepted`'],
    ['another top-level key', 'accepted: []\nowners: [api]\n', 'must be a mapping with one key, `accepted`'],
    ['accepted that is not a list', 'accepted: yes\n', '`accepted` must be a list of entries'],
    ['an entry that is a string', `accepted:\n  - "${ID}"\n`, 'entry 1 is not a mapping'],
    [
      'no reason',
      `accepted:\n  - id: "${ID}"\n    expires: "2999-12-31"\n`,
      `entry 1 (${ID}) needs a \`reason\``,
    ],
    [
      'no id',
      'accepted:\n  - reason: r\n    expires: "2999-12-31"\n',
      'entry 1 needs an `id` shaped RULE@PLACE',
    ],
    [
      'an id without a place',
      'accepted:\n  - id: limit\n    reason: r\n    expires: "2999-12-31"\n',
      'shaped RULE@PLACE',
    ],
    [
      'no end',
      `accepted:\n  - id: "${ID}"\n    reason: r\n`,
      'needs exactly one of `expires: YYYY-MM-DD` and `spec-version: X`',
    ],
    [
      'two ends',
      `accepted:\n  - id: "${ID}"\n    reason: r\n    expires: "2999-12-31"\n    spec-version: "1"\n`,
      'exactly one of',
    ],
    [
      'a day that does not exist',
      `accepted:\n  - id: "${ID}"\n    reason: r\n    expires: "2026-02-30"\n`,
      'write a date as YYYY-MM-DD',
    ],
    [
      'a date in another form',
      `accepted:\n  - id: "${ID}"\n    reason: r\n    expires: 31/12/2026\n`,
      'write a date as YYYY-MM-DD',
    ],
    [
      'an unquoted numeric version',
      `accepted:\n  - id: "${ID}"\n    reason: r\n    spec-version: 1.1\n`,
      'quote it',
    ],
    [
      'an unknown key',
      `accepted:\n  - id: "${ID}"\n    reason: r\n    expires: "2999-12-31"\n    owner: me\n`,
      'has unknown key `owner`',
    ],
    [
      'an id listed twice',
      `accepted:\n${`  - id: "${ID}"\n    reason: r\n    expires: "2999-12-31"\n`.repeat(2)}`,
      `lists ${ID} twice`,
    ],
  ])('refuses %s with one line naming the file', (name, text, message) => {
    const path = fileWith(name.replace(/\W+/g, '-'), text);
    let caught: unknown;
    try {
      loadAcknowledgements(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SpecDiffError);
    expect((caught as SpecDiffError).code).toBe('invalid_acknowledgements');
    expect((caught as SpecDiffError).message).toContain(path);
    expect((caught as SpecDiffError).message).toContain(message);
    expect((caught as SpecDiffError).message).not.toContain('\n');
  });
});

describe('applyAcknowledgements', () => {
  const entry = { id: ID, reason: 'r', expires: '2026-11-24' };

  it('accepts a break through the last day of its entry, and not the day after', () => {
    const diff = diffWith(change(ID, 'breaking'));
    expect(applyAcknowledgements(diff, [entry], { today: '2026-11-24' })).toMatchObject({
      gate: 'pass',
      accepted: { [ID]: entry },
      problems: [],
    });
    expect(applyAcknowledgements(diff, [entry], { today: '2026-11-25' })).toMatchObject({
      gate: 'fail',
      accepted: {},
      problems: [{ id: ID, problem: 'expired' }],
    });
  });

  it('holds a spec-version entry only for that version of the new spec', () => {
    const diff = diffWith(change(ID, 'breaking'));
    const forVersion = (specVersion: string) =>
      applyAcknowledgements(diff, [{ id: ID, reason: 'r', specVersion }], { today: '2026-11-24' }).gate;
    expect([forVersion('1.1.0'), forVersion('1.0.0'), forVersion('1.2.0')]).toEqual(['pass', 'fail', 'fail']);
  });

  it('fails when one break of two is accepted, and when an entry is stale', () => {
    const other = 'response-removed@GET /api/v1/walks/{id} > response 404';
    const two = diffWith(change(ID, 'breaking'), change(other, 'breaking'));
    expect(applyAcknowledgements(two, [entry], { today: '2026-01-01' }).gate).toBe('fail');
    const stale = applyAcknowledgements(diffWith(), [entry], { today: '2026-01-01' });
    expect(stale).toMatchObject({ gate: 'fail', problems: [{ id: ID, problem: 'stale' }] });
  });

  it('passes a diff without breaks and without entries', () => {
    expect(
      applyAcknowledgements(diffWith(change('non-breaking/added@x', 'non-breaking')), [], {
        today: '2026-01-01',
      }).gate,
    ).toBe('pass');
  });

  it('dates today in UTC', () => {
    expect(todayUtc(new Date('2026-11-24T23:59:59-05:00'))).toBe('2026-11-25');
  });
});
