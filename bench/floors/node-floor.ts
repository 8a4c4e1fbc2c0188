/**
 * The Node floor: bare `node:http` answering each benchmarked path from memory with the bytes the
 * reference server wrote, its header lines included (the request id it happened to send, the same
 * length as any other). Nothing a server could leave out is done here, so no server of these bytes
 * can be much faster.
 *
 * With `--hold-walks N` it first generates the reference server's data set of N walks and holds
 * it, untouched, while it serves: the same bare answers from a process whose heap is as large as
 * the reference server's. The benchmark reports it beside the bare floor, so that what a large
 * heap costs every request is told apart from what the reference server does per request.
 */
import { createServer } from 'node:http';
import { generateDataset } from '../../fixtures/index.ts';
import { onStopSignal } from '../../command-line/signals.ts';
import { floorArgs } from './served-bytes.ts';

const { port, routes, holdWalks } = floorArgs(process.argv.slice(2));
/** Exported, so it stays reachable for as long as the process runs. */
export const held = holdWalks > 0 ? generateDataset({ walks: holdWalks }) : undefined;
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
