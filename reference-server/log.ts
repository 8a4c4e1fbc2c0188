/**
 * Structured logs through pino: one JSON line per request (pino-http: the request's id, method
 * and path, the status, the response time) and a few lifecycle lines. A key never reaches a line:
 * a request line holds no header, no query string and no body, only the path, and anything
 * key-shaped in the path (a prefixed key, or a long run of letters and digits) is masked. The two
 * headers that carry keys are redacted besides, so a serializer that ever adds headers still
 * writes none of them.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { KEY_PREFIX } from '../spec/facts.ts';

const KEY_IN_TEXT = new RegExp(`${KEY_PREFIX}[^/?#&\\s]*`, 'gi');
/**
 * A run of letters and digits longer than any id segment (UUID parts are at most 12): a key body
 * sent without its prefix, or after a percent-encoded one, is masked too.
 */
const LONG_TOKEN = /[A-Za-z0-9]{24,}/g;
const MAX_LOGGED_PATH = 512;

/** Where a key could sit in what pino-http logs of a request, were its headers logged. */
const KEY_HEADERS = ['req.headers.authorization', 'req.headers["x-api-key"]'];

/**
 * The server's logger: JSON lines with an ISO time and the level's name, to `destination`
 * (standard output by default, written as each line is logged, so the lines stay in order when
 * the process exits right after one).
 */
export function createLogger(destination?: DestinationStream): Logger {
  return pino(
    {
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: KEY_HEADERS, censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * The Express middleware writing each request's line once its answer is finished or its
 * connection gone. The request id is the one `request-context.ts` gave the request.
 */
export function requestLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    // A failure the server did not mean to answer with (a 5xx, or an error it caught) is an error.
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: loggablePath(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

/** The path of a request URL for the log: no query string, keys masked, bounded length. */
function loggablePath(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const masked = path.replace(KEY_IN_TEXT, `${KEY_PREFIX}[redacted]`).replace(LONG_TOKEN, '[redacted]');
  return masked.length > MAX_LOGGED_PATH ? `${masked.slice(0, MAX_LOGGED_PATH)}…` : masked;
}
