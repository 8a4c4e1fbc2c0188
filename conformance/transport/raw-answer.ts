/**
 * One request read off the socket, below any HTTP client's parser: its status line and headers, and
 * how many bytes came after the headers. A client that knows an answer to HEAD, a 204 or a 304 has
 * no content (RFC 9112 §6.3) stops reading at the blank line and drops whatever follows, so a
 * deployment that writes the GET body after a HEAD answer's headers looks bodyless through undici.
 * Here the request asks `Connection: close`, and the bytes are counted until the server closes, or
 * until it has been silent for a short while after the headers (a server that keeps the connection
 * open anyway): the wait is bounded by those events, and by the caller's signal.
 * It connects as `dispatcher.ts` does, with the same TLS options (the base URL's host as the name,
 * extra roots, `--insecure`, the client certificate); a proxy between is the caller's to refuse.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { TlsOptions } from './dispatcher.ts';

export interface RawRequest {
  /** The origin connected to, `http://host:port` or `https://host:port`. */
  origin: string;
  method: string;
  /** The request target as sent: path and query. */
  target: string;
  headers: Record<string, string>;
  /** TLS options of an https origin, the server name among them. */
  tls: TlsOptions & { servername?: string };
  signal: AbortSignal;
  /** Silence after the headers taken as the end of the answer, when the server keeps the connection. */
  idleMs?: number;
  /** Bytes of the head (status line and headers) read before giving up on it. */
  maxHeadBytes?: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The bytes that came after the blank line ending the headers. */
  afterHeaders: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Sends the request on a socket of its own and reads the answer's head and what follows it. */
export function rawAnswer(request: RawRequest): Promise<RawAnswer> {
  const url = new URL(request.origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const secure = url.protocol === 'https:';
  const port = Number(url.port || (secure ? 443 : 80));
  const idleMs = request.idleMs ?? 300;
  const maxHeadBytes = request.maxHeadBytes ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ host, port, ...request.tls, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host, port });
    let head: Buffer = Buffer.alloc(0);
    let answer: Omit<RawAnswer, 'afterHeaders'> | undefined;
    let afterHeaders = 0;
    let idle: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      request.signal.removeEventListener('abort', aborted);
      socket.destroy();
      if (answer) resolve({ ...answer, afterHeaders });
      else reject(error ?? protocolError('the connection closed before the headers', 'UND_ERR_SOCKET'));
    };
    const aborted = () =>
      finish(Object.assign(new Error('aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' }));
    if (request.signal.aborted) return aborted();
    request.signal.addEventListener('abort', aborted);
    const rearm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(), idleMs);
    };
    socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(requestText(request, url.host)));
    socket.on('data', (chunk: Buffer) => {
      if (answer) {
        afterHeaders += chunk.length;
        return rearm();
      }
      const read = headIn(Buffer.concat([head, chunk]));
      head = read.rest;
      if (read.answer === null) return finish(protocolError('not an HTTP answer', 'HPE_INVALID_CONSTANT'));
      if (read.answer) {
        answer = read.answer;
        afterHeaders = head.length;
        return rearm();
      }
      if (head.length > maxHeadBytes)
        finish(protocolError('the headers never ended', 'UND_ERR_HEADERS_OVERFLOW'));
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => finish(error));
  });
}

/**
 * The answer whose head `bytes` begin with, past any interim answer (100 Continue, 103 Early Hints),
 * and the bytes after its head; `answer` is undefined while the head is incomplete, null when the
 * bytes are no HTTP/1.x answer.
 */
function headIn(bytes: Buffer): { answer?: Omit<RawAnswer, 'afterHeaders'> | null; rest: Buffer } {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf(HEAD_END);
    if (end < 0) return { rest };
    const answer = headOf(rest.subarray(0, end).toString('latin1'));
    rest = rest.subarray(end + HEAD_END.length);
    if (!answer) return { answer: null, rest };
    if (answer.status >= 200) return { answer, rest };
  }
}

const protocolError = (message: string, code: string) => Object.assign(new Error(message), { code });

/** The request's bytes: its line, `Host`, the headers given, and `Connection: close`. */
function requestText(request: RawRequest, authority: string): string {
  const headers = Object.entries(request.headers).filter(
    ([name]) =>
      !['connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name.toLowerCase()),
  );
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) headers.unshift(['Host', authority]);
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...headers.map(([n, v]) => `${n}: ${v}`)];
  return `${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`;
}

/** The status and headers of a head, or undefined when it is no HTTP/1.x answer. */
function headOf(text: string): Omit<RawAnswer, 'afterHeaders'> | undefined {
  const [line = '', ...fields] = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(line);
  if (!match) return undefined;
  const headers: Record<string, string | string[]> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    if (colon <= 0) continue;
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field.slice(colon + 1).trim();
    const known = headers[name];
    headers[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  }
  return { status: Number(match[1]), headers };
}
