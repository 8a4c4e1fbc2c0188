/**
 * Builds the API reference page: one self-contained HTML file rendered offline by Redocly from
 * spec/openapi.yaml, so the page a partner opens at /docs never asks anything of another machine.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PARTNER_FILE_NAMES } from '../reference-server/spec-files.ts';
import type { OpenApiDocument } from '../spec/contract.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
// Resolved when a page is rendered: Redocly is a dev dependency, and `npm start` imports this module
// after `npm ci --omit=dev` too (it then serves the page already built, or answers 503 at /docs).
function redoclyCli(): string {
  try {
    return createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  } catch {
    throw new Error(
      'the page is rendered by Redocly, a development dependency that npm ci --omit=dev leaves out: run npm ci, then npm run docs:build',
    );
  }
}

// The spec's path is spelled here rather than imported from spec/contract.ts: that module loads Ajv,
// which would double the cost of the up-to-date check that runs before every test run.
const SPEC_PATH = join(REPO_ROOT, 'spec', 'openapi.yaml');
const API_REFERENCE_PATH = join(REPO_ROOT, 'spec', 'generated', 'api-reference.html');
/**
 * Where the page of a spec the sandbox serves with `--spec` is built: beside the project's page, one
 * folder per spec file (by its absolute path), so it is rebuilt only when that file changes.
 */
export function apiReferencePathOf(specPath: string): string {
  const absolute = resolve(specPath);
  if (absolute === SPEC_PATH) return API_REFERENCE_PATH;
  const folder = createHash('sha256').update(absolute).digest('hex').slice(0, 16);
  return join(dirname(API_REFERENCE_PATH), 'served-specs', folder, 'api-reference.html');
}

const PAGE_TITLE = 'Campaign Canvassing Read API — reference';

/**
 * Redoc's bundle loads a few images from Redocly's CDN at run time (the "API docs by Redocly"
 * logo; icon sets its components can use). Each is replaced by an inline `data:` URL: the logo by
 * a small text badge that keeps the attribution, the icon bases by an empty SVG. Its usage
 * telemetry is switched off (`disableTelemetry`) and its collector address replaced as well, so a
 * visitor's browser never reports to Redocly even if a later version ignored the option.
 */
