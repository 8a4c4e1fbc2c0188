/**
 * One line per change on what a client written against the old spec now sees ("A client that
 * sends `limit=200` now gets 400 instead of 200."). Each rule a client feels has its own sentence;
 * any other change falls back to the rule's message, said from the client's side.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { OpenApiDocument } from '../contract.ts';
import type { Classification, EngineChange } from './types.ts';
import { nodeAt, pointerSegments } from './where.ts';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const BOUNDS = new Set(['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);

/** Where a change sits, as much as the impact line needs. */
interface ImpactPlace {
  /** `GET /api/v1/walks`; undefined outside an operation. */
  operation?: string;
  /** The path template, when the change is under `paths`. */
  path?: string;
  parameter?: string;
  /** The response status the change sits in. */
  status?: string;
  /** The body field, `data[].count`; `data[]` for the item itself. */
  field?: string;
  /** The answers the operation documents in the new spec (or the old one, when it is gone). */
  statuses: string[];
}

export interface ImpactInput {
  change: EngineChange;
  classification: Classification;
  /** The readable place `where.ts` gave, e.g. `GET /api/v1/walks · response 200 · body data[].name`. */
  where: string;
  message: string;
  docs: { base: OpenApiDocument; head: OpenApiDocument };
}

export function clientImpact(input: ImpactInput): string {
  const place = placeOf(input);
  const { change } = input;
  const specific =
    boundImpact(change, place) ??
    requestImpact(change, place) ??
    responseImpact(change, place) ??
    removalImpact(change, place);
  if (specific) return specific;
  if (input.classification === 'annotation') {
    return `No client sees a difference: only ${change.property ? `\`${change.property}\`` : 'documentation'} changed.`;
  }
  const said = input.message.replace(/\.$/, '');
  return input.classification === 'breaking'
    ? `A client written against the old spec can fail here: ${said}.`
    : `A client written against the old spec keeps working: ${said}.`;
}

function placeOf({ change, where, docs }: ImpactInput): ImpactPlace {
  const [area, path, method] = pointerSegments(change.path);
  const parts = where.split(' · ');
  const parameter = parts.map((part) => /^parameter (\S+) \(/.exec(part)?.[1]).find(Boolean);
  const status = parts.map((part) => /^response (\S+)$/.exec(part)?.[1]).find(Boolean);
  const field = parts.map((part) => /^body (.+)$/.exec(part)?.[1]).find(Boolean);
  const place: ImpactPlace = { statuses: [] };
  if (area !== 'paths' || path === undefined) return place;
  place.path = path;
  if (method === undefined || !METHODS.has(method)) return place;
  place.operation = `${method.toUpperCase()} ${path}`;
  const operation = (nodeAt(docs.head, ['paths', path, method]) ??
    nodeAt(docs.base, ['paths', path, method])) as OpenAPIV3_1.OperationObject | undefined;
  place.statuses = Object.keys(operation?.responses ?? {});
  return { ...place, ...defined({ parameter, status, field }) };
}

/** A bound on a request parameter moved: which value changes answer, and how. */
function boundImpact(change: EngineChange, place: ImpactPlace): string | undefined {
  if (!place.parameter || change.kind !== 'modified' || !BOUNDS.has(change.property ?? '')) return;
  const before = numberOrUndefined(change.base?.value);
  const after = numberOrUndefined(change.revision?.value);
  const upper = change.property?.includes('aximum') ?? false;
  const probe = boundProbe(before, after, upper);
  if (!probe) return;
  const [value, nowRefused] = probe;
  const [refused, accepted] = [refusalStatus(place), successStatus(place)];
  const [now, was] = nowRefused ? [refused, accepted] : [accepted, refused];
  return `A client that sends \`${place.parameter}=${value}\` now gets ${now} instead of ${was}.`;
}

/** A value on which the old and the new bound disagree, and whether the new spec refuses it. */
function boundProbe(
  before: number | undefined,
  after: number | undefined,
  upper: boolean,
): [number, boolean] | undefined {
  const step = upper ? 1 : -1;
  if (before === undefined && after !== undefined) return [after + step, true];
  if (before !== undefined && after === undefined) return [before + step, false];
  if (before === undefined || after === undefined || before === after) return;
  const tighter = upper ? after < before : after > before;
  return tighter ? [before, true] : [after, false];
}

