/**
 * The floors as one plain JavaScript file each, built with esbuild before they are started. Under
 * Valgrind a process runs 20-50 times slower, and compiling every TypeScript module on load with
 * tsx made a floor take over a minute to start; a bundle starts in seconds. The same bundle serves
 * the CPU-time rounds, so every measurement of a floor runs the same code.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { ROOT } from './processes.ts';

export const FLOORS = {
  expressFloor: 'bench/floors/express-floor.ts',
  nodeFloor: 'bench/floors/node-floor.ts',
} as const;
export type Floor = keyof typeof FLOORS;

/**
 * Inside `node_modules` (its `.cache`, as build tools do), so that the packages left out of the
 * bundle (Express) resolve from it as they do from the sources.
 */
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'bench-floors');

/**
 * Keeps each module's `import.meta.url` its own (the spec's facts read `openapi.yaml` beside
 * them): in a bundle it would be the bundle's. The bundle is built for this run on this machine, so
 * the source's own absolute URL is written in.
 */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(context) {
    context.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/** Builds every floor; returns the path of each bundle. */
export async function bundleFloors(): Promise<Record<Floor, string>> {
  mkdirSync(OUT_DIR, { recursive: true });
  const bundles = {} as Record<Floor, string>;
  for (const [floor, entry] of Object.entries(FLOORS) as [Floor, string][]) {
    const outfile = join(OUT_DIR, `${floor}.mjs`);
    await build({
      entryPoints: [join(ROOT, entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
      plugins: [sourceUrls],
    });
    bundles[floor] = outfile;
  }
  return bundles;
}
