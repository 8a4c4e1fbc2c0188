/**
 * Slow tier (`*.image.test.ts`): the repository's Dockerfile builds an image of the sandbox that a
 * partner runs without Node. Built here with Debian's podman on a base made from Debian's packages
 * and the official Node 22 binary from the npm registry (no image registry is reachable), run with
 * both ports published, asked on each (the reference server with a demo key, its page, the mock),
 * and stopped. Under CI a machine without podman fails; elsewhere the test says it cannot run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../command-line/free-port.ts';
import { demoCredentials } from '../../../fixtures/index.ts';
import { KEY_PREFIX } from '../../../spec/facts.ts';
import {
  BASE_TAG,
  buildNodeBase,
  buildSandboxImage,
  IMAGE_TAG,
  podman,
  podmanEnv,
  podmanMissing,
  removeImages,
  type RunningImage,
  runSandboxImage,
} from '../sandbox-image.ts';

const missing = await podmanMissing();
const runnable = missing === undefined || Boolean(process.env.CI);
const dir = mkdtempSync(join(tmpdir(), 'sandbox-image-'));
const env = podmanEnv(dir);
let running: RunningImage | undefined;
let stopped = false;

beforeAll(async () => {
  if (!runnable) return;
  await buildNodeBase(env);
  await buildSandboxImage(env);
  running = await runSandboxImage(env, { sandbox: await freePort(), mock: await freePort() }, ['--clock']);
}, 1_800_000);

afterAll(async () => {
  if (!stopped) await running?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!runnable)(
  'the sandbox image (Dockerfile), built and run with podman',
  { timeout: 120_000 },
  () => {
    it('answers the API on 8080 with the demo data and keys', async () => {
      const key = demoCredentials().CONFORMANCE_API_KEY;
      const response = await fetch(`${running?.sandboxUrl}/api/v1/walks?limit=3`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { ok: boolean; data: unknown[]; meta: { count: number } };
      expect(body).toMatchObject({ ok: true, meta: { count: 3 } });
    });

    it('serves the reference page on 8080, and the clock it was started with', async () => {
      const page = await fetch(`${running?.sandboxUrl}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const clock = await fetch(`${running?.sandboxUrl}/sandbox/clock`);
      expect(clock.status).toBe(200);
    });

    it('answers the Prism mock on 4010', async () => {
      const response = await fetch(`${running?.mockUrl}/api/v1/walks`, {
        headers: { 'x-api-key': `${KEY_PREFIX}imagetestkey` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
    });

    it('names the address partners reach it at in its banner (localhost), never 0.0.0.0', async () => {
      const logs = (await running?.logs()) ?? '';
      expect(logs).toContain('http://localhost:8080/docs');
      expect(logs).toContain('http://localhost:4010');
      expect(logs).not.toContain('0.0.0.0');
    });

    it('stops, and leaves no container behind', async () => {
      await running?.stop();
      stopped = true;
      const left = await podman(['ps', '--quiet', '--filter', `ancestor=${IMAGE_TAG}`], env);
      expect(left).toBe('');
    });

    it('leaves no image behind once its images are removed (the build keeps no layer cache)', async () => {
      await removeImages(env, [IMAGE_TAG, BASE_TAG]);
      const images = await podman(['images', '--all', '--format', '{{.Repository}}:{{.Tag}}'], env);
      expect(images.split('\n').filter((name) => /canvassing-(sandbox|node-base)|<none>/.test(name))).toEqual(
        [],
      );
    });
  },
);

if (!runnable) {
  describe('the sandbox image on a machine without podman', () => {
    it.skip(`cannot run here: ${missing ?? ''}`, () => {});
  });
}
