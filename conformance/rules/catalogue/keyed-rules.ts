/**
 * The keyed catalogue as rules (§5: a key is read from its headers alone, reads its own campaign
 * within its scopes; §4: the API is read-only; §7: bad input is refused in the envelope): one rule
 * per family of `KEYED_CATALOGUE`, each judging the answers of its own requests (they are private:
 * a write or an injected id is no request of the API's contract, so no other rule judges it).
 */
import {
  describe,
  errorEnvelopeProblem,
  idsIn,
  isClientError,
  isSuccess,
  requestLine,
} from '../../core/answers.ts';
import { credentialLabel } from '../../core/credentials.ts';
import type { Observation } from '../../core/observation.ts';
import type { Campaign } from '../../core/roles.ts';
import { OTHER_CAMPAIGN_KEY, roleOf } from '../../core/roles.ts';
import type { Across, Judgement, Rule, RuleContext } from '../../core/rule.ts';
import { breaks, holds } from '../../core/rule.ts';
import { safeDecode } from '../../core/spec-model.ts';
import { joinBits } from '../../core/state.ts';
import type { MockMode } from '../../core/report-model.ts';
import { carriesData } from '../auth-readings.ts';
import type { KeyedEntry, KeyedFamily } from './catalogue.ts';
import { KEYED_FAMILIES, keyedEntryNamed, SOURCES } from './catalogue.ts';
import { cookieReplays, keyedProbes } from './keyed-plan.ts';

const MOCK_KEYED: MockMode = {
  skip: "the mock is Prism's router: it reads no key out of its headers, no selector and no write",
};

/** The keyed entry an exchange's request was made by, when it is of this family. */
function entryOf(obs: Observation, family: KeyedFamily): KeyedEntry | undefined {
  const entry = keyedEntryNamed(obs.transform);
  return entry?.family === family ? entry : undefined;
}

/** How a finding names an entry: the entry, its family and where it comes from. */
const entryLine = (entry: KeyedEntry) =>
  `${entry.name} (${KEYED_FAMILIES[entry.family].title}; ${entry.sources.map((s) => SOURCES[s].name).join('; ')})`;

const reproduce = (obs: Observation) => `reproduce: ${obs.exchange.request.curl}`;

/** A cookie replayed from a keyed answer (`cookieReplays`): planned by this rule, with a Cookie and no entry. */
const isReplay = (obs: Observation) =>
  obs.transform === undefined &&
  Object.keys(obs.exchange.request.headers).some((name) => name.toLowerCase() === 'cookie');

/** The key out of its place, or a session cookie without the key: any data served breaks §5. */
function placementVerdict(obs: Observation): Judgement | undefined {
  const entry = entryOf(obs, 'placement');
  if (!entry && !(obs.plannedBy?.has('AUTH-023') && isReplay(obs))) return undefined;
  const response = obs.exchange.response;
  if (!response) return undefined;
  if (!isSuccess(response.status) || !carriesData(response)) return holds(obs);
  const what = entry
    ? entryLine(entry)
    : `the cookie a keyed answer set, replayed with ${credentialLabel(obs.credential)}`;
  return breaks(
    `${requestLine(obs)}: ${what} was accepted: answered ${describe(response)}; ${reproduce(obs)}`,
    obs,
    entry
      ? 'Read the key from Authorization: Bearer or x-api-key alone: never from the query string (it lands in logs and Referer), a cookie or Basic authentication.'
      : 'Do not open sessions from a key: authenticate every request by its key, and never let a cookie stand in for it (nor outlive its revocation).',
  );
}

const BIT: Record<Campaign, number> = { primary: 1, other: 2, empty: 4 };

/** The campaign of a reading key, when the request carried one configured key that reads. */
function readingCampaignOf(obs: Observation): Campaign | undefined {
  if (obs.credential.kind !== 'key') return undefined;
  const role = roleOf(obs.credential.key);
  return role.valid && role.scoped ? role.campaign : undefined;
}

/**
 * Selectors and forgotten routes, asked with a key: an answer with data must stay the key's campaign
 * (no item only another campaign's key was served, no such item named in the path) and within its
 * scopes (no data to the key without the scope). The campaigns of items are learnt from the plain
 * reads of every key, whatever order the exchanges came in.
 */