function requestImpact(change: EngineChange, place: ImpactPlace): string | undefined {
  const name = place.parameter;
  if (!name || !place.operation) return;
  if (change.typeName === 'Parameter' && change.kind === 'added') {
    return isRequired(change.revision?.value)
      ? `A client that does not send \`${name}\` (every client of the old spec) now gets ${refusalStatus(place)} from ${place.operation}.`
      : `A client may now send \`${name}\` to ${place.operation}; a client that does not sees no change.`;
  }
  if (change.property === 'default') {
    const [before, after] = [shown(change.base?.value), shown(change.revision?.value)];
    return `A client that omits \`${name}\` now gets the answer for \`${name}=${after}\` instead of \`${name}=${before}\`.`;
  }
  if (change.typeName === 'Parameter' && change.kind === 'removed') {
    return `A client that sends \`${name}\` to ${place.operation} finds it no longer documented: it may be ignored or refused.`;
  }
  if (change.property === 'type') {
    return `A client that sends \`${name}\` as ${typeText(change.base?.value)} may now be refused: the new spec wants ${typeText(change.revision?.value)}.`;
  }
  return undefined;
}

function responseImpact(change: EngineChange, place: ImpactPlace): string | undefined {
  if (!place.field || !place.status || !place.operation) return;
  const answer = `the ${place.status} answer of ${place.operation}`;
  const field = `\`${place.field}\``;
  if (change.kind === 'removed') return `A client that reads ${field} from ${answer} no longer gets it.`;
  if (change.kind === 'added') {
    return `A client now also gets ${field} in ${answer}; one that ignores unknown fields sees no change.`;
  }
  const [before, after] = [change.base?.value, change.revision?.value];
  if (change.property === 'type') {
    return `A client that reads ${field} from ${answer} as ${typeText(before)} may now get ${typeText(after)}.`;
  }
  if (change.property === 'required') {
    const lost = listDifference(before, after).map((name) => `\`${joinField(place.field ?? '', name)}\``);
    if (lost.length > 0)
      return `A client that reads ${lost.join(', ')} from ${answer} may now find it missing.`;
    const gained = listDifference(after, before).map((name) => `\`${joinField(place.field ?? '', name)}\``);
    if (gained.length > 0) return `A client now always gets ${gained.join(', ')} in ${answer}.`;
  }
  if (change.property === 'enum') {
    const added = listDifference(after, before).map(quoted);
    if (added.length > 0) {
      return `A client that reads ${field} from ${answer} may now get ${added.join(', ')}, which the old spec never listed.`;
    }
    const lost = listDifference(before, after).map(quoted);
    if (lost.length > 0)
      return `A client that counts or branches on ${lost.join(', ')} in ${field} never gets it again.`;
  }
  return undefined;
}

function removalImpact(change: EngineChange, place: ImpactPlace): string | undefined {
  if (change.kind !== 'removed' || !place.path) return;
  if (change.typeName === 'PathItem')
    return `A client that calls \`${place.path}\` now gets 404 instead of an answer: the endpoint is gone.`;
  if (change.typeName === 'Operation' && place.operation) {
    return `A client that calls ${place.operation} now gets 404 or 405 instead of an answer: the operation is gone.`;
  }
  if (change.typeName === 'Response' && place.operation) {
    const status = pointerSegments(change.path).at(-1) ?? '?';
    return `A client that handles ${status} from ${place.operation} can no longer count on it: the new spec removed that answer.`;
  }
  return undefined;
}

function refusalStatus(place: ImpactPlace): string {
  return place.statuses.includes('400')
    ? '400'
    : (place.statuses.find((s) => s.startsWith('4')) ?? 'an error');
}

function successStatus(place: ImpactPlace): string {
  return place.statuses.find((status) => status.startsWith('2')) ?? 'a success';
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isRequired(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { required?: unknown }).required === true;
}

function listDifference(from: unknown, without: unknown): unknown[] {
  if (!Array.isArray(from)) return [];
  const others = Array.isArray(without) ? without : [];
  return from.filter((value) => !others.some((other) => isDeepStrictEqual(other, value)));
}

function typeText(value: unknown): string {
  return Array.isArray(value) ? value.join(' or ') : value === undefined ? 'any type' : String(value);
}

function shown(value: unknown): string {
  return value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value);
}

function quoted(value: unknown): string {
  return `'${String(value)}'`;
}

/** `data[]` + `web_url` → `data[].web_url`. */
function joinField(parent: string, name: unknown): string {
  return parent ? `${parent}.${String(name)}` : String(name);
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
