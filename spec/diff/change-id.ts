/**
 * Names of a change that survive re-runs. The id is `RULE@PLACE`: the rule id, `@`, then the
 * readable place with ` > ` between its parts, the changed key last:
 * `schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum`.
 * It is built from what the change is and where it sits in the API, never from a file name, a
 * line number or the report's order, so the same change gets the same id in every run and
 * `spec/accepted-changes.yaml` can name it.
 */
import type { ClassifiedChange } from './types.ts';

/** `where` plus the changed key; `key` is how the engine names a renamed map entry, which says nothing. */
export function placeOf(change: Pick<ClassifiedChange, 'where' | 'property'>): string {
  return change.property && change.property !== 'key' ? `${change.where} · ${change.property}` : change.where;
}

export function changeIdOf(change: Pick<ClassifiedChange, 'rule' | 'where' | 'property'>): string {
  return `${change.rule.replaceAll(', ', '+')}@${placeOf(change).split(' · ').join(' > ')}`;
}
