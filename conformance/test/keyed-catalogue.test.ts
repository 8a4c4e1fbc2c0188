/**
 * The keyed half of the attacker's catalogue as data and on the wire: the key out of its place
 * reaches the target and never a report, a Set-Cookie is read back as a client would send it, and
 * the misconfiguration and charset judges tell a fault from its look-alikes (an error that names
 * the path asked, `private` beside `s-maxage`, `utf8`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../transport/client.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { CATALOGUE, KEYED_CATALOGUE, keyedFamilyOf } from '../rules/catalogue/catalogue.ts';
import { cookiesSet } from '../rules/catalogue/keyed-plan.ts';
import { internalsIn, sharedCacheable } from '../rules/security.ts';
import { charsetOf } from '../rules/wire.ts';
import { linkPaths } from '../rules/campaign-links.ts';
import type { Exchange, ResponseData } from '../core/exchange.ts';
import type { Observation } from '../core/observation.ts';
import { configFor } from './harness.ts';

const KEY = 'svc_sk_live_keyedcatalogue0000000000000000001';
const opened: (Listening | HttpClient)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

const answer = (headers: Record<string, string>, body = ''): ResponseData => ({
  status: 200,
  headers,
  body,
  bytes: body.length,
});

describe('the keyed catalogue as data', () => {
  it('names every entry once across both halves, each family with a default entry, no DELETE by default without the flag', () => {
    const names = [...CATALOGUE, ...KEYED_CATALOGUE].map((entry) => entry.name);
    expect(new Set(KEYED_CATALOGUE.map((e) => e.name)).size).toBe(KEYED_CATALOGUE.length);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    for (const family of ['placement', 'tenant', 'inventory', 'injection', 'writes'] as const)
      expect(keyedFamilyOf(family).some((entry) => entry.default && !entry.destructive)).toBe(true);
    expect(KEYED_CATALOGUE.filter((entry) => entry.destructive).map((entry) => entry.name)).toEqual([
      'DELETE of a real item',
    ]);
  });
});

describe('the key out of its place, on the wire', () => {
  it('sends the key in the query, a cookie and Basic auth, and reports show its variable alone', async () => {
    const seen: { url: string; cookie?: string; authorization?: string }[] = [];
    const listening = await listen((req: IncomingMessage, res: ServerResponse) => {
      seen.push({ url: req.url ?? '', cookie: req.headers.cookie, authorization: req.headers.authorization });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"ok":false,"error":{"code":"unauthenticated","message":"no"}}');
    });
    const client = new HttpClient(configFor(listening.baseUrl, { CONFORMANCE_API_KEY: KEY }));
    opened.push(client, listening);
    const key = 'CONFORMANCE_API_KEY' as const;
    const sent: Exchange[] = [
      await client.send({
        path: '/api/v1/walks',
        query: 'limit=1',
        auth: { key, via: 'bearer', placed: { in: 'query', name: 'api_key' } },
      }),
      await client.send({
        path: '/api/v1/walks',
        auth: { key, via: 'bearer', placed: { in: 'cookie', name: 'session' } },
      }),
      await client.send({ path: '/api/v1/walks', auth: { key, via: 'bearer', placed: { in: 'basic' } } }),
    ];
    expect(seen[0]?.url).toBe(`/api/v1/walks?limit=1&api_key=${KEY}`);
    expect(seen[0]?.authorization).toBeUndefined();
    expect(seen[1]?.cookie).toBe(`session=${KEY}`);
    expect(seen[2]?.authorization).toBe(`Basic ${Buffer.from(`${KEY}:`).toString('base64')}`);
    const shown = JSON.stringify(sent.map((exchange) => exchange.request));
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(Buffer.from(`${KEY}:`).toString('base64'));
    expect(sent[0]?.request.url).toContain('api_key=$CONFORMANCE_API_KEY');
    expect(sent[0]?.request.curl).toContain('"http');
  });
});

describe('what a keyed answer sets, read back', () => {
  it('takes each cookie’s name=value, an Expires date with its comma included', () => {
    const exchange = (setCookie: string | undefined) =>
      ({ response: answer(setCookie === undefined ? {} : { 'set-cookie': setCookie }) }) as Exchange;
    expect(
      cookiesSet(exchange('sid=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly, theme=dark; Path=/')),
    ).toBe('sid=abc; theme=dark');
    expect(cookiesSet(exchange(undefined))).toBeUndefined();
  });
});

describe('misconfigurations and their look-alikes', () => {
  it('a shared cache may store public and s-maxage answers, never private or no-store ones', () => {
    expect(sharedCacheable(answer({ 'cache-control': 'public, max-age=60' }))).toContain('public');
    expect(sharedCacheable(answer({ 'cache-control': 's-maxage=60' }))).toContain('s-maxage');
    expect(sharedCacheable(answer({ 'cache-control': 'private, s-maxage=60' }))).toBeUndefined();
    expect(sharedCacheable(answer({ 'cache-control': 'no-store, public' }))).toBeUndefined();
    expect(sharedCacheable(answer({ 'cache-control': 'private, no-cache' }))).toBeUndefined();
    expect(sharedCacheable(answer({}))).toBeUndefined();
  });

  it('finds a stack frame, a SQL error or a source path, but not the path the request named', () => {
    const obs = { target: '/api/v1/walks.php', path: '/api/v1/walks.php' } as Observation;
    expect(internalsIn(obs, 'No route for /api/v1/walks.php')).toBeUndefined();
    expect(internalsIn(obs, 'at findWalk (/srv/app/dist/routes/walks.js:42:13)')).toContain('stack frame');
    expect(internalsIn(obs, 'SQLSTATE[42000]: syntax error')).toContain('SQL');
    expect(internalsIn(obs, 'Traceback (most recent call last):')).toContain('Python');
    expect(internalsIn(obs, 'The walk was not found.')).toBeUndefined();
  });

  it('reads the declared charset, quoted or not, in any case', () => {
    expect(charsetOf('application/json; charset=ISO-8859-1')).toBe('iso-8859-1');
    expect(charsetOf('application/json;charset="UTF-8"')).toBe('utf-8');
    expect(charsetOf('application/json')).toBeUndefined();
  });

  it('reads the campaign a link names as its path with the item’s id apart', () => {
    const item = {
      id: 'w-1',
      web_url: 'https://dash.example/dashboard/north/walks/w-1',
      app_link: 'https://dash.example/open/north/walks/w-1',
      other: 'https://dash.example/help',
    };
    expect(linkPaths(item)).toEqual([
      ['web_url', '/dashboard/north/walks/{id}'],
      ['app_link', '/open/north/walks/{id}'],
    ]);
  });
});
