/** Compares two loaded specs: the engine's changes, classified, plus the project's own checks. */
import { byClassification, classifyChange, verdictOf } from './classify.ts';
import { runEngine } from './engine.ts';
import type { SpecInput } from './input.ts';
import { requiredScopeChanges } from './rules.ts';
import type { Classification, SpecDiff } from './types.ts';

export async function diffSpecs(base: SpecInput, head: SpecInput): Promise<SpecDiff> {
  const report = await runEngine(base.path, head.path);
  const changes = [
    ...report.changes.map((change) => classifyChange(change, { base, head })),
    ...requiredScopeChanges(base.doc, head.doc),
  ].sort(byClassification);
  const counts: Record<Classification, number> = { breaking: 0, 'non-breaking': 0, annotation: 0 };
  for (const change of changes) counts[change.classification]++;
  return { base: base.label, head: head.label, verdict: verdictOf(changes), counts, changes };
}
