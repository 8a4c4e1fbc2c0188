/**
 * The two successful live answers, served in front of the Express app. Express's per-request
 * set-up (prototype swaps on `req` and `res`, a final handler, router dispatch) costs more CPU
 * than writing a 100 KB list to the socket; partners poll these two endpoints, everything else
 * is rare.
 *
 * It stands in front of the app through public API only: an Express app is a request listener,
 * so the server calls `hot(req, res) || app(req, res)` (`createRequestListener` in `app.ts`). It
 * serves only 200 and 304, built by the very functions the routes use (`authorize`,
 * `listAnswer`/`detailAnswer` of `walk-answers.ts`, `beginRequest`, `sendPrepared`), and hands
 * every other request to the app untouched: a refusal, a bad `limit`, an unknown walk, another
 * method or path, a body, a missing `Host`.
 * `test/hot-path.test.ts` holds its answers byte-identical to the routes'.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WALKS_PATH } from '../spec/facts.ts';
import type { Authorizer } from './auth/require-key.ts';
import type { PreparedBody } from './envelope.ts';
import { OUR_SENDING, sendPrepared } from './envelope.ts';
import type { LogSink } from './log.ts';
import type { WalkRepository } from './repository.ts';
import { hasRequestBody } from './request-body.ts';
import { beginRequest, lacksHost } from './request-context.ts';
import { detailAnswer, listAnswer, WALK_PATH } from './walk-answers.ts';

/** Answers the request and returns true, or returns false having touched nothing. */
export type HotPath = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface HotPathOptions {
  repository: WalkRepository;
  authorize: Authorizer;
  log: LogSink | false;
}

/**
 * Given the app's own `authorize`, without a rate limiter: counting a request the app then
 * answers would count it twice, so a rate-limited server has no hot path; nor has a server
 * serving a variant, latency or faults (`createRequestListener` leaves it out).
 */
export function walksHotPath({ repository, authorize, log }: HotPathOptions): HotPath {
  return (req, res) => {
    const body = successBody(req);
    if (!body) return false;
    beginRequest(req, res, log);
    sendPrepared(req, res, body, OUR_SENDING);
    return true;
  };

  /** The body a GET or HEAD of the two endpoints succeeds with; undefined for anything else. */
  function successBody(req: IncomingMessage): PreparedBody | undefined {
    // A `Prefer` header may steer the answer to an error (`steering.ts`): the app's to decide.
    const steerable = req.headers.prefer !== undefined;
    if (
      (req.method !== 'GET' && req.method !== 'HEAD') ||
      hasRequestBody(req) ||
      lacksHost(req) ||
      steerable
    ) {
      return undefined;
    }
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const isList = path === WALKS_PATH || path === `${WALKS_PATH}/`;
    if (!isList && !WALK_PATH.test(path)) return undefined;
    const { grant } = authorize(req);
    if (!grant) return undefined;
    const walks = repository.campaign(grant.campaignId);
    if (!walks) return undefined;
    const answer = isList ? listAnswer(url, walks) : detailAnswer(path, walks);
    return 'etag' in answer ? answer : undefined;
  }
}
