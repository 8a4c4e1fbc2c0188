/**
 * The mock profile is data, not branches: every check declares how `--profile mock` treats it, and
 * no check reads the profile to decide anything (only `target.ts` does, through `TargetProfile`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../checks/registry.ts';

const CHECKS_DIR = join(import.meta.dirname, '..', 'checks');

/**
 * Where a source reads the run's profile: `….config.profile` or `config.profile`, or a comparison
 * with the words `'live'` / `'mock'`. Reading `ctx.data.profile` (the target's asking data) is fine.
 */
export function profileReads(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'profile') {
      const owner = node.expression;
      const ownerName = ts.isPropertyAccessExpression(owner) ? owner.name.text : owner.getText();
      if (ownerName === 'config') found.push(`${at(node)} reads ${node.getText()}`);
    }
    if (ts.isBinaryExpression(node) && /^[!=]==?$/.test(node.operatorToken.getText())) {
      const words = [node.left, node.right].filter(ts.isStringLiteralLike).map((side) => side.text);
      if (words.some((word) => word === 'live' || word === 'mock'))
        found.push(`${at(node)} compares with a profile`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the mock profile as data', () => {
  it('every check declares how the mock treats it, a skip with its reason', () => {
    for (const check of CHECKS) {
      const mock = check.mock as unknown;
      const declared = mock === 'run' || (typeof mock === 'object' && mock !== null && 'skip' in mock);
      expect([check.id, declared]).toEqual([check.id, true]);
      if (typeof check.mock === 'object') expect(check.mock.skip.length, check.id).toBeGreaterThan(10);
    }
  });

  it('no check reads the profile to branch', () => {
    const files = readdirSync(CHECKS_DIR).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const reads = files.flatMap((name) => profileReads(name, readFileSync(join(CHECKS_DIR, name), 'utf8')));
    expect(reads).toEqual([]);
  });

  it('finds a check that does (the scan itself can fail)', () => {
    const text = [
      "if (ctx.config.profile === 'mock') skip();",
      "const { profile } = ctx.config; if (profile !== 'live') skip();",
      'const asking = ctx.data.profile.noScope;',
    ].join('\n');
    expect(profileReads('x.ts', text).sort()).toEqual([
      'x.ts:1 compares with a profile',
      'x.ts:1 reads ctx.config.profile',
      'x.ts:2 compares with a profile',
    ]);
  });
});
