/**
 * The attacker's catalogue, as data: every trick of the public 403-bypass catalogues that applies
 * to a JSON API over HTTP, deduplicated, each with its family and where it comes from, and the
 * request it makes from a base request (`shapes.ts`). The engine tries them on every refusal of
 * every protected route (`plan.ts`) and tells them back in any exchange, a live run's or a
 * recording's (`recognise.ts`). Adding a trick is one entry here.
 *
 * Sources, read in full:
 * - bbot's `bypass403` module, a port of iamj0ker's bypass-403 and Burp Suite's 403Bypasser:
 *   its signatures, its path payloads (each after the path and before it) and its header payloads;
 * - The Hacker Recipes' "403 error bypass" page: path tricks before, after and around the name,
 *   extension and name tricks, forwarder, host and rewrite headers, method tricks;
 * - OWASP WSTG-ATHZ-02: `X-Original-URL` and `X-Rewrite-URL` on a path the front lets through,
 *   forwarding headers with loopback, private and link-local addresses (with a port), and two
 *   identities' tokens swapped on the same request.
 * - Faults independent broken servers showed this suite (`suite`): a key header read for one
 *   purpose and the other for another, and caches keyed by less than the key.
 *
 * Where they differ from the sources, and why:
 * - bbot puts its path payloads at the root of the host (`/%2e/api/v1/walks`); here they go just
 *   before the route's name (`/api/v1/%2e/walks`), which a gateway's rule and a backend's route both
 *   name: a path outside the API's prefix is no exchange of this API in a recording. A payload that
 *   climbs (`..;`) goes after a segment of its own (`/x/..;/`), so it still names the same route.
 * - Header values that claim an address use 127.0.0.1 (bbot's and the page's); WSTG's other
 *   values (localhost, ::1, private and link-local ranges, an address with a port) are entries of
 *   X-Forwarded-For, the header every proxy sets.
 * - Host and forwarding headers name `conformance-probe.invalid`, which never resolves: a link
 *   that follows it shows, and no request can reach it.
 * - bbot's `X-Rewrite-URL: nonsense` asks whether a backend reads the header at all; here the
 *   rewrite headers name the route itself, which shows both that and what it grants.
 *
 * Left out, and why:
 * - The page's raw request-line tricks (a tab or CR LF before the method, `Host:` without a space
 *   or with a tab, two `Host` headers, a CR at the end of a header value): an HTTP client sends a
 *   well-formed request, and servers and proxies in front refuse malformed ones before any route.
 * - The page's absolute URL in the request line and http instead of https: the target's origin and
 *   scheme are the configuration's (`--base-url`), not a request's.
 * - The page's method in lower case (`get`): HTTP/1.1 parsers such as Node's refuse it by closing
 *   the connection, which tells nothing of the route and reads as a target that stopped answering.
 * - Content-Type and Content-Length tricks other than an empty POST: the API reads no body.
 * - The page's Referer "previous path" and Google/GitHub dorking: they need a path a person knows
 *   or finds, not one a rule can make.
 * - Extensions in other letter cases than one (`.PHp`, `.AspX`, `.JSP`): one mixed-case extension
 *   shows a case-sensitive extension filter.
 */
import {
  EMPTY_CAMPAIGN_KEY,
  NO_SCOPE_KEY,
  OTHER_CAMPAIGN_KEY,
  PRIMARY_KEY,
  REVOKED_KEY,
} from '../../core/roles.ts';
import type { KeyName } from '../../core/roles.ts';
import type { Make, Shape } from './shapes.ts';
import {
  inParameters,
  itemId,
  placed,
  selectorHeader,
  selectorParameter,
  subRoute,
  write,
  again,
  beforeLast,
  beforeName,
  beforeNameSegment,
  encodedFirstLetter,
  header,
  LOOPBACK,
  method,
  name,
  overrideHeader,
  overrideParameter,
  pathAndQuery,
  PROBE_HOST,
  rewrittenFrom,
  slashAfterName,
  tail,
  twoKeys,
  version,
} from './shapes.ts';