const EMPTY_SVG = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg"/>')}#`;
const LOGO_SVG = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16">' +
    '<text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="600" fill="#0044d4">Redocly</text></svg>',
)}`;
const CDN_REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', LOGO_SVG],
  ['https://cdn.redoc.ly/redoc/logo-mini.svg', LOGO_SVG],
  ['https://cdn.redocly.com/icons/fa/7.0.0', EMPTY_SVG],
  ['https://cdn.redocly.com/icons/code/5.24.0', EMPTY_SVG],
  ['https://otel.cloud.redocly.com/v1/traces', 'data:,'],
];

/** Hosts a page bundle must never load from; finding one fails the build (a Redocly upgrade may add some). */
const REMOTE_ASSET_HOSTS = [
  'cdn.redoc.ly',
  'cdn.redocly.com',
  'otel.cloud.redocly.com',
  'fonts.googleapis.com',
  'fonts.gstatic.com',
  'unpkg.com',
  'cdn.jsdelivr.net',
];

/** An empty favicon, so the browser does not ask the server for /favicon.ico. */
const FAVICON = '<link rel="icon" href="data:,">';

export interface BuildOptions {
  specPath?: string;
  outputPath?: string;
  /** Rebuild even when the page is newer than its inputs. */
  force?: boolean;
}

export interface BuildResult {
  built: boolean;
  outputPath: string;
  bytes: number;
}

/** The files the page is made from: the spec, Redocly's config, this build script and the samples' maker. */
function inputsOf(specPath: string): string[] {
  return [
    specPath,
    join(REPO_ROOT, 'redocly.yaml'),
    fileURLToPath(import.meta.url),
    fileURLToPath(new URL('./code-samples.ts', import.meta.url)),
    fileURLToPath(new URL('./partner-files.ts', import.meta.url)),
    fileURLToPath(new URL('./sections.ts', import.meta.url)),
    join(REPO_ROOT, 'spec', 'changelog.yaml'),
  ].filter((path) => existsSync(path));
}

/** The partner files written beside the page (served by the sandbox, see reference-docs.ts). */
function partnerFilesBeside(outputPath: string): string[] {
  return Object.values(PARTNER_FILE_NAMES).map((name) => join(dirname(outputPath), name));
}

function isFresh(outputPath: string, inputs: string[]): boolean {
  if (!existsSync(outputPath)) return false;
  if (!partnerFilesBeside(outputPath).every((path) => existsSync(path))) return false;
  const builtAt = statSync(outputPath).mtimeMs;
  return inputs.every((input) => statSync(input).mtimeMs < builtAt);
}

export async function buildApiReference(options: BuildOptions = {}): Promise<BuildResult> {
  const specPath = options.specPath ?? SPEC_PATH;
  const outputPath = options.outputPath ?? API_REFERENCE_PATH;
  if (!options.force && isFresh(outputPath, inputsOf(specPath))) {
    return { built: false, outputPath, bytes: statSync(outputPath).size };
  }

  mkdirSync(dirname(outputPath), { recursive: true });
  const rendered = `${outputPath}.${process.pid}.redoc.html`;
  const withSamples = `${outputPath}.${process.pid}.openapi.json`;
  try {
    const languages = await writeSpecWithCodeSamples(specPath, withSamples, dirname(outputPath));
    await renderWithRedocly(withSamples, rendered, languages);
  } finally {
    rmSync(withSamples, { force: true });
  }
  const html = makeSelfContained(readFileSync(rendered, 'utf8'));
  // Written under a temporary name and renamed, so a server never serves half a page.
  writeFileSync(rendered, html);
  renameSync(rendered, outputPath);
  return { built: true, outputPath, bytes: Buffer.byteLength(html) };
}

/**
 * The document the page is rendered from: the spec with request samples on every operation
 * (docs/code-samples.ts). Imported only when a build happens: the contract module loads Ajv.
 */
async function writeSpecWithCodeSamples(
  specPath: string,
  outputPath: string,
  partnerDir: string,
): Promise<SampleLanguages> {
  const { loadSpec } = await import('../spec/contract.ts');
  const { SAMPLE_LANGUAGES, withCodeSamples } = await import('./code-samples.ts');
  const { withPartnerSections } = await import('./sections.ts');
  const doc = loadSpec(specPath);
  writeFileSync(outputPath, JSON.stringify(withPartnerSections(withCodeSamples(doc))));
  await writePartnerFiles(doc, partnerDir);
  return SAMPLE_LANGUAGES;
}

/** The Postman collection and environment and the `.http` file, each written whole or not at all. */
async function writePartnerFiles(doc: OpenApiDocument, dir: string): Promise<void> {
  const { httpFileOf, postmanCollectionOf, postmanEnvironmentOf } = await import('./partner-files.ts');
  const files: Array<[string, string]> = [
    [PARTNER_FILE_NAMES.collection, `${JSON.stringify(postmanCollectionOf(doc), null, 2)}\n`],
    [PARTNER_FILE_NAMES.environment, `${JSON.stringify(postmanEnvironmentOf(doc), null, 2)}\n`],
    [PARTNER_FILE_NAMES.http, httpFileOf(doc)],
  ];
  for (const [name, text] of files) {
    const path = join(dir, name);
    writeFileSync(`${path}.${process.pid}`, text);
    renameSync(`${path}.${process.pid}`, path);
  }
}

type SampleLanguages = ReadonlyArray<{ lang: string; label: string }>;

async function renderWithRedocly(
  specPath: string,
  outputPath: string,
  languages: SampleLanguages,
): Promise<void> {
  const redocOptions = {
    // Every field of every schema expanded, so each one shows its meaning without a click.
    schemasExpansionLevel: 'all',
    jsonSamplesExpandLevel: 'all',
    disableTelemetry: true,
    // The page's language picker: one entry per request sample, matched by label.
    codeSamples: { languages },
  };
  const args = [
    redoclyCli(),
    'build-docs',
    specPath,
    '--output',
    outputPath,
    '--inlineBundle',
    '--title',
    PAGE_TITLE,
    '--openapi',
    JSON.stringify(redocOptions),
  ];
  try {
    await promisify(execFile)(process.execPath, args, {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
      // No usage telemetry and no update check: building the page must not talk to the network.
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`redocly build-docs failed:\n${stdout}${stderr}`, { cause: error });
  }
}

/** Inlines the CDN assets Redoc's bundle refers to, and checks nothing remote is left. */
export function makeSelfContained(html: string): string {
  let out = html;
  for (const [remote, inline] of CDN_REPLACEMENTS) out = out.replaceAll(remote, inline);
  out = out.replace(/<head>/i, `<head>\n  ${FAVICON}`);
  const left = REMOTE_ASSET_HOSTS.filter((host) => out.includes(host));
  if (left.length > 0) {
    throw new Error(
      `the rendered page still refers to ${left.join(', ')}; add an inline replacement in docs/build.ts`,
    );
  }
  if (
    /<(script|img|iframe)\b[^>]*\ssrc=["']?https?:/i.test(out) ||
    /<link\b[^>]*\shref=["']?https?:/i.test(out)
  ) {
    throw new Error('the rendered page loads a remote script, image or stylesheet');
  }
  return out;
}
