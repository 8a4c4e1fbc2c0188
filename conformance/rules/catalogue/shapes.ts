/**
 * How a catalogue entry makes its request from a base request: small pure functions over the
 * request line and its headers, so an entry of the catalogue (`catalogue.ts`) is one line of data
 * naming its shape. None of them sees a key: credentials are named by their variables, as the
 * client sends them.
 */
import type { KeyName, Via } from '../../core/roles.ts';
import type { KeyPlacement, KeyUse } from '../../core/exchange.ts';
import { safeDecode } from '../../core/spec-model.ts';

/** A request as a transform reads and rewrites it. */
export interface Shape {
  method: string;
  /** The path below the base URL, as it goes on the wire (a transform may put `?`, `#` or `;` in it). */
  path: string;
  /** The query without `?`; undefined for none. */
  query?: string;
  headers: Readonly<Record<string, string>>;
  auth?: KeyUse | KeyUse[];
  madeUpKey?: Via;
  /** Set by the cache probes: the same request made again. */
  again?: number;
  /** A write's body (the keyed catalogue's writes on real items). */
  body?: string;
  /**
   * Where the route's name is in `path.split('/')`: the last literal segment of its template
   * (`walks` in `/api/v1/walks/{id}`), the part a gateway's rule and a backend's route both name.
   */
  nameAt: number;
}

/** A transform: the request it makes from a base request, or undefined when it does not apply. */
export type Make = (base: Shape) => Shape | undefined;

/** The host a host or forwarding header names: `.invalid` never resolves, so nothing can reach it. */
export const PROBE_HOST = 'conformance-probe.invalid';
/** The loopback address the client-address tricks claim. */
export const LOOPBACK = '127.0.0.1';

const split = (shape: Shape) => shape.path.split('/');

/** Text after the path, before the query: `/api/v1/walks%20`. */
export const tail =
  (text: string): Make =>
  (s) => ({ ...s, path: `${s.path}${text}` });

/** Segments before the route's name: `/api/v1/%2e/walks/…`. */
export const beforeName =
  (inserted: string): Make =>
  (s) => {
    const parts = split(s);
    parts.splice(s.nameAt, 0, inserted);
    return { ...s, path: parts.join('/') };
  };

/** Segments before the path's last segment (an item's id, or a collection's name): `/api/v1/walks/./<id>`. */
export const beforeLast =
  (inserted: string): Make =>
  (s) => ({ ...s, path: s.path.replace(/\/([^/]*)$/, `/${inserted}/$1`) });

/** The route's name rewritten: `/api/v1/WALKS/…`. */
export const name =
  (edit: (word: string) => string | undefined): Make =>
  (s) => {
    const parts = split(s);
    const edited = edit(parts[s.nameAt] ?? '');
    if (edited === undefined || edited === parts[s.nameAt]) return undefined;
    parts[s.nameAt] = edited;
    return { ...s, path: parts.join('/') };
  };

/** The segment before the route's name rewritten: `/api/v1;x=y/walks`. */
export const beforeNameSegment =
  (edit: (segment: string) => string): Make =>
  (s) => {
    const parts = split(s);
    const at = s.nameAt - 1;
    if (at < 1) return undefined;
    parts[at] = edit(parts[at] ?? '');
    return { ...s, path: parts.join('/') };
  };

/**
 * The slash between the route's name and its item spelled otherwise: `/api/v1/walks%2F<id>`. A
 * route without an item after its name has no such slash.
 */
export const slashAfterName =
  (spelling: string): Make =>
  (s) => {
    const parts = split(s);
    if (parts.length <= s.nameAt + 1) return undefined;
    const before = parts.slice(0, s.nameAt + 1).join('/');
    return { ...s, path: `${before}${spelling}${parts.slice(s.nameAt + 1).join('/')}` };
  };

/** The API's version segment (`v1`) rewritten, or left out (`''`): another version of the route. */
export const version =
  (edit: (number: number) => string): Make =>
  (s) => {
    const parts = split(s);
    const at = parts.findIndex((part) => /^v\d+$/i.test(part));
    if (at < 1 || at >= s.nameAt) return undefined;
    const replaced = edit(Number(parts[at]?.slice(1)));
    const edited = replaced === '' ? parts.filter((_, i) => i !== at) : parts.with(at, replaced);
    return { ...s, path: edited.join('/'), nameAt: replaced === '' ? s.nameAt - 1 : s.nameAt };
  };

/** A header added; its value may be read from the request (`X-Original-URL: <the path>`). */
export const header =
  (headerName: string, value: string | ((base: Shape) => string)): Make =>
  (s) => ({
    ...s,
    headers: { ...s.headers, [headerName]: typeof value === 'string' ? value : value(s) },
  });

/** The path and query as a rewrite header names them. */
export const pathAndQuery = (s: Shape) => `${s.path}${s.query !== undefined ? `?${s.query}` : ''}`;

/**
 * The request sent to `to` (a path any gateway lets through) with the real path in a rewrite
 * header, as OWASP WSTG-ATHZ-02 tests `X-Original-URL` and `X-Rewrite-URL`.
 */
