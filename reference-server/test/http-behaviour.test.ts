import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { firstServerUrlOf } from '../spec-files.ts';
import {
  activeWalksOf,
  type Answer,
  bearer,
  errorOf,
  recordingLogger,
  startTestServer,
  type TestServer,
} from './harness.ts';

let server: TestServer;
let docsDir: string;
let withDocs: TestServer;
let withoutDocs: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  docsDir = await mkdtemp(join(tmpdir(), 'reference-docs-'));
  await writeFile(join(docsDir, 'page.html'), '<!doctype html><title>API reference</title>');
  withDocs = await startTestServer({ docsPath: join(docsDir, 'page.html') });
  withoutDocs = await startTestServer({ docsPath: join(docsDir, 'missing.html') });
});
afterAll(async () => {
  await Promise.all([server.close(), withDocs.close(), withoutDocs.close()]);
  await rm(docsDir, { recursive: true, force: true });
});

const key = () => bearer(server.keys.CONFORMANCE_API_KEY);
const firstWalkPath = () => `/api/v1/walks/${activeWalksOf(server.dataset, 0)[0]?.id}`;
const plannedPaths = () =>
  Object.keys(loadSpec(PLANNED_SPEC_PATH).paths ?? {}).map((template) =>
    template.replace(/\{[^}]+\}/g, '6f1c2b9e-8a77-4d0e-9a3b-2c4d5e6f7a8b'),
  );

function expectJson(answer: Answer): void {
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('paths and methods (D-PATH-UNKNOWN, D-METHOD, D-PLANNED)', () => {
  it('answers unknown, upper-case and doubled-slash paths with 404 "No such endpoint." before authentication', async () => {
    const paths = [
      '/api',
      '/api/v1',
      '/api/v2/walks',
      '/API/v1/walks',
      '/api/v1/Walks',
      '/api/v1//walks',
      '//api/v1/walks',
      '/api/v1/walks//',
      `${firstWalkPath()}/stops`,
      '/api/v1/walks/%2F',
      '/.env',
      '/api/v1/walks%2F',
    ].filter((path) => path !== '/api/v1/walks/%2F');
    for (const path of paths) {
      for (const headers of [{}, key()]) {
        const answer = await server.get(path, headers);
        expect([path, answer.status]).toEqual([path, 404]);
        expectJson(answer);
        expect(errorOf(answer)).toEqual({ code: 'not_found', message: 'No such endpoint.' });
      }
    }
  });

  it('redirects / to the reference page, with or without a key', async () => {
    for (const headers of [{}, key()]) {
      const answer = await server.get('/', headers);
      expect([answer.status, answer.headers.location]).toEqual([302, '/docs']);
      expect(answer.text).toContain('href="/docs"');
    }
    expect((await server.send('POST', '/')).status).toBe(405);
  });

  it('tolerates one trailing slash on the list', async () => {
    const answer = await server.get('/api/v1/walks/?limit=2', key());
    expect(answer.status).toBe(200);
  });

  it('answers other methods with 405, Allow: GET, HEAD, before authentication', async () => {
    for (const path of ['/api/v1/walks', firstWalkPath(), ...plannedPaths(), '/openapi.yaml', '/docs']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const answer = await server.send(method, path, { origin: 'https://evil.example' });
        expect([method, path, answer.status]).toEqual([method, path, 405]);
        expect(answer.headers.allow).toBe('GET, HEAD');
        expectJson(answer);
        expect(errorOf(answer).code).toBe('method_not_allowed');
      }
    }
  });

  it('answers a 100 KB POST body with 405 without reading it as anything', async () => {
    const answer = await server.send(
      'POST',
      '/api/v1/walks',
      { 'content-type': 'application/json', ...key() },
      `{"x":"${'a'.repeat(100_000)}"}`,
    );
    expect(answer.status).toBe(405);
    expect(errorOf(answer).code).toBe('method_not_allowed');
  });

  it('ignores a body on GET', async () => {
    const answer = await server.send(
      'GET',
      '/api/v1/walks?limit=1',
      { ...key(), 'content-type': 'text/plain' },
      'hi',
    );
    expect(answer.status).toBe(200);
  });

  it('answers every planned endpoint with 404 "This endpoint is planned and not active yet." before authentication', async () => {
    const paths = plannedPaths();
    // However many the planned spec still holds; never none, or the loop below would prove nothing.
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      for (const headers of [{}, key(), bearer(server.keys.CONFORMANCE_NO_SCOPE_KEY)]) {
        const answer = await server.get(path, headers);
        expect([path, answer.status]).toEqual([path, 404]);
        expect(errorOf(answer)).toEqual({
          code: 'not_found',
          message: 'This endpoint is planned and not active yet.',
        });
      }
    }
  });

  it('answers HEAD like GET without a body (D-HEAD)', async () => {
    for (const path of ['/api/v1/walks?limit=3', firstWalkPath()]) {
      const get = await server.get(path, key());
      const head = await server.send('HEAD', path, key());
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      expect(head.headers.etag).toBe(get.headers.etag);
      expectJson(head);
    }
    expect((await server.send('HEAD', '/api/v1/walks')).status).toBe(401);
  });
});

