/**
 * The module a `--traffic` worker thread runs (`judge-worker.ts`), as one JavaScript file, bundled
 * here from source once per run with esbuild (a dependency already): tsx compiles the main thread's
 * TypeScript but not a worker's, and one bundled file starts in about a tenth of the time and
 * memory it takes to load the worker's modules through tsx's loader (which runs on a thread, with a
 * heap, of its own). The bundle is built while the main thread judges. The package stands another
 * module in for this one (`packaging/packages.ts`): its worker is bundled beside its CLI.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';

/** The worker's module, and what to remove once the run is over. */
export interface WorkerModule {
  url: URL;
  remove: () => void;
}

const SOURCE = new URL('./judge-worker.ts', import.meta.url);
/**
 * Where a run's bundle is written: under `node_modules` (where tools keep their caches), so the
 * packages it imports resolve as the source's do. One file per process, removed after the run.
 */
const CACHE = new URL('../../node_modules/.cache/canvassing-traffic/', import.meta.url);

export async function workerModule(): Promise<WorkerModule> {
  const { build } = await import('esbuild');
  const outfile = fileURLToPath(new URL(`judge-worker.${process.pid}.${Date.now()}.mjs`, CACHE));
  mkdirSync(dirname(outfile), { recursive: true });
  const result = await build({
    entryPoints: [fileURLToPath(SOURCE)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'error',
    plugins: [ownModuleUrls],
  });
  writeFileSync(outfile, result.outputFiles?.[0]?.contents ?? '');
  return { url: pathToFileURL(outfile), remove: () => rmSync(outfile, { force: true }) };
}

/**
 * Keeps each module's `import.meta.url` its own (the paths resolved from it: the spec, the tool's
 * package.json), as `reference-server/launch.js` does for the server's bundle.
 */
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
