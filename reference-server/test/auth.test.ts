import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingHttpHeaders } from 'node:http';
import type { OpenAPIV3_1 } from 'openapi-types';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { bearer, contract, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

/** The `error` of one of the spec's examples: the messages are written there once. */
function specExample(name: string): unknown {
  const example = contract.doc.components?.examples?.[name] as OpenAPIV3_1.ExampleObject | undefined;
  return (example?.value as { error?: unknown } | undefined)?.error;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const INVALID = { code: 'unauthorized', message: 'The API key is not valid.' };
const UNKNOWN_KEY = `svc_sk_live_${'Z'.repeat(40)}`;

describe('authentication and scopes (written spec §5, D-AUTH-*)', () => {
  it('answers a missing key with 401 unauthorized and a Bearer challenge', async () => {
    for (const path of ['/api/v1/walks', '/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123']) {
      const answer = await server.get(path);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="canvassing"');
      validBody(path.endsWith('walks') ? 'listWalks' : 'getWalk', answer);
      expect(errorOf(answer)).toEqual({
        code: 'unauthorized',
        message: 'An API key is required: send Authorization: Bearer <API_KEY> or x-api-key: <API_KEY>.',
      });
    }
  });

  it('tells each common mistake in sending the key what is wrong and how to send it (D-AUTH-MALFORMED)', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    const mistakes: [OutgoingHttpHeaders, string][] = [
      [{ authorization: key }, 'KeyWithoutBearer'],
      [{ authorization: `Token ${key}` }, 'OtherScheme'],
      [{ authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` }, 'BasicAuth'],
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 'BasicAuth'],
      [{ 'x-api-key': `Bearer ${key}` }, 'BearerInApiKey'],
    ];
    for (const [headers, example] of mistakes) {
      const answer = await server.get('/api/v1/walks', headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="canvassing"');
      validBody('listWalks', answer);
      expect(errorOf(answer)).toEqual(specExample(example));
      expect(errorOf(answer).message).toMatch(/Authorization: Bearer <API_KEY>/);
      expect(answer.text.includes(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 12))).toBe(false);
    }
  });

  it('gives malformed, unknown and revoked keys one identical answer', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    const attempts = [
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${key} extra` },
      { authorization: `Bearer ${key.slice(0, -1)}` },
      { 'x-api-key': '' },
      { 'x-api-key': 'svc_sk_live_short' },
      { 'x-api-key': key.replace('svc_sk_live_', 'svc_sk_test_') },
      { 'x-api-key': `svc_sk_live_${'A'.repeat(6_000)}` },
      { 'x-api-key': UNKNOWN_KEY },
      bearer(UNKNOWN_KEY),
      bearer(server.keys.CONFORMANCE_REVOKED_KEY),
      { 'x-api-key': server.keys.CONFORMANCE_REVOKED_KEY },
    ];
    for (const headers of attempts) {
      const answer = await server.get('/api/v1/walks', headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="canvassing"');
      expect(errorOf(answer)).toEqual(INVALID);
    }
  });

  it('matches the scheme case-insensitively and accepts any run of spaces after it', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    for (const authorization of [`bearer ${key}`, `BEARER ${key}`, `Bearer    ${key}`]) {
      expect((await server.get('/api/v1/walks?limit=1', { authorization })).status).toBe(200);
    }
  });

  it('accepts both headers carrying the same key', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    const answer = await server.get('/api/v1/walks?limit=1', { ...bearer(key), 'x-api-key': key });
    expect(answer.status).toBe(200);
  });

  it('refuses both headers with different keys: 400 conflicting_credentials (D-AUTH-BOTH)', async () => {
    const pairs = [
      [server.keys.CONFORMANCE_API_KEY, server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY],
      [server.keys.CONFORMANCE_API_KEY, UNKNOWN_KEY],
      [UNKNOWN_KEY, server.keys.CONFORMANCE_API_KEY],
    ];
    for (const [authorizationKey = '', apiKey = ''] of pairs) {
      for (const path of ['/api/v1/walks', '/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123']) {
        const answer = await server.get(path, { ...bearer(authorizationKey), 'x-api-key': apiKey });
        expect(answer.status).toBe(400);
        validBody(path.endsWith('walks') ? 'listWalks' : 'getWalk', answer);
        expect(errorOf(answer)).toEqual({
          code: 'conflicting_credentials',
          message: 'Authorization and x-api-key carry different keys; send one key.',
        });
      }
    }
  });

  it('refuses a key sent twice in the same header', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    const answer = await server.get('/api/v1/walks', { 'x-api-key': [key, key] });
    expect(answer.status).toBe(401);
    expect(errorOf(answer)).toEqual(INVALID);
  });

  it('answers a key without walks:read with 403 forbidden on both endpoints', async () => {
    for (const path of ['/api/v1/walks', '/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123']) {
      const answer = await server.get(path, bearer(server.keys.CONFORMANCE_NO_SCOPE_KEY));
      expect(answer.status).toBe(403);
      validBody(path.endsWith('walks') ? 'listWalks' : 'getWalk', answer);
      expect(errorOf(answer)).toEqual({ code: 'forbidden', message: 'This key lacks the walks:read scope.' });
    }
  });

  it('checks key, then scope, then parameters (D-AUTH-ORDER)', async () => {
    expect((await server.get('/api/v1/walks?limit=0')).status).toBe(401);
    expect((await server.get('/api/v1/walks?limit=0', bearer(UNKNOWN_KEY))).status).toBe(401);
    expect(
      (await server.get('/api/v1/walks?limit=0', bearer(server.keys.CONFORMANCE_NO_SCOPE_KEY))).status,
    ).toBe(403);
    expect((await server.get('/api/v1/walks?limit=0', bearer(server.keys.CONFORMANCE_API_KEY))).status).toBe(
      400,
    );
  });

  it('never echoes the key it was sent', async () => {
    const key = server.keys.CONFORMANCE_API_KEY;
    for (const headers of [bearer(key), { 'x-api-key': key }, { authorization: `Basic ${key}` }]) {
      for (const path of ['/api/v1/walks?limit=0', `/api/v1/walks/${key}`, '/api/v1/nope']) {
        const answer = await server.get(path, headers);
        expect(answer.text.includes(key)).toBe(false);
        expect(JSON.stringify(answer.headers).includes(key)).toBe(false);
      }
    }
  });
});
