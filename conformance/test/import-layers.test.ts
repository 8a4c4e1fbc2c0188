import { describe, expect, it } from 'vitest';
import { circlesOf, importGraph } from './import-graph.ts';

const graph = importGraph('conformance');
const suiteImportsOf = (file: string) =>
  (graph.get(file) ?? []).filter((path) => path.startsWith('conformance/'));

describe('the conformance suite is built in floors', () => {
  it('has no import circle anywhere, type-only imports included', () => {
    expect(graph.size).toBeGreaterThan(30);
    expect(circlesOf(graph)).toEqual([]);
  });

  it('keeps its ground floor free of the suite: the vocabulary and the outcome helpers', () => {
    expect(suiteImportsOf('conformance/types.ts')).toEqual([]);
    expect(suiteImportsOf('conformance/checks/outcome.ts')).toEqual(['conformance/types.ts']);
  });

  it('never imports the benchmark', () => {
    const intoBench = [...graph].filter(([, imports]) => imports.some((path) => path.startsWith('bench/')));
    expect(intoBench.map(([file]) => file)).toEqual([]);
  });

  it('finds a circle when there is one (the detector itself can fail)', () => {
    const circular = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circlesOf(circular)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
