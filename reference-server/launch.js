// @ts-check
/**
 * `npm run reference-server`: runs `main.ts` from one esbuild bundle with plain node: one built
 * file starts faster than TypeScript modules compiled as they load. The bundle is rebuilt first whenever it is missing or a
 * file it was built from changed since, so an edited source is never served stale. Plain
 * JavaScript, because it runs before anything can compile TypeScript.
 *
 * `node reference-server/launch.js --build-only` builds the bundle when stale and exits.
 */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBundle, ROOT } from '../command-line/bundle.js';
import { runBundle } from '../command-line/launch.js';

const ENTRY = 'reference-server/main.ts';
/** Beside the server's other generated files, where `npm ci --omit=dev`'s postinstall builds it. */
export const BUNDLE = join(ROOT, 'reference-server', 'generated', 'main.mjs');
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/** The bundle's path, built first when it is missing or older than what it was built from. */
export function ensureBundle() {
  return freshBundle({ entry: ENTRY, outFile: BUNDLE, alsoFrom: [SELF] });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `--build-only` is the launcher's own flag, and only as the first argument: after the `--` that
  // `npm run reference-server` passes, every argument is the server's (main.ts reads them all,
  // and refuses `--build-only` like any unknown flag).
  const buildOnly = process.argv[2] === '--build-only';
  if (buildOnly && process.argv.length > 3) {
    // The shared usage message (command-line/flags.ts), which this file runs before it can import.
    process.stderr.write(
      'reference-server: --build-only takes no other argument\nRun with --help for the options.\n',
    );
    process.exit(2);
  }
  const bundle = await ensureBundle();
  if (buildOnly) process.exit(0);
  await runBundle(ENTRY, bundle, process.argv.slice(2));
}
