import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsFrom, keyHeaderLines } from '../auth/credentials.ts';
import { errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Header values Node would let through: visible ASCII and spaces, no leading or trailing space. */
const headerValue = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...'abcXYZ019_- .:=/+'.split('')), maxLength: 80 }),
    fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 300,
    }),
    fc.constantFrom(
      '',
      'Bearer',
      'bearer ',
      'Basic dXNlcjpwYXNz',
      'svc_sk_live_',
      `svc_sk_live_${'a'.repeat(40)}`,
    ),
  )
  .map((value) => value.trim());

describe('key header parsing, property-based', () => {
  it('credentialsFrom never throws and gives a key-shaped key or an error', () => {
    const headerList = fc.option(fc.array(fc.string({ unit: 'binary', maxLength: 200 }), { maxLength: 3 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(headerList, headerList, (authorization, apiKey) => {
        const result = credentialsFrom(authorization, apiKey);
        if (result.key !== undefined)
          return result.key.startsWith('svc_sk_live_') && result.error === undefined;
        return [400, 401].includes(result.error.status);
      }),
      { numRuns: 3_000 },
    );
  });

  it('accepts a bearer token and an x-api-key value that are the same key, whatever the scheme case', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abcXYZ019'.split('')), minLength: 16, maxLength: 60 }),
        fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'),
        fc.integer({ min: 1, max: 5 }),
        (body, scheme, spaces) => {
          const key = `svc_sk_live_${body}`;
          const result = credentialsFrom([`${scheme}${' '.repeat(spaces)}${key}`], [key]);
          return result.key === key;
        },
      ),
    );
  });

  it('the server answers any pair of key headers with a valid answer or the error envelope', async () => {
    const known = [server.keys.CONFORMANCE_API_KEY, server.keys.CONFORMANCE_REVOKED_KEY];
    const value = fc.oneof(
      headerValue,
      fc.constantFrom(...known),
      fc.constantFrom(...known).map((key) => `Bearer ${key}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        async (auth, apiKey) => {
          const headers: Record<string, string> = {};
          if (auth !== undefined) headers.authorization = auth;
          if (apiKey !== undefined) headers['x-api-key'] = apiKey;
          const answer = await server.get('/api/v1/walks?limit=2', headers);
          if (answer.status === 200) {
            expect(validBody<{ data: unknown[] }>('listWalks', answer).data).toHaveLength(2);
          } else {
            expect([400, 401]).toContain(answer.status);
            validBody('listWalks', answer);
            expect(['unauthorized', 'conflicting_credentials']).toContain(errorOf(answer).code);
          }
          for (const key of known) expect(answer.text.includes(key)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('keyHeaderLines', () => {
  it('reads the two key headers exactly as req.headersDistinct has them, from real requests', async () => {
    const seen: unknown[] = [];
    const echo = createServer((req, res) => {
      const lines = keyHeaderLines(req.rawHeaders);
      const distinct = req.headersDistinct;
      seen.push([lines, { authorization: distinct.authorization, apiKey: distinct['x-api-key'] }]);
      res.end();
    });
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const { port } = echo.address() as AddressInfo;
    const requests = [
      [],
      ['Authorization: Bearer a'],
      ['authorization: Bearer a', 'AUTHORIZATION: Bearer b'],
      ['X-Api-Key: k', 'x-api-key: k', 'X-API-KEY: '],
      ['Authorization: Basic x', 'x-api-key: k', 'x-api-keys: no', 'authorizations: no'],
      ['Authorisation: Bearer a', 'x-api-kei: k'],
    ];
    try {
      for (const headers of requests) {
        const socket = connect(port, '127.0.0.1').resume();
        socket.end(['GET / HTTP/1.1', 'Host: x', 'Connection: close', ...headers, '', ''].join('\r\n'));
        await once(socket, 'close');
      }
      expect(seen.length).toBe(requests.length);
      for (const [lines, distinct] of seen as [unknown, unknown][]) expect(lines).toEqual(distinct);
      expect(seen[2]).toEqual([
        { authorization: ['Bearer a', 'Bearer b'], apiKey: undefined },
        { authorization: ['Bearer a', 'Bearer b'], apiKey: undefined },
      ]);
    } finally {
      echo.close();
    }
  });
});
