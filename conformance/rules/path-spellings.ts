/**
 * What other spellings of the live paths answer with a valid key (AUTH-016, advisory: the spec is
 * silent, D-PATH-UNKNOWN decides), and how a path that only a lenient router would read as a live
 * path is told back to its operation. Without a valid key, every spelling is the attacker's
 * catalogue's (`catalogue/`, AUTH-015): the spellings asked here with the owner's key are the
 * catalogue's entries the decision names.
 */
import { answered, answersAs } from '../core/answers.ts';
import type { Observation } from '../core/observation.ts';
import { PRIMARY_KEY, reads } from '../core/roles.ts';
import type { Probe, Rule, World } from '../core/rule.ts';
import { chose } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import { pathOf } from '../core/spec-model.ts';
import { hasDotSegment } from '../core/dot-segments.ts';
import { carriesData, roleOfObs } from './auth-readings.ts';
import { CATALOGUE, nameIndexOf } from './catalogue/catalogue.ts';

interface Spelling {
  name: string;
  path: string;
}

const TRAILING_SLASH = 'a trailing slash';
const DOT_SEGMENTS = 'dot segments';

/** The spellings of one live path (an item's with a real id) whose answer D-PATH-UNKNOWN decides. */
export function spellingsOf(op: OperationModel, path: string): Spelling[] {
  const nameAt = nameIndexOf(op.path);
  return CATALOGUE.filter((t) => t.decided).flatMap((transform) => {
    const made = transform.make({ method: 'GET', path, headers: {}, nameAt });
    return made ? [{ name: transform.name, path: made.path }] : [];
  });
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

/** Every decided spelling of a live path asked with the owner's key: a collection's path, an item's with a real id. */
function spellingProbes(op: OperationModel, world: World): Probe[] {
  const id = op.kind === 'item' ? world.realIds(op)[0] : undefined;
  if (op.pathParameters.length > 0 && id === undefined) return [];
  const path = id === undefined ? op.path : pathOf(op, id);
  return spellingsOf(op, path).flatMap((spelling) => {
    const request = world.request(op, { key: PRIMARY_KEY, path: spelling.path });
    return request ? [{ request, private: true as const }] : [];
  });
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
    plan: spellingProbes,
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
