/**
 * The project's rules on top of Redocly's `diff-recommended`. Redocly's rules are right about
 * direction (a response enum that gains a value, a response field that becomes nullable or stops
 * being required, a request bound that narrows: all breaking), but it stays silent on three
 * changes this API's clients feel. Each rule only ever upgrades a change to breaking, and
 * `test/project-rules.process.test.ts` shows Redocly alone rates each of them below breaking.
 */
import { isDeepStrictEqual } from 'node:util';
import { type OpenApiDocument, operationsOf } from '../contract.ts';
import { statusOfError } from '../facts.ts';
import { changeIdOf } from './change-id.ts';
import type { ClassifiedChange, EngineChange } from './types.ts';

export interface Ruling {
  rule: string;
  message: string;
}

/**
 * An enum lost values. Redocly counts that as breaking only in requests: in a response a client
 * of the base spec still parses every answer. But the written spec's enums are vocabularies that
 * clients show, count and branch on (a stop's `status`, the keys of `counts`); a value that can
 * no longer appear silently zeroes a column or dead-ends a branch. Keep the value, or version it.
 */
function enumValuesRemoved(change: EngineChange): Ruling | undefined {
  if (change.typeName !== 'Schema' || change.kind !== 'modified' || change.property !== 'enum') return;
  const before = change.base?.value;
  const after = change.revision?.value;
  if (!Array.isArray(before) || !Array.isArray(after)) return;
  const lost = before.filter((value) => !after.some((kept) => isDeepStrictEqual(kept, value)));
  if (lost.length === 0) return;
  return {
    rule: 'project/enum-values-removed',
    message: `Enum lost values: ${lost.map((value) => `'${String(value)}'`).join(', ')}. Clients that show, count or branch on them never see them again.`,
  };
}

/**
 * A request parameter's documented default changed. Redocly rates it a patch, but a client that
 * omits the parameter (most do, for `limit`) now gets a different answer to the same request.
 */
function parameterDefaultChanged(change: EngineChange): Ruling | undefined {
  if (change.typeName !== 'Schema' || change.kind !== 'modified' || change.property !== 'default') return;
  if (!/\/parameters\/\d+\/schema$/.test(change.path)) return;
  const before = change.base?.value;
  if (before === undefined || isDeepStrictEqual(before, change.revision?.value)) return;
  const after = change.revision?.value === undefined ? 'nothing' : JSON.stringify(change.revision.value);
  return {
    rule: 'project/parameter-default-changed',
    message: `Default changed from ${JSON.stringify(before)} to ${after}. Clients that omit the parameter now get a different answer.`,
  };
}

export const CHANGE_RULES: ReadonlyArray<(change: EngineChange) => Ruling | undefined> = [
  enumValuesRemoved,
  parameterDefaultChanged,
];

/**
 * `x-required-scopes` is this project's extension, so Redocly does not see it at all. A scope an
 * operation newly requires turns every key without it into a `forbidden` answer; a scope it no
 * longer requires breaks nobody.
 */
export function requiredScopeChanges(base: OpenApiDocument, head: OpenApiDocument): ClassifiedChange[] {
  const before = new Map(operationsOf(base).map((op) => [`${op.method} ${op.path}`, op.requiredScopes]));
  const changes: ClassifiedChange[] = [];
  for (const op of operationsOf(head)) {
    const where = `${op.method} ${op.path}`;
    const old = before.get(where);
    if (!old) continue;
    const added = op.requiredScopes.filter((scope) => !old.includes(scope));
    const removed = old.filter((scope) => !op.requiredScopes.includes(scope));
    if (added.length > 0) {
      changes.push(
        scopeChange({
          classification: 'breaking',
          where,
          rule: 'project/required-scopes-added',
          message: `Now requires ${scopeList(added)}. Keys without it get ${FORBIDDEN}.`,
          impact: `A client whose key lacks ${scopeList(added)} now gets ${FORBIDDEN} from ${where} instead of its answer.`,
        }),
      );
    }
    if (removed.length > 0) {
      changes.push(
        scopeChange({
          classification: 'non-breaking',
          where,
          rule: 'project/required-scopes-removed',
          message: `No longer requires ${scopeList(removed)}.`,
          impact: `A client whose key lacks ${scopeList(removed)} can now call ${where}; other clients see no change.`,
        }),
      );
    }
  }
  return changes;
}

const FORBIDDEN = `${statusOfError('forbidden')} \`forbidden\``;

function scopeChange(
  change: Pick<ClassifiedChange, 'classification' | 'where' | 'rule' | 'message' | 'impact'>,
): ClassifiedChange {
  const classified: ClassifiedChange = { ...change, id: '', kind: 'modified', property: 'x-required-scopes' };
  return { ...classified, id: changeIdOf(classified) };
}

function scopeList(scopes: string[]): string {
  return `scope ${scopes.map((scope) => `\`${scope}\``).join(', ')}`;
}
