// @ts-check
/**
 * The repository's import rules, checked by dependency-cruiser (`npm run lint:imports`, part of
 * `npm run lint`). The top-level folders stand in layers, each importing only from the layers
 * beneath it, never from a folder beside it:
 *
 *   command-line ← spec ← fixtures ← reference-server, mock ← conformance, docs ← sandbox, examples ← tools
 *
 * Tests stand on their folder's layer, and may import the test helpers folders share
 * (`tools/test-support/`); code that is not a test imports neither, and no folder reaches into
 * another folder's tests. Inside `conformance/`, the suite's own layers (below).
 */
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** The product's layers, lowest first; folders on one layer never import each other. */
const LAYERS = [
  ['command-line'],
  ['spec'],
  ['fixtures'],
  ['reference-server', 'mock'],
  ['conformance', 'docs'],
  ['sandbox', 'examples'],
];
const PRODUCT = LAYERS.flat();
const either = (/** @type {string[]} */ names) => `(${names.join('|')})`;
const TEST = '(^|/)test/|[.]test[.]ts$';

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const layerRules = LAYERS.map((folders, at) => {
  const aboveOrBeside = [...LAYERS.slice(at).flat(), 'tools'];
  return {
    name: `layer-${folders.join('-')}`,
    comment: `${folders.join(' and ')} import only from the layers beneath them, never from a folder beside them`,
    severity: 'error',
    from: { path: `^${either(folders)}/` },
    to: { path: `^${either(aboveOrBeside)}/`, pathNot: ['^$1/', '^tools/test-support/'] },
  };
});

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const houseRules = [
  {
    name: 'no-circular',
    comment: 'no two modules import each other, however far round, type-only imports and tests included',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'resolvable',
    comment: 'every import resolves to a file',
    severity: 'error',
    from: {},
    to: { couldNotResolve: true },
  },
  {
    name: 'code-never-imports-tests',
    comment:
      "the product's code imports no test and no test helper (the benchmarks may start the helpers' servers: a rate-limited target, a broken server)",
    severity: 'error',
    from: { pathNot: [TEST, '^tools/test-support/', '^tools/bench/'] },
    to: { path: [TEST, '^tools/test-support/'] },
  },
  {
    name: 'test-support-on-the-test-layer',
    comment: 'the shared test helpers are imported by tests only, and import no test themselves',
    severity: 'error',
    from: { path: '^tools/test-support/' },
    to: { path: TEST },
  },
  {
    name: 'tests-keep-to-their-folder',
    comment: "no test reaches into another folder's tests or test helpers",
    severity: 'error',
    from: { path: '^(tools/[^/]+|[^/]+)/' },
    to: { path: TEST, pathNot: '^$1/' },
  },
  {
    name: 'every-folder-on-a-layer',
    comment: 'every top-level folder with code stands on a layer of the product, or in tools/',
    severity: 'error',
    from: { path: '^[^/]+/', pathNot: `^${either([...PRODUCT, 'tools'])}/` },
    to: { dependencyTypes: ['local'] },
  },
  {
    name: 'a-name-from-its-home',
    comment: "import each name from its home: no module hands names on, but a folder's face",
    severity: 'error',
    from: { pathNot: '^fixtures/index[.]ts$' },
    to: { dependencyTypes: ['export'] },
  },
];

/** `conformance/`'s own layers: the folders of its engine. */
const SUITE = 'conformance';
const suiteFolders = ['core', 'transport', 'rules', 'run', 'reporters', 'cli'];
const inSuite = (/** @type {string} */ pattern) => `^${SUITE}/${pattern}`;

/**
 * The engine in folders: core imports nothing of the suite; transport and rules import core; run
 * imports core, transport and rules; reporters import core; cli imports everything.
 * @type {Record<string, string[]>}
 */
const SUITE_FOLDER_MAY_IMPORT = {
  core: [],
  transport: ['core'],
  rules: ['core'],
  run: ['core', 'transport', 'rules'],
  reporters: ['core'],
};

/** @returns {import('dependency-cruiser').IForbiddenRuleType[]} */
function suiteFolderRules() {
  return Object.entries(SUITE_FOLDER_MAY_IMPORT).map(([folder, allowed]) => ({
    name: `suite-${folder}`,
    comment: `conformance/${folder}/ imports ${allowed.length ? allowed.join(', ') : 'nothing of the suite'} besides itself`,
    severity: 'error',
    from: { path: inSuite(`${folder}/`) },
    to: { path: inSuite(''), pathNot: [folder, ...allowed, 'test'].map((name) => inSuite(`${name}/`)) },
  }));
}

/**
 * Every file of the suite stands in one of its folders, but its entry and its tests.
 * @type {import('dependency-cruiser').IForbiddenRuleType}
 */
const suitePlacement = {
  name: 'suite-file-in-a-folder',
  comment:
    "every file of the suite stands in one of its layers' folders (its entry main.ts, test/ and vitest/ aside)",
  severity: 'error',
  from: {
    path: inSuite(''),
    pathNot: [...suiteFolders, 'test', 'vitest']
      .map((name) => inSuite(`${name}/`))
      .concat(inSuite('main[.]ts$')),
  },
  to: { dependencyTypes: ['local'] },
};

/**
 * The rules for the tree at `root`.
 * @param {string} root
 * @returns {import('dependency-cruiser').IConfiguration}
 */
export function importRules(root) {
  return {
    forbidden: [...houseRules, ...layerRules, ...suiteFolderRules(), suitePlacement],
    options: OPTIONS(root),
  };
}

/** @param {string} root @returns {import('dependency-cruiser').ICruiseOptions} */
const OPTIONS = (root) => ({
  tsPreCompilationDeps: true,
  tsConfig: { fileName: `${root}/tsconfig.json` },
  doNotFollow: { path: 'node_modules' },
  enhancedResolveOptions: { conditionNames: ['import', 'node', 'default'], exportsFields: ['exports'] },
  exclude: { path: ['node_modules', '(^|/)(dist|generated)/'] },
  // Computed loads (command-line/launch.js loads the bundle it built) are not imports.
  moduleSystems: ['es6'],
});

export default importRules(REPOSITORY);