export const SOURCES = {
  bbot: {
    name: "bbot's bypass403 module (bypass-403, Burp's 403Bypasser)",
    where:
      'https://github.com/blacklanternsecurity/bbot/blob/989bd782fa97ce9e62af55a8450d3a0b1038c41c/bbot/modules/bypass403.py',
  },
  recipes: {
    name: 'The Hacker Recipes, "403 error bypass"',
    where:
      'https://github.com/The-Hacker-Recipes/The-Hacker-Recipes/blob/ff8d6b658e7089b54139d08f37fc860af3e9bcb3/docs/src/web/recon/403-error-bypass.md',
  },
  wstg: {
    name: 'OWASP WSTG-ATHZ-02',
    where:
      'https://github.com/OWASP/wstg/blob/2fab1ade827ee2336f14b7c695014191b7e2f3e1/document/4-Web_Application_Security_Testing/05-Authorization_Testing/02-Testing_for_Bypassing_Authorization_Schema.md',
  },
  suite: {
    name: 'faults of independent broken servers',
    where: 'the conformance suite’s own broken servers',
  },
  apitop10: {
    name: 'OWASP API Security Top 10 (2023)',
    where: 'https://owasp.org/API-Security/editions/2023/en/0x11-t10/',
  },
  inpv: {
    name: 'OWASP WSTG-INPV-05 and -12 (SQL and NoSQL injection)',
    where:
      'https://github.com/OWASP/wstg/tree/2fab1ade827ee2336f14b7c695014191b7e2f3e1/document/4-Web_Application_Security_Testing/07-Input_Validation_Testing',
  },
} as const;
type Source = keyof typeof SOURCES;

/**
 * Whose request an entry is first tried on: no key (the cheapest refusal, which needs none), the
 * owner's key (a link or a cached answer needs data), or the keys the entry names itself.
 */
export type Tried = 'no key' | 'the owner' | 'its own keys';

/** The families, each judged by one rule (`rules.ts`), and whose request a default run tries them on. */
export const FAMILIES = {
  path: { title: 'path spellings, encodings and normalisations', tried: 'no key' },
  address: { title: 'client-address and rewrite headers', tried: 'no key' },
  method: { title: 'method tampering', tried: 'no key' },
  host: { title: 'host and forwarding headers', tried: 'the owner' },
  'two-keys': { title: 'two key headers, two roles', tried: 'its own keys' },
  cache: { title: 'cache and order', tried: 'the owner' },
} as const satisfies Record<string, { title: string; tried: Tried }>;
export type Family = keyof typeof FAMILIES;

/**
 * The children of a planned collection that would send messages (§1: the API never sends; the SMS
 * area is reporting only): a POST there, or to the collection, answered 2xx breaks the spec.
 */
export const SEND_CHILDREN: readonly { segment: string; default?: true }[] = [
  { segment: 'send', default: true },
  { segment: 'messages' },
];

export interface Transform {
  /** How reports name it: the trick as sent. */
  name: string;
  family: Family;
  sources: readonly Source[];
  /** Tried by every run; the rest of the catalogue waits for `--depth full`. */
  default?: true;
  /** Also asked with the owner's key, where D-PATH-UNKNOWN decides what it answers (AUTH-016). */
  decided?: true;
  /** Whose request a default run tries it on, when not its family's. */
  tried?: Tried;
  make: Make;
}

const entry = (
  family: Family,
  nameOf: string,
  sources: readonly Source[],
  make: Make,
  flags: Pick<Transform, 'default' | 'decided' | 'tried'> = {},
): Transform => ({ name: nameOf, family, sources, make, ...flags });
const ON = { default: true } as const;
const DECIDED = { default: true, decided: true } as const;

const path = (nameOf: string, sources: readonly Source[], make: Make, flags?: Pick<Transform, 'default'>) =>
  entry('path', nameOf, sources, make, flags);
const bbotAndPage: readonly Source[] = ['bbot', 'recipes'];

