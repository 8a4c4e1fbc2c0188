/**
 * Gateways that cut answers, the way real ones do, in front of a real server on 127.0.0.1: one
 * resets the connection instead of passing on an answer over a size limit (a body buffer of 64 KiB),
 * one sends 404 bodies shorter than the Content-Length they declare and closes the connection (or
 * holds it open), one breaks the chunked framing of some answers. Every other answer passes whole, so the target is
 * there and answering: what they do is the deployment's fault, not a target gone.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { forward } from './forward.ts';
import { type Listening, listen } from './listen.ts';

/** An answer of the server behind, read whole. */
interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What a gateway does with one answer: passes it on (`undefined`) or cuts it on `socket`. */
export type Cut = (upstream: Upstream, req: IncomingMessage, socket: Socket) => 'cut' | undefined;

/** Headers that describe the framing of the hop, not the answer: a gateway writes its own. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** A gateway in front of `origin` that cuts the answers `cut` says, and counts what it cut. */
export async function startCuttingGateway(
  origin: string,
  cut: Cut,
): Promise<Listening & { cuts: () => number }> {
  const upstream = new URL(origin);
  let cuts = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    forward(req, res, upstream, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.once('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (typeof value === 'string' && !HOP_HEADERS.has(name)) headers[name] = value;
        }
        const whole = { status: answer.statusCode ?? 502, headers, body: Buffer.concat(chunks) };
        if (cut(whole, req, req.socket) === 'cut') {
          cuts++;
          return;
        }
        res.writeHead(whole.status, { ...headers, 'content-length': String(whole.body.length) });
        res.end(req.method === 'HEAD' ? undefined : whole.body);
      });
    });
  });
  const listening = await listen(server);
  return { ...listening, cuts: () => cuts };
}

/** The body limit of the gateway that resets larger answers. */
const BODY_LIMIT = 64 * 1024;

/** Resets the connection (TCP RST, no answer at all) instead of passing on a body over 64 KiB. */
export const resetsOverLimit: Cut = (upstream, _req, socket) => {
  if (upstream.body.length <= BODY_LIMIT) return undefined;
  socket.resetAndDestroy();
  return 'cut';
};

/** The head of an answer as the gateway writes it on the socket itself, with `framing` headers. */
function head(upstream: Upstream, framing: Record<string, string>): string {
  const headers = { ...upstream.headers, ...framing, connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${upstream.status} Cut\r\n${lines.join('')}\r\n`;
}

/** A 404 declares its whole length, sends half of it, and the connection closes. */
export const shortNotFound: Cut = (upstream, req, socket) => {
  if (upstream.status !== 404 || req.method === 'HEAD') return undefined;
  const half = upstream.body.subarray(0, Math.floor(upstream.body.length / 2));
  socket.end(
    Buffer.concat([Buffer.from(head(upstream, { 'content-length': String(upstream.body.length) })), half]),
  );
  return 'cut';
};

/**
 * The first 404 to a request `chosen` picks declares its whole length, sends half of it, and the
 * connection stays open: the client's `--timeout` ends it, with the answer begun and short.
 */
export function heldShortNotFound(chosen: (req: IncomingMessage) => boolean): Cut {
  let held = false;
  return (upstream, req, socket) => {
    if (held || upstream.status !== 404 || req.method === 'HEAD' || !chosen(req)) return undefined;
    held = true;
    const half = upstream.body.subarray(0, Math.floor(upstream.body.length / 2));
    const framing = { 'content-length': String(upstream.body.length) };
    socket.write(Buffer.concat([Buffer.from(head(upstream, framing)), half]));
    return 'cut';
  };
}

/**
 * Every `every`-th answer with a body goes out chunked, its first chunk whole and the next one's
 * size line not hexadecimal: the framing breaks in the middle of the body.
 */
export function brokenChunks(every: number): Cut {
  let answers = 0;
  return (upstream, req, socket) => {
    if (req.method === 'HEAD' || upstream.body.length < 2 || ++answers % every !== 0) return undefined;
    const first = upstream.body.subarray(0, Math.floor(upstream.body.length / 2));
    const chunk = `${first.length.toString(16)}\r\n`;
    socket.end(
      Buffer.concat([
        Buffer.from(head(upstream, { 'transfer-encoding': 'chunked' }) + chunk),
        first,
        Buffer.from('\r\nnot-a-size\r\n'),
      ]),
    );
    return 'cut';
  };
}
