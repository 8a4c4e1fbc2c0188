/**
 * The Node floor's server: bare `node:http` answering each benchmarked path from memory with the
 * bytes the reference server wrote, its header lines included (the request id it happened to send,
 * the same length as any other). Nothing a server could leave out is done here, so no server of
 * these bytes can be much faster. Both Node floors (`node-floor.ts`, `held-node-floor.ts`) run it.
 */
import { createServer } from 'node:http';
import { onStopSignal } from '../../command-line/signals.ts';
import type { FloorArgs } from './served-bytes.ts';

export function serveBareAnswers({ port, routes }: FloorArgs): void {
  const answers = new Map([...routes].map(([path, body]) => [path, { headers: body.headers, body }]));
  const server = createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, answer.headers);
    res.end(answer.body.bytes);
  });
  server.listen(port, '127.0.0.1');
  onStopSignal(() => {
    server.close();
    process.exit(0);
  });
}