/** Path spellings: after the path, around and before its name, its last slash, its version. */
const PATH: Transform[] = [
  // The seven spellings every run has tried on every live route (D-PATH-UNKNOWN).
  entry('path', 'a trailing slash', ['recipes'], tail('/'), DECIDED),
  entry(
    'path',
    'the name in upper case',
    ['recipes'],
    name((word) => word.toUpperCase()),
    DECIDED,
  ),
  entry('path', 'a doubled slash', ['recipes'], beforeName(''), DECIDED),
  entry('path', "the name's first letter percent-encoded", ['recipes'], encodedFirstLetter(1), DECIDED),
  entry('path', 'a dot segment', bbotAndPage, beforeLast('.'), DECIDED),
  entry('path', 'a dot-dot segment', ['recipes'], beforeLast('x/..'), DECIDED),
  entry('path', 'a percent-encoded dot-dot segment', ['recipes'], beforeLast('x/%2e%2e'), DECIDED),
  // After the path.
  path('trailing /.', bbotAndPage, tail('/.')),
  path('trailing %20', bbotAndPage, tail('%20'), ON),
  path('trailing %09', bbotAndPage, tail('%09'), ON),
  path('trailing %00', ['recipes'], tail('%00')),
  path('trailing %23', bbotAndPage, tail('%23')),
  path('trailing #', bbotAndPage, tail('#'), ON),
  path('trailing ?', bbotAndPage, tail('?')),
  path('trailing ??', ['recipes'], tail('??')),
  path('trailing &', ['recipes'], tail('&')),
  path('trailing %3f', ['recipes'], tail('%3f')),
  path('trailing %26', ['recipes'], tail('%26')),
  path('trailing .', ['bbot'], tail('.')),
  path('trailing %2e', ['bbot'], tail('%2e')),
  path('trailing %2f', ['bbot'], tail('%2f')),
  path('trailing ;', bbotAndPage, tail(';')),
  path('a matrix parameter ;x=1', ['recipes', 'suite'], tail(';x=1'), ON),
  path('trailing ;/', ['bbot'], tail(';/')),
  path('trailing /;/', ['bbot'], tail('/;/')),
  path('trailing ..;', ['bbot'], tail('..;')),
  path('trailing ..;/', bbotAndPage, tail('..;/')),
  path('trailing /..;/', bbotAndPage, tail('/..;/')),
  path('trailing ;%09', ['bbot'], tail(';%09')),
  path('trailing ;%09..', ['bbot'], tail(';%09..')),
  path('trailing ;%09..;', ['bbot'], tail(';%09..;')),
  path('trailing ;%2f..', ['bbot'], tail(';%2f..')),
  path('trailing *', ['bbot'], tail('*')),
  path('trailing /*', bbotAndPage, tail('/*')),
  path('trailing /./', ['bbot'], tail('/./')),
  path('trailing //', bbotAndPage, tail('//')),
  path('trailing /?anything', ['bbot'], tail('/?anything')),
  path('trailing %', ['recipes'], tail('%')),
  path('trailing ../', ['recipes'], tail('../')),
  path('trailing /../', ['recipes'], tail('/../')),
  path('trailing ..%2f', ['recipes'], tail('..%2f')),
  path('trailing \\..\\.\\', ['recipes'], tail('\\..\\.\\')),
  path('trailing .././', ['recipes'], tail('.././')),
  path('trailing /*..%00/', ['recipes'], tail('/*..%00/')),
  path('trailing ..%0d/', ['recipes'], tail('..%0d/')),
  path('trailing ..%5c', ['recipes'], tail('..%5c')),
  path('trailing ..\\', ['recipes'], tail('..\\')),
  path('trailing ..%ff', ['recipes'], tail('..%ff')),
  path('trailing %2e%2e%2f', ['recipes'], tail('%2e%2e%2f')),
  path('trailing .%2e', ['recipes'], tail('.%2e')),
  path('trailing //./', ['recipes'], tail('//./')),
  path('trailing ;/../x', ['recipes'], tail(';/../x')),
  path('trailing //../', ['recipes'], tail('//../')),
  // Extensions: a backend that strips a format or file suffix serves the route.
  path('a .json suffix', [...bbotAndPage, 'suite'], tail('.json'), ON),
  path('a .html suffix', ['bbot'], tail('.html')),
  path('a .php suffix', bbotAndPage, tail('.php')),
  path('a mixed-case .PHp suffix', ['recipes'], tail('.PHp')),
  path('an .aspx suffix', ['recipes'], tail('.aspx')),
  path('a .jsp suffix', ['recipes'], tail('.jsp')),
  path('%3F.png after the path', ['recipes'], tail('%3F.png')),
  path('%00.png after the path', ['recipes'], tail('%00.png')),
  // Around and before the name.
  path('a double-encoded first letter of the name', ['recipes'], encodedFirstLetter(2)),
  path(
    '; before the name',
    ['recipes'],
    name((word) => `;${word}`),
  ),
  path(
    '.. after the segment before the name',
    ['recipes'],
    beforeNameSegment((s) => `${s}..`),
  ),
  path(
    'a matrix parameter on the segment before the name',
    ['recipes'],
    beforeNameSegment((s) => `${s};x=y`),
  ),
  path('%2e before the name', bbotAndPage, beforeName('%2e')),
  path('%2f before the name', bbotAndPage, beforeName('%2f')),
  path('%2e%2f before the name', ['recipes'], beforeName('%2e%2f')),
  path('a double-encoded slash %252f before the name', ['recipes'], beforeName('%252f'), ON),
  path('an encoded backslash %5c before the name', ['recipes'], beforeName('%5c')),
  path('an overlong slash %c0%af before the name', ['recipes'], beforeName('%c0%af'), ON),
  path('an overlong dot-dot %c0%ae%c0%ae segment', ['recipes'], beforeName('x/%c0%ae%c0%ae')),
  path('..;/ after a segment before the name', bbotAndPage, beforeName('x/..;'), ON),
  path('.// before the name', ['recipes'], beforeName('./')),
  path('#/../ before the name', ['recipes'], beforeName('#/..')),
  path('..%3B after a segment before the name', ['recipes'], beforeName('x/..%3B')),
  path('..// after a segment before the name', ['recipes'], beforeName('x/../')),
  path('%20 segment then %2e%2e before the name', ['recipes'], beforeName('x%20/%2e%2e')),
  path('%09 before the name', ['bbot'], beforeName('%09')),
  path('%20 before the name', ['bbot'], beforeName('%20')),
  path('%23 before the name', ['bbot'], beforeName('%23')),
  path('; before the name, as a segment', ['bbot'], beforeName(';')),
  path('* before the name', ['bbot'], beforeName('*')),
  path(';%09 before the name', ['bbot'], beforeName(';%09')),
  path(';%09.. after a segment before the name', ['bbot'], beforeName('x/;%09..')),
  path(';%09..; after a segment before the name', ['bbot'], beforeName('x/;%09..;')),
  path(';%2f.. after a segment before the name', ['bbot'], beforeName('x/;%2f..')),
  path('an ASP.NET cookieless segment (S(X))', ['bbot'], beforeName('(S(X))')),
  path('(S(X))/../(S(X)) before the name', ['bbot'], beforeName('(S(X))/../(S(X))')),
  // The slash before the item (or before the name): encoded, or a backslash.
  path('an encoded slash %2F before the item', ['bbot', 'recipes', 'suite'], slashAfterName('%2F'), ON),
  path('a backslash before the item', ['recipes'], slashAfterName('\\')),
  // Other versions of the API (WSTG's "old version" misconfiguration, the page's).
  path(
    'an older API version',
    ['recipes'],
    version((n) => `v${Math.max(0, n - 1)}`),
    ON,
  ),
  path(
    'the API version left out',
    ['recipes'],
    version(() => ''),
  ),
];

