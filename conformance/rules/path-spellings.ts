/**
 * Spellings of the live paths a router may serve where the auth middleware is not bound (§5.2:
 * every live endpoint requires a key): a trailing slash, a segment in other letter case, a doubled
 * slash, a percent-encoded letter, dot segments (`.`, `..`, and `..` percent-encoded), which the
 * client sends as written. Without a valid key any refusal, 404 or redirect is legal; data is an
 * authentication bypass. With a valid key what they answer is the deployment's choice, reported.
 * The probes are private: no other rule judges an answer to a path that is not the API's contract.
 * In a recording, every exchange whose path spells a live path otherwise is judged the same way.
 */
import { answered, answersAs, describe } from '../core/answers.ts';
import { credentialLabel } from '../core/credentials.ts';
import type { Observation } from '../core/observation.ts';
import { PRIMARY_KEY, reads } from '../core/roles.ts';
import type { Ask, Probe, Rule, World } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import { pathOf } from '../core/spec-model.ts';
import { hasDotSegment } from '../core/dot-segments.ts';
import { at, carriesData, keylessAcross, MOCK_KEYS, phaseOf, roleOfObs } from './auth-readings.ts';

interface Spelling {
  name: string;
  path: string;
}

const TRAILING_SLASH = 'a trailing slash';
const DOT_SEGMENTS = 'dot segments';

/** Puts `segments` before a path's last segment: `/api/v1/walks` → `/api/v1/<segments>/walks`. */
const beforeLast = (path: string, segments: string) => path.replace(/\/([^/]+)$/, `/${segments}/$1`);

/**
 * The other spellings of one live path (an item's with a real id): its last literal segment (the
 * collection's name) in upper case, after a doubled slash, with its first letter percent-encoded.
 */
export function spellingsOf(op: OperationModel, path: string): Spelling[] {
  const template = op.path.split('/');
  const literal = template.findLastIndex((segment) => segment !== '' && !segment.startsWith('{'));
  const segments = path.split('/');
  const word = segments[literal] ?? '';
  const withWord = (replacement: string) =>
    [...segments.slice(0, literal), replacement, ...segments.slice(literal + 1)].join('/');
  const first = word.charAt(0);
  return [
    { name: TRAILING_SLASH, path: `${path}/` },
    ...(word.toUpperCase() !== word
      ? [{ name: 'a segment in upper case', path: withWord(word.toUpperCase()) }]
      : []),
    ...(literal > 0 ? [{ name: 'a doubled slash', path: withWord(`/${word}`) }] : []),
    ...(/[A-Za-z]/.test(first)
      ? [
          {
            name: 'a percent-encoded letter',
            path: withWord(`%${first.charCodeAt(0).toString(16).toUpperCase()}${word.slice(1)}`),
          },
        ]
      : []),
    // A router that normalises dot segments serves these as the path; an exact-path guard does not see them.
    { name: 'a dot segment', path: beforeLast(path, '.') },
    { name: 'a dot-dot segment', path: beforeLast(path, 'x/..') },
    { name: 'a percent-encoded dot-dot segment', path: beforeLast(path, 'x/%2e%2e') },
  ];
}

const patterns = new WeakMap<SpecModel, { op: OperationModel; pattern: RegExp }[]>();