function scopeAcross(family: KeyedFamily, ctx: RuleContext): Across {
  const owners = ctx.state.table<number>(`keyed ${family} owners`, joinBits);
  const tried: Observation[] = [];
  return {
    see(obs) {
      const response = obs.exchange.response;
      if (!response) return;
      if (entryOf(obs, family)) {
        if (tried.length < 500) tried.push(obs);
        return;
      }
      if (!isSuccess(response.status)) return;
      const campaign = readingCampaignOf(obs);
      if (obs.private || !campaign) return;
      const ids = obs.params.id !== undefined ? [obs.params.id] : idsIn(response);
      for (const id of ids) owners.set(id, (owners.get(id) ?? 0) | BIT[campaign]);
    },
    *finish() {
      const othersOnly = (id: string) => {
        const bits = owners.get(id) ?? 0;
        return (bits & BIT.primary) === 0 && (bits & (BIT.other | BIT.empty)) !== 0;
      };
      for (const obs of tried) {
        const response = obs.exchange.response;
        const entry = entryOf(obs, family);
        if (!response || !entry || !isSuccess(response.status) || !carriesData(response)) {
          yield holds(obs);
          continue;
        }
        const credential = obs.credential;
        const role = credential.kind === 'key' ? roleOf(credential.key) : undefined;
        const named = obs.path.split('/').map(safeDecode).filter(othersOnly);
        const served = idsIn(response).filter(othersOnly);
        const problem =
          role && !role.scoped
            ? `served data to ${credentialLabel(credential)}, which holds no scope of the route`
            : named.length > 0
              ? `served data on the other campaign's item ${named[0]}`
              : served.length > 0
                ? `served the other campaign's item${served.length > 1 ? 's' : ''} ${served.slice(0, 3).join(', ')}`
                : undefined;
        if (!problem) {
          yield holds(obs);
          continue;
        }
        yield breaks(
          `${requestLine(obs)} (${entryLine(entry)}) with ${credentialLabel(credential)}: ${problem}: answered ${describe(response)}; ${reproduce(obs)}`,
          obs,
          undefined,
          family === 'inventory' && !named.length && !served.length ? 'API9:2023' : 'API1:2023',
        );
      }
    },
  };
}

/** An injected id or value: refused (400 or 404) in the envelope, or, for a parameter a backend may ignore, no fault. */
function injectionVerdict(obs: Observation, ctx: RuleContext): Judgement | undefined {
  const entry = entryOf(obs, 'injection');
  const response = obs.exchange.response;
  if (!entry || !response) return undefined;
  const at = `${requestLine(obs)} (${entryLine(entry)})`;
  if (response.status >= 500)
    return breaks(
      `${at}: answered ${describe(response)}: the input reached something that broke; ${reproduce(obs)}`,
      obs,
    );
  if (isSuccess(response.status)) {
    if (entry.lenient && obs.query.size > 0) return holds(obs);
    return carriesData(response)
      ? breaks(
          `${at}: served data to a made-up id: answered ${describe(response)}; ${reproduce(obs)}`,
          obs,
          undefined,
          'API1:2023',
        )
      : holds(obs);
  }
  if (response.status !== 400 && response.status !== 404)
    return isClientError(response.status)
      ? holds(obs)
      : breaks(`${at}: answered ${describe(response)}, not 400 or 404; ${reproduce(obs)}`, obs);
  const envelope = errorEnvelopeProblem(ctx.spec, response);
  return envelope
    ? breaks(`${at}: answered ${response.status}, ${envelope}; ${reproduce(obs)}`, obs)
    : holds(obs);
}

/** A write on a real item, the key's own or another campaign's: refused with a 4xx. */
function writeVerdict(obs: Observation): Judgement | undefined {
  const entry = entryOf(obs, 'writes');
  const response = obs.exchange.response;
  if (!entry || !response) return undefined;
  if (isClientError(response.status)) return holds(obs);
  return breaks(
    `${requestLine(obs)} (${entryLine(entry)}) with ${credentialLabel(obs.credential)}: answered ${describe(response)}, not a 4xx; the API is read-only; ${reproduce(obs)}`,
    obs,
  );
}

/**
 * A rule that asks with the primary key in sight of the other campaign's items and judges, across the
 * run, whether the key was ever served what only the other campaign's key was (AUTH-024, AUTH-025).
 */