const address = (
  nameOf: string,
  sources: readonly Source[],
  make: Make,
  flags?: Pick<Transform, 'default'>,
) => entry('address', nameOf, sources, make, flags);
/** A client-address header claiming the loopback address. */
const claims = (headerName: string, sources: readonly Source[], flags?: Pick<Transform, 'default'>) =>
  address(`${headerName}: ${LOOPBACK}`, sources, header(headerName, LOOPBACK), flags);
const forwardedFor = (value: string) =>
  address(`X-Forwarded-For: ${value}`, ['wstg'], header('X-Forwarded-For', value));

/** Headers through which a backend trusts the caller's address, or routes by a URL the client names. */
const ADDRESS: Transform[] = [
  claims('X-Forwarded-For', ['bbot', 'recipes', 'wstg'], ON),
  claims('X-Real-IP', bbotAndPage, ON),
  claims('X-Originating-IP', ['recipes', 'wstg'], ON),
  claims('X-Remote-IP', ['recipes', 'wstg'], ON),
  claims('X-Remote-Addr', ['recipes', 'wstg']),
  claims('X-Client-IP', ['bbot', 'recipes', 'wstg'], ON),
  claims('Client-IP', ['bbot']),
  claims('True-Client-IP', ['recipes'], ON),
  claims('X-True-IP', ['bbot']),
  claims('CF-Connecting-IP', ['recipes']),
  claims('X-Cluster-Client-IP', ['recipes']),
  claims('Fastly-Client-IP', ['recipes']),
  claims('X-ProxyUser-Ip', ['recipes']),
  claims('X-Forwarded-By', bbotAndPage),
  claims('X-Forward-For', ['wstg']),
  claims('X_Forwarded_For', ['recipes']),
  claims('X-Custom-IP-Authorization', bbotAndPage, ON),
  claims('X-Host', bbotAndPage, ON),
  claims('X-Forwarded-Host', bbotAndPage, ON),
  claims('Redirect', ['bbot']),
  claims('Referer', ['bbot']),
  address(`Forwarded: for=${LOOPBACK}`, ['recipes'], header('Forwarded', `for=${LOOPBACK}`), ON),
  address('Forwarded: for="[::1]:80"', ['recipes'], header('Forwarded', 'for="[::1]:80"')),
  address('X-Forwarded-Port: 80', ['bbot'], header('X-Forwarded-Port', '80')),
  forwardedFor('localhost'),
  forwardedFor('::1'),
  forwardedFor('10.0.0.1'),
  forwardedFor('172.16.0.1'),
  forwardedFor('192.168.0.1'),
  forwardedFor('169.254.169.254'),
  forwardedFor(`${LOOPBACK}:443`),
  address(`X-Forwarded-For: http://${LOOPBACK}`, ['bbot'], header('X-Forwarded-For', `http://${LOOPBACK}`)),
  // Rewrite headers: the request line names a path any gateway lets through, the header the route.
  address('X-Original-URL: <the path>, on /', ['recipes', 'wstg'], rewrittenFrom('X-Original-URL', '/'), ON),
  address('X-Rewrite-URL: <the path>, on /', ['recipes', 'wstg'], rewrittenFrom('X-Rewrite-URL', '/'), ON),
  address('X-Original-URL: <the path>, on the path', ['bbot'], header('X-Original-URL', pathAndQuery), ON),
  address('X-Rewrite-URL: <the path>, on the path', ['bbot'], header('X-Rewrite-URL', pathAndQuery)),
];

