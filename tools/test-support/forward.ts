/** Passing a request on to the server behind a test's proxy or gateway, unchanged. */
import { request, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * Sends `req` on to `upstream` (at `path`, its own by default) and hands the answer to `answered`;
 * by default the answer goes back as it came. A lost upstream cuts the client's connection.
 */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: URL,
  answered: (answer: IncomingMessage) => void = (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    answer.pipe(res);
  },
  path: string = req.url ?? '/',
): void {
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers },
    answered,
  );
  out.once('error', () => res.destroy());
  req.pipe(out);
}
