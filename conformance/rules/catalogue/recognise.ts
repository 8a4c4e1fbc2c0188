/**
 * Which tricks of the catalogue an exchange carries, told from the request alone, the same way for
 * a live run's probe and for a recording's exchange: the catalogue's own entries are applied to
 * each protected route's template, and the request is matched against what they make. Nothing here
 * is written per trick, so a new entry of the catalogue is told back with no code.
 *
 * - Path spellings: each entry applied to the template with a placeholder for its item gives a
 *   pattern; a request target that matches one names the entry, its route and its item. A path
 *   that only a lenient router would read as a live route is "another spelling".
 * - Headers: a header with the value an entry gives (or, for a value read from the request, such as
 *   a rewrite header's path, the header at all). A rewrite header's path is the route aimed at.
 * - Methods: another method than the route's, an override header, or an override parameter; an
 *   override names the method aimed at (POST, for a route that would send).
 */
import type { Observation } from '../../core/observation.ts';
import type { SpecModel } from '../../core/spec-model.ts';
import { spellingOf } from '../path-spellings.ts';
import type { Family, Transform } from './catalogue.ts';
import { CATALOGUE, nameIndexOf } from './catalogue.ts';
import type { Shape } from './shapes.ts';
import type { Target } from './targets.ts';
import { targetAt, targetsOf } from './targets.ts';

/** One trick an exchange carries, and what it aimed at. */
export interface Seen {
  family: Family;
  /** The catalogue's entry; undefined for a spelling of a live path that no entry makes. */
  transform?: Transform;
  /** How reports name it. */
  label: string;
  target: Target;
  /** The item named, decoded. */
  id?: string;
}

/** Stands for an item's id while an entry is applied to a template. */
const PLACE = '\uE000';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface PathPattern {
  transform: Transform;
  target: Target;
  pattern: RegExp;
  /** How long the spelling is: the longer, the more specific. */
  literal: number;
}

interface HeaderEntry {
  transform: Transform;
  /** The value the entry gives, or undefined when it reads it from the request. */
  value?: string;
}

interface Recogniser {
  paths: PathPattern[];
  /** Header name (lower case) → the entries that add it. */
  headers: Map<string, HeaderEntry[]>;
  /** Method (as sent) → the entry that sends it instead of the route's. */
  methods: Map<string, Transform>;
  /** Override header (lower case) or parameter → its entry. */
  overrideHeaders: Map<string, Transform>;
  overrideParameters: Map<string, Transform>;
}

const recognisers = new WeakMap<SpecModel, Recogniser>();

/** A shape of a template, its item a placeholder. */
function placeholderShape(target: Target): Shape {
  return {
    method: target.method,
    path: target.template.replace(/\{[^}]+\}/g, PLACE),
    headers: {},
    nameAt: nameIndexOf(target.template),
  };
}

/** What the catalogue's entries make, read once per spec. */
function recogniserOf(spec: SpecModel): Recogniser {
  let known = recognisers.get(spec);
  if (known) return known;
  known = {
    paths: [],
    headers: new Map(),
    methods: new Map(),
    overrideHeaders: new Map(),
    overrideParameters: new Map(),
  };
  const targets = targetsOf(spec);
  for (const transform of CATALOGUE) {
    if (transform.family === 'two-keys' || transform.family === 'cache') continue;
    if (transform.family === 'path') {
      for (const target of targets) {
        const made = transform.make(placeholderShape(target));
        if (!made) continue;
        const pattern = `^${escape(made.path).replaceAll(PLACE, '([^/?#]+?)')}(?:\\?.*)?$`;
        const literal = made.path.replaceAll(PLACE, '').length;
        known.paths.push({ transform, target, pattern: new RegExp(pattern), literal });
      }
      continue;
    }
    learnRequestShape(known, transform);
  }
  // The most specific spelling first: `…/?anything` before a trailing slash, `..;` before `;`.
  known.paths.sort((a, b) => b.literal - a.literal);
  recognisers.set(spec, known);
  return known;
}

/** What a header or method entry adds, learnt by applying it to two different requests. */
function learnRequestShape(known: Recogniser, transform: Transform): void {
  const base = (path: string): Shape => ({ method: 'GET', path, query: 'q=1', headers: {}, nameAt: 1 });
  const one = transform.make(base('/one'));
  const two = transform.make(base('/two/2'));
  if (!one || !two) return;
  for (const [name, value] of Object.entries(one.headers)) {
    const fixed = two.headers[name] === value;
    const entry: HeaderEntry = fixed ? { transform, value } : { transform };
    const lower = name.toLowerCase();
    if (transform.family === 'method' && (value === 'GET' || value === 'POST')) {
      known.overrideHeaders.set(lower, transform);
      continue;
    }
    known.headers.set(lower, [...(known.headers.get(lower) ?? []), entry]);
  }
  if (one.method !== 'GET' && Object.keys(one.headers).length === 0) {
    const added = one.query !== 'q=1' ? new URLSearchParams(one.query?.replace(/^q=1&?/, '')) : undefined;
    const parameter = added ? [...added.keys()][0] : undefined;
    if (parameter) known.overrideParameters.set(parameter, transform);
    else known.methods.set(one.method, transform);
  }
}

/** The route an exchange aimed at, and every trick of the catalogue it carries. */
export interface Reading {
  /** The route aimed at (through the path, a rewrite header or an override), with its item. */
  aim?: { target: Target; id?: string };
  tricks: Seen[];
}

/** Readings already made: every rule of the catalogue reads the same observation. */
const readings = new WeakMap<Observation, Reading>();

