/**
 * Spellings of the live paths a router may serve where the auth middleware is not bound (§5.2:
 * every live endpoint requires a key): a trailing slash, a segment in other letter case, a doubled
 * slash, a percent-encoded letter, dot segments (`.`, `..`, and `..` percent-encoded), which the
 * client sends as written. Without a valid key any refusal, 404 or redirect is legal; walk data is
 * an authentication bypass. With a valid key what they answer is the deployment's choice, reported.
 * A proxy or gateway on the way may remove dot segments itself: then the API is asked the plain path.
 */
import { walkPath, WALKS_PATH } from '../../spec/facts.ts';
import type { Exchange } from '../types.ts';
import { PRIMARY } from '../key-uses.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Asking } from '../target.ts';
import { MOCK_KEYS, realWalkIds } from './auth.ts';
import type { Check, CheckContext } from './check.ts';
import { advisory, answersAs, counted, describe, verdict } from './outcome.ts';

const cut = WALKS_PATH.lastIndexOf('/');
const HEAD = WALKS_PATH.slice(0, cut);
const SEGMENT = WALKS_PATH.slice(cut + 1);
const encodedFirst = `%${SEGMENT.charCodeAt(0).toString(16).toUpperCase()}${SEGMENT.slice(1)}`;
/** Puts `segments` before a path's last segment: `/api/v1/walks` → `/api/v1/<segments>/walks`. */
const beforeLast = (path: string, segments: string) => path.replace(/\/([^/]+)$/, `/${segments}/$1`);

/** Each variant rewrites a live path (the list's, or a walk's below it). */
const VARIANTS: readonly { name: string; of: (path: string) => string }[] = [
  { name: 'a trailing slash', of: (path) => `${path}/` },
  {
    name: 'a segment in upper case',
    of: (path) => path.replace(WALKS_PATH, `${HEAD}/${SEGMENT.toUpperCase()}`),
  },
  { name: 'a doubled slash', of: (path) => path.replace(WALKS_PATH, `${HEAD}//${SEGMENT}`) },
  { name: 'a percent-encoded letter', of: (path) => path.replace(WALKS_PATH, `${HEAD}/${encodedFirst}`) },
  // A router that normalises dot segments serves these as the path; an exact-path guard does not see them.
  { name: 'a dot segment', of: (path) => beforeLast(path, '.') },
  { name: 'a dot-dot segment', of: (path) => beforeLast(path, 'x/..') },
  { name: 'a percent-encoded dot-dot segment', of: (path) => beforeLast(path, 'x/%2e%2e') },
];

/** No key, and a well-formed key the deployment does not know. */
const WITHOUT_VALID_KEY: readonly { name: string; asking: Asking }[] = [
  { name: 'no key', asking: {} },
  { name: 'an unknown key', asking: { madeUpKey: 'bearer' } },
];

interface Asked {
  label: string;
  variant: (typeof VARIANTS)[number];
  exchange: Exchange;
}

async function askVariants(ctx: CheckContext, asking: Asking, who: string): Promise<Asked[]> {
  const [id] = await realWalkIds(ctx);
  const paths = [WALKS_PATH, walkPath(id as string)];
  return Promise.all(
    VARIANTS.flatMap((variant) =>
      paths.map(async (path) => {
        const exchange = await ctx.client.send({ ...asking, path: variant.of(path) });
        return { label: `${variant.of(path)} (${variant.name}, ${who})`, variant, exchange };
      }),
    ),
  );
}

/** Walk data came back: a success envelope, or anything carrying `data`. */
export function servesData(exchange: Exchange): boolean {
  const body = exchange.response?.json;
  return isObject(body) && (body.ok === true || (body.data !== undefined && body.data !== null));
}

/** D-PATH-UNKNOWN: a trailing slash is served like the path; every other spelling is 404 not_found. */
function asDecided({ variant, exchange }: Asked): boolean {
  if (variant === VARIANTS[0]) return servesData(exchange);
  return exchange.response !== undefined && answersAs(exchange.response, 'not_found');
}

const MOCK_ROUTER = { skip: "the mock's router is Prism's, not the deployment's" };

export const pathVariantChecks: Check[] = [
  {
    id: 'AUTH-015',
    section: '§5.2, §4',
    title:
      'Other spellings of the live paths (trailing slash, letter case, doubled slash, encoded letter, dot segments) serve no walks without a valid key',
    area: 'auth',
    level: 'required',
    mock: MOCK_KEYS,
    hint: 'Bind authentication to everything the router serves, not to one spelling of the path: refuse (or 404, or redirect) every variant that reaches the walks without a valid key.',
    async run(ctx) {
      const expected = 'a refusal, a 404 or a redirect: no walk data without a valid key';
      const asked = (
        await Promise.all(WITHOUT_VALID_KEY.map(({ asking, name }) => askVariants(ctx, asking, name)))
      ).flat();
      const bypassed = asked.filter(({ exchange }) => servesData(exchange));
      return counted(
        verdict(
          expected,
          bypassed.map(({ label, exchange }) => `${label} served walk data: ${describe(exchange.response)}`),
          `${asked.length} requests, none served walk data`,
          (bypassed[0] ?? asked[0])?.exchange,
        ),
        { requests: asked.length, records: asked.length, unit: 'requests' },
      );
    },
  },
  {
    id: 'AUTH-016',
    section: '§4',
    title: 'What the other spellings of the live paths answer with a valid key (the spec is silent)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-PATH-UNKNOWN',
    mock: MOCK_ROUTER,
    hint: 'Serving, refusing or redirecting a variant are all conformant with a valid key.',
    async run(ctx) {
      const asked = await askVariants(ctx, { auth: PRIMARY }, `$${PRIMARY.key}`);
      const lines = asked.map(
        ({ label, exchange }) =>
          `${label}: ${exchange.response ? String(exchange.response.status) : 'no answer'}${servesData(exchange) ? ' with walk data' : ''}`,
      );
      const outcome = advisory(
        'project decision: one trailing slash served like the path; other spellings 404 not_found',
        lines.slice(0, 3).join('; ') + (lines.length > 3 ? ` (and ${lines.length - 3} more)` : ''),
        asked[0]?.exchange,
        { details: lines, differs: asked.some((a) => !asDecided(a)) },
      );
      return counted(outcome, { requests: asked.length, records: asked.length, unit: 'requests' });
    },
  },
];
