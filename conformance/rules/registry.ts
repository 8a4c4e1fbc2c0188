/**
 * Every rule of the suite, in report order. Ids are stable; never reuse one. The generic families
 * apply to every live GET operation of the spec under test; the walks module attaches to the
 * walks operations.
 */
import type { Rule } from '../core/rule.ts';
import { AREAS } from '../core/report-model.ts';
import { authRules } from './auth.ts';
import { cachingRules } from './caching.ts';
import { catalogueRules, sendRules } from './catalogue/rules.ts';
import { keyedRules } from './catalogue/keyed-rules.ts';
import { securityRules } from './security.ts';
import { campaignLinkRules } from './campaign-links.ts';
import { wireRules } from './wire.ts';
import { collectionRules } from './collections.ts';
import { codePairingRules, driftRules } from './drift.ts';
import { envelopeRules } from './envelope.ts';
import { isolationRules } from './isolation.ts';
import { keyEchoRules } from './key-echo.ts';
import { keyMatrixRules } from './key-matrix.ts';
import { badLimitRules, pageSizeRules } from './limits.ts';
import { methodsRules } from './methods.ts';
import { notFoundRules } from './not-found.ts';
import { paginationRules } from './pagination.ts';
import { pathSpellingRules } from './path-spellings.ts';
import { plannedRules } from './planned.ts';
import { walksRules } from './walks/index.ts';

/** Rules of several families that report under the same areas, in area order, then by id. */
const byAreaThenId = (a: Rule, b: Rule) =>
  AREAS.indexOf(a.area) - AREAS.indexOf(b.area) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const RULES: readonly Rule[] = [
  ...envelopeRules,
  ...wireRules,
  ...codePairingRules,
  ...cachingRules,
  ...[
    ...collectionRules,
    ...pageSizeRules,
    ...walksRules,
    ...authRules,
    ...keyMatrixRules,
    ...pathSpellingRules,
    ...catalogueRules,
    ...keyedRules.filter((rule) => rule.area === 'auth' || rule.area === 'isolation'),
    ...keyEchoRules,
    ...campaignLinkRules,
    ...isolationRules,
  ].sort(byAreaThenId),
  ...notFoundRules,
  ...plannedRules,
  ...badLimitRules,
  ...paginationRules,
  ...methodsRules,
  ...sendRules,
  ...keyedRules.filter((rule) => rule.area === 'methods'),
  ...securityRules,
  ...keyedRules.filter((rule) => rule.area === 'security'),
  ...driftRules,
];

export function ruleById(id: string): Rule {
  const rule = RULES.find((r) => r.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
}
