/**
 * What a failed attempt was, told from what undici threw and how far the answer had come: the
 * proxy's refusal, a certificate or handshake TLS did not accept, a connection refused, a name not
 * found, a timeout, a reset; and, once the status and headers had arrived, a cut answer (`cut`):
 * its body stopped short of its Content-Length, its chunked framing broke, or the connection closed
 * before it ended. A cut is the deployment's fault on that answer (ENVELOPE-016), never a sign that
 * nothing answers: only failures that leave no answer at all (`saysNothingAnswers`) can tell a client
 * the target is gone. An answer that began, declared a Content-Length, and was still short of it
 * when `--timeout` ended its attempt is cut too, not a timeout: the target did answer.
 */
import { RESPONSE_CAP_FLAG } from '../core/exchange.ts';
import type { CutAnswer, FailureKind, NetworkFailure } from '../core/exchange.ts';
import type { ProxySetting } from '../core/configuration.ts';
import { safeDecode, shownProxy } from './reach.ts';

/** Errors of the suite's own side (no socket, no file descriptor): the request never reached the target. */
const LOCAL_ERRORS: ReadonlySet<string> = new Set([
  'EADDRNOTAVAIL',
  'EMFILE',
  'ENFILE',
  'ENOBUFS',
  'EADDRINUSE',
]);

/** A failure of the suite's own side (`local`), which the client tries again whatever the method. */
export type AttemptFailure = NetworkFailure & { local?: true };

/** Failures that leave no answer at all: enough of them in a row, and the client asks whether the target is gone. */
const NOTHING_ANSWERS: ReadonlySet<FailureKind> = new Set([
  'connect',
  'timeout',
  'refused',
  'dns',
  'reset',
  'tls',
  'proxy',
]);

/** Whether a failure leaves no answer at all (no connection, no byte, or nothing in time). */
export function saysNothingAnswers(failure: NetworkFailure): boolean {
  return NOTHING_ANSWERS.has(failure.kind);
}

/** How far an answer had come when it failed: its status and headers, and the body's bytes so far. */
export interface Arrival {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  arrived: number;
}

/**
 * An answer that began and did not end whole: what it declared (its Content-Length, or chunked
 * framing) and what arrived, and why it ended (the connection closed, or the framing broke).
 */
function cutOf(error: unknown, arrival: Arrival): NetworkFailure {
  const err = error as { code?: string; name?: string; message?: string };
  const code = err.code ?? (err.name === 'HTTPParserError' ? 'HTTPParserError' : '');
  const declared = declaredLength(arrival);
  const chunked = /chunked/i.test([arrival.headers['transfer-encoding'] ?? []].flat().join(','));
  const cut: CutAnswer = {
    status: arrival.status,
    arrived: arrival.arrived,
    ...(declared !== undefined ? { declared } : {}),
    ...(chunked ? { chunked: true as const } : {}),
  };
  const framing = code.startsWith('HPE_') || err.name === 'HTTPParserError';
  const promised =
    declared !== undefined
      ? `Content-Length: ${declared}`
      : chunked
        ? 'Transfer-Encoding: chunked'
        : 'no length (the connection closing ends the body)';
  const ended = framing
    ? `its framing broke after ${arrival.arrived} bytes (${err.message ?? code})`
    : `the connection closed after ${arrival.arrived} bytes${code ? ` (${code})` : ''}`;
  return {
    kind: 'cut',
    ...(code ? { code } : {}),
    message: `the answer was cut: status ${arrival.status} declared ${promised}, and ${ended}`,
    cut,
  };
}

/** The Content-Length an answer declared, when it declared one. */
function declaredLength(arrival: Arrival): number | undefined {
  const header = [arrival.headers['content-length'] ?? []].flat()[0];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}

/**
 * What a body that broke off after its status was: past `--max-response-bytes` (undici's
 * `maxResponseSize` ended it), or cut.
 */
