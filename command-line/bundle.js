// @ts-check
/**
 * One esbuild bundle of a TypeScript entry and everything of the repository it imports, kept on
 * disk and built again whenever a file it was built from changed since: the one way the house turns
 * TypeScript into a file plain node runs: loading one built file starts faster than compiling
 * every module on load with tsx.
 *
 * Used by the launchers (`command-line/launch.js`, `reference-server/launch.js`) and the
 * `--traffic` worker threads. Plain JavaScript, because launchers run it before
 * anything can compile TypeScript.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: manifests name their inputs relative to it. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Under `node_modules` (where tools keep their caches), so the packages a bundle leaves out resolve from it. */
export const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'canvassing-bundles');
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/**
 * @typedef {object} BundleOptions
 * @property {string} entry The TypeScript entry, absolute or relative to the root.
 * @property {string} outFile Where the bundle goes (absolute); its manifest goes beside it.
 * @property {string[]} [alsoFrom] Other files (relative to the root) whose change makes the bundle stale: the caller itself.
 * @property {boolean} [sourceMap] An inline source map, so stack traces name the TypeScript lines (default true).
 */

/**
 * The bundle's path, built first when it is missing or older than a file it was built from.
 * @param {BundleOptions} options
 * @returns {Promise<string>}
 */
export async function freshBundle(options) {
  if (isStale(options.outFile)) await build(options);
  return options.outFile;
}

/** The bundle `command-line/launch.js` runs an entry from: one per entry, named after its path. */
export function launchBundleOf(/** @type {string} */ entry) {
  const path = relative(ROOT, resolve(ROOT, entry)).split(sep).join('/');
  return join(CACHE_DIR, `${path.replace(/\.ts$/, '').replaceAll('/', '--')}.mjs`);
}

const manifestOf = (/** @type {string} */ outFile) => outFile.replace(/\.m?js$/, '.inputs.json');

/** @param {string} outFile */
function isStale(outFile) {
  /** @type {{ startedAtMs: number, inputs: string[] }} */
  let manifest;
  try {
    statSync(outFile);
    manifest = JSON.parse(readFileSync(manifestOf(outFile), 'utf8'));
  } catch {
    return true;
  }
  // Compared with the time the build started, so an edit made while it ran counts as newer.
  return manifest.inputs.some((file) => {
    try {
      return statSync(join(ROOT, file)).mtimeMs >= manifest.startedAtMs;
    } catch {
      return true;
    }
  });
}

/** @param {BundleOptions} options */
async function build({ entry, outFile, alsoFrom = [], sourceMap = true }) {
  const esbuild = await import('esbuild');
  const startedAtMs = Date.now();
  const outDir = dirname(outFile);
  const name = basename(outFile, extname(outFile));
  mkdirSync(outDir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { [name]: resolve(ROOT, entry) },
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // What a module imports with `import()` goes to a chunk of its own, loaded when it is imported,
    // packages included: the conformance CLI loads the embedded server (Express, faker) only when
    // it starts one. Chunks sit beside the bundle, so the module URLs worked out from it hold.
    splitting: true,
    chunkNames: `${name}.chunk-[hash]`,
    outExtension: { '.js': extname(outFile) },
    sourcemap: sourceMap ? 'inline' : false,
    write: false,
    outdir: outDir,
    metafile: true,
    logLevel: 'error',
    plugins: [ownModuleUrls(outDir)],
  });
  const inputs = [...new Set([...Object.keys(result.metafile?.inputs ?? {}), SELF, ...alsoFrom])];
  // Concurrent launches each write their own files and rename them into place: the chunks (named
  // by their content) first, the bundle that imports them after, and its manifest last.
  const partial = `.${process.pid}.partial`;
  const files = [...(result.outputFiles ?? [])].sort(
    (a, b) => Number(a.path === outFile) - Number(b.path === outFile),
  );
  if (!files.some((file) => file.path === outFile)) throw new Error(`esbuild wrote no ${outFile}`);
  for (const file of files) {
    writeFileSync(file.path + partial, file.contents);
    renameSync(file.path + partial, file.path);
  }
  writeFileSync(manifestOf(outFile) + partial, `${JSON.stringify({ startedAtMs, inputs }, null, 2)}\n`);
  renameSync(manifestOf(outFile) + partial, manifestOf(outFile));
}

/** What each module's `import.meta.url` becomes: a constant of its own (esbuild renames each module's). */
const MODULE_URL = '__ownModuleUrl';

/**
 * Keeps each module's `import.meta.url` its own: in the bundle it would otherwise be the bundle's,
 * and paths resolved from it (the spec, the docs page, a package.json) would point elsewhere. Each
 * module that reads `import.meta` gets one constant, its URL worked out from the bundle's, and
 * esbuild's `define` puts that constant where the code (never a string or a comment: it works on
 * the syntax tree) reads `import.meta.url`. The constant goes on the module's first line, so stack
 * traces keep their line numbers; `import.meta` is read through a name of its own there, which the
 * `define` leaves alone.
 * @param {string} outDir
 * @returns {import('esbuild').Plugin}
 */
function ownModuleUrls(outDir) {
  return {
    name: 'own-module-urls',
    setup(build) {
      build.initialOptions.define = { ...build.initialOptions.define, 'import.meta.url': MODULE_URL };
      build.onLoad({ filter: /\.[jt]s$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        if (/import\.meta\.(dirname|filename|resolve)\b/.test(source)) {
          throw new Error(`${args.path}: of import.meta, a bundled module keeps only its own url`);
        }
        const fromBundle = JSON.stringify(relative(outDir, args.path).split(sep).join('/'));
        const prelude = `const __bundleMeta = import.meta, ${MODULE_URL} = new URL(${fromBundle}, __bundleMeta.url).href; `;
        // A hashbang has to stay first: the constant then opens the second line.
        const at = source.startsWith('#!') ? source.indexOf('\n') + 1 : 0;
        const contents = source.slice(0, at) + prelude + source.slice(at);
        return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}
