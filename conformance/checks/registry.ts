/** The registry: every check of the suite, in report order. Ids are stable; never reuse one. */
import type { Check } from './check.ts';
import { authChecks } from './auth.ts';
import { consistencyChecks } from './consistency.ts';
import { driftChecks } from './drift.ts';
import { envelopeChecks } from './envelope.ts';
import { isolationChecks } from './isolation.ts';
import { keyEchoChecks } from './key-echo.ts';
import { keyMatrixChecks } from './key-matrix.ts';
import { limitsChecks } from './limits.ts';
import { methodsChecks } from './methods.ts';
import { notFoundChecks } from './not-found.ts';
import { pathVariantChecks } from './path-variants.ts';
import { plannedChecks } from './planned.ts';
import { walkDetailChecks } from './walk-detail.ts';
import { walksListChecks } from './walks-list.ts';

export const CHECKS: readonly Check[] = [
  ...envelopeChecks,
  ...walksListChecks,
  ...walkDetailChecks,
  ...consistencyChecks,
  ...authChecks,
  ...keyMatrixChecks,
  ...pathVariantChecks,
  ...keyEchoChecks,
  ...isolationChecks,
  ...notFoundChecks,
  ...plannedChecks,
  ...limitsChecks,
  ...methodsChecks,
  ...driftChecks,
];

export function checkById(id: string): Check {
  const check = CHECKS.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  return check;
}