/** The live operations' paths as patterns that ignore letter case. */
function caseless(spec: SpecModel) {
  let known = patterns.get(spec);
  if (!known) {
    known = spec.live.map((op) => ({
      op,
      pattern: new RegExp(
        `^${op.path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
        'i',
      ),
    }));
    patterns.set(spec, known);
  }
  return known;
}

/** A path's letters decoded and its slashes collapsed: what a lenient router would route. */
function routedAs(path: string): string {
  return path.replace(/\/{2,}/g, '/').replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9]/.test(char) ? char : escape;
  });
}

/** The path as written, below the origin (a recording's URL keeps its dot segments). */
const writtenPath = (obs: Observation) =>
  obs.exchange.request.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';

/**
 * Whether an exchange asked a live operation by another spelling of its path, and which: a path
 * that matches no operation as written but one once dot segments, a trailing slash, doubled
 * slashes, encoded letters or letter case are set aside.
 */
export function spellingOf(
  spec: SpecModel,
  obs: Observation,
): { op: OperationModel; name: string } | undefined {
  if (obs.op) return undefined;
  const method = obs.exchange.request.method;
  const live = (found: ReturnType<SpecModel['match']>) =>
    found?.op.live && found.op.method === 'GET' ? found.op : undefined;
  if (hasDotSegment(writtenPath(obs))) {
    const op = live(spec.match(method, obs.path));
    return op ? { op, name: DOT_SEGMENTS } : undefined;
  }
  if (obs.path.length > 1 && obs.path.endsWith('/')) {
    const op = live(spec.match(method, obs.path.slice(0, -1)));
    if (op) return { op, name: TRAILING_SLASH };
  }
  const routed = routedAs(obs.path.replace(/(.)\/$/, '$1'));
  const found = caseless(spec).find(({ pattern }) => pattern.test(routed));
  return found && (method === 'GET' || method === 'HEAD')
    ? { op: found.op, name: 'another spelling' }
    : undefined;
}

/** Every spelling of every live path asked so: a collection's path, an item's with a real id. */
function spellingProbes(op: OperationModel, world: World, ask: Ask): Probe[] {
  const id = op.kind === 'item' ? world.realIds(op)[0] : undefined;
  if (op.pathParameters.length > 0 && id === undefined) return [];
  const path = id === undefined ? op.path : pathOf(op, id);
  return spellingsOf(op, path).flatMap((spelling) => {
    const request = world.request(op, { ...ask, path: spelling.path });
    return request ? [{ request, phase: phaseOf(ask), private: true as const }] : [];
  });
}

/** Credentials that read no data: none, unknown, malformed, near misses, revoked or without scope. */
function readsNothing(obs: Observation): boolean {
  const { kind } = obs.credential;
  const role = roleOfObs(obs);
  if (role) return !reads(role);
  return kind === 'made-up' || kind === 'near-miss' || kind === 'malformed';
}

/** No data to a spelling of a live path without a valid key. */
function bypassVerdict(spec: SpecModel, obs: Observation) {
  const spelling = spellingOf(spec, obs);
  const response = obs.exchange.response;
  if (!spelling || !response) return undefined;
  const served = response.status >= 200 && response.status <= 299 && (obs.bodyless || carriesData(response));
  return served
    ? breaks(
        at(obs, `${spelling.name} served ${credentialLabel(obs.credential)}: ${describe(response)}`),
        obs,
      )
    : holds(obs);
}

/** D-PATH-UNKNOWN: one trailing slash served like the path; every other spelling `not_found`. */
function asDecided(spec: SpecModel, name: string, obs: Observation): boolean {
  const response = obs.exchange.response;
  if (!response) return true;
  if (name === TRAILING_SLASH) return carriesData(response);
  return answersAs(spec, response, 'not_found');
}

export const pathSpellingRules: Rule[] = [
  {
    id: 'AUTH-015',
    section: '§5.2, §4',
    title:
      'Other spellings of the live paths (trailing slash, letter case, doubled slash, encoded letter, dot segments) serve no data without a valid key',
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023'],
    mock: MOCK_KEYS,
    expected: 'a refusal, a 404 or a redirect: no data without a valid key',
    hint: 'Bind authentication to everything the router serves, not to one spelling of the path: refuse (or 404, or redirect) every variant that reaches the data without a valid key.',
    // Keyless shows an unguarded route; other credentials met in any exchange are judged as well.
    plan: (op, world) => spellingProbes(op, world, {}),
    judge: (obs, ctx) => (readsNothing(obs) ? bypassVerdict(ctx.spec, obs) : undefined),
    across: (ctx) => keylessAcross(ctx, (obs) => bypassVerdict(ctx.spec, obs)),
  },
  {
    id: 'AUTH-016',
    section: '§4',
    title: 'What the other spellings of the live paths answer with a valid key (the spec is silent)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-PATH-UNKNOWN',
    owasp: ['API2:2023'],
    mock: { skip: "the mock's router is Prism's, not the deployment's" },
    expected: 'project decision: one trailing slash served like the path; other spellings 404 not_found',
    hint: 'Serving, refusing or redirecting a variant are all conformant with a valid key.',
    plan: (op, world) => spellingProbes(op, world, { key: PRIMARY_KEY }),
    judge(obs, ctx) {
      const role = roleOfObs(obs);
      const response = obs.exchange.response;
      if (!role || !reads(role) || !response) return undefined;
      const spelling = spellingOf(ctx.spec, obs);
      if (!spelling) return undefined;
      const data = carriesData(response) ? ' with data' : '';
      const shown = obs.bodyless ? `${response.status}` : answered(response);
      return chose(`${spelling.name}: ${shown}${data}`, !asDecided(ctx.spec, spelling.name, obs), obs);
    },
  },
];