const methodEntry = (
  nameOf: string,
  sources: readonly Source[],
  make: Make,
  flags?: Pick<Transform, 'default'>,
) => entry('method', nameOf, sources, make, flags);

/** Other methods, and a read tunnelled through a write (or a write through a read) by override. */
const METHOD: Transform[] = [
  methodEntry('HEAD', ['suite'], method('HEAD'), ON),
  methodEntry('OPTIONS', ['suite'], method('OPTIONS'), ON),
  methodEntry('TRACE', ['bbot'], method('TRACE'), ON),
  methodEntry('POST instead of GET (empty body)', bbotAndPage, method('POST')),
  methodEntry('X-HTTP-Method-Override', ['suite'], overrideHeader('X-HTTP-Method-Override'), ON),
  methodEntry('X-HTTP-Method', ['suite'], overrideHeader('X-HTTP-Method')),
  methodEntry('X-Method-Override', ['suite'], overrideHeader('X-Method-Override')),
  methodEntry('a _method query parameter', ['suite'], overrideParameter('_method'), ON),
];

const host = (nameOf: string, sources: readonly Source[], make: Make) =>
  entry('host', nameOf, sources, make, ON);

/** Headers a backend may build its links from: every link must keep the deployment's web base URL. */
const HOST: Transform[] = [
  host(`Host: ${PROBE_HOST}`, ['recipes'], header('Host', PROBE_HOST)),
  host(`X-Forwarded-Host: ${PROBE_HOST}`, bbotAndPage, header('X-Forwarded-Host', PROBE_HOST)),
  host(`X-Host: ${PROBE_HOST}`, bbotAndPage, header('X-Host', PROBE_HOST)),
  host(`Forwarded: host=${PROBE_HOST}`, ['suite'], header('Forwarded', `host=${PROBE_HOST};proto=http`)),
  host('X-Forwarded-Proto: http', ['suite'], header('X-Forwarded-Proto', 'http')),
  host('X-Forwarded-Port: 8443', ['bbot'], header('X-Forwarded-Port', '8443')),
  host(`X-Forwarded-Server: ${PROBE_HOST}`, ['suite'], header('X-Forwarded-Server', PROBE_HOST)),
];

const pair = (bearer: string, xApiKey: string, make: Make) =>
  entry('two-keys', `${bearer} in Authorization, ${xApiKey} in x-api-key`, ['wstg', 'suite'], make, ON);

/**
 * Two key headers with keys of different roles, each way round: the answer must be a refusal or
 * what one of the keys alone gets (§5.9 leaves open which), never more than either.
 */