export const rewrittenFrom =
  (headerName: string, to: string): Make =>
  (s) => {
    const { query: _dropped, ...rest } = s;
    return { ...rest, path: to, headers: { ...s.headers, [headerName]: pathAndQuery(s) } };
  };

/** Another method for the same request. */
export const method =
  (sent: string): Make =>
  (s) =>
    s.method === sent ? undefined : { ...s, method: sent };

/** The method a read and a write are tunnelled through: a GET as a POST, a POST as a GET. */
const flipped = (base: string) => (base === 'GET' ? 'POST' : base === 'POST' ? 'GET' : undefined);

/** The request sent with the other method, its own named in an override header. */
export const overrideHeader =
  (headerName: string): Make =>
  (s) => {
    const sent = flipped(s.method);
    return sent ? { ...s, method: sent, headers: { ...s.headers, [headerName]: s.method } } : undefined;
  };

/** The request sent with the other method, its own named in a query parameter (`_method=GET`). */
export const overrideParameter =
  (parameter: string): Make =>
  (s) => {
    const sent = flipped(s.method);
    if (!sent) return undefined;
    const query = `${s.query ? `${s.query}&` : ''}${parameter}=${s.method}`;
    return { ...s, method: sent, query };
  };

/** Both key headers, each with a key of its own role. */
export const twoKeys =
  (bearer: KeyName, xApiKey: KeyName): Make =>
  (s) => {
    const { madeUpKey: _none, ...rest } = s;
    return {
      ...rest,
      auth: [
        { key: bearer, via: 'bearer' },
        { key: xApiKey, via: 'x-api-key' },
      ],
    };
  };

/** The same request again: identical on the wire, sent after every other request. */
export const again: Make = (s) => ({ ...s, again: (s.again ?? 0) + 1 });

/** The first letter of a word percent-encoded (`%77alks`), or double-encoded (`%2577alks`). */
export const encodedFirstLetter = (times: 1 | 2): Make =>
  name((word) => {
    const first = word.charAt(0);
    if (!/[A-Za-z]/.test(first)) return undefined;
    const hex = first.charCodeAt(0).toString(16).toUpperCase();
    return `${times === 2 ? '%25' : '%'}${hex}${word.slice(1)}`;
  });

/** What the run has seen, for the keyed entries (`catalogue.ts`, `RunFacts`). */
interface Facts {
  item?: Record<string, unknown>;
  otherIdentifiers: readonly string[];
}
type KeyedMake = (base: Shape, facts: Facts) => Shape | undefined;

/** The position of the item after the route's name, or undefined on a route that names none. */
const itemAt = (s: Shape) => (split(s).length > s.nameAt + 1 ? s.nameAt + 1 : undefined);

/** The request's key sent out of its headers: in the query, a cookie, or Basic authentication. */
export const placed =
  (placement: KeyPlacement): Make =>
  (s) => {
    const use = s.auth;
    if (use === undefined || Array.isArray(use)) return undefined;
    return { ...s, auth: { ...use, placed: placement } };
  };

/** A query parameter naming the other campaign (its first identifier the run saw: its slug). */
export const selectorParameter =
  (parameter: string): KeyedMake =>
  (s, facts) => {
    const other = facts.otherIdentifiers[0];
    if (other === undefined) return undefined;
    const pair = `${parameter}=${encodeURIComponent(other)}`;
    return { ...s, query: s.query ? `${s.query}&${pair}` : pair };
  };

/** A header naming the other campaign. */
export const selectorHeader =
  (headerName: string): KeyedMake =>
  (s, facts) => {
    const other = facts.otherIdentifiers[0];
    return other === undefined ? undefined : { ...s, headers: { ...s.headers, [headerName]: other } };
  };

/**
 * A sub-route below the path (`…/walks/export`); `below: 'item'` only below an item's path
 * (`…/walks/<id>/stops`), the parts an item holds.
 */
export const subRoute =
  (route: string, below?: 'item'): Make =>
  (s) =>
    below === 'item' && itemAt(s) === undefined
      ? undefined
      : { ...s, path: `${s.path.replace(/\/+$/, '')}${route}` };

/** The item's id replaced by one made from it (percent-encoded: it reaches the backend as written). */
export const itemId =
  (made: (own: string) => string): Make =>
  (s) => {
    const at = itemAt(s);
    if (at === undefined) return undefined;
    const parts = split(s);
    const own = safeDecode(parts[at] ?? '');
    return { ...s, path: parts.with(at, encodeURIComponent(made(own))).join('/') };
  };

/** Each query parameter of the request replaced by an injected one (`limit[$ne]=1`). */
export const inParameters =
  (made: (parameter: string) => string): Make =>
  (s) => {
    const names = [...new URLSearchParams(s.query ?? '').keys()];
    if (names.length === 0) return undefined;
    return { ...s, query: [...new Set(names)].map(made).join('&') };
  };

/** A write on the item the request names (none on a collection), with the body it sends. */
export const write =
  (sent: string, bodyOf: (facts: Facts) => string | undefined): KeyedMake =>
  (s, facts) => {
    if (itemAt(s) === undefined) return undefined;
    const body = bodyOf(facts);
    if (body === undefined) return undefined;
    const { query: _none, ...rest } = s;
    return { ...rest, method: sent, ...(body === '' ? {} : { body }) };
  };
