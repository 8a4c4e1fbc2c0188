/**
 * Every served operation's route, from the spec (D-AUTH-ORDER): the key and the operation's scopes,
 * steering, then its parameters (`limit` within the operation's bounds, the cursor it issued), then
 * the resource: what the operation's answer makes of the request, sent in the envelope or passed
 * to the error handler. Only the answers are a resource's own (`walks.ts`, the schema's data below).
 */
import { type RequestHandler, Router } from 'express';
import type { BothHeaders } from '../auth/credentials.ts';
import type { Keyring } from '../auth/keyring.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import { authorizer, grantOf, requireKey } from '../auth/require-key.ts';
import type { CursorCodec } from '../cursor.ts';
import { type PreparedBody, prepareBody, sendPrepared, type SendingPolicy } from '../envelope.ts';
import { ApiError, type ErrorAnswer, invalidCursor, invalidLimit, ITEM_NOT_FOUND } from '../errors.ts';
import { type BadLimit, clampLimit, limitValuesOf, parseLimit } from '../limit.ts';
import { envelopeOf, type ServedOperation } from '../served-operations.ts';
import type { SchemaResources } from '../served-spec.ts';
import { steering } from '../steering.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

/** What a request asks of an operation once its key and parameters have been read. */
interface Asked {
  campaignId: string;
  /** An item's id, percent-decoded; undefined when its encoding is broken (it names nothing). */
  id?: string | undefined;
  /** `limit`, within the operation's bounds; undefined when the operation has none. */
  limit?: number | undefined;
  /** Where the page starts: 0, or what the cursor sent names. */
  offset: number;
  /** The cursor of the page starting at `offset`, for this key's campaign and this list. */
  cursorAt(offset: number): string;
}

export type OperationAnswer = (asked: Asked) => PreparedBody | ErrorAnswer;

export interface ServedRoute {
  op: ServedOperation;
  answer: OperationAnswer;
  /** The operation's own 404 (what `Prefer: code=404` gets). */
  notFound: ErrorAnswer;
}

export interface OperationsRouterOptions {
  routes: readonly ServedRoute[];
  keyring: Keyring;
  limiter?: RateLimiter | undefined;
  bothHeaders?: BothHeaders;
  /** D-LIMIT: refuse a bad `limit` (ours) or clamp it (a variant). */
  badLimit?: BadLimit;
  sending?: SendingPolicy;
  /** D-SANDBOX-STEERING: whether `Prefer: code=NNN` gets that error. */
  steering?: boolean;
  cursors: CursorCodec;
}

export function operationsRouter(options: OperationsRouterOptions): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const pass: RequestHandler = (_req, _res, next) => next();
  for (const { op, answer, notFound } of options.routes) {
    const authenticate = requireKey(
      authorizer(options.keyring, op.scopes, options.limiter, options.bothHeaders),
    );
    const steered = options.steering ? steering(notFound, op.scopes.join(' and ')) : pass;
    const prefix = op.path.slice(0, op.path.indexOf('{'));
    router
      .route(routePattern(op.path))
      .get(authenticate, steered, (req, res, next) => {
        const campaignId = grantOf(res).campaignId;
        const id = op.kind === 'item' ? decodedId(req.path.slice(prefix.length)) : undefined;
        const asked = askedOf(op, req.url, campaignId, id, options);
        const result = 'status' in asked ? asked : answer(asked);
        if ('etag' in result) sendPrepared(req, res, result, options.sending);
        else next(new ApiError(result));
      })
      .all(methodNotAllowed);
  }
  return router;
}

/** The parameters of a request, or the refusal of a bad one (D-LIMIT, D-PAGINATION-DECLARED). */
function askedOf(
  op: ServedOperation,
  url: string,
  campaignId: string,
  id: string | undefined,
  { badLimit = 'refuse', cursors }: OperationsRouterOptions,
): Asked | ErrorAnswer {
  let limit: number | undefined;
  if (op.limit) {
    const values = limitValuesOf(url);
    limit = parseLimit(values, op.limit) ?? (badLimit === 'clamp' ? clampLimit(values, op.limit) : undefined);
    if (limit === undefined) return invalidLimit(op.limit.minimum, op.limit.maximum);
  }
  const list = `${op.operationId}\n${campaignId}\n${id ?? ''}`;
  let offset = 0;
  if (op.pagination) {
    const name = op.pagination.cursor;
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
    const sent = query.includes(name) ? new URLSearchParams(query).getAll(name) : [];
    if (sent.length > 0) {
      const read = sent.length === 1 ? cursors.read(list, sent[0] as string) : undefined;
      if (read === undefined) return invalidCursor(name);
      offset = read;
    }
  }
  return { campaignId, id, limit, offset, cursorAt: (at) => cursors.issue(list, at) };
}

/**
 * The answers of an operation the project has no generator for: its seeded data from the schema
 * (`served-spec.ts`), a page of it for `limit` and the cursor, with the next cursor.
 */
export function schemaDataAnswer(op: ServedOperation, resources: SchemaResources): OperationAnswer {
  if (op.kind === 'collection') {
    return (asked) => {
      const page = pageOf(op, resources.list(op.operationId, asked.campaignId) ?? [], asked);
      return prepareBody(JSON.stringify(envelopeOf(op, page.entries, page.entries, page.next)));
    };
  }
  const property = op.paged?.length === 2 ? (op.paged[1] as string) : undefined;
  return (asked) => {
    const item =
      asked.id === undefined ? undefined : resources.item(op.operationId, asked.campaignId, asked.id);
    if (!item) return ITEM_NOT_FOUND;
    if (property === undefined) return prepareBody(JSON.stringify(envelopeOf(op, item, [])));
    const all = item[property];
    const page = pageOf(op, Array.isArray(all) ? all : [], asked);
    const data = { ...item, [property]: page.entries };
    return prepareBody(JSON.stringify(envelopeOf(op, data, page.entries, page.next)));
  };
}

function pageOf(op: ServedOperation, all: readonly unknown[], asked: Asked) {
  const end = asked.limit === undefined ? all.length : asked.offset + asked.limit;
  const entries = all.slice(asked.offset, end);
  const next = op.pagination && end < all.length ? asked.cursorAt(end) : null;
  return { entries, next };
}

/**
 * `/api/v1/lists/{id}` → a case-sensitive pattern, one trailing slash tolerated, no capture group:
 * Express would decode a captured id before authentication, and answer bad encodings itself.
 */
function routePattern(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^$()|[\]\\/]/g, '\\$&'))
    .join('(?:[^/]+)');
  return new RegExp(`^${source}\\/?$`);
}

function decodedId(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\/$/, ''));
  } catch {
    return undefined; // invalid percent-encoding names nothing
  }
}