const TWO_KEYS: Transform[] = [
  pair('the revoked key', 'the no-scope key', twoKeys(REVOKED_KEY, NO_SCOPE_KEY)),
  pair('the no-scope key', 'the revoked key', twoKeys(NO_SCOPE_KEY, REVOKED_KEY)),
  pair('the no-scope key', "the other campaign's key", twoKeys(NO_SCOPE_KEY, OTHER_CAMPAIGN_KEY)),
  pair("the other campaign's key", 'the no-scope key', twoKeys(OTHER_CAMPAIGN_KEY, NO_SCOPE_KEY)),
  pair("the other campaign's key", 'the primary key', twoKeys(OTHER_CAMPAIGN_KEY, PRIMARY_KEY)),
  pair('the primary key', "the other campaign's key", twoKeys(PRIMARY_KEY, OTHER_CAMPAIGN_KEY)),
  entry(
    'two-keys',
    'the revoked key in Authorization, the primary key in x-api-key',
    ['suite'],
    twoKeys(REVOKED_KEY, PRIMARY_KEY),
  ),
  entry(
    'two-keys',
    "the empty campaign's key in Authorization, the no-scope key in x-api-key",
    ['suite'],
    twoKeys(EMPTY_CAMPAIGN_KEY, NO_SCOPE_KEY),
  ),
];

/** Reads made again once every other key has asked: what a cache keyed by less than the key serves. */
const CACHE: Transform[] = [
  entry('cache', "the owner's read again, after every other key's", ['suite'], again, ON),
  entry('cache', "a read without a key again, after the owner's", ['suite'], again, {
    default: true,
    tried: 'no key',
  }),
];

export const CATALOGUE: readonly Transform[] = [
  ...PATH,
  ...ADDRESS,
  ...METHOD,
  ...HOST,
  ...TWO_KEYS,
  ...CACHE,
];

/** The entries of a family. */
export const familyOf = (family: Family): readonly Transform[] =>
  CATALOGUE.filter((t) => t.family === family);

/** The request headers a family's entries add (lower case): what a recording must keep to show them. */
export function headersOf(...families: Family[]): string[] {
  const sample = { method: 'GET', path: '/api/v1/items/1', query: 'q=1', headers: {}, nameAt: 3 };
  const names = CATALOGUE.filter((t) => families.includes(t.family)).flatMap((t) =>
    Object.keys(t.make(sample)?.headers ?? {}).map((name) => name.toLowerCase()),
  );
  return [...new Set(names)];
}

/** The catalogue's size per family: every entry, and those a default run tries. */
export function catalogueSize(): Record<Family, { entries: number; default: number }> {
  const size = {} as Record<Family, { entries: number; default: number }>;
  for (const family of Object.keys(FAMILIES) as Family[]) {
    const entries = familyOf(family);
    size[family] = { entries: entries.length, default: entries.filter((t) => t.default).length };
  }
  return size;
}

/**
 * Where an operation's route name is: its template's last literal segment, in `path.split('/')`
 * (`walks` of `/api/v1/walks/{id}` is at 3).
 */
export const nameIndexOf = (template: string): number =>
  template.split('/').findLastIndex((segment) => segment !== '' && !segment.startsWith('{'));

/**
 * The requests an attacker makes with a key, or with the key out of its place: each family judged
 * by one rule (`keyed-rules.ts`), each entry a request made from a plain read of a live route,
 * asked as its family's askings say (whose key, on whose item). Facts are the run's: the items each
 * campaign listed, the other campaign's identifiers its links show.
 */
export const KEYED_FAMILIES = {
  placement: {
    title: 'the key out of its place (query string, cookie, Basic authentication)',
    askings: [{ key: PRIMARY_KEY, item: 'own' }],
  },
  tenant: {
    title: 'campaign and tenant selectors naming the other campaign',
    askings: [{ key: PRIMARY_KEY, item: 'other' }],
  },
  inventory: {
    title: 'other versions, sub-routes and suffixes, with a key',
    askings: [
      { key: PRIMARY_KEY, item: 'other' },
      { key: NO_SCOPE_KEY, item: 'own' },
    ],
  },
  injection: {
    title: 'injection-shaped ids and parameters',
    askings: [{ key: PRIMARY_KEY, item: 'own' }],
  },
  writes: {
    title: 'writes on real items',
    askings: [
      { key: PRIMARY_KEY, item: 'own' },
      { key: PRIMARY_KEY, item: 'other' },
    ],
  },
} as const satisfies Record<string, { title: string; askings: readonly KeyedAsking[] }>;
export type KeyedFamily = keyof typeof KEYED_FAMILIES;