describe('headers (D-CORS, D-CACHE, D-CONTENT, D-HEADERS)', () => {
  it('sends no CORS headers, even to a browser origin or a preflight', async () => {
    const answers = [
      await server.get('/api/v1/walks', { ...key(), origin: 'https://evil.example' }),
      await server.get('/api/v1/walks', { origin: 'https://evil.example' }),
      await server.send('OPTIONS', '/api/v1/walks', {
        origin: 'https://evil.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      }),
    ];
    for (const answer of answers) {
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(answers[2]?.status).toBe(405);
  });

  it('marks every answer nosniff, private, no-cache, varying by key, with a unique request id', async () => {
    const answers = [
      await server.get('/api/v1/walks', key()),
      await server.get(firstWalkPath(), key()),
      await server.get('/api/v1/walks'),
      await server.get('/nope'),
      await server.send('DELETE', '/api/v1/walks'),
    ];
    const ids = new Set<string>();
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['cache-control']).toBe('private, no-cache');
      expect(answer.headers.vary).toBe('Authorization, x-api-key, Accept-Encoding');
      expect(answer.headers['x-powered-by']).toBeUndefined();
      const id = answer.headers['x-request-id'];
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(String(id));
      expectJson(answer);
    }
    expect(ids.size).toBe(answers.length);
  });

  it('answers JSON whatever Accept says (no 406)', async () => {
    for (const accept of ['application/xml', 'text/html', '*/*', 'image/png;q=1']) {
      const answer = await server.get('/api/v1/walks?limit=1', { ...key(), accept });
      expect(answer.status).toBe(200);
      expectJson(answer);
    }
  });

  it('sends a strong ETag and answers a matching If-None-Match with 304 on both endpoints', async () => {
    for (const path of ['/api/v1/walks', '/api/v1/walks?limit=200', firstWalkPath()]) {
      const first = await server.get(path, key());
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[^"]+"$/);
      expect((await server.get(path, key())).headers.etag).toBe(etag);
      for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
        const again = await server.get(path, { ...key(), 'if-none-match': ifNoneMatch });
        expect([ifNoneMatch, again.status, again.text]).toEqual([ifNoneMatch, 304, '']);
        expect(again.headers.etag).toBe(etag);
        expect(again.headers['cache-control']).toBe('private, no-cache');
      }
      const changed = await server.get(path, { ...key(), 'if-none-match': '"stale"' });
      expect(changed.status).toBe(200);
    }
  });

  it('gives different bodies different ETags', async () => {
    const a = await server.get('/api/v1/walks?limit=1', key());
    const b = await server.get('/api/v1/walks?limit=2', key());
    const other = await server.get(
      '/api/v1/walks?limit=1',
      bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY),
    );
    expect(new Set([a.headers.etag, b.headers.etag, other.headers.etag]).size).toBe(3);
  });

  it('checks the key before If-None-Match: no 304 without a valid key', async () => {
    const etag = String((await server.get('/api/v1/walks', key())).headers.etag);
    const answer = await server.get('/api/v1/walks', { 'if-none-match': etag });
    expect(answer.status).toBe(401);
  });
});

describe('the spec and the reference page', () => {
  it('serves the spec file at /openapi.yaml without a key, naming its own origin as the sandbox', async () => {
    const answer = await server.get('/openapi.yaml');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/yaml; charset=utf-8');
    const file = await readFile(LIVE_SPEC_PATH, 'utf8');
    expect(answer.text).toBe(file.replaceAll(firstServerUrlOf(LIVE_SPEC_PATH), server.baseUrl));
  });

  it('serves the built reference page at /docs without a key', async () => {
    const answer = await withDocs.get('/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.text).toContain('<title>API reference</title>');
  });

  it('answers /docs with 503 in the envelope, naming npm run docs:build, when the page is not built', async () => {
    const answer = await withoutDocs.get('/docs');
    expect(answer.status).toBe(503);
    expectJson(answer);
    expect(errorOf(answer).message).toContain('npm run docs:build');
  });
});

describe('requests Express or Node cannot take as they are', () => {
  it.each([
    ['a malformed header line', 'GET /api/v1/walks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
    ['raw non-ASCII bytes in the path', 'GET /api/v1/walks/caf\u00c3\u00a9 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['an unknown method token', 'BREW /api/v1/walks HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['HTTP/1.1 without Host', 'GET /api/v1/walks HTTP/1.1\r\n\r\n', 400],
    [
      '20 KB of headers',
      `GET /api/v1/walks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
  ])('answers %s with a JSON %i, not Node’s bare text', async (_label, request, status) => {
    const port = Number(new URL(server.baseUrl).port);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(request, 'latin1')));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    expect(raw).toMatch(/content-type: application\/json; charset=utf-8/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toMatchObject({
      ok: false,
      error: { code: status === 431 ? 'headers_too_large' : 'bad_request' },
    });
  });

  it('answers an unexpected failure with 500 internal_error, no internal detail, and logs it', async () => {
    // A key whose campaign is missing from the data set: the server must neither crash nor say why.
    const dataset = structuredClone(server.dataset);
    const keyHash = createHash('sha256').update(server.keys.CONFORMANCE_API_KEY).digest('hex');
    const record = dataset.apiKeys.find((candidate) => candidate.hash === keyHash);
    if (!record) throw new Error('demo key missing from the data set');
    record.campaignId = 'no-such-campaign';
    const log = recordingLogger();
    const broken = await startTestServer({ log: log.logger }, dataset);
    try {
      const answer = await broken.get('/api/v1/walks', key());
      expect(answer.status).toBe(500);
      expect(errorOf(answer)).toEqual({
        code: 'internal_error',
        message: 'Something went wrong on our side; please retry later.',
      });
      expect(answer.text).not.toMatch(/at |\.ts|Error/);
      const [failure] = await log.until((line) => line.level === 'error');
      expect(failure?.res?.statusCode).toBe(500);
      expect(failure?.err?.message).toBe('campaign of a valid key has no walks view');
      expect(
        (await broken.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY))).status,
      ).toBe(200);
    } finally {
      await broken.close();
    }
  });
});
