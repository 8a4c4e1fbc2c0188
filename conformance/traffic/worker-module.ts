/**
 * The module a `--traffic` worker thread runs (`judge-worker.ts`), as one JavaScript file, bundled
 * from source with esbuild (a dependency already): tsx compiles the main thread's TypeScript but not
 * a worker's, and one bundled file starts in about a tenth of the time and memory it takes to load
 * the worker's modules through tsx's loader (which runs on a thread, with a heap, of its own). The
 * bundle is kept, and built again whenever a file it was built from changed since
 * (`command-line/bundle.js`, as every launcher's). The package stands another module in for this
 * one (`tools/packaging/packages.ts`): its worker is bundled beside its CLI when the package is built.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBundle } from '../../command-line/bundle.js';

const SOURCE = fileURLToPath(new URL('./judge-worker.ts', import.meta.url));
/**
 * Where the bundle is kept: under `node_modules` (where tools keep their caches), so the packages it
 * imports resolve as the source's do.
 */
const BUNDLE = fileURLToPath(
  new URL('../../node_modules/.cache/canvassing-traffic/judge-worker.mjs', import.meta.url),
);

/** The URL of the worker's module, bundled first when missing or older than its sources. */
export async function workerModule(): Promise<URL> {
  const alsoFrom = ['conformance/traffic/worker-module.ts'];
  return pathToFileURL(await freshBundle({ entry: SOURCE, outFile: BUNDLE, alsoFrom, sourceMap: false }));
}