/** Whose key asks, on whose item (a collection's read names none). */
export interface KeyedAsking {
  key: KeyName;
  item: 'own' | 'other';
}

/** What the run has seen that a keyed entry makes its request with. */
export interface RunFacts {
  /** The item asked on, as the list showed it (its representation, for a PUT). */
  item?: Record<string, unknown>;
  /** The other campaign's identifiers its links and fields show (its slug, its id). */
  otherIdentifiers: readonly string[];
}

export interface KeyedEntry {
  /** How reports name it; unique in the catalogue. */
  name: string;
  family: KeyedFamily;
  sources: readonly Source[];
  /** Tried by every run (once, the live routes taking turns); the rest wait for `--depth full`. */
  default?: true;
  /** Sent only under `--allow-destructive`: a DELETE of an item that exists. */
  destructive?: true;
  /** A parameter a backend may not know: a 2xx that ignores it is no fault (only a 5xx or data to an id is). */
  lenient?: true;
  make: (base: Shape, facts: RunFacts) => Shape | undefined;
}

const keyed = (
  family: KeyedFamily,
  nameOf: string,
  sources: readonly Source[],
  make: KeyedEntry['make'],
  flags: Pick<KeyedEntry, 'default' | 'destructive' | 'lenient'> = {},
): KeyedEntry => ({ name: nameOf, family, sources, make, ...flags });

/** The key's parameter names in query strings, the cookie names, seen in the wild. */
const KEY_PARAMETERS = ['api_key', 'key', 'token', 'access_token', 'apikey'] as const;
const KEY_COOKIES = ['api_key', 'session', 'token'] as const;

const PLACEMENT: KeyedEntry[] = [
  ...KEY_PARAMETERS.map((parameter) =>
    keyed(
      'placement',
      `the key as ?${parameter}=`,
      ['apitop10', 'suite'],
      placed({ in: 'query', name: parameter }),
      parameter === 'apikey' ? {} : ON,
    ),
  ),
  ...KEY_COOKIES.map((cookie) =>
    keyed(
      'placement',
      `the key as a cookie ${cookie}=`,
      ['apitop10', 'suite'],
      placed({ in: 'cookie', name: cookie }),
      cookie === 'api_key' ? ON : {},
    ),
  ),
  keyed(
    'placement',
    'the key as the user of Basic authentication',
    ['apitop10'],
    placed({ in: 'basic' }),
    ON,
  ),
];

/** Query parameters and headers a multi-tenant backend may pick its tenant by. */
const TENANT_PARAMETERS = [
  'campaign',
  'campaign_id',
  'campaignId',
  'campaign_slug',
  'tenant',
  'tenant_id',
  'org',
  'org_id',
  'slug',
] as const;
const TENANT_HEADERS = [
  'X-Campaign',
  'X-Campaign-Id',
  'X-Campaign-Slug',
  'X-Tenant',
  'X-Tenant-Id',
  'X-Org-Id',
  'X-Organization',
] as const;
const DEFAULT_SELECTORS = new Set<string>(['campaign', 'campaign_id', 'tenant', 'X-Campaign', 'X-Tenant-Id']);

const TENANT: KeyedEntry[] = [
  ...TENANT_PARAMETERS.map((parameter) =>
    keyed(
      'tenant',
      `?${parameter}= naming the other campaign`,
      ['apitop10', 'suite'],
      selectorParameter(parameter),
      DEFAULT_SELECTORS.has(parameter) ? ON : {},
    ),
  ),
  ...TENANT_HEADERS.map((headerName) =>
    keyed(
      'tenant',
      `${headerName} naming the other campaign`,
      ['apitop10', 'suite'],
      selectorHeader(headerName),
      DEFAULT_SELECTORS.has(headerName) ? ON : {},
    ),
  ),
];

