/**
 * The floors as one plain JavaScript file each, built with esbuild before they are started. Under
 * Valgrind a process runs 20-50 times slower, and compiling every TypeScript module on load with
 * tsx made a floor take over a minute to start; a bundle starts in seconds. The same bundle serves
 * the CPU-time rounds, so every measurement of a floor runs the same code.
 */
import { join } from 'node:path';
import { freshBundle } from '../command-line/bundle.js';
import { ROOT } from './processes.ts';

export const FLOORS = {
  expressFloor: 'bench/floors/express-floor.ts',
  nodeFloor: 'bench/floors/node-floor.ts',
  heldNodeFloor: 'bench/floors/held-node-floor.ts',
} as const;
export type Floor = keyof typeof FLOORS;

/**
 * Inside `node_modules` (its `.cache`, as build tools do), so that the packages left out of the
 * bundle (Express) resolve from it as they do from the sources.
 */
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'bench-floors');

/** Builds every floor that is stale (`command-line/bundle.js`); returns the path of each bundle. */
export async function bundleFloors(): Promise<Record<Floor, string>> {
  const bundles = {} as Record<Floor, string>;
  for (const [floor, entry] of Object.entries(FLOORS) as [Floor, string][]) {
    const outFile = join(OUT_DIR, `${floor}.mjs`);
    bundles[floor] = await freshBundle({
      entry,
      outFile,
      alsoFrom: ['bench/floor-bundles.ts'],
      sourceMap: false,
    });
  }
  return bundles;
}
