/**
 * A second, deliberately different and still correct implementation of the written spec, on plain
 * node:http with its own small data. Wherever the spec says "not shown" it decides otherwise than
 * the reference server: 401/403/400 for bad keys, clamping `limit`, walks ordered by name, another
 * web base URL (with a path), stop ids that are not UUIDs, stops with one coordinate and a per-
 * coordinate centroid rounded to 7 decimals, x-api-key winning over Authorization, 400 for ids that
 * are not UUIDs, a 404 message that echoes the id, 405 without Allow, no charset,
 * `Cache-Control: no-store`, no compression. The suite must pass it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Listening, listen } from '../../tools/test-support/listen.ts';

const ALT_WEB_BASE_URL = 'https://field.other-canvass.example/app';
const STATUSES = [
  'not_visited',
  'visited_home_answered',
  'visited_no_answer',
  'visited_left_lit',
  'dropped_hanger',
  'visited_refused',
  'visited_wrong_address',
  'visited_moved_away',
] as const;

interface AltStop {
  id: string;
  lat: number | null;
  lng: number | null;
  status: string;
  position: number;
}
interface AltWalk {
  id: string;
  name: string;
  campaign: string;
  stops: AltStop[];
}
interface AltKey {
  campaign: string;
  scopes: string[];
  revoked: boolean;
}

/** A small linear congruential generator: the data is the same on every run. */
function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function walksOf(campaign: string, count: number, seed: number): AltWalk[] {
  const next = generator(seed);
  return Array.from({ length: count }, (_, w) => {
    const size = w === 0 ? 0 : 1 + Math.floor(next() * 30);
    const stops = Array.from({ length: size }, (_, i): AltStop => {
      const unlocated = w === 1 || next() < 0.05;
      const latOnly = !unlocated && next() < 0.08;
      return {
        id: `st_${campaign}_${w}_${i + 1}`,
        lat: unlocated ? null : 40.7 + next() / 50,
        lng: unlocated || latOnly ? null : -74 + next() / 50,
        status: STATUSES[Math.floor(next() * STATUSES.length)] as string,
        position: i + 1,
      };
    });
    return {
      id: uuidFrom(next),
      name: `${campaign} route ${String(count - w).padStart(3, '0')}`,
      campaign,
      stops,
    };
  });
}

export interface AlternativeServer extends Listening {
  credentials: Record<string, string>;
}

export async function startAlternativeServer(): Promise<AlternativeServer> {
  const walks = [...walksOf('greene', 75, 7), ...walksOf('beta', 6, 11)];
  return { ...(await listen(handlerFor(walks))), credentials: CREDENTIALS };
}

const SLUGS: Record<string, string> = { greene: 'greene-for-mayor', beta: 'beta-pac', gamma: 'gamma-2026' };
const CREDENTIALS = {
  CONFORMANCE_API_KEY: 'svc_sk_live_ALTprimary0000000000000000000001',
  CONFORMANCE_NO_SCOPE_KEY: 'svc_sk_live_ALTnoscope000000000000000000002',
  CONFORMANCE_OTHER_CAMPAIGN_KEY: 'svc_sk_live_ALTother00000000000000000000003',
  CONFORMANCE_REVOKED_KEY: 'svc_sk_live_ALTrevoked000000000000000000004',
  CONFORMANCE_EMPTY_CAMPAIGN_KEY: 'svc_sk_live_ALTempty00000000000000000000005',
  CONFORMANCE_WEB_BASE_URL: ALT_WEB_BASE_URL,
};
const KEYS = new Map<string, AltKey>([
  [CREDENTIALS.CONFORMANCE_API_KEY, { campaign: 'greene', scopes: ['walks:read'], revoked: false }],
  [
    CREDENTIALS.CONFORMANCE_NO_SCOPE_KEY,
    { campaign: 'greene', scopes: ['lists:read', 'sms:read'], revoked: false },
  ],
  [CREDENTIALS.CONFORMANCE_OTHER_CAMPAIGN_KEY, { campaign: 'beta', scopes: ['walks:read'], revoked: false }],
  [CREDENTIALS.CONFORMANCE_REVOKED_KEY, { campaign: 'greene', scopes: ['walks:read'], revoked: true }],
  [CREDENTIALS.CONFORMANCE_EMPTY_CAMPAIGN_KEY, { campaign: 'gamma', scopes: ['walks:read'], revoked: false }],
]);