const INVENTORY: KeyedEntry[] = [
  keyed(
    'inventory',
    'an older API version, with a key',
    ['apitop10', 'recipes'],
    version((n) => `v${Math.max(0, n - 1)}`),
    ON,
  ),
  keyed(
    'inventory',
    'the API version left out, with a key',
    ['apitop10', 'recipes'],
    version(() => ''),
    ON,
  ),
  keyed(
    'inventory',
    'a newer API version, with a key',
    ['apitop10'],
    version((n) => `v${n + 1}`),
  ),
  keyed(
    'inventory',
    'an internal prefix, with a key',
    ['apitop10'],
    version(() => 'internal'),
  ),
  keyed('inventory', 'a /stops sub-route', ['apitop10', 'suite'], subRoute('/stops', 'item'), ON),
  keyed('inventory', 'an /export sub-route', ['apitop10', 'suite'], subRoute('/export'), ON),
  keyed('inventory', 'a .csv suffix, with a key', ['apitop10', 'suite'], tail('.csv'), ON),
  keyed('inventory', 'a .json suffix, with a key', ['apitop10', 'suite'], tail('.json')),
  keyed('inventory', 'an /all sub-route', ['apitop10'], subRoute('/all')),
  keyed('inventory', 'a /download sub-route', ['apitop10'], subRoute('/download')),
];

/** Ids an attacker sends where one is read: each must be refused (400 or 404), never served. */
const INJECTED_IDS: readonly { name: string; id: (own: string) => string; default?: true }[] = [
  { name: 'a quote after the id', id: (own) => `${own}'`, default: true },
  { name: "a tautology ' OR '1'='1 after the id", id: (own) => `${own}' OR '1'='1`, default: true },
  { name: 'a NoSQL operator {"$ne":null} for the id', id: () => '{"$ne":null}', default: true },
  { name: 'a traversal ../ before the id', id: (own) => `../${own}`, default: true },
  { name: 'an overlong id', id: (own) => own.padEnd(2048, 'A'), default: true },
  { name: 'a comment -- after the id', id: (own) => `${own}'--` },
  { name: 'a UNION SELECT after the id', id: (own) => `${own}' UNION SELECT NULL--` },
];
/** A value sent percent-encoded, as a client would: the backend reads it decoded. */
const valued = (value: string) => (p: string) => `${p}=${encodeURIComponent(value)}`;
const INJECTED_VALUES: readonly {
  name: string;
  make: (parameter: string) => string;
  default?: true;
}[] = [
  { name: 'a quote', make: valued("1'"), default: true },
  { name: 'a NoSQL operator [$ne]', make: (p) => `${p}[$ne]=1`, default: true },
  { name: "a tautology ' OR '1'='1", make: valued("1' OR '1'='1") },
  { name: 'a NoSQL operator {"$ne":null}', make: valued('{"$ne":null}') },
];

const INJECTION: KeyedEntry[] = [
  ...INJECTED_IDS.map((injected) =>
    keyed('injection', injected.name, ['inpv'], itemId(injected.id), injected.default ? ON : {}),
  ),
  // A value in a query parameter is judged leniently: a backend may read `1'` as 1, or ignore a
  // parameter it does not know, and answer the key's own data; only a 5xx or a bad refusal fails.
  ...INJECTED_VALUES.map((injected) =>
    keyed('injection', `${injected.name} in a query parameter`, ['inpv'], inParameters(injected.make), {
      ...(injected.default ? ON : {}),
      lenient: true as const,
    }),
  ),
];

const WRITES: KeyedEntry[] = [
  keyed(
    'writes',
    'PATCH {} on a real item',
    ['apitop10', 'suite'],
    write('PATCH', () => '{}'),
    ON,
  ),
  keyed(
    'writes',
    "PUT of the item's own representation",
    ['apitop10', 'suite'],
    write('PUT', (facts) => (facts.item ? JSON.stringify(facts.item) : undefined)),
    ON,
  ),
  keyed(
    'writes',
    'DELETE of a real item',
    ['apitop10'],
    write('DELETE', () => ''),
    {
      default: true,
      destructive: true,
    },
  ),
];

export const KEYED_CATALOGUE: readonly KeyedEntry[] = [
  ...PLACEMENT,
  ...TENANT,
  ...INVENTORY,
  ...INJECTION,
  ...WRITES,
];

/** The entries of a keyed family. */
export const keyedFamilyOf = (family: KeyedFamily): readonly KeyedEntry[] =>
  KEYED_CATALOGUE.filter((entry) => entry.family === family);

/** The keyed entry of this name (a probe's `transform`). */
export const keyedEntryNamed = (name: string | undefined): KeyedEntry | undefined =>
  name === undefined ? undefined : KEYED_BY_NAME.get(name);
const KEYED_BY_NAME = new Map(KEYED_CATALOGUE.map((entry) => [entry.name, entry]));
