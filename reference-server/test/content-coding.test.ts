/**
 * D-COMPRESSION: gzip for clients that ask for it, on success bodies worth compressing, each
 * compressed once with its own strong ETag; identity for everything and everyone else.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GZIP_MIN_BYTES, prefersGzip } from '../content-coding.ts';
import { type PreparedBody, prepareBody, sendPrepared } from '../envelope.ts';
import { activeWalksOf, bearer, startTestServer, type TestServer } from './harness.ts';

describe('Accept-Encoding', () => {
  it.each([
    ['gzip', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['*', true],
    ['identity;q=0.5, gzip', true],
    ['deflate, , gzip', true],
    [' gzip ; q=0.5 , identity ; q=0.1', true],
    ['br, *;q=0.1', true],
  ])('%j asks for gzip', (header, expected) => {
    expect(prefersGzip(header)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['identity'],
    ['br, deflate'],
    ['gzip;q=0'],
    ['gzip;q=0.000'],
    ['*;q=0'],
    ['gzip;q=0.5, identity'],
    [' gzip ; q=0.001 '],
    ['*, gzip;q=0'],
    // Malformed: treated as absent.
    ['gzip;q=2'],
    ['gzip;q=0.5000'],
    ['gzip;q'],
    ['gzip;level=9'],
    ['gz ip'],
    ['gzip;q=1;q'],
    ['g\u00fczip'],
  ])('%j does not', (header) => {
    expect(prefersGzip(header)).toBe(false);
  });
});

describe('gzip answers of the reference server', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  let detailPath: string;
  const gzip = { 'accept-encoding': 'gzip, deflate, br' };

  beforeAll(async () => {
    server = await startTestServer();
    auth = bearer(server.keys.CONFORMANCE_API_KEY) as Record<string, string>;
    const largest = activeWalksOf(server.dataset, 0).reduce((a, b) =>
      b.stops.length > a.stops.length ? b : a,
    );
    detailPath = `/api/v1/walks/${largest.id}`;
  });
  afterAll(() => server.close());

  it.each(['/api/v1/walks?limit=200', 'detail'])(
    '%s: the gzip answer decodes to the identity answer, byte for byte, with its own ETag',
    async (which) => {
      const path = which === 'detail' ? detailPath : which;
      const plain = await server.get(path, auth);
      const packed = await server.get(path, { ...auth, ...gzip });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(packed.status).toBe(200);
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(Number(packed.headers['content-length'])).toBe(packed.bytes.length);
      expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(gunzipSync(packed.bytes).equals(plain.bytes)).toBe(true);
      const plainTag = plain.headers.etag as string;
      expect(packed.headers.etag).toBe(`${plainTag.slice(0, -1)}-gzip"`);
      expect(packed.headers.vary).toBe('Authorization, x-api-key, Accept-Encoding');
      // Asked again: the same bytes (compressed once, kept).
      expect((await server.get(path, { ...auth, ...gzip })).bytes.equals(packed.bytes)).toBe(true);
    },
  );

  it('answers 304 to either coding’s tag, naming the tag of the coding it would have sent', async () => {
    const path = '/api/v1/walks?limit=200';
    const plainTag = (await server.get(path, auth)).headers.etag as string;
    const gzipTag = (await server.get(path, { ...auth, ...gzip })).headers.etag as string;
    for (const [sent, tag, expectedTag] of [
      [gzip, gzipTag, gzipTag],
      [gzip, plainTag, gzipTag],
      [{}, gzipTag, plainTag],
      [{}, `W/${gzipTag}`, plainTag],
    ] as const) {
      const answer = await server.get(path, { ...auth, ...sent, 'if-none-match': tag });
      expect([tag, answer.status, answer.headers.etag, answer.bytes.length]).toEqual([
        tag,
        304,
        expectedTag,
        0,
      ]);
    }
    const stale = await server.get(path, { ...auth, ...gzip, 'if-none-match': '"stale-gzip"' });
    expect(stale.status).toBe(200);
  });

  it('HEAD with gzip tells the gzip answer’s length and coding, without a body', async () => {
    const got = await server.get(detailPath, { ...auth, ...gzip });
    const head = await server.send('HEAD', detailPath, { ...auth, ...gzip });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(String(got.bytes.length));
    expect(head.headers.etag).toBe(got.headers.etag);
    expect(head.bytes.length).toBe(0);
  });

  it('sends small bodies, errors and malformed or refusing Accept-Encoding as they are', async () => {
    const small = await server.get('/api/v1/walks?limit=1', { ...auth, ...gzip });
    expect(small.status).toBe(200);
    expect(small.bytes.length).toBeLessThan(GZIP_MIN_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    for (const [path, headers, status] of [
      ['/api/v1/walks', gzip, 401],
      ['/api/v1/walks/not-a-uuid', { ...auth, ...gzip }, 404],
      ['/api/v1/walks?limit=0', { ...auth, ...gzip }, 400],
      ['/api/v1/nothing', gzip, 404],
      ['/api/v1/walks?limit=200', { ...auth, 'accept-encoding': 'gzip;q=2' }, 200],
      ['/api/v1/walks?limit=200', { ...auth, 'accept-encoding': 'gzip;q=0' }, 200],
      ['/api/v1/walks?limit=200', { ...auth, 'accept-encoding': 'x'.repeat(8_000) }, 200],
    ] as const) {
      const answer = await server.get(path, headers);
      expect([path, answer.status, answer.headers['content-encoding']]).toEqual([path, status, undefined]);
      expect((answer.body as { ok: boolean }).ok).toBe(status === 200);
    }
  });
});

describe('sendPrepared', () => {
  it('compresses a body on its first gzip request only, and never one that does not shrink', () => {
    const answer = () => {
      const headers = new Map<string, unknown>();
      const res = {
        writeHead: (_status: number, pairs: string[]) => {
          for (let i = 0; i < pairs.length; i += 2) headers.set(String(pairs[i]).toLowerCase(), pairs[i + 1]);
        },
        end: () => undefined,
      };
      return { res: res as unknown as ServerResponse, headers };
    };
    const request = { headers: { 'accept-encoding': 'gzip' } } as unknown as IncomingMessage;
    const body: PreparedBody = prepareBody(JSON.stringify({ ok: true, data: 'x'.repeat(4_000) }));
    expect(body.gzip).toBeUndefined();
    sendPrepared(request, answer().res, body);
    const made = body.gzip;
    expect(made?.bytes.length).toBeLessThan(200);
    sendPrepared(request, answer().res, body);
    expect(body.gzip).toBe(made);

    // Bytes gzip cannot shrink: sent as they are, and not tried again.
    const incompressible: PreparedBody = { bytes: randomBytes(4_000), etag: '"noise"' };
    const { res, headers } = answer();
    sendPrepared(request, res, incompressible);
    expect(incompressible.gzip).toBeNull();
    expect(headers.get('content-encoding')).toBeUndefined();
    expect(headers.get('etag')).toBe('"noise"');
  });
});
