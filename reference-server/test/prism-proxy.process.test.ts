/**
 * The reference server's traffic through Prism's validating proxy (`prism proxy spec/openapi.yaml
 * <server> --errors`): Prism answers 500 with an `sl-violations` header whenever a response breaks
 * the spec. A deliberately broken answer proves the check can fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { createApp } from '../app.ts';
import { activeWalksOf, datasetFor } from './harness.ts';

const PRISM = fileURLToPath(
  new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url),
);
const BREAK_HEADER = 'x-test-break-response';

let upstream: Server;
let upstreamUrl: string;
let prism: ChildProcess;
let prismUrl: string;
let prismOutput = '';

beforeAll(async () => {
  const outer = express();
  outer.use((req, res, next) => {
    if (!req.headers[BREAK_HEADER]) return next();
    res.json({ ok: true, data: [{ id: 'not-a-walk' }], meta: { count: 1 } });
  });
  outer.use(createApp({ dataset: datasetFor(), config: { log: false } }));
  upstream = createServer(outer).listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  prism = spawn(
    process.execPath,
    [PRISM, 'proxy', LIVE_SPEC_PATH, upstreamUrl, '--errors', '-h', '127.0.0.1', '-p', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prismUrl = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      prismOutput += chunk.toString('utf8');
      const match = /Prism is listening on (http:\/\/[^\s]+)/.exec(prismOutput);
      if (match?.[1]) resolve(match[1]);
    };
    prism.stdout?.on('data', collect);
    prism.stderr?.on('data', collect);
    prism.once('exit', (code) => reject(new Error(`prism exited (${code}): ${prismOutput.slice(-500)}`)));
  });
}, 90_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = once(prism, 'exit');
    prism.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => upstream?.close(resolve));
});

async function call(base: string, path: string, headers: Record<string, string>) {
  const answer = await fetch(`${base}${path}`, { headers });
  return {
    status: answer.status,
    violations: answer.headers.get('sl-violations'),
    text: await answer.text(),
  };
}

describe('traffic through prism proxy --errors', () => {
  it('finds no response violation in any answer the reference server gives, and changes none', async () => {
    const keys = demoCredentials();
    const dataset = datasetFor();
    const walks = activeWalksOf(dataset, 0);
    const largest = walks.reduce((a, b) => (b.stops.length > a.stops.length ? b : a));
    const emptyWalk = walks.find((walk) => walk.stops.length === 0);
    const unlocated = walks.find(
      (walk) => walk.stops.length > 0 && walk.stops.every((stop) => stop.lat === null),
    );
    const primary = { 'x-api-key': keys.CONFORMANCE_API_KEY };
    const cases: [string, Record<string, string>][] = [
      ['/api/v1/walks', primary],
      ['/api/v1/walks?limit=1', { authorization: `Bearer ${keys.CONFORMANCE_API_KEY}` }],
      ['/api/v1/walks?limit=200', primary],
      ['/api/v1/walks', { 'x-api-key': keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY }],
      ['/api/v1/walks', { 'x-api-key': keys.CONFORMANCE_OTHER_CAMPAIGN_KEY }],
      [`/api/v1/walks/${largest.id}`, primary],
      [`/api/v1/walks/${emptyWalk?.id}`, primary],
      [`/api/v1/walks/${unlocated?.id}`, primary],
      [`/api/v1/walks/${largest.id}`, { 'x-api-key': keys.CONFORMANCE_OTHER_CAMPAIGN_KEY }],
      ['/api/v1/walks/6f1c2b9e-8a77-4d0e-9a3b-2c4d5e6f7a8b', primary],
      ['/api/v1/walks/not-a-uuid', primary],
      ['/api/v1/walks', { 'x-api-key': keys.CONFORMANCE_REVOKED_KEY }],
      ['/api/v1/walks', { 'x-api-key': `svc_sk_live_${'Q'.repeat(40)}` }],
      ['/api/v1/walks', { 'x-api-key': keys.CONFORMANCE_NO_SCOPE_KEY }],
      [`/api/v1/walks/${largest.id}`, { 'x-api-key': keys.CONFORMANCE_NO_SCOPE_KEY }],
      ['/api/v1/walks', { ...primary, authorization: `Bearer ${keys.CONFORMANCE_OTHER_CAMPAIGN_KEY}` }],
    ];
    const statuses = new Set<number>();
    for (const [path, headers] of cases) {
      const direct = await call(upstreamUrl, path, headers);
      const proxied = await call(prismUrl, path, headers);
      expect([path, proxied.status, proxied.violations]).toEqual([path, direct.status, null]);
      expect(proxied.text).toBe(direct.text);
      statuses.add(direct.status);
    }
    expect([...statuses].sort()).toEqual([200, 400, 401, 403, 404]);
  });

  it('passes a 304 through for a matching If-None-Match', async () => {
    const headers = { 'x-api-key': demoCredentials().CONFORMANCE_API_KEY };
    const first = await fetch(`${prismUrl}/api/v1/walks`, { headers });
    const etag = first.headers.get('etag') ?? '';
    await first.arrayBuffer();
    const again = await call(prismUrl, '/api/v1/walks', { ...headers, 'if-none-match': etag });
    expect([again.status, again.violations]).toEqual([304, null]);
  });

  it('does report a response that breaks the spec (the check can fail)', async () => {
    const headers = { 'x-api-key': demoCredentials().CONFORMANCE_API_KEY, [BREAK_HEADER]: '1' };
    const proxied = await call(prismUrl, '/api/v1/walks', headers);
    expect(proxied.status).toBe(500);
    expect(proxied.violations).toContain('required');
  });
});
