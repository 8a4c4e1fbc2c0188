/**
 * The module a `--traffic` worker thread runs (`judge-worker.ts`), as one JavaScript file, bundled
 * from source with esbuild (a dependency already): tsx compiles the main thread's TypeScript but not
 * a worker's, and one bundled file starts in about a tenth of the time and memory it takes to load
 * the worker's modules through tsx's loader (which runs on a thread, with a heap, of its own). The
 * bundle is kept, and built again whenever a file it was built from changed since, as
 * `reference-server/launch.js` keeps the server's. The package stands another module in for this
 * one (`packaging/packages.ts`): its worker is bundled beside its CLI when the package is built.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';

const SOURCE = new URL('./judge-worker.ts', import.meta.url);
/**
 * Where the bundle is kept: under `node_modules` (where tools keep their caches), so the packages it
 * imports resolve as the source's do.
 */
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/canvassing-traffic/', import.meta.url));
const BUNDLE = `${CACHE}judge-worker.mjs`;
/** What the bundle was built from: `{ startedAtMs, inputs }`, absolute paths. */
const MANIFEST = `${CACHE}judge-worker.inputs.json`;

/** The URL of the worker's module, bundled first when missing or older than its sources. */
export async function workerModule(): Promise<URL> {
  if (!isFresh()) await build();
  return pathToFileURL(BUNDLE);
}

function isFresh(): boolean {
  try {
    statSync(BUNDLE);
    const { startedAtMs, inputs } = JSON.parse(readFileSync(MANIFEST, 'utf8')) as {
      startedAtMs: number;
      inputs: string[];
    };
    // Against the time the build started, so an edit made while it ran counts as newer.
    return inputs.every((file) => statSync(file).mtimeMs < startedAtMs);
  } catch {
    return false;
  }
}

async function build(): Promise<void> {
  const esbuild = await import('esbuild');
  const startedAtMs = Date.now();
  mkdirSync(CACHE, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(SOURCE)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'error',
    plugins: [ownModuleUrls],
  });
  const inputs = [...Object.keys(result.metafile.inputs), fileURLToPath(import.meta.url)].map((file) =>
    resolve(file),
  );
  // Concurrent runs each write their own files and rename them into place.
  const partial = `.${process.pid}.partial`;
  writeFileSync(BUNDLE + partial, result.outputFiles?.[0]?.contents ?? '');
  writeFileSync(MANIFEST + partial, JSON.stringify({ startedAtMs, inputs }));
  renameSync(BUNDLE + partial, BUNDLE);
  renameSync(MANIFEST + partial, MANIFEST);
}

/** Keeps each module's `import.meta.url` its own (the paths resolved from it: the spec, the tool's package.json). */
const ownModuleUrls: Esbuild.Plugin = {
  name: 'own-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.')) return undefined;
      if (/import\.meta\.(dirname|filename|resolve)\b/.test(source))
        throw new Error(`${args.path}: only import.meta.url is kept per module in the bundle`);
      const own = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', own), loader: 'ts' };
    });
  },
};
