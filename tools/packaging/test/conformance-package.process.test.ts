/**
 * The conformance package as a QA team gets it: `npm pack`, `npm install --omit=dev` into an empty
 * folder outside the repository, then the installed `canvassing-conformance` against the reference
 * server (pass), against a broken server of the suite's own proof set (fail), and with no target.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUTATIONS, type MutationServer, startMutationServer } from '../../test-support/mutations.ts';
import type { Report } from '../../../conformance/core/report-model.ts';
import { type RunningServer, startReferenceServer } from '../../../reference-server/start.ts';
import { apiIdentity, manifestOf } from '../build.ts';
import { REPO_ROOT } from '../packages.ts';
import { binOf, bytesUnder, cleanup, installedPackages, outsideEnv, run, scratchDir } from '../packed.ts';
import { installedForRun, packedForRun } from './pack-once.ts';

const API = apiIdentity();
const BROKEN = MUTATIONS.find((m) => m.name === 'meta-count-off-by-one');

let project: string;
let tarball: string;
let reference: RunningServer;
let broken: MutationServer;

beforeAll(async () => {
  tarball = await packedForRun('conformance');
  project = await installedForRun([tarball]);
  reference = await startReferenceServer({ log: false });
  broken = await startMutationServer();
}, 900_000);

afterAll(async () => {
  await reference?.close();
  await broken?.close();
  cleanup();
});

/** The installed bin with the reference server's demo keys in the environment. */
function conformance(args: string[], keys: Record<string, string> = reference.credentials) {
  return run(binOf(project, 'canvassing-conformance'), args, { cwd: project, env: outsideEnv(keys) });
}