function campaignScopeRule(
  family: KeyedFamily,
  rule: Pick<Rule, 'id' | 'section' | 'title' | 'owasp' | 'unit' | 'expected' | 'hint'>,
): Rule {
  return {
    ...rule,
    area: 'isolation',
    level: 'required',
    needs: [OTHER_CAMPAIGN_KEY],
    mock: MOCK_KEYED,
    about: 'answers to its requests',
    plan: (op, world) => keyedProbes(family, op, world),
    across: { judge: (ctx) => scopeAcross(family, ctx) },
  };
}

export const keyedRules: Rule[] = [
  {
    id: 'AUTH-023',
    section: '§5.1, §5.2',
    title:
      'The key is read from its headers alone: in the query string, a cookie or Basic authentication it opens nothing, nor does a cookie a keyed answer set',
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023'],
    mock: MOCK_KEYED,
    about: 'answers to its requests',
    unit: 'requests with the key out of place',
    expected:
      'a refusal to the key as ?api_key=, ?key=, ?token=, ?access_token=, as a cookie and as the user of Basic authentication; any Set-Cookie of a keyed answer, replayed without the key or with the revoked key, refused too',
    hint: 'Read the key from Authorization: Bearer or x-api-key alone, and authenticate every request by it.',
    plan: (op, world) => [...keyedProbes('placement', op, world), ...cookieReplays(op, world)],
    judge: placementVerdict,
  },
  campaignScopeRule('tenant', {
    id: 'AUTH-024',
    section: '§5.1, §5.5',
    title:
      'Campaign and tenant selectors (?campaign=, X-Tenant-Id, ...) never switch the campaign a key reads',
    owasp: ['API1:2023'],
    unit: 'requests with a selector',
    expected:
      "with the primary key and a parameter or header naming the other campaign (its slug, as its links show it): the key's own campaign, or a refusal; never an item only the other campaign's key was served",
    hint: 'Take the campaign from the key alone; ignore (or refuse) any parameter or header that names one.',
  }),
  campaignScopeRule('inventory', {
    id: 'AUTH-025',
    section: '§5.1, §5.5, §4.4',
    title:
      'Other versions, sub-routes and suffixes of known routes serve nothing outside the key’s campaign and scopes',
    owasp: ['API9:2023', 'API1:2023'],
    unit: 'requests to other routes with a key',
    expected:
      "/api/v0, the version left out, …/stops, …/export, .csv and other routes next to the live ones, asked with the primary key on the other campaign's items and with the key without scopes: a refusal, a 404, or the key's own data",
    hint: 'Retire old versions and undocumented routes, or put them behind the same key, scope and campaign checks as the live ones.',
  }),
  {
    id: 'METHODS-008',
    section: '§4, §5.5',
    title:
      'Writes on real items (PATCH {}, PUT of the item itself) are refused, on the key’s items and on others’',
    area: 'methods',
    level: 'required',
    owasp: ['API5:2023', 'API1:2023'],
    mock: MOCK_KEYED,
    about: 'answers to its requests',
    unit: 'writes on real items',
    expected:
      'a 4xx to a PATCH with {} and a PUT of the item’s own representation, on one of the key’s items and on one of the other campaign’s (a DELETE is sent to a real item only under --allow-destructive)',
    hint: 'The API is read-only: answer every write with a 4xx (405 with Allow: GET, or 404), whoever owns the item.',
    appliesTo: (op) => op.live && op.method === 'GET' && op.kind === 'item',
    plan: (op, world) => keyedProbes('writes', op, world),
    judge: writeVerdict,
  },
  {
    id: 'SECURITY-005',
    section: '§4.2, §7',
    title:
      "Injection-shaped ids and parameters (a quote, ' OR '1'='1, {\"$ne\":null}, ../, an overlong id) are refused in the envelope",
    area: 'security',
    level: 'required',
    owasp: ['API8:2023', 'API1:2023'],
    mock: MOCK_KEYED,
    about: 'answers to its requests',
    unit: 'injected ids and values',
    expected:
      '400 or 404 in the error envelope to every injected id and parameter value; never data, never a 5xx (a parameter a backend does not know may be ignored)',
    hint: 'Validate ids and parameters against their shape before any query, and build queries with bound parameters, never by concatenation.',
    plan: (op, world) => keyedProbes('injection', op, world),
    judge: injectionVerdict,
  },
];

/** The families the bench counts requests of, by the rule that plans them. */
export const KEYED_RULE_OF: Record<KeyedFamily, string> = {
  placement: 'AUTH-023',
  tenant: 'AUTH-024',
  inventory: 'AUTH-025',
  writes: 'METHODS-008',
  injection: 'SECURITY-005',
};
