/**
 * The repository is built in floors. Each top-level folder stands on one floor of the table below
 * and imports only from the floors beneath it, never from a folder beside it; its tests stand on
 * its floor too. The test helpers two folders share live in `tools/test-support/`, which stands on no
 * floor of its own: what a test reaches through it counts as the test's own reach. Inside
 * `conformance/`, `conformance/test/import-layers.test.ts` holds the suite's own floors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ImportGraph } from './tools/test-support/import-graph.ts';
import {
  circlesOf,
  entryOf,
  ownerGraph,
  reachThroughSupport,
  reExportsOf,
  scanImports,
  upwardImports,
} from './tools/test-support/import-graph.ts';

const FLOOR = { ground: 0, contract: 1, data: 2, servers: 3, clients: 4, together: 5, tools: 6 } as const;

/** Every top-level folder that holds code, with its floor. */
const FLOORS: Record<string, number> = {
  // What every command shares with its process (flags, stop signals), and what every tool that
  // measures shares (the load generator, statistics). Nothing of the house beneath them.
  'command-line/': FLOOR.ground,
  'tools/measure/': FLOOR.ground,
  // The contract: the OpenAPI documents, the facts read from them, the spec's own tools.
  'spec/': FLOOR.contract,
  // The seeded data set.
  'fixtures/': FLOOR.data,
  // What answers the API: the reference server over the data set, Prism over the spec.
  'reference-server/': FLOOR.servers,
  'mock/': FLOOR.servers,
  // What asks it: the conformance suite (which can start the reference server itself), the docs page.
  'conformance/': FLOOR.clients,
  'docs/': FLOOR.clients,
  // What puts them together for a partner: the sandbox, the example client.
  'sandbox/': FLOOR.together,
  'examples/': FLOOR.together,
  // What measures and packs all of it.
  'tools/bench/': FLOOR.tools,
  'tools/soak/': FLOOR.tools,
  'tools/packaging/': FLOOR.tools,
};

const SUPPORT = 'tools/test-support/';
/** The one file that loads a module by a computed name, and why. */
const COMPUTED_LOADS: Record<string, string> = {
  'command-line/launch.js':
    'loads the bundle it has just built, by its path (every launcher runs one through it)',
};
/** The modules allowed to hand names on: a folder's face, one import path from outside it. */
const FACES = new Set(['fixtures/index.ts']);

const isSupport = (file: string) => file.startsWith(SUPPORT);
const isTest = (file: string) => /(^|\/)test\//.test(file) || file.endsWith('.test.ts');
const folderOf = (file: string) => entryOf(file, Object.keys(FLOORS));

const scans = [...Object.keys(FLOORS), SUPPORT].map((folder) => scanImports(folder));
const graph: ImportGraph = new Map(scans.flatMap((scan) => [...scan.graph]));
const unresolved = scans.flatMap((scan) => scan.unresolved);
/** Each file with what it reaches: an import of shared test support counts as what that imports. */
const reach = reachThroughSupport(graph, isSupport);
const floors = new Map(
  [...graph.keys()].flatMap((file) => {
    const folder = folderOf(file);
    return folder === undefined ? [] : [[file, FLOORS[folder] as number] as const];
  }),
);

/** Imports between two folders that stand on one floor. */
function sideImports(files: ImportGraph, owner: (file: string) => string | undefined, floor: typeof floors) {
  return [...files].flatMap(([file, imports]) =>
    imports
      .filter((imported) => owner(imported) !== owner(file) && floor.get(imported) === floor.get(file))
      .map((imported) => `${file} → ${imported}`),
  );
}

/** Tests importing another folder's test files, and code importing any test or test support. */
function borrowedTests(files: ImportGraph, owner: (file: string) => string | undefined, support = isSupport) {
  return [...files].flatMap(([file, imports]) =>
    imports
      .filter((imported) => {
        if (!isTest(file) && !support(file)) return isTest(imported) || support(imported);
        if (support(file)) return isTest(imported);
        return isTest(imported) && owner(imported) !== owner(file);
      })
      .map((imported) => `${file} → ${imported}`),
  );
}

