/**
 * ENVELOPE-010 (D-COMPRESSION) reports what a client asking for gzip gets and never fails a run:
 * the reference server's gzip answer, a deployment that never compresses, a gzip body with other
 * content, a gzip bomb, a br answer. Every coded answer is judged decoded, so it raises no JSON or
 * drift finding under --strict, even when the request asked for identity (ENVELOPE-013 reports
 * that); a body that does not decode from its declared coding fails ENVELOPE-012.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../reference-server/start.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { loadSpec, stopStatusesOf } from '../../spec/contract.ts';
import type { Exchange } from '../core/exchange.ts';
import type { Report } from '../core/report-model.ts';
import { harOf } from '../reporters/har.ts';
import { runSuite, runLive } from '../run/runner.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { configFor, requiredFailures, resultOf } from './harness.ts';

/** Bytes of `GET /api/v1/walks?limit=200` as sent, measured apart from the suite. */
async function listBytes(server: RunningServer, acceptEncoding?: string): Promise<number> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}`,
  };
  if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
  const answer = await request(`${server.baseUrl}/api/v1/walks?limit=200`, { headers });
  return (await answer.body.arrayBuffer()).byteLength;
}

describe('ENVELOPE-010 against the reference server', () => {
  let server: RunningServer;
  let run: { report: Report; exchanges: readonly Exchange[] };

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, log: false });
    run = await runLive(
      configFor(server.baseUrl, server.credentials, { strict: true, only: ['ENVELOPE', 'DRIFT'] }),
    );
  });

  afterAll(async () => {
    await server.close();
  });

  it('reports gzip, its size against the identity size, Vary and the same decoded content', async () => {
    const [gzip, identity] = [await listBytes(server, 'gzip'), await listBytes(server)];
    expect(gzip).toBeLessThan(identity);
    const result = resultOf(run.report, 'ENVELOPE-010');
    expect(result.status).toBe('advisory');
    expect(result.decision).toBe('D-COMPRESSION');
    expect(result.actual).toBe(
      `gzip: ${gzip} bytes for ${identity} identity bytes (${Math.round((100 * gzip) / identity)}%); ` +
        'the decoded body equals the identity answer; ' +
        'Vary: Authorization, x-api-key, Accept-Encoding (names Accept-Encoding); an ETag of its own',
    );
    expect(result.request?.headers['Accept-Encoding']).toBe('gzip');
    expect(result.response?.body.startsWith('{"ok":true,"data":[')).toBe(true);
  });

  it('judges the gzip answer decoded: no JSON, shape or drift failure under --strict', () => {
    const gzipped = run.exchanges.filter((e) => e.response?.encoded?.coding === 'gzip');
    expect(gzipped).toHaveLength(1);
    expect((gzipped[0]?.response?.json as { ok?: unknown }).ok).toBe(true);
    expect(requiredFailures(run.report)).toEqual([]);
    expect(run.report.drift.findings).toEqual([]);
    for (const id of ['ENVELOPE-001', 'ENVELOPE-004', 'ENVELOPE-005', 'DRIFT-001', 'DRIFT-003'])
      expect(resultOf(run.report, id).status, id).toBe('pass');
  });

  it('records the gzip answer in the HAR decoded, with its wire size, and a curl that decompresses', () => {
    const exchange = run.exchanges.find((e) => e.response?.encoded);
    const entry = harOf(run.exchanges, run.report).log.entries.find((e) => e._seq === exchange?.seq);
    const response = exchange?.response;
    if (!entry || !response?.encoded) throw new Error('no gzip exchange in the run');
    expect(entry.response.content.text).toBe(response.body);
    expect(entry.response.content.size).toBe(Buffer.byteLength(response.body));
    expect(entry.response.bodySize).toBe(response.encoded.bytes);
    expect(entry.response.content.compression).toBe(entry.response.content.size - entry.response.bodySize);
    expect(exchange?.request.curl).toMatch(/ -H 'Accept-Encoding: gzip' --compressed$/);
  });
});

const KEYS = { CONFORMANCE_API_KEY: 'svc_sk_live_compressiontest0000000000000001' };
const STATUSES = stopStatusesOf(loadSpec());

/** A walk summary of an empty walk, as the list shows it. */
function emptyWalk(n: number): Record<string, unknown> {
  const id = `6f1c2a40-0000-4000-8000-00000000000${n}`;
  return {
    id,
    name: `Walk ${n}`,
    lat: null,
    lng: null,
    count: 0,
    counts: Object.fromEntries(STATUSES.map((s) => [s, 0])),
    web_url: `https://canvass.example/dashboard/test/walks/${id}`,
    app_link: `https://canvass.example/open/test/walks/${id}`,
  };
}

const listOf = (walks: Record<string, unknown>[]) =>
  Buffer.from(JSON.stringify({ ok: true, data: walks, meta: { count: walks.length } }));
const IDENTITY = listOf([emptyWalk(1), emptyWalk(2)]);
const CAP = 1024 * 1024;

/** What a deployment sends a client that asks for gzip. */
const ENCODED: Record<string, { coding: string; body: Buffer } | undefined> = {
  identity: undefined,
  other: { coding: 'gzip', body: gzipSync(listOf([emptyWalk(1)])) },
  bomb: { coding: 'gzip', body: gzipSync(Buffer.alloc(16 * CAP)) },
  brotli: { coding: 'br', body: brotliCompressSync(IDENTITY) },
  unasked: { coding: 'gzip', body: gzipSync(IDENTITY) },
  always: { coding: 'gzip', body: gzipSync(IDENTITY) },
  garbled: { coding: 'gzip', body: Buffer.from('these bytes are not gzip') },
};

