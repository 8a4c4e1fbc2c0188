/**
 * Every rule of the suite, in report order. Ids are stable; never reuse one. The generic families
 * apply to every live GET operation of the spec under test; the walks module attaches to the
 * walks operations.
 */
import type { Rule } from '../core/rule.ts';
import { cachingRules } from './caching.ts';
import { codePairingRules, driftRules } from './drift.ts';
import { envelopeRules } from './envelope.ts';
import { methodsRules } from './methods.ts';
import { notFoundRules } from './not-found.ts';
import { plannedRules } from './planned.ts';

export const RULES: readonly Rule[] = [
  ...envelopeRules,
  ...codePairingRules,
  ...cachingRules,
  ...notFoundRules,
  ...plannedRules,
  ...methodsRules,
  ...driftRules,
];

export function ruleById(id: string): Rule {
  const rule = RULES.find((r) => r.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
}