export function brokenOffOf(error: unknown, arrival: Arrival, maxBytes: number): NetworkFailure {
  if ((error as { code?: string }).code !== 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return cutOf(error, arrival);
  return {
    kind: 'too-large',
    message: `the answer (status ${arrival.status}) exceeded ${maxBytes} bytes and was cut off (${RESPONSE_CAP_FLAG})`,
  };
}

/**
 * An attempt `--timeout` ended: a cut when its answer had begun with a Content-Length longer than
 * what arrived (the target answered, and stopped short), else a timeout.
 */
export function timedOutOf(arrival: Arrival | undefined, timeoutMs: number): NetworkFailure {
  const declared = arrival && declaredLength(arrival);
  if (!arrival || declared === undefined || declared <= arrival.arrived) {
    return { kind: 'timeout', message: `no complete answer within ${timeoutMs} ms (--timeout)` };
  }
  return {
    kind: 'cut',
    message: `the answer was cut: status ${arrival.status} declared Content-Length: ${declared}, and ${arrival.arrived} bytes had arrived when --timeout (${timeoutMs} ms) ended it`,
    cut: { status: arrival.status, declared, arrived: arrival.arrived },
  };
}

/** What an attempt that threw was: the suite's own trouble (`local`), or the target's way's. */
export function thrownFailureOf(error: unknown, proxy: ProxySetting | undefined): AttemptFailure {
  const code = (error as { code?: string }).code ?? '';
  if (LOCAL_ERRORS.has(code)) {
    return { kind: 'network', message: `the suite could not open a connection (${code})`, local: true };
  }
  return failureOf(error, proxy);
}

function failureOf(error: unknown, proxy: ProxySetting | undefined): NetworkFailure {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = err.message ?? String(error);
  return (
    proxyFailureOf(code, message, proxy) ??
    tlsFailureOf(code, message) ??
    plainFailureOf(error, code, message)
  );
}

/**
 * Through a proxy the suite connects only to the proxy: a refused, unknown or silent address is the
 * proxy's, and a refused CONNECT (or a 407) is the proxy saying no.
 */
function proxyFailureOf(
  code: string,
  message: string,
  proxy: ProxySetting | undefined,
): NetworkFailure | undefined {
  if (!proxy) return undefined;
  const where = `the proxy ${shownProxy(proxy)} (${proxy.from})`;
  if (PROXY_CONNECT_CODES.has(code)) {
    return { kind: 'proxy', code, message: `${where} cannot be reached (${code})` };
  }
  const refused = /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(message);
  const status = refused?.[1] ?? refused?.[2];
  if (status === undefined) return undefined;
  // A 407 to credentials sent is a wrong user or password: the user is named, never the password.
  const user = new URL(proxy.url).username;
  const what =
    status !== '407'
      ? `answered ${status} to CONNECT`
      : user
        ? `refused the credentials of user ${JSON.stringify(safeDecode(user))} (407)`
        : 'asks for credentials (407)';
  return { kind: 'proxy', code: `PROXY_${status}`, message: `${where} ${what}` };
}
const PROXY_CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
]);

/** Node's codes of a certificate it does not accept, and OpenSSL's of a handshake that failed. */
function tlsFailureOf(code: string, message: string): NetworkFailure | undefined {
  if (CERTIFICATE_CODES.has(code))
    return { kind: 'tls', code, message: `the TLS certificate is not accepted: ${message} (${code})` };
  if (code.startsWith('ERR_SSL_'))
    return { kind: 'tls', code, message: `the TLS handshake failed (${code})` };
  return undefined;
}
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function plainFailureOf(error: unknown, code: string, message: string): NetworkFailure {
  if (code === 'ECONNREFUSED')
    return { kind: 'refused', message: 'connection refused: nothing listens there' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', message: 'host name not found' };
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return { kind: 'timeout', message: `no complete answer in time (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return { kind: 'reset', code, message: `the connection was closed before a complete answer (${code})` };
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return {
      kind: 'too-large',
      message: `the answer's headers exceeded the client's limit and were refused (${code})`,
    };
  }
  if (
    code.startsWith('HPE_') ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    (error as Error).name === 'HTTPParserError'
  ) {
    return {
      kind: 'protocol',
      message: `the answer is not valid HTTP (${code ? `${code}: ` : ''}${message})`,
    };
  }
  return { kind: 'network', message: code ? `${code}: ${message}` : message };
}
