// @ts-check
/**
 * `npm run reference-server`: runs `main.ts` from one esbuild bundle with plain node. Loading one
 * built file starts in about half the time of compiling every TypeScript module on load with tsx
 * (`npm run bench` measures the start-up). The bundle is rebuilt first whenever it is missing or a
 * file it was built from changed since, so an edited source is never served stale. Plain
 * JavaScript, because it runs before anything can compile TypeScript.
 *
 * `node reference-server/launch.js --build-only` builds the bundle when stale and exits.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'reference-server', 'main.ts');
const OUT_DIR = join(ROOT, 'reference-server', 'generated');
export const BUNDLE = join(OUT_DIR, 'main.mjs');
/** What the bundle was built from: `{ startedAtMs, inputs }`, inputs relative to the root. */
const MANIFEST = join(OUT_DIR, 'main.inputs.json');
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/** The bundle's path, built first when it is missing or older than what it was built from. */
export async function ensureBundle() {
  if (isStale()) await build();
  return BUNDLE;
}

function isStale() {
  /** @type {{ startedAtMs: number, inputs: string[] }} */
  let manifest;
  try {
    statSync(BUNDLE);
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
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

async function build() {
  const esbuild = await import('esbuild');
  const startedAtMs = Date.now();
  mkdirSync(OUT_DIR, { recursive: true });
  // Concurrent launches each write their own file and rename it into place.
  const partial = `${BUNDLE}.${process.pid}.partial`;
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    metafile: true,
    logLevel: 'error',
    plugins: [ownModuleUrls],
  });
  const inputs = [...Object.keys(result.metafile.inputs), SELF];
  const manifestPartial = `${MANIFEST}.${process.pid}.partial`;
  writeFileSync(manifestPartial, `${JSON.stringify({ startedAtMs, inputs }, null, 2)}\n`);
  renameSync(partial, BUNDLE);
  renameSync(manifestPartial, MANIFEST);
}

/**
 * Keeps each module's `import.meta.url` its own: in the bundle it would otherwise be the bundle's,
 * and paths the server resolves from it (the spec, the docs page) would point elsewhere.
 * @type {import('esbuild').Plugin}
 */
const ownModuleUrls = {
  name: 'own-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.')) return undefined;
      if (/import\.meta\.(dirname|filename|resolve)\b/.test(source)) {
        throw new Error(`${args.path}: only import.meta.url is kept per module in the bundle`);
      }
      const fromBundle = relative(OUT_DIR, args.path).split(sep).join('/');
      const ownUrl = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', ownUrl), loader: 'ts' };
    });
  },
};

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
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundle).href);
}