function summaryOf(walk: AltWalk) {
  const lats = walk.stops.flatMap((s) => (s.lat === null ? [] : [s.lat]));
  const lngs = walk.stops.flatMap((s) => (s.lng === null ? [] : [s.lng]));
  const mean = (v: number[]) =>
    v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 1e7) / 1e7 : null;
  const counts = Object.fromEntries(
    STATUSES.map((s) => [s, walk.stops.filter((stop) => stop.status === s).length]),
  );
  const link = (kind: string) => `${ALT_WEB_BASE_URL}/${kind}/${SLUGS[walk.campaign]}/walks/${walk.id}`;
  return {
    app_link: link('open'),
    count: walk.stops.length,
    counts,
    id: walk.id,
    lat: lats.length && lngs.length ? mean(lats) : null,
    lng: lats.length && lngs.length ? mean(lngs) : null,
    name: walk.name,
    web_url: link('dashboard'),
  };
}

type Refusal = [status: number, code: string, message: string];

/** The caller's key, or the refusal: x-api-key wins over Authorization. */
function keyOf(req: IncomingMessage): AltKey | Refusal {
  const apiKey = req.headers['x-api-key'];
  const authorization = req.headers.authorization;
  let token: string | undefined;
  if (typeof apiKey === 'string') token = apiKey;
  else if (authorization !== undefined) {
    const bearer = /^bearer +(\S+)$/i.exec(authorization);
    if (!bearer?.[1]) return [400, 'malformed_credentials', 'Use Authorization: Bearer <key>.'];
    token = bearer[1];
  }
  if (token === undefined) return [401, 'missing_key', 'Send your key.'];
  if (!token.startsWith('svc_sk_live_')) return [400, 'malformed_credentials', 'That is not a key.'];
  const key = KEYS.get(token);
  if (!key || key.revoked) return [403, 'invalid_key', 'This key does not work.'];
  if (!key.scopes.includes('walks:read')) return [403, 'forbidden', 'Missing scope walks:read.'];
  return key;
}

function handlerFor(walks: AltWalk[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://alt.invalid');
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    const refuse = ([status, code, message]: Refusal) =>
      send(status, { ok: false, error: { code, message } });
    const detail = /^\/api\/v1\/walks\/([^/]+)$/.exec(url.pathname);
    if (url.pathname !== '/api/v1/walks' && !detail)
      return refuse([404, 'no_route', 'There is no such route.']);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse([405, 'read_only', 'This API only reads.']);
    const key = keyOf(req);
    if (Array.isArray(key)) return refuse(key);
    const mine = walks
      .filter((w) => w.campaign === key.campaign)
      .sort((a, b) => a.name.localeCompare(b.name));
    if (!detail) return send(200, listOf(mine, url.searchParams.get('limit')));
    const id = decodeURIComponent(detail[1] ?? '');
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
      return refuse([400, 'invalid_id', 'Walk ids are UUIDs.']);
    }
    const walk = mine.find((w) => w.id === id);
    if (!walk) return refuse([404, 'not_found', `No walk with the id ${id}.`]);
    return send(200, { ok: true, data: { id: walk.id, name: walk.name, stops: walk.stops } });
  };
}

/** `limit` clamped into 1..200; missing, empty or not a number: 50. */
function listOf(mine: AltWalk[], raw: string | null) {
  const parsed = raw === null || raw === '' ? 50 : Number.parseInt(raw, 10);
  const limit = Number.isNaN(parsed) ? 50 : Math.min(200, Math.max(1, parsed));
  const data = mine.slice(0, limit).map(summaryOf);
  return { data, meta: { count: data.length }, ok: true };
}