describe('the packed conformance package', () => {
  it("holds JavaScript, the OpenAPI document, the inlined packages' licences and SQLite in WebAssembly as its one dependency", async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/dist/conformance/main.mjs');
    for (const shipped of ['openapi.yaml', 'planned.openapi.yaml', 'DECISIONS.md']) {
      expect(files).toContain(`package/dist/spec/${shipped}`);
    }
    const licences = readFileSync(
      join(project, 'node_modules/canvassing-conformance/dist/THIRD-PARTY-LICENSES.txt'),
      'utf8',
    );
    for (const name of ['ajv', 'undici', 'yaml']) expect(licences).toMatch(new RegExp(`^${name}@`, 'm'));
    expect(files.filter((file) => file.endsWith('.ts'))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/canvassing-conformance/package.json'), 'utf8'),
    ) as { version: string; dependencies?: object };
    expect(manifest.version).toBe(API.version);
    // Its .wasm is found beside its own files, so it is installed, never inlined; nothing to compile.
    expect(manifest.dependencies ?? {}).toEqual({ 'node-sqlite3-wasm': '0.8.60' });
    expect(licences).not.toMatch(/^node-sqlite3-wasm@/m);
  });

  it('installs as docs/qa.md says: its packages counted and its size within a tenth', () => {
    const qa = readFileSync(join(REPO_ROOT, 'docs', 'qa.md'), 'utf8');
    const stated = /\*\*(\d+) packages?, about (\d+(?:\.\d+)?) MB\*\*/.exec(qa);
    if (!stated)
      throw new Error('docs/qa.md states no "**N packages, about X MB**" of the installed package');
    const packages = installedPackages(project);
    const mb = bytesUnder(join(project, 'node_modules')) / 1e6;
    const measured = `${packages.length} packages, ${mb.toFixed(1)} MB (${packages.join(', ')})`;
    expect(packages.length, measured).toBe(Number(stated[1]));
    expect(Math.abs(mb - Number(stated[2])), measured).toBeLessThanOrEqual(Number(stated[2]) / 10);
    // What is installed is the package and what its package.json's dependencies pull in.
    const declared = Object.keys(manifestOf('conformance').dependencies ?? {});
    expect(packages).toEqual(expect.arrayContaining(['canvassing-conformance', ...declared]));
  });

  it('answers --version with the API version it checks, and --help, through npx', async () => {
    const version = await run('npx', ['--no', '--', 'canvassing-conformance', '--version'], {
      cwd: project,
      env: outsideEnv(),
    });
    expect(version.stdout.trim()).toBe(`canvassing-conformance ${API.version} (${API.title} ${API.version})`);
    const help = await conformance(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--base-url');
  });

  it('passes the reference server (exit 0) and writes every report format', async () => {
    const reports = scratchDir('reports');
    const outputs = ['junit.xml', 'report.json', 'report.html'].map((name) => join(reports, name));
    const args = ['--base-url', reference.baseUrl, '--reporter', 'console,junit,json,html'];
    const ran = await conformance([...args, ...outputs.flatMap((file) => ['--output', file])]);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('Verdict: PASS');
    const report = JSON.parse(readFileSync(outputs[1] ?? '', 'utf8')) as Report;
    expect(report.summary.verdict).toBe('pass');
    expect(report.spec.version).toBe(API.version);
    expect(report.tool).toEqual({ name: 'canvassing-conformance', version: API.version });
    expect(readFileSync(outputs[0] ?? '', 'utf8')).toContain('<testsuites');
    expect(readFileSync(outputs[2] ?? '', 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it('fails a server of the proof set that breaks a required check (exit 1)', async () => {
    if (!BROKEN) throw new Error('the proof set has no meta-count-off-by-one mutation');
    const json = join(scratchDir('reports'), 'broken.json');
    const ran = await conformance(
      ['--base-url', broken.urlOf(BROKEN), '--reporter', 'json', '--output', json],
      broken.world.credentials,
    );
    expect(ran.status).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.results.find((r) => r.id === BROKEN.breaks)?.status).toBe('fail');
  });

  it('judges the HAR recording of a run with --traffic, and the same recording gzip-coded alike', async () => {
    const har = join(scratchDir('traffic'), 'run.har');
    const recorded = await conformance(['--base-url', reference.baseUrl, '--har', har, '--quiet']);
    expect(recorded.status).toBe(0);
    const gz = `${har}.gz`;
    writeFileSync(gz, gzipSync(readFileSync(har)));
    const [plain, coded] = [await conformance(['--traffic', har]), await conformance(['--traffic', gz])];
    expect(coded.stderr).toBe('');
    expect(coded.status).toBe(0);
    const shown = (text: string) => text.replace(/\d+(\.\d+)? ?m?s\b/g, 'T').replaceAll(gz, har);
    expect(shown(coded.stdout)).toBe(shown(plain.stdout));
    expect(coded.stdout).toMatch(/judged \d+ of \d+ exchanges of this API/);
  });

  it('loads SQLite only when a recording spills its state, and judges it alike then', async () => {
    const har = join(scratchDir('spill'), 'run.har');
    expect((await conformance(['--base-url', reference.baseUrl, '--har', har, '--quiet'])).status).toBe(0);
    // Node's module log names every CommonJS module loaded: SQLite in WebAssembly only when it spills.
    const judged = (extra: string[]) =>
      run(binOf(project, 'canvassing-conformance'), ['--traffic', har, ...extra], {
        cwd: project,
        env: { ...outsideEnv(reference.credentials), NODE_DEBUG: 'module' },
      });
    const [roomy, tight] = [await judged([]), await judged(['--traffic-memory', '1MB'])];
    expect(roomy.stderr).not.toContain('node-sqlite3-wasm');
    expect(tight.stderr).toContain('node-sqlite3-wasm');
    expect(tight.stderr).not.toMatch(/Error|Cannot find/);
    expect(tight.status).toBe(0);
    const verdict = (text: string) => text.split('\n').filter((line) => /^[✗✓]|Verdict/.test(line));
    expect(verdict(tight.stdout)).toEqual(verdict(roomy.stdout));
  });

  it("reads --env-file itself: a missing file is its own exit-2 message, not the runtime's", async () => {
    const missing = join(project, 'no-such.env');
    const ran = await conformance(['--env-file', missing, '--base-url', reference.baseUrl]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain(`env file not found: ${missing}`);
  });

  it('says how to name a deployment when there is none and no sandbox beside it (exit 2)', async () => {
    expect(existsSync(join(project, 'node_modules/canvassing-sandbox'))).toBe(false);
    const ran = await conformance([], {});
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('--base-url');
    expect(ran.stderr).toContain('canvassing-sandbox');
  });
});
