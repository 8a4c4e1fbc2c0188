/**
 * Every rule of the suite, in report order. Ids are stable; never reuse one. The generic families
 * apply to every live GET operation of the spec under test; the walks module attaches to the
 * walks operations.
 */
import type { Rule } from '../core/rule.ts';
import { AREAS } from '../types.ts';
import { collectionRules } from './collections.ts';
import { envelopeRules } from './envelope.ts';
import { badLimitRules, pageSizeRules } from './limits.ts';
import { walksRules } from './walks/index.ts';

/** Rules of several families that report under the same areas, in area order, then by id. */
const byAreaThenId = (a: Rule, b: Rule) =>
  AREAS.indexOf(a.area) - AREAS.indexOf(b.area) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const RULES: readonly Rule[] = [
  ...envelopeRules,
  ...[...collectionRules, ...pageSizeRules, ...walksRules].sort(byAreaThenId),
  ...badLimitRules,
];

export function ruleById(id: string): Rule {
  const rule = RULES.find((r) => r.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
}