describe('the repository is built in floors', () => {
  it('resolves every import to a file, but for the one load by a computed name', () => {
    expect(graph.size).toBeGreaterThan(200);
    const computed = unresolved.filter((line) => line.endsWith('(a computed specifier)'));
    expect(unresolved.filter((line) => !computed.includes(line))).toEqual([]);
    expect(computed.map((line) => line.split(':')[0])).toEqual(Object.keys(COMPUTED_LOADS));
  });

  it('gives every folder with code a floor, and names no folder that is gone', () => {
    const folders = new Set([...graph.keys()].filter((file) => !isSupport(file)).map(folderOf));
    expect(folders.has(undefined)).toBe(false);
    expect(Object.keys(FLOORS).filter((folder) => !folders.has(folder))).toEqual([]);
  });

  it('never imports up a floor, tests and what they reach through test support included', () => {
    expect(upwardImports(reach, floors)).toEqual([]);
  });

  it('never imports a folder beside it on the same floor', () => {
    expect(sideImports(reach, folderOf, floors)).toEqual([]);
  });

  it('keeps tests apart: no test imports another folder’s test files, no code imports a test', () => {
    expect(borrowedTests(graph, folderOf)).toEqual([]);
  });

  it('has no circle of folders, tests included, nor of files', () => {
    expect(circlesOf(ownerGraph(reach, folderOf))).toEqual([]);
    expect(circlesOf(graph)).toEqual([]);
  });

  it('imports each name from its home: no module hands names on, but a folder’s face', () => {
    const handedOn = [...graph.keys()]
      .filter((file) => !FACES.has(file))
      .flatMap((file) => reExportsOf(file, readFileSync(file, 'utf8')));
    expect(handedOn).toEqual([]);
  });
});

describe('the repository floor rules can fail', () => {
  // Two folders on floor 0 (a, b), one on floor 1 (c); s/ is shared support.
  const table = { 'a/': 0, 'b/': 0, 'c/': 1 } as Record<string, number>;
  const owner = (file: string) => entryOf(file, Object.keys(table));
  const support = (file: string) => file.startsWith('s/');
  const synthetic: ImportGraph = new Map([
    ['a/x.ts', ['c/y.ts', 'b/z.ts']],
    ['a/test/x.test.ts', ['s/helper.ts', 'c/test/helper.ts']],
    ['b/z.ts', ['s/helper.ts']],
    ['c/y.ts', []],
    ['c/test/helper.ts', ['a/x.ts']],
    ['s/helper.ts', ['c/y.ts', 'c/test/helper.ts']],
  ]);
  const through = reachThroughSupport(synthetic, support);
  const tableFloors = new Map(
    [...synthetic.keys()].flatMap((file) => {
      const folder = owner(file);
      return folder === undefined ? [] : [[file, table[folder] as number] as const];
    }),
  );

  it('counts what a test reaches through support as its own, and finds it going up', () => {
    expect(through.get('a/test/x.test.ts')).toEqual(['c/y.ts', 'c/test/helper.ts']);
    expect(upwardImports(through, tableFloors)).toEqual([
      'a/test/x.test.ts (0) → c/test/helper.ts (1)',
      'a/test/x.test.ts (0) → c/y.ts (1)',
      'a/x.ts (0) → c/y.ts (1)',
      'b/z.ts (0) → c/test/helper.ts (1)',
      'b/z.ts (0) → c/y.ts (1)',
    ]);
  });

  it('finds an import of a folder beside it', () => {
    expect(sideImports(through, owner, tableFloors)).toEqual(['a/x.ts → b/z.ts']);
  });

  it('finds a borrowed test helper, and code or support that imports tests', () => {
    expect(borrowedTests(synthetic, owner, support)).toEqual([
      'a/test/x.test.ts → c/test/helper.ts',
      'b/z.ts → s/helper.ts',
      's/helper.ts → c/test/helper.ts',
    ]);
  });

  it('finds a circle of folders that only a test closes', () => {
    expect(circlesOf(ownerGraph(through, owner))).toEqual([['a/', 'b/', 'c/']]);
  });

  it('finds a name handed on, by `export … from` or by exporting an import', () => {
    const text = [
      "import { a } from './a.ts';",
      "import * as b from './b.ts';",
      'const own = 1;',
      'export { own };',
      'export { a };',
      "export * from './c.ts';",
      "export type { T } from './d.ts';",
      'export { b as bee };',
    ].join('\n');
    expect(reExportsOf('m.ts', text)).toEqual(['m.ts:5', 'm.ts:6', 'm.ts:7', 'm.ts:8']);
  });
});
