/**
 * The attacker's catalogue as rules (§5: every live endpoint requires a key; a key reads its own
 * campaign within its scopes; §1: the API never sends messages): one rule per family of tricks,
 * each judging every exchange that carries one of its tricks, from a live run or a recording, by
 * whether its answer granted what the refusal withheld. Any refusal, any status without data, a
 * redirect or a 404 answers a trick correctly: the spec leaves open what a refusal looks like.
 * A live run's probes are private: an odd spelling or a forged header is no request of the API's
 * contract, so no other rule judges its answer (a gateway's HTML 400 to `%c0%af` fails nothing).
 */
import { describe, isSuccess, requestLine } from '../../core/answers.ts';
import { credentialLabel } from '../../core/credentials.ts';
import type { Observation } from '../../core/observation.ts';
import type { OwaspCategory } from '../../core/owasp.ts';
import type { Judgement, Rule, RuleContext } from '../../core/rule.ts';
import { breaks, holds } from '../../core/rule.ts';
import type { MockMode } from '../../core/report-model.ts';
import type { Family } from './catalogue.ts';
import { headersOf } from './catalogue.ts';
import { cacheAcross } from './cache.ts';
import { familyProbes, plannedProbes, sendProbes, unknownItemRefusal } from './plan.ts';
import { recognise } from './recognise.ts';
import { twoKeysAcross } from './two-keys.ts';
import { familyAcross } from './verdicts.ts';

const MOCK_CATALOGUE: MockMode = {
  skip: "the mock is Prism's router and no gateway: it cannot show how a deployment reads odd requests",
};

/** Bypasses of authentication, of a scope, of another campaign's item, of a planned endpoint. */
const REFUSAL_CATEGORIES: readonly OwaspCategory[] = ['API1:2023', 'API2:2023', 'API5:2023', 'API9:2023'];

const FAMILY_HINT =
  'Bind authentication and authorization to what the backend serves, not to how the gateway reads the request: every spelling, header and method that reaches the data must meet the same key, scope and campaign checks (or be refused, 404 or redirected).';

/** An error page or a 5xx to a trick carries no data: the trick held (no other rule judges a private probe). */
function unusableVerdict(family: Family, obs: Observation, ctx: RuleContext): Judgement | undefined {
  if (obs.answer === 'usable' || obs.answer === 'lost') return undefined;
  return recognise(ctx.spec, obs).tricks.some((seen) => seen.family === family) ? holds(obs) : undefined;
}

/** The declaration every family's rule shares: its probes, its judgement of error pages, its verdicts. */
function familyRule(
  family: Family,
  rule: Pick<Rule, 'id' | 'section' | 'title' | 'expected' | 'hint' | 'owasp'> & Partial<Rule>,
): Rule {
  return {
    area: 'auth',
    level: 'required',
    mock: MOCK_CATALOGUE,
    about: 'answers to its requests',
    unit: 'answers to tricks',
    plan: (op, world) => familyProbes(family, op, world),
    planOnce: (world) => plannedProbes(family, world),
    judge: (obs, ctx) => unusableVerdict(family, obs, ctx),
    across: { judge: (ctx) => familyAcross(family, ctx) },
    // An override or rewrite header names the route a trick aims at, whichever family it is of.
    requestHeaders: headersOf('path', 'address', 'method', 'host'),
    ...rule,
  };
}

/** A POST (or a POST tunnelled through a read) to a route that would send, answered 2xx. */
function sendVerdict(obs: Observation, ctx: RuleContext): Judgement | undefined {
  const { aim, tricks } = recognise(ctx.spec, obs);
  const response = obs.exchange.response;
  if (aim?.target.kind !== 'send' || !response) return undefined;
  if (!isSuccess(response.status)) return holds(obs);
  const through = tricks.map((seen) => seen.label).join(', ');
  return breaks(
    `${requestLine(obs)}${through ? ` (${through})` : ''} with ${credentialLabel(obs.credential)}: answered ${describe(response)}; the API never sends messages and accepts no write; reproduce: ${obs.exchange.request.curl}`,
    obs,
    undefined,
    'API5:2023',
  );
}

