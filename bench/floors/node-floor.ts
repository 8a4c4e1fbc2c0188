/**
 * The Node floor: bare `node:http` answering each benchmarked path with its bytes from memory.
 * Nothing a server could leave out is done here, so no server of these bytes can be much faster.
 */
import { createServer } from 'node:http';
import { floorArgs, JSON_CONTENT_TYPE, stopOnSignals } from './served-bytes.ts';

const { port, routes } = floorArgs(process.argv.slice(2));
const server = createServer((req, res) => {
  const body = routes.get(req.url ?? '');
  if (!body) {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': body.length });
  res.end(body);
});
server.listen(port, '127.0.0.1');
stopOnSignals(() => server.close());
