/** Sorts every engine change into breaking, non-breaking or annotation, from a client's point of view. */
import type { OpenApiDocument } from '../contract.ts';
import { changeIdOf } from './change-id.ts';
import { clientImpact } from './impact.ts';
import { CHANGE_RULES } from './rules.ts';
import type { Classification, ClassifiedChange, EngineChange, SourceLocation, Verdict } from './types.ts';
import { describePointer, pointerSegments } from './where.ts';

/** Keys that only document: changing them changes no request or response. */
const ANNOTATION_KEYS = new Set([
  'description',
  'summary',
  'title',
  'example',
  'examples',
  'externalDocs',
  'x-enum-descriptions',
  'contact',
  'license',
  'termsOfService',
]);
const ANNOTATION_TYPES = new Set(['Example', 'ExamplesMap', 'ExternalDocs', 'Info', 'Contact', 'License']);
/** Keys under which a segment is a name (a property called `description`), not a keyword. */
const NAME_CONTAINERS = new Set(['properties', 'headers', 'parameters', 'paths']);

export interface SpecSides {
  base: { label: string; doc: OpenApiDocument };
  head: { label: string; doc: OpenApiDocument };
}

export function classifyChange(change: EngineChange, sides: SpecSides): ClassifiedChange {
  // The engine points into the head spec, except for what it removed.
  const where = describePointer(
    change.path,
    change.kind === 'removed' ? [sides.base.doc, sides.head.doc] : [sides.head.doc, sides.base.doc],
  );
  const { classification, message, rule } = ruleOf(change);
  const impact = clientImpact({
    change,
    classification,
    where,
    message,
    docs: { base: sides.base.doc, head: sides.head.doc },
  });
  const classified: ClassifiedChange = {
    id: '',
    classification,
    impact,
    where,
    kind: change.kind,
    message,
    rule,
    engineImpact: change.impact,
  };
  if (change.property !== undefined) classified.property = change.property;
  classified.id = changeIdOf(classified);
  if (change.base) classified.base = relabel(change.base, sides.base.label);
  if (change.revision) classified.head = relabel(change.revision, sides.head.label);
  return classified;
}

/** Redocly's breaking verdict, else the project's rules, else non-breaking or annotation. */
function ruleOf(change: EngineChange): Pick<ClassifiedChange, 'classification' | 'message' | 'rule'> {
  if (change.impact === 'major') {
    return {
      classification: 'breaking',
      message: change.verdicts.map((verdict) => verdict.message).join(' ') || describeChange(change),
      rule: change.verdicts.map((verdict) => verdict.ruleId).join(', ') || 'breaking/unnamed',
    };
  }
  const ruling = CHANGE_RULES.map((rule) => rule(change)).find((found) => found !== undefined);
  if (ruling) return { classification: 'breaking', message: ruling.message, rule: ruling.rule };
  const classification = isAnnotation(change) ? 'annotation' : 'non-breaking';
  return { classification, message: describeChange(change), rule: `${classification}/${change.kind}` };
}

function isAnnotation(change: EngineChange): boolean {
  if (ANNOTATION_TYPES.has(change.typeName)) return true;
  if (change.kind === 'modified' && change.property && ANNOTATION_KEYS.has(change.property)) return true;
  const segments = pointerSegments(change.path);
  return segments.some(
    (segment, i) => ANNOTATION_KEYS.has(segment) && !NAME_CONTAINERS.has(segments[i - 1] ?? ''),
  );
}

export function verdictOf(changes: ClassifiedChange[]): Verdict {
  const found = new Set(changes.map((change) => change.classification));
  if (found.has('breaking')) return 'breaking';
  if (found.has('non-breaking')) return 'non-breaking';
  return found.has('annotation') ? 'annotation-only' : 'no-changes';
}

const ORDER: Record<Classification, number> = { breaking: 0, 'non-breaking': 1, annotation: 2 };

export function byClassification(a: ClassifiedChange, b: ClassifiedChange): number {
  return ORDER[a.classification] - ORDER[b.classification] || a.where.localeCompare(b.where);
}

function describeChange(change: EngineChange): string {
  const what = change.typeName.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (change.kind === 'added') return `${capitalise(what)} added.`;
  if (change.kind === 'removed') return `${capitalise(what)} removed.`;
  return `\`${change.property ?? '?'}\` changed from ${shown(change.base?.value)} to ${shown(change.revision?.value)}.`;
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? `'${value.replace(/\s+/g, ' ').trim()}'` : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function relabel(location: SourceLocation, file: string): SourceLocation {
  return { file, pointer: location.pointer, line: location.line };
}
