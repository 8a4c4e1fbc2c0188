// @ts-check
/**
 * `node command-line/launch.js ENTRY.ts [ARGS...]`: what the npm scripts run. Runs a command's
 * TypeScript entry from its esbuild bundle (`command-line/bundle.js`, rebuilt whenever a source
 * changed) in this very process, as `node --import tsx ENTRY.ts` would run it: the entry sees
 * `process.argv` as `[node, ENTRY.ts (absolute), ...ARGS]` and each module its own
 * `import.meta.url`. One built file loads faster than modules compiled as they load, and every
 * test that runs a command as a process pays that start-up.
 *
 * `node command-line/launch.js --build-only ENTRY.ts...` builds the bundles that are stale and exits.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBundle, launchBundleOf, ROOT } from './bundle.js';

const SELF = 'command-line/launch.js';
/** This file's path: what a process is started with to run a command as the npm scripts do. */
export const LAUNCHER = fileURLToPath(import.meta.url);
const USAGE = 'usage: node command-line/launch.js ENTRY.ts [ARGS...] | --build-only ENTRY.ts...\n';

/** The bundle of a repository entry, built first when stale. @param {string} entry */
export function launchBundle(entry) {
  return freshBundle({ entry, outFile: launchBundleOf(entry), alsoFrom: [SELF] });
}

/**
 * Runs `entry` from `bundle` in this process, with the argument vector tsx would give it.
 * @param {string} entry
 * @param {string} bundle
 * @param {string[]} args
 */
export async function runBundle(entry, bundle, args) {
  process.argv.splice(1, process.argv.length - 1, resolve(ROOT, entry), ...args);
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundle).href);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [first, ...rest] = process.argv.slice(2);
  const buildOnly = first === '--build-only';
  const entries = buildOnly ? rest : [first];
  if (entries.length === 0 || !entries.every((entry) => entry?.endsWith('.ts'))) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  // An entry is named as node and tsx name a script: from the working directory.
  if (buildOnly) {
    for (const entry of rest) await launchBundle(resolve(entry));
  } else {
    const entry = resolve(String(first));
    await runBundle(entry, await launchBundle(entry), rest);
  }
}
