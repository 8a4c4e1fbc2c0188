/**
 * One esbuild bundle per entry point of a package. The package's `dist/` mirrors the repository's
 * layout (`dist/conformance/main.mjs`, `dist/spec/openapi.yaml`), and every module keeps its own
 * `import.meta.url` as if it still sat at its place in that tree, so the paths the code resolves
 * from it (the spec, the docs page, a dependency through `createRequire`) find the files shipped
 * beside the bundle. `reference-server/launch.js` does the same for the repository's own bundle.
 */
import { build, type Metafile, type Plugin } from 'esbuild';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { REPO_ROOT } from './packages.ts';

export interface BundleOptions {
  /** The entry point, relative to the repository, e.g. `conformance/main.ts`. */
  entry: string;
  /** The package's `dist/` folder (absolute). */
  distDir: string;
  /** `true`: npm packages are copied into the bundle; `false`: they stay imports (dependencies). */
  inlineDependencies: boolean;
  /** npm packages that stay imports even when the others are inlined (native modules). */
  external?: readonly string[];
  /** Repository module → the source that stands in for it in this package. */
  replacements?: Readonly<Record<string, string>>;
}

export interface BundleResult {
  /** The bundle's path (absolute). */
  outfile: string;
  /** npm packages the bundle still imports (only the `external` ones when dependencies are inlined). */
  packages: string[];
  /** Folders (relative to the repository) of the npm packages copied into the bundle. */
  inlined: string[];
  /**
   * Repository files (relative to it) a bundled module names by `new URL('…', import.meta.url)`:
   * what the code reads at run time from beside itself, so the package must ship them.
   */
  readAtRunTime: string[];
}

/** What a bundle with inlined CommonJS dependencies needs to `require` Node's own modules. */
const REQUIRE_BANNER = [
  "import { createRequire as __createRequire } from 'node:module';",
  'const require = __createRequire(import.meta.url);',
].join('\n');

export async function bundle(options: BundleOptions): Promise<BundleResult> {
  const outfile = join(options.distDir, options.entry.replace(/\.ts$/, '.mjs'));
  const result = await build({
    entryPoints: [join(REPO_ROOT, options.entry)],
    absWorkingDir: REPO_ROOT,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    ...(options.inlineDependencies
      ? { banner: { js: REQUIRE_BANNER }, external: [...(options.external ?? [])] }
      : { packages: 'external' }),
    sourcemap: 'linked',
    legalComments: 'eof',
    metafile: true,
    logLevel: 'error',
    plugins: [placedModuleUrls(outfile, options.distDir, options.replacements ?? {})],
  });
  return {
    outfile,
    packages: importedPackages(result.metafile),
    inlined: inlinedPackages(result.metafile),
    readAtRunTime: filesNamedByModules(result.metafile, options.replacements ?? {}),
  };
}

/** A literal path resolved from the module's own URL: `new URL('./planned.openapi.yaml', import.meta.url)`. */
const NAMED_FILE = /new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g;

/**
 * The repository files the bundled modules name beside themselves: data (a spec, a page), never a
 * module (bundled) or a folder. `package.json` is left out: the build writes the package's own. A
 * name that leads to no file of the repository fails the build: the package would miss it too.
 */
function filesNamedByModules(metafile: Metafile, replacements: Readonly<Record<string, string>>): string[] {
  const files = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    if (input.includes('node_modules/') || !input.endsWith('.ts')) continue;
    const source = replacements[input] ?? readFileSync(join(REPO_ROOT, input), 'utf8');
    for (const [, , target] of source.matchAll(NAMED_FILE)) {
      if (!target || /\.(?:[cm]?[jt]s)$|\/$|^\.\.?$|package\.json$/.test(target)) continue;
      const file = join(dirname(input), target).split(sep).join('/');
      if (file.startsWith('..') || !existsSync(join(REPO_ROOT, file))) {
        throw new Error(`${input} reads ${target} beside itself, and ${file} is not in the repository`);
      }
      if (statSync(join(REPO_ROOT, file)).isFile()) files.add(file);
    }
  }
  return [...files].sort();
}

/**
 * Rewrites `import.meta.url` in each repository module to the URL the module would have at its
 * place under `dist/`, and loads the package's stand-in for each replaced module.
 */
function placedModuleUrls(
  outfile: string,
  distDir: string,
  replacements: Readonly<Record<string, string>>,
): Plugin {
  return {
    name: 'placed-module-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const fromRoot = relative(REPO_ROOT, args.path).split(sep).join('/');
        if (fromRoot.startsWith('..') || fromRoot.includes('node_modules/')) return undefined;
        const source = replacements[fromRoot] ?? readFileSync(args.path, 'utf8');
        if (/import\.meta\.(dirname|filename|resolve)\b/.test(source)) {
          throw new Error(`${fromRoot}: only import.meta.url is kept per module in a package`);
        }
        const placed = relative(dirname(outfile), join(distDir, fromRoot)).split(sep).join('/');
        const ownUrl = `new URL(${JSON.stringify(placed)}, import.meta.url).href`;
        return {
          contents: source.replaceAll('import.meta.url', ownUrl),
          loader: 'ts',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** The npm packages (by name) that the output still imports. */
function importedPackages(metafile: Metafile): string[] {
  const builtins = new Set(builtinModules);
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (!external || path.startsWith('node:') || builtins.has(path) || path.startsWith('.')) continue;
      const parts = path.split('/');
      names.add(path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? path));
    }
  }
  return [...names].sort();
}

/** The folders of the npm packages whose code the output contains (their licences ship with it). */
function inlinedPackages(metafile: Metafile): string[] {
  const folders = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) folders.add(match[1]);
  }
  return [...folders].sort();
}
