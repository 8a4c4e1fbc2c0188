/**
 * The Node floor: bare `node:http` answering each benchmarked path with its bytes from memory.
 * Nothing a server could leave out is done here, so no server of these bytes can be much faster.
 */
import { createServer } from 'node:http';
import { bodyHeaders, floorArgs, stopOnSignals } from './served-bytes.ts';

const { port, routes } = floorArgs(process.argv.slice(2));
// Headers built once per path, as the reference server builds its bodies once.
const answers = new Map([...routes].map(([path, body]) => [path, { headers: bodyHeaders(body), body }]));
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
stopOnSignals(() => server.close());
