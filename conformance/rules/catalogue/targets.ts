/**
 * What the catalogue is tried on: every protected route of the spec under test (its live GET
 * operations, its planned paths, and the send-shaped routes under each planned area), and every
 * refusal a protected route gives (no key, malformed, unknown or revoked credentials, a key without
 * the scope, another campaign's item). A transform breaks a refusal when its answer grants what the
 * refusal withheld; where that falls in the OWASP API Top 10 is the refusal's.
 */
import type { Observation } from '../../core/observation.ts';
import type { OwaspCategory } from '../../core/owasp.ts';
import type { KeyName } from '../../core/roles.ts';
import { NO_SCOPE_KEY, OTHER_CAMPAIGN_KEY, PRIMARY_KEY, REVOKED_KEY, roleOf } from '../../core/roles.ts';
import type { Ask } from '../../core/rule.ts';
import type { OperationModel, SpecModel } from '../../core/spec-model.ts';
import { BASIC_CREDENTIALS } from '../auth-readings.ts';
import { SEND_CHILDREN } from './catalogue.ts';

export interface Target {
  /** `operation`: a live GET operation; `planned`: a planned path (serves no one); `send`: a route that would send. */
  kind: 'operation' | 'planned' | 'send';
  template: string;
  /** The live operation. */
  op?: OperationModel;
  /** What the route is asked with: GET, or POST for a route that would send. */
  method: 'GET' | 'POST';
  /** Whether its path names an item (`{id}`). */
  item: boolean;
  /** For a send route: tried by a default run. */
  default?: boolean;
}

const targetsBySpec = new WeakMap<SpecModel, readonly Target[]>();

/** Every protected route of a spec: live operations first, then planned paths, then send routes. */
export function targetsOf(spec: SpecModel): readonly Target[] {
  let known = targetsBySpec.get(spec);
  if (known) return known;
  const hasParameter = (template: string) => /\{[^}]+\}/.test(template);
  const live: Target[] = spec.live
    .filter((op) => op.secured && !(op.kind === 'other' && op.pathParameters.length > 0))
    .map((op) => ({ kind: 'operation', template: op.path, op, method: 'GET', item: op.kind === 'item' }));
  const planned: Target[] = spec.plannedPaths.map((template) => ({
    kind: 'planned',
    template,
    method: 'GET',
    item: hasParameter(template),
  }));
  const send: Target[] = spec.plannedPaths
    .filter((template) => !hasParameter(template))
    .flatMap((collection): Target[] => [
      { kind: 'send', template: collection, method: 'POST', item: false, default: true },
      ...SEND_CHILDREN.map((child): Target => ({
        kind: 'send',
        template: `${collection}/{id}/${child.segment}`,
        method: 'POST',
        item: true,
        default: child.default === true,
      })),
    ]);
  known = [...live, ...planned, ...send];
  targetsBySpec.set(spec, known);
  return known;
}

/** The target an exact path names, with its item, or undefined when it names none. */
export function targetAt(
  spec: SpecModel,
  path: string,
  aimed: string,
): { target: Target; id?: string } | undefined {
  for (const target of targetsOf(spec)) {
    if (target.method !== aimed) continue;
    const found = exactPattern(target.template).exec(path);
    if (!found) continue;
    const id = found[1] === undefined ? undefined : safeDecode(found[1]);
    return id === undefined ? { target } : { target, id };
  }
  return undefined;
}

const patterns = new Map<string, RegExp>();
/** A template's exact pattern, its last parameter captured: `/api/v1/walks/{id}` → `^/api/v1/walks/([^/]+)$`. */
function exactPattern(template: string): RegExp {
  let known = patterns.get(template);
  if (!known) {
    const parts = template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    known = new RegExp(`^${parts.join('([^/]+)')}$`);
    patterns.set(template, known);
  }
  return known;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export type RefusalKind =
  | 'no key'
  | 'malformed credentials'
  | 'an unknown key'
  | 'a revoked key'
  | 'a key without the scope'
  | "another campaign's item"
  | 'a planned endpoint';

export interface Refusal {
  kind: RefusalKind;
  /** Where a bypass of it falls: authentication, function level, object level, inventory. */
  owasp: OwaspCategory;
  /** How a live run asks with it. */
  ask: Ask;
  /** The key it needs, when it needs one. */
  needs?: KeyName;
  /** Only an item of a collection can be another campaign's. */
  itemsOnly?: true;
}

/** Every refusal of a live route, the cheapest first. */
export const REFUSALS: readonly Refusal[] = [
  { kind: 'no key', owasp: 'API2:2023', ask: {} },
  { kind: 'malformed credentials', owasp: 'API2:2023', ask: { headers: { ...BASIC_CREDENTIALS } } },
  { kind: 'an unknown key', owasp: 'API2:2023', ask: { madeUp: 'bearer' } },
  { kind: 'a revoked key', owasp: 'API2:2023', ask: { key: REVOKED_KEY }, needs: REVOKED_KEY },
  { kind: 'a key without the scope', owasp: 'API5:2023', ask: { key: NO_SCOPE_KEY }, needs: NO_SCOPE_KEY },
  {
    kind: "another campaign's item",
    owasp: 'API1:2023',
    ask: { key: OTHER_CAMPAIGN_KEY },
    needs: OTHER_CAMPAIGN_KEY,
    itemsOnly: true,
  },
];

/** A planned endpoint serves no one: whatever the credentials, data there is an endpoint live too soon. */
const PLANNED: Refusal = {
  kind: 'a planned endpoint',
  owasp: 'API9:2023',
  ask: { key: PRIMARY_KEY },
};

const refusalNamed = (kind: RefusalKind): Refusal => REFUSALS.find((r) => r.kind === kind) ?? PLANNED;

/**
 * The refusal an exchange's credentials get on a target, `reading` for a valid, scoped key (which a
 * live item refuses only when it is another campaign's: decided once every exchange is seen), or
 * undefined for credentials the run cannot place (a recorded key it does not know, a sanitized one).
 */
export function refusalOf(obs: Observation, target: Target): Refusal | 'reading' | undefined {
  const credential = obs.credential;
  if (credential.kind === 'unseen' || credential.kind === 'recorded' || credential.kind === 'two')
    return undefined;
  if (target.kind === 'planned') return PLANNED;
  switch (credential.kind) {
    case 'none':
      return refusalNamed('no key');
    case 'malformed':
      return refusalNamed('malformed credentials');
    case 'made-up':
    case 'near-miss':
      return refusalNamed('an unknown key');
    case 'key': {
      const role = roleOf(credential.key);
      if (!role.valid) return refusalNamed('a revoked key');
      if (!role.scoped) return refusalNamed('a key without the scope');
      return 'reading';
    }
  }
}