/** The route an exchange aimed at, and every trick of the catalogue it carries. */
export function recognise(spec: SpecModel, obs: Observation): Reading {
  let reading = readings.get(obs);
  if (!reading) {
    reading = readingOf(spec, obs);
    readings.set(obs, reading);
  }
  return reading;
}

function readingOf(spec: SpecModel, obs: Observation): Reading {
  const known = recogniserOf(spec);
  const request = obs.exchange.request;
  const headers = new Map(Object.entries(request.headers).map(([n, v]) => [n.toLowerCase(), v]));
  const override = overrideOf(known, headers, obs.query);
  const written = obs.target;
  // A write aims at a route that would send; failing one, it is another method on a read route.
  const aims = override ? [override.aimed] : isWrite(request.method) ? ['POST', 'GET'] : ['GET'];
  const resolved = (target: string) => {
    for (const aimed of aims) {
      const found = pathTrickOf(spec, known, obs, target, aimed);
      if (found) return found;
    }
    return undefined;
  };
  const onPath = resolved(written);
  const seen: Seen[] = [];
  const aimOf = (found: { target: Target; id?: string }) =>
    found.id === undefined ? { target: found.target } : { target: found.target, id: found.id };
  let aim = onPath ? aimOf(onPath) : undefined;
  if (onPath?.label) seen.push({ family: 'path', ...onPath, label: onPath.label });

  for (const [name, value] of headers) {
    const entry = headerEntryOf(known.headers.get(name) ?? [], value, written);
    if (!entry) continue;
    // A rewrite header names the route itself: the backend serves the path it names.
    const rewritten = entry.value === undefined ? resolved(value) : undefined;
    if (rewritten) aim = aimOf(rewritten);
    if (!aim) continue;
    const label =
      entry.value === undefined
        ? entry.transform.name
        : `${requestHeaderName(request.headers, name)}: ${value}`;
    seen.push({ family: entry.transform.family, transform: entry.transform, label, ...aim });
  }

  const sentOtherwise = aim !== undefined && request.method !== aim.target.method;
  const methodTrick = override?.transform ?? (sentOtherwise ? known.methods.get(request.method) : undefined);
  if (aim && methodTrick)
    seen.push({ family: 'method', transform: methodTrick, label: methodTrick.name, ...aim });
  return aim ? { aim, tricks: seen } : { tricks: seen };
}

/**
 * The route a request target names: exactly, or through a path entry of the catalogue (which it
 * names), or as another spelling of a live path a lenient router would serve.
 */
function pathTrickOf(
  spec: SpecModel,
  known: Recogniser,
  obs: Observation,
  written: string,
  aimed: string,
): { transform?: Transform; label: string; target: Target; id?: string } | undefined {
  const [path = ''] = written.split('?');
  const exact = targetAt(spec, path, aimed);
  if (exact && plainItem(exact.id) && plainQuery(written.slice(path.length))) return { label: '', ...exact };
  for (const { transform, target, pattern } of known.paths) {
    if (target.method !== aimed) continue;
    const found = pattern.exec(written);
    if (!found) continue;
    const id = found[1] === undefined ? undefined : safeDecode(found[1]);
    return { transform, label: transform.name, target, ...(id !== undefined ? { id } : {}) };
  }
  if (exact) return { label: '', ...exact };
  if (written !== obs.target) return undefined;
  const spelling = spellingOf(spec, obs);
  if (!spelling || aimed !== 'GET') return undefined;
  const target = targetsOf(spec).find((t) => t.op === spelling.op);
  return target ? { label: spelling.name, target } : undefined;
}

/** What follows a plain path: nothing, or a query that is not itself a spelling (`??`, `#`). */
const plainQuery = (rest: string) => rest === '' || /^\?[^?#]+$/.test(rest);

/** An item id as routes name one: nothing a spelling would add. */
const plainItem = (id: string | undefined) => id === undefined || /^[\w-]+$/.test(id);

/**
 * The entry a header is of: the one that gives its value, or, among entries that read the value
 * from the request (a rewrite header naming the path), the one that makes the request line sent.
 */
function headerEntryOf(entries: HeaderEntry[], value: string, written: string): HeaderEntry | undefined {
  const fixed = entries.find((e) => e.value === value);
  if (fixed) return fixed;
  const derived = entries.filter((e) => e.value === undefined);
  const [path = '', query] = value.split('?');
  const shape: Shape = {
    method: 'GET',
    path,
    ...(query !== undefined ? { query } : {}),
    headers: {},
    nameAt: 1,
  };
  const sameLine = derived.find((e) => {
    const made = e.transform.make(shape);
    return (
      made !== undefined && `${made.path}${made.query !== undefined ? `?${made.query}` : ''}` === written
    );
  });
  return sameLine ?? derived[0];
}

/** An override header or parameter, and the method it names. */
function overrideOf(
  known: Recogniser,
  headers: Map<string, string>,
  query: URLSearchParams,
): { transform: Transform; aimed: string } | undefined {
  for (const [name, value] of headers) {
    const transform = known.overrideHeaders.get(name);
    if (transform) return { transform, aimed: value.trim().toUpperCase() };
  }
  for (const [name, transform] of known.overrideParameters) {
    const value = query.get(name);
    if (value) return { transform, aimed: value.trim().toUpperCase() };
  }
  return undefined;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const isWrite = (method: string) => !READS.has(method.toUpperCase());

/** A header's name as the request spelled it. */
const requestHeaderName = (headers: Readonly<Record<string, string>>, lower: string) =>
  Object.keys(headers).find((name) => name.toLowerCase() === lower) ?? lower;

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
