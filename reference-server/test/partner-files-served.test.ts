/**
 * The contract, the page and the partner files as the server serves them: each names the origin
 * the client reached it at, a walk of its own data and its own demo keys, whatever port and seed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { firstServerUrlOf } from '../spec-files.ts';
import { bearer, startTestServer, type TestServer } from './harness.ts';

const BUILT_ORIGIN = firstServerUrlOf(LIVE_SPEC_PATH);
let server: TestServer;
let unbuilt: TestServer;
let emptyDir: string;

beforeAll(async () => {
  emptyDir = await mkdtemp(join(tmpdir(), 'partner-files-'));
  [server, unbuilt] = await Promise.all([
    startTestServer({}, { seed: 7 }),
    startTestServer({ docsPath: join(emptyDir, 'page.html') }),
  ]);
});

afterAll(async () => {
  await Promise.all([server.close(), unbuilt.close()]);
  await rm(emptyDir, { recursive: true, force: true });
});

describe('the files a partner copies from the server', () => {
  it('serves /openapi.json: the YAML contract, its first server this server', async () => {
    const json = await server.get('/openapi.json');
    const yaml = await server.get('/openapi.yaml');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.body).toEqual(parse(yaml.text));
    expect((json.body as { servers: Array<{ url: string }> }).servers[0]?.url).toBe(server.baseUrl);
    expect(json.text).not.toContain(BUILT_ORIGIN);
  });

  it('names the origin the client asked for (Host), and refuses to echo a Host that is not one', async () => {
    const port = new URL(server.baseUrl).port;
    const asked = await server.get('/openapi.yaml', { host: `localhost:${port}` });
    expect(asked.text).toContain(`- url: http://localhost:${port}\n`);
    const hostile = await server.get('/openapi.yaml', { host: 'x"><script>alert(1)</script>' });
    expect(hostile.text).toContain(`- url: ${server.baseUrl}\n`);
    expect(hostile.text).not.toContain('<script>');
  });

  it('fills the page’s detail samples and examples with walks this server has', async () => {
    const page = await server.get('/docs');
    const ids = [...page.text.matchAll(/127\.0\.0\.1:\d+\/api\/v1\/walks\/([0-9a-f-]{36})/g)].map(
      (m) => m[1],
    );
    expect(ids.length).toBeGreaterThan(0);
    for (const id of new Set(ids)) {
      const walk = await server.get(`/api/v1/walks/${id}`, bearer(server.keys.CONFORMANCE_API_KEY));
      expect(walk.status).toBe(200);
    }
    // The spec's example walk is not in the page: an id copied from an example is found here.
    expect(page.text).not.toContain('93bfb174-4e7a-4a37-9c9d-b45ef12d5123');
    expect((await server.get('/openapi.yaml')).text).toContain('93bfb174-4e7a-4a37-9c9d-b45ef12d5123');
  });

  it('serves the Postman environment and the .http file with this data set’s demo keys', async () => {
    const environment = await server.get('/postman/environment.json');
    const values = Object.fromEntries(
      (environment.body as { values: Array<{ key: string; value: string }> }).values.map((v) => [
        v.key,
        v.value,
      ]),
    );
    expect(values.baseUrl).toBe(server.baseUrl);
    expect(values.apiKey).toBe(server.keys.CONFORMANCE_API_KEY);
    expect(values.revokedKey).toBe(server.keys.CONFORMANCE_REVOKED_KEY);
    const http = await server.get('/requests.http');
    expect(http.status).toBe(200);
    expect(http.text).toContain(`@baseUrl = ${server.baseUrl}\n`);
    expect(http.text).toContain(`@noScopeKey = ${server.keys.CONFORMANCE_NO_SCOPE_KEY}\n`);
    expect(http.text).not.toMatch(/__[A-Z_]+__/);
    const collection = await server.get('/postman/collection.json');
    expect(collection.text).toContain(`"value": "${server.baseUrl}"`);
  });

  it('serves the decision log and the planned endpoints the page links to', async () => {
    const decisions = await server.get('/DECISIONS.md');
    expect([decisions.status, decisions.headers['content-type']]).toEqual([
      200,
      'text/markdown; charset=utf-8',
    ]);
    expect(decisions.text).toContain('D-QUERY-UNKNOWN');
    expect((await server.get('/planned.openapi.yaml')).text).toContain('/api/v1/lists');
  });

  it('answers a partner file not built yet with 503 in the envelope, naming npm run docs:build', async () => {
    const answer = await unbuilt.get('/postman/collection.json');
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'docs_not_built' } });
    expect(answer.text).toContain('npm run docs:build');
  });
});
