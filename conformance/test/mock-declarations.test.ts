/**
 * The mock profile is data, not branches: every rule declares how `--profile mock` treats it, and
 * no rule reads the profile to decide anything (only the live run's world does, when it says how a
 * key role is asked of a mock).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RULES } from '../rules/registry.ts';

const RULES_DIR = join(import.meta.dirname, '..', 'rules');

/**
 * Where a source reads the run's profile: `….config.profile`, `config.profile` or `world.profile`,
 * or a comparison with the words `'live'` / `'mock'` (but an observation's `source`, which says
 * whether it came from a live run or a recording). Reading another `profile` is fine.
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
      if (ownerName === 'config' || ownerName === 'world') found.push(`${at(node)} reads ${node.getText()}`);
    }
    if (ts.isBinaryExpression(node) && /^[!=]==?$/.test(node.operatorToken.getText())) {
      const words = [node.left, node.right].filter(ts.isStringLiteralLike).map((side) => side.text);
      // `obs.source === 'live'` asks where an exchange came from (a run or a recording), not the profile.
      const source = [node.left, node.right].some(
        (side) =>
          (ts.isPropertyAccessExpression(side) && side.name.text === 'source') ||
          (ts.isIdentifier(side) && side.text === 'source'),
      );
      if (!source && words.some((word) => word === 'live' || word === 'mock'))
        found.push(`${at(node)} compares with a profile`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the mock profile as data', () => {
  it('every rule declares how the mock treats it, a skip with its reason', () => {
    for (const rule of RULES) {
      const mock = rule.mock as unknown;
      const declared = mock === 'run' || (typeof mock === 'object' && mock !== null && 'skip' in mock);
      expect([rule.id, declared]).toEqual([rule.id, true]);
      if (typeof rule.mock === 'object') expect(rule.mock.skip.length, rule.id).toBeGreaterThan(10);
    }
  });

  it('no rule reads the profile to branch', () => {
    const files = readdirSync(RULES_DIR, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    const reads = files.flatMap((name) => profileReads(name, readFileSync(join(RULES_DIR, name), 'utf8')));
    expect(reads).toEqual([]);
  });

  it('finds a rule that does (the scan itself can fail)', () => {
    const text = [
      "if (ctx.config.profile === 'mock') skip();",
      "const { profile } = ctx.config; if (profile !== 'live') skip();",
      'const asking = world.profile;',
      'const other = spec.profile.noScope;',
    ].join('\n');
    expect(profileReads('x.ts', text).sort()).toEqual([
      'x.ts:1 compares with a profile',
      'x.ts:1 reads ctx.config.profile',
      'x.ts:2 compares with a profile',
      'x.ts:3 reads world.profile',
    ]);
  });
});