/**
 * Whether a behaviour compresses this request: most only when asked; `unasked` also when the
 * request names no coding at all (RFC 9110 §12.5.3 lets it); `always` even against `identity`.
 */
function compresses(mode: string, acceptEncoding: string | undefined): boolean {
  if (mode === 'always') return true;
  if (mode === 'unasked' && acceptEncoding === undefined) return true;
  return /\bgzip\b/.test(acceptEncoding ?? '');
}

describe('ENVELOPE-010 against other deployments', () => {
  let target: Listening;

  beforeAll(async () => {
    target = await listen((req: IncomingMessage, res: ServerResponse) => {
      const [, mode = '', path] = /^\/(\w+)([^?]*)/.exec(req.url ?? '') ?? [];
      if (path !== '/api/v1/walks') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"ok":false,"error":{"code":"not_found","message":"No such route."}}');
        return;
      }
      const encoded = compresses(mode, req.headers['accept-encoding']) ? ENCODED[mode] : undefined;
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        ...(encoded ? { 'content-encoding': encoded.coding, vary: 'Accept-Encoding' } : {}),
      });
      res.end(encoded?.body ?? IDENTITY);
    });
  });

  afterAll(async () => {
    await target.close();
  });

  /** The envelope and drift checks, strict, against one behaviour. */
  async function strictRun(mode: keyof typeof ENCODED): Promise<Report> {
    const config = configFor(`${target.baseUrl}/${mode}`, KEYS, {
      strict: true,
      only: ['ENVELOPE', 'DRIFT'],
      maxResponseBytes: CAP,
    });
    const report = await runSuite(config);
    expect(requiredFailures(report)).toEqual([]);
    expect(report.summary.verdict).toBe('pass');
    expect(resultOf(report, 'ENVELOPE-010').status).toBe('advisory');
    return report;
  }

  it('reports a deployment that never compresses as identity', async () => {
    const result = resultOf(await strictRun('identity'), 'ENVELOPE-010');
    expect(result.actual).toBe(
      `identity (not compressed): ${IDENTITY.length} bytes; Vary: (none) (does not name Accept-Encoding)`,
    );
  });

  it('reports a gzip body that decodes to other JSON than the identity answer', async () => {
    const result = resultOf(await strictRun('other'), 'ENVELOPE-010');
    expect(result.actual).toBe(
      `gzip: ${ENCODED.other?.body.length} bytes for ${IDENTITY.length} identity bytes ` +
        `(${Math.round((100 * (ENCODED.other?.body.length ?? 0)) / IDENTITY.length)}%); ` +
        'the decoded body differs from the identity answer; Vary: Accept-Encoding (names Accept-Encoding)',
    );
    expect(result.hint).toMatch(/^A gzip answer must decode to exactly the JSON/);
  });

  it('cuts a gzip bomb off at the response size cap, and judges nothing it cut', async () => {
    const config = configFor(`${target.baseUrl}/bomb`, KEYS, {
      strict: true,
      only: ['ENVELOPE', 'DRIFT'],
      maxResponseBytes: CAP,
    });
    const report = await runSuite(config);
    expect(requiredFailures(report)).toEqual([]);
    const result = resultOf(report, 'ENVELOPE-010');
    expect(result.status).toBe('not-judged');
    expect(result.reason).toContain('larger than --max-response-bytes');
    expect(report.overCap?.[0]).toMatch(
      /decoded from gzip exceeded 1048576 bytes and was cut off \(--max-response-bytes\)/,
    );
  });

  it('raises no false alarm on a deployment that compresses requests naming no coding', async () => {
    // Every request of the suite says `Accept-Encoding: identity` unless a check asks otherwise.
    const result = resultOf(await strictRun('unasked'), 'ENVELOPE-010');
    expect(result.actual).toMatch(/^gzip: \d+ bytes for \d+ identity bytes .*; the decoded body equals/);
  });

  it('judges gzip sent to a request that asked for identity decoded, and only reports it', async () => {
    const report = await strictRun('always');
    expect(resultOf(report, 'ENVELOPE-004').status).toBe('pass');
    const coded = resultOf(report, 'ENVELOPE-013');
    expect(coded.status).toBe('advisory');
    expect(coded.actual).toMatch(
      /^\d+ of \d+ answers came coded \(gzip\) although the request asked for identity/,
    );
  });

  it('decodes a br answer as any client would', async () => {
    const result = resultOf(await strictRun('brotli'), 'ENVELOPE-010');
    expect(result.actual).toMatch(
      /^br: \d+ bytes for \d+ identity bytes .*; the decoded body equals the identity answer/,
    );
  });

  it('fails a body that does not decode from the coding it declares (ENVELOPE-012)', async () => {
    const config = configFor(`${target.baseUrl}/garbled`, KEYS, {
      only: ['ENVELOPE'],
      maxResponseBytes: CAP,
    });
    const report = await runSuite(config);
    const result = resultOf(report, 'ENVELOPE-012');
    expect(result.status).toBe('fail');
    expect(result.actual).toMatch(/says Content-Encoding: gzip but its body does not decode/);
    expect(report.summary.verdict).toBe('fail');
  });
});
