/**
 * The two npm packages built from this repository, as data: which entry points each bundles, which
 * files it ships beside them, and which repository modules it replaces. Each package's own
 * `package.json` (`conformance/`, `sandbox/`) names its bins and dependencies; the build holds
 * the two to each other.
 */
import { fileURLToPath } from 'node:url';
import { EMBEDDED_SERVER_PACKAGE } from '../../conformance/run/target.ts';
import { PARTNER_FILE_NAMES } from '../../reference-server/spec-files.ts';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface PackageDefinition {
  /** The workspace folder, relative to the repository. */
  dir: 'conformance' | 'sandbox';
  /** Bin name → the entry point it runs. */
  bins: Readonly<Record<string, string>>;
  /** Entry points bundled without a bin (imported through the package's `exports`, or run as a worker). */
  modules: readonly string[];
  /**
   * Repository files copied to the same place under `dist/`, beside every file a bundled module names
   * by `new URL('…', import.meta.url)` (the build finds those itself: the live and planned specs).
   */
  files: readonly string[];
  inlineDependencies: boolean;
  /**
   * npm packages left to `node_modules` even where the others are inlined: a native module (its
   * compiled binary is found beside its own files, never in a bundle). Each is a dependency.
   */
  external: readonly string[];
  /** npm packages the code resolves at run time (not through an import esbuild can see). */
  resolvedAtRunTime: readonly string[];
  replacements: Readonly<Record<string, string>>;
}

/** The name the conformance package imports the sandbox's in-process server by. */
const SANDBOX_START = `${EMBEDDED_SERVER_PACKAGE}/start`;

/**
 * Stands in for `reference-server/start.ts` in the conformance package: the same function, from
 * the sandbox package. Only the import changes; what a missing sandbox means is decided by
 * `conformance/target.ts`. The name sits in a constant so esbuild leaves it to run time.
 */
const EMBEDDED_FROM_SANDBOX = `
const SANDBOX_START = ${JSON.stringify(SANDBOX_START)};

export async function startReferenceServer(options) {
  return (await import(SANDBOX_START)).startReferenceServer(options);
}
`;

/**
 * Stands in for `docs/build.ts` in the sandbox package: the page is rendered when the package is
 * built and shipped in it, so nothing (and no Redocly) renders it at run time. Its URL is resolved
 * from `dist/docs/build.mjs`'s place, as every module's is (bundle.ts), so one `..` reaches `dist/`.
 */
const SHIPPED_DOCS_PAGE = `
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const API_REFERENCE_PATH = fileURLToPath(new URL('../spec/generated/api-reference.html', import.meta.url));

/** The package carries its own spec's page only: another spec's page is nowhere (/docs answers 503). */
export function apiReferencePathOf(specPath) {
  return specPath ? API_REFERENCE_PATH + '.of-another-spec' : API_REFERENCE_PATH;
}

export async function buildApiReference(options = {}) {
  if (options.specPath)
    throw new Error('the package carries the page of its own spec only: the repository renders another (npm start -- --spec)');
  if (!existsSync(API_REFERENCE_PATH)) throw new Error(API_REFERENCE_PATH + ' is missing from the package');
  return { built: false, outputPath: API_REFERENCE_PATH, bytes: statSync(API_REFERENCE_PATH).size };
}
`;

export const LIVE_SPEC = 'spec/openapi.yaml';
export const API_REFERENCE_PAGE = 'spec/generated/api-reference.html';
/** Built with the page (docs/partner-files.ts) and served beside it. */
const PARTNER_FILES = Object.values(PARTNER_FILE_NAMES).map((name) => `spec/generated/${name}`);

export const PACKAGES: readonly PackageDefinition[] = [
  {
    dir: 'conformance',
    bins: {
      'canvassing-conformance': 'conformance/main.ts',
      'canvassing-conformance-summary': 'conformance/cli/summary-command.ts',
    },
    modules: [],
    // The decision log the findings cite by id (D-…), beside the specs the rules read.
    files: [LIVE_SPEC, 'spec/DECISIONS.md'],
    inlineDependencies: true,
    // SQLite in WebAssembly, where a recording's state spills past its memory budget on a Node
    // without a stable node:sqlite: loaded on the first spill, and it finds its .wasm beside itself.
    external: ['node-sqlite3-wasm'],
    resolvedAtRunTime: [],
    replacements: {
      'reference-server/start.ts': EMBEDDED_FROM_SANDBOX,
    },
  },
  {
    dir: 'sandbox',
    bins: {
      'canvassing-sandbox': 'sandbox/main.ts',
      'canvassing-reference-server': 'reference-server/main.ts',
      'canvassing-mock': 'mock/main.ts',
    },
    modules: ['reference-server/start.ts'],
    // The page with the partner files built beside it, and the decision log the page links to.
    files: [
      LIVE_SPEC,
      'spec/planned.openapi.yaml',
      'spec/DECISIONS.md',
      API_REFERENCE_PAGE,
      ...PARTNER_FILES,
    ],
    inlineDependencies: false,
    external: [],
    resolvedAtRunTime: ['@stoplight/prism-cli'],
    replacements: { 'docs/build.ts': SHIPPED_DOCS_PAGE },
  },
];

export function packageDefinition(dir: string): PackageDefinition {
  const found = PACKAGES.find((p) => p.dir === dir);
  if (!found) throw new Error(`no package in ${dir}; packages: ${PACKAGES.map((p) => p.dir).join(', ')}`);
  return found;
}
