/** Compares two loaded specs: the engine's changes, classified, plus the project's own checks. */
import { byClassification, classifyChange, verdictOf } from './classify.ts';
import { runEngine, type Engine } from './engine.ts';
import { locate, type SpecInput } from './input.ts';
import { requiredScopeChanges } from './rules.ts';
import type { Classification, ClassifiedChange, SpecDiff } from './types.ts';

export async function diffSpecs(
  base: SpecInput,
  head: SpecInput,
  engine: Engine = runEngine,
): Promise<SpecDiff> {
  const report = await engine(base.path, head.path);
  const changes = [
    ...report.changes.map((change) => classifyChange(change, { base, head })),
    ...requiredScopeChanges(base.doc, head.doc).map((change) => located(change, base, head)),
  ].sort(byClassification);
  const counts: Record<Classification, number> = { breaking: 0, 'non-breaking': 0, annotation: 0 };
  for (const change of changes) counts[change.classification]++;
  return {
    base: base.label,
    head: head.label,
    baseVersion: String(base.doc.info?.version ?? ''),
    headVersion: String(head.doc.info?.version ?? ''),
    verdict: verdictOf(changes),
    counts,
    changes,
  };
}

/** A project-rule change at an operation's `x-required-scopes`, with its place in both files. */
function located(change: ClassifiedChange, base: SpecInput, head: SpecInput): ClassifiedChange {
  const [method = '', path = ''] = change.where.split(' ');
  const pointer = `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/${change.property ?? ''}`;
  const [before, after] = [locate(base, pointer), locate(head, pointer)];
  return { ...change, ...(before ? { base: before } : {}), ...(after ? { head: after } : {}) };
}
