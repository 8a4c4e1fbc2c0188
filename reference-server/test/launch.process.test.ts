/**
 * `reference-server/launch.js`, what `npm run reference-server` runs: main.ts from an esbuild
 * bundle, rebuilt whenever what it was built from changed, with each module's own paths intact.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUNDLE = join(ROOT, 'reference-server/generated/main.mjs');
const MANIFEST = join(ROOT, 'reference-server/generated/main.inputs.json');

interface Manifest {
  startedAtMs: number;
  inputs: string[];
}

async function launch(...args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['reference-server/launch.js', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout };
}

const manifest = () => JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;

describe('reference-server launcher', () => {
  it('builds the bundle from main.ts and records every file it came from', async () => {
    expect((await launch('--build-only')).code).toBe(0);
    const { inputs } = manifest();
    for (const file of ['reference-server/main.ts', 'reference-server/app.ts', 'fixtures/index.ts']) {
      expect(inputs).toContain(file);
    }
    expect(inputs).toContain('reference-server/launch.js');
    expect(inputs.some((file) => file.includes('node_modules'))).toBe(false);
  });

  it('keeps a fresh bundle, and rebuilds one older than a source or missing a source', async () => {
    expect((await launch('--build-only')).code).toBe(0);
    const built = statSync(BUNDLE).mtimeMs;
    expect((await launch('--build-only')).code).toBe(0);
    expect(statSync(BUNDLE).mtimeMs).toBe(built);

    // As if every source had been edited after the build started.
    writeFileSync(MANIFEST, JSON.stringify({ ...manifest(), startedAtMs: 0 }));
    expect((await launch('--build-only')).code).toBe(0);
    const rebuilt = statSync(BUNDLE).mtimeMs;
    expect(rebuilt).toBeGreaterThan(built);
    expect(manifest().startedAtMs).toBeGreaterThan(0);

    // As if a source it was built from had been deleted or moved.
    const current = manifest();
    writeFileSync(
      MANIFEST,
      JSON.stringify({ ...current, inputs: [...current.inputs, 'reference-server/gone.ts'] }),
    );
    expect((await launch('--build-only')).code).toBe(0);
    expect(statSync(BUNDLE).mtimeMs).toBeGreaterThan(rebuilt);
    expect(manifest().inputs).not.toContain('reference-server/gone.ts');
  });

  it('serves the spec and the docs page from their own files, not from paths beside the bundle', async () => {
    const child = spawn(process.execPath, ['reference-server/launch.js', '--port', '0', '--quiet'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const { url } = JSON.parse(line.toString('utf8').split('\n')[0] ?? '') as { url: string };
      const spec = await fetch(`${url}/openapi.yaml`);
      expect(spec.status).toBe(200);
      // Served with the server's own origin in place of the sandbox's default one.
      const ownOrigin = (file: string) =>
        readFileSync(join(ROOT, file), 'utf8').replaceAll('http://127.0.0.1:8080', url);
      expect(await spec.text()).toBe(ownOrigin('spec/openapi.yaml'));
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
      const page = await docs.text();
      expect(page.length).toBe(ownOrigin('spec/generated/api-reference.html').length);
      expect(page).toContain(`${url}/api/v1/walks?limit=`);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  });
});
