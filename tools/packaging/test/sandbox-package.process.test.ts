/**
 * The sandbox package installed from its tarball beside the conformance package, outside the
 * repository: `canvassing-sandbox` brings up the reference server with its docs page and the Prism
 * mock, and `canvassing-conformance` without a base URL checks the sandbox's embedded server.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../conformance/core/report-model.ts';
import { freePort } from '../../../command-line/free-port.ts';
import { apiIdentity } from '../build.ts';
import { binOf, cleanup, outsideEnv, run, scratchDir } from '../packed.ts';
import { installedForRun, packedForRun } from './pack-once.ts';

let project: string;

beforeAll(async () => {
  const tarballs = [await packedForRun('sandbox'), await packedForRun('conformance')];
  project = await installedForRun(tarballs);
}, 900_000);

afterAll(cleanup);

/** Starts a long-running bin and resolves once its output contains `ready` (bounded in time). */
function startUntil(bin: string, args: string[], ready: string, timeoutMs: number) {
  const child = spawn(binOf(project, bin), args, { cwd: project, env: outsideEnv() });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${bin} not ready:\n${output}`)), timeoutMs);
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    void exited.then(() => reject(new Error(`${bin} exited before it was ready:\n${output}`)));
  });
  return { child, started, exited, output: () => output };
}

describe('the packed sandbox package', () => {
  it('answers --version with the API version it serves', async () => {
    const api = apiIdentity();
    const ran = await run(binOf(project, 'canvassing-sandbox'), ['--version'], { env: outsideEnv() });
    expect(ran.stdout.trim()).toBe(`canvassing-sandbox ${api.version} (${api.title} ${api.version})`);
  });

  it('serves the reference server, its docs page, the partner files and the Prism mock until SIGTERM', async () => {
    const [port, mockPort] = [await freePort(), await freePort()];
    const sandbox = startUntil(
      'canvassing-sandbox',
      ['--port', String(port), '--mock-port', String(mockPort)],
      'Sandbox ready.',
      60_000,
    );
    try {
      await sandbox.started;
      const docs = await fetch(`http://127.0.0.1:${port}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/html');
      await docs.body?.cancel();
      // The files partners import ship with the page, and name this sandbox's address.
      for (const path of ['/openapi.json', '/postman/collection.json', '/requests.http', '/DECISIONS.md']) {
        const file = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(file.status, path).toBe(200);
        if (path !== '/DECISIONS.md') expect(await file.text(), path).toContain(`http://127.0.0.1:${port}`);
        else await file.body?.cancel();
      }
      const mocked = await fetch(`http://127.0.0.1:${mockPort}/api/v1/walks`, {
        headers: { 'x-api-key': 'svc_sk_live_anything' },
      });
      expect(mocked.status).toBe(200);
      expect(((await mocked.json()) as { ok: boolean }).ok).toBe(true);
    } finally {
      sandbox.child.kill('SIGTERM');
    }
    expect(await sandbox.exited).toBe(0);
    expect(sandbox.output()).toContain('sandbox: stopped');
    // The page ships built: nothing says it is missing or could not be built.
    expect(sandbox.output()).not.toMatch(/could not be built|is missing|503/);
  }, 90_000);

  it('lets canvassing-conformance check the embedded reference server when no base URL is given', async () => {
    const json = join(scratchDir('reports'), 'embedded.json');
    const ran = await run(
      binOf(project, 'canvassing-conformance'),
      ['--reporter', 'json', '--output', json],
      { cwd: project, env: outsideEnv() },
    );
    expect(ran.status).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.target.embedded).toBe(true);
    expect(report.summary.verdict).toBe('pass');
  }, 90_000);
});