export const catalogueRules: Rule[] = [
  familyRule('path', {
    id: 'AUTH-015',
    section: '§5.2, §4',
    title:
      'Path spellings, encodings and normalisations of every protected route grant nothing a refusal withheld',
    owasp: REFUSAL_CATEGORIES,
    expected:
      'a refusal, a 404 or a redirect to every spelling (trailing characters, dot segments, encoded and double-encoded slashes, matrix parameters, suffixes, other versions...): no data, and no status that tells an existing item from an unknown one',
    hint: FAMILY_HINT,
  }),
  familyRule('address', {
    id: 'AUTH-018',
    section: '§5.2, §5.6',
    title:
      'Client-address and rewrite headers (X-Forwarded-For, X-Real-IP, X-Original-URL, ...) grant nothing a refusal withheld',
    owasp: [...REFUSAL_CATEGORIES, 'API8:2023'],
    expected:
      'the same refusal with any header a client sets claiming an internal address, or naming another URL to route: no data, and no status that tells an existing item from an unknown one',
    hint: 'Never trust an address or a URL the client can set: authenticate every request by its key, and route by the request line alone (ignore X-Original-URL and X-Rewrite-URL from outside).',
  }),
  familyRule('method', {
    id: 'AUTH-019',
    section: '§4, §5.2',
    title:
      'Other methods and method overrides (HEAD, OPTIONS, TRACE, X-HTTP-Method-Override, _method, ...) grant nothing a refusal withheld',
    owasp: REFUSAL_CATEGORIES,
    expected:
      'a refusal to every method and override without a valid key: no data, and no status that tells an existing item from an unknown one (HEAD 200 for a walk that exists, 404 for one that does not)',
    hint: 'Authenticate before routing by method: HEAD, OPTIONS and overridden methods meet the same key check as GET, and answer an item that exists and one that does not alike.',
    plan: (op, world) => [...familyProbes('method', op, world), ...unknownItemRefusal(op, world)],
  }),
  familyRule('host', {
    id: 'AUTH-020',
    section: '§2.1, §5.2',
    title: "Host and forwarding headers leave every link on the deployment's web base URL",
    owasp: [...REFUSAL_CATEGORIES, 'API8:2023'],
    expected:
      "links (web_url, app_link, any URL in the data) keep the origins the deployment's plain answers give, whatever Host, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Port or Forwarded say",
    hint: 'Build links from the configured {web_base_url}, never from Host or forwarding headers a client can set.',
  }),
  {
    id: 'AUTH-021',
    section: '§5.2, §5.9',
    title: 'Keys of two roles in the two key headers, either way round, grant no more than one of them alone',
    area: 'auth',
    level: 'required',
    owasp: ['API1:2023', 'API2:2023', 'API5:2023'],
    mock: MOCK_CATALOGUE,
    unit: 'requests with two keys',
    expected:
      'with a key in Authorization and another in x-api-key: a refusal, or exactly what one of the two keys alone gets (which one is the deployment’s choice, §5.9), never data neither key alone gets',
    hint: 'Read one header (or refuse two different keys): authenticate, scope and attribute the request with the same key, never one header for one and the other for another.',
    plan: (op, world) => familyProbes('two-keys', op, world),
    across: { judge: (ctx) => twoKeysAcross(ctx.state) },
  },
  {
    id: 'AUTH-022',
    section: '§5.1, §5.5',
    title:
      "The same read answers the same before and after other keys' requests: no cache serves one key's answer to another",
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023', 'API8:2023'],
    mock: MOCK_CATALOGUE,
    unit: 'reads made again',
    expected:
      "a request made again within a minute, with the same credentials, is served or refused as it was the first time: a refusal never turns into data, nor the owner's data into a refusal",
    hint: 'Key every cache by the credentials (Vary: Authorization, x-api-key, or no shared caching of keyed answers), refusals included.',
    plan: (op, world) => familyProbes('cache', op, world),
    across: { judge: (ctx) => cacheAcross(ctx.state, ctx.source) },
  },
];

/** The rule that judges each family of the catalogue (`catalogue.ts`, `FAMILIES`). */
export const FAMILY_RULE: Record<Family, string> = {
  path: 'AUTH-015',
  address: 'AUTH-018',
  method: 'AUTH-019',
  host: 'AUTH-020',
  'two-keys': 'AUTH-021',
  cache: 'AUTH-022',
};

/** Routes that would send (§1): judged apart from the tricks, whatever the key. */
export const sendRules: Rule[] = [
  {
    id: 'METHODS-007',
    section: '§1, §4.4',
    title:
      'No route that would send messages, and no planned collection, accepts a POST (the API never sends)',
    area: 'methods',
    level: 'required',
    owasp: ['API5:2023', 'API9:2023'],
    mock: MOCK_CATALOGUE,
    about: 'answers to its requests',
    unit: 'requests',
    expected:
      'no 2xx to a POST (or a POST tunnelled through X-HTTP-Method-Override or _method) to a planned collection or to …/{id}/send-like children, whatever the key',
    hint: 'The SMS area is reporting only: offer no route that sends or writes; answer such requests with a 4xx (or 404).',
    planOnce: sendProbes,
    judge: sendVerdict,
    requestHeaders: headersOf('path', 'address', 'method', 'host'),
  },
];
